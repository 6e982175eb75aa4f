"""Cache and artifact keys come from the judge's own settings: a changed setting recomputes the stages it
decides (and those after them) and nothing else, and the report's cached annotation folders never serve a run
made with other settings."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil

import pytest

from toolex.annotate.identity import STAGES, judge_identity, judge_stage_settings
from toolex.annotate.judges import OfflineSimilarityJudge
from toolex.annotate.judges.llm import LLMJudge
from toolex.annotate.judges.scoring import default_model
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.llm import LLMClient, LLMSettings, ResponseCache

from .fakes import BagOfWords, count_stages, tiny_benchmark
from .responder import RuleServer

SECRET = "sk-secret-never-in-a-key"


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    for var in [v for v in list(os.environ) if v.startswith("TOOLEX_LLM_") or v == "OPENAI_API_KEY"]:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("TOOLEX_AUDIT_DEPENDENCY", raising=False)
    monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "artifacts"))
    monkeypatch.setenv("TOOLEX_LLM_API_KEY", SECRET)


@pytest.fixture(scope="module")
def server():
    with RuleServer() as s:
        yield s


def _settings(base_url: str = "http://127.0.0.1:9/v1", **changes) -> LLMSettings:
    fields = {"model": "rule-model", "response_format": "json_object", "max_retries": 1, "timeout": 10.0,
              "backoff": 0.01, **changes}
    return LLMSettings(base_url=base_url, **fields)


def _judge(root, base_url: str = "http://127.0.0.1:9/v1", stage_models=None, audit_dependency=None,
           **changes) -> LLMJudge:
    settings = _settings(base_url, **changes)
    clients = {s: LLMClient(settings.replace(model=m), cache=ResponseCache(root))
               for s, m in (stage_models or {}).items()}
    return LLMJudge(client=LLMClient(settings, cache=ResponseCache(root)), clients=clients, progress=False,
                    audit_dependency=audit_dependency)


def _changed(a, b) -> set[str]:
    return {s for s in STAGES if judge_stage_settings(a, s) != judge_stage_settings(b, s)}


# -- keys of a built judge -----------------------------------------------------------------------------------


def test_llm_stage_settings_follow_each_setting_to_its_stages(tmp_path):
    base = _judge(tmp_path)
    assert _changed(base, _judge(tmp_path, temperature=0.7)) == set(STAGES)
    assert _changed(base, _judge(tmp_path, extra_body={"top_p": 0.5})) == set(STAGES)
    assert _changed(base, _judge(tmp_path, stage_models={"audit": "other"})) == {"audit"}
    assert _changed(base, _judge(tmp_path, stage_models={"verify": "other"})) == {"verify"}
    assert _changed(base, _judge(tmp_path, audit_dependency="same-platform")) == {"audit"}
    # what does not decide an answer is no part of a key, and neither is the API key
    assert _changed(base, _judge(tmp_path, timeout=99.0, concurrency=7, max_retries=3)) == set()
    assert SECRET not in json.dumps(judge_identity(base))


def test_offline_score_model_decides_verification_only():
    bow = BagOfWords()
    model = default_model()
    strict = dataclasses.replace(model, threshold=min(model.band[1], model.threshold + 0.01))
    base, other = OfflineSimilarityJudge(bow, model), OfflineSimilarityJudge(bow, strict)
    assert _changed(base, other) == {"verify"}
    encoder = OfflineSimilarityJudge(BagOfWords("bow-other"), model)
    assert _changed(base, encoder) == {"decompose", "verify", "audit"}  # its name is in every record
    assert "calibrated_on" not in judge_stage_settings(base, "verify")


def test_the_same_model_in_another_runtime_is_another_judge_and_says_so():
    mpnet = "sentence-transformers/all-mpnet-base-v2"

    class OpenVinoEncoder:
        def settings(self):
            return {"kind": "openvino", "model": mpnet, "precision": "bf16"}

    class StEncoder(OpenVinoEncoder):
        def settings(self):
            return {"kind": "sentence-transformers", "model": mpnet}

    model = default_model()
    torch_bow, openvino_bow = BagOfWords(), BagOfWords()
    torch_bow.encoder, openvino_bow.encoder = StEncoder(), OpenVinoEncoder()
    base, fast = OfflineSimilarityJudge(torch_bow, model), OfflineSimilarityJudge(openvino_bow, model)
    assert base.name == "offline-similarity(mpnet)"
    assert fast.name == "offline-similarity(mpnet, openvino bf16)"
    assert _changed(base, fast) == {"decompose", "verify", "audit"}


# -- recomputation in the pipeline ---------------------------------------------------------------------------


def _pipeline(bench, judge, out, **config):
    return ToolEX([bench], judge, out,
                  AnnotateConfig(retriever="bow", top_k=6, **{"max_combinations": 8, **config}),
                  retriever=BagOfWords(), progress=False)


def _recomputed(bench, judge, base_folder, out, **config) -> dict[str, int]:
    shutil.copytree(base_folder, out)
    counts = count_stages(judge)
    _pipeline(bench, judge, out, **config).run()
    return dict(counts)


def test_a_changed_llm_setting_recomputes_its_stages_only(tmp_path, server):
    bench, cache = tiny_benchmark(), tmp_path / "llm-cache"
    judge = _judge(cache, server.base_url)
    counts = count_stages(judge)
    _pipeline(bench, judge, tmp_path / "base").run()
    assert dict(counts) == {"decompose": 1, "verify": 1, "audit": 1}
    base = tmp_path / "base"

    def rerun(name, **changes):
        config = changes.pop("config", {})
        return _recomputed(bench, _judge(cache, server.base_url, **changes), base, tmp_path / name, **config)

    assert rerun("same") == {}
    assert rerun("volatile", timeout=33.0, concurrency=3) == {}
    assert rerun("dependency", audit_dependency="same-platform") == {"audit": 1}
    assert rerun("audit-model", stage_models={"audit": "judge-b"}) == {"audit": 1}
    assert rerun("limit", config={"max_combinations": 3}) == {"audit": 1}
    assert rerun("verify-model", stage_models={"verify": "judge-b"}) == {"verify": 1, "audit": 1}
    assert rerun("temperature", temperature=0.5) == {"decompose": 1, "verify": 1, "audit": 1}


def test_a_changed_score_model_recomputes_verification_and_what_follows(tmp_path):
    bench, bow = tiny_benchmark(), BagOfWords()
    model = default_model()
    judge = OfflineSimilarityJudge(bow, model)
    _pipeline(bench, judge, tmp_path / "base").run()
    assert _recomputed(bench, OfflineSimilarityJudge(bow, model), tmp_path / "base", tmp_path / "same") == {}
    strict = dataclasses.replace(model, threshold=min(model.band[1], model.threshold + 0.01))
    assert _recomputed(bench, OfflineSimilarityJudge(bow, strict), tmp_path / "base",
                       tmp_path / "strict") == {"verify": 1, "audit": 1}


def test_a_stage_whose_input_changed_is_recomputed(tmp_path):
    """A run killed after Stage 2 was redone leaves Stage 3 with the old key: its input digest tells."""
    bench, bow = tiny_benchmark(), BagOfWords()
    model = default_model()
    out = tmp_path / "run"
    _pipeline(bench, OfflineSimilarityJudge(bow, model), out).run()
    verified = (out / "verified.jsonl").read_bytes()
    strict = dataclasses.replace(model, threshold=model.band[1])
    judge = OfflineSimilarityJudge(bow, strict)
    run = _pipeline(bench, judge, out)
    run.verify(run.decompose())  # Stage 2 redone, then the run dies before Stage 3
    assert (out / "verified.jsonl").read_bytes() != verified
    counts = count_stages(judge)
    _pipeline(bench, judge, out).run()
    assert dict(counts) == {"audit": 1}


# -- the report's cached annotation folders ------------------------------------------------------------------


def _ensure(bench, monkeypatch):
    from toolex.experiments import workspace as artifacts

    monkeypatch.setitem(artifacts._RETRIEVERS, "bow", BagOfWords())
    return artifacts.ensure_toolex("api", "tiny-key", [bench], bench.queries,
                                   AnnotateConfig(retriever="bow", top_k=5, max_combinations=4), "api")


def test_ensure_toolex_never_reuses_a_folder_made_with_other_settings(monkeypatch, server):
    bench = tiny_benchmark()
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("TOOLEX_LLM_MODEL", "rule-model")
    monkeypatch.setenv("TOOLEX_LLM_RESPONSE_FORMAT", "json_object")
    first = _ensure(bench, monkeypatch)
    calls, manifest = server.calls, first.path("manifest.json").read_bytes()
    assert _ensure(bench, monkeypatch).folder == first.folder and server.calls == calls
    assert first.path("manifest.json").read_bytes() == manifest  # reused as it was
    monkeypatch.setenv("TOOLEX_LLM_TIMEOUT", "45")  # does not decide an answer: same folder
    assert _ensure(bench, monkeypatch).folder == first.folder
    folders = {first.folder}
    for var, value in (("TOOLEX_LLM_TEMPERATURE", "0.7"), ("TOOLEX_LLM_AUDIT_MODEL", "judge-b"),
                       ("TOOLEX_AUDIT_DEPENDENCY", "same-platform")):
        monkeypatch.setenv(var, value)
        folder = _ensure(bench, monkeypatch)
        assert folder.folder not in folders, var
        folders.add(folder.folder)
        recorded = folder.manifest()["judge"]
        assert recorded["stages"]["audit"]["temperature"] == 0.7
    assert recorded["models"]["audit"] == "judge-b" and recorded["audit_dependency"] == "same-platform"


def test_offline_folder_key_follows_the_score_model_without_loading_an_encoder(monkeypatch):
    from toolex.experiments import workspace as artifacts

    def no_model(*args, **kwargs):
        raise AssertionError("the key must not build a retriever")

    monkeypatch.setattr(artifacts, "open_retriever", no_model)
    config = AnnotateConfig()
    key = artifacts._judge_key("offline", config)
    model = default_model()
    assert artifacts._judge_key("offline", config) == key
    lenient = dataclasses.replace(model, threshold=model.band[0])
    monkeypatch.setattr(artifacts, "default_model", lambda: lenient)
    assert artifacts._judge_key("offline", config) != key
    assert artifacts._judge_key("offline", AnnotateConfig(retriever="dense:minilm")) != key
