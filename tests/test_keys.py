"""One module hashes, one length names: content keys, checksums, and folders and manifests of the earlier
16-character format still found and used."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

from tests.annotate.fakes import BagOfWords, count_stages, tiny_benchmark
from tests.annotate.responder import RuleServer
from toolex import __version__, keys
from toolex.annotate.identity import (
    STAGE_VERSIONS,
    annotation_key,
    config_part,
    former_settings,
    judge_identity,
    judge_stage_settings,
)
from toolex.annotate.judges import OfflineSimilarityJudge
from toolex.annotate.judges.llm import LLMJudge
from toolex.annotate.judges.scoring import default_model
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.annotate.prompts import prompt_versions
from toolex.experiments import workspace
from toolex.llm import LLMClient, LLMSettings, ResponseCache
from toolex.retrieval.embedding_cache import EmbeddingCache, settings_key

PACKAGE = Path(__file__).resolve().parents[1] / "toolex"


def _former(*parts, length=16) -> str:
    """The digest the package wrote before keys had one length."""
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True, default=str).encode()).hexdigest()[:length]


def test_only_the_keys_module_imports_hashlib():
    importers = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "hashlib" for n in names):
                importers.append(path.relative_to(PACKAGE).as_posix())
    assert importers == ["keys.py"]


def test_every_content_key_has_one_length_and_begins_the_former_longer_one():
    parts = (["c0ffee"], ["q1", "q2"], {"pool": "all", "x": 1.5})
    assert len(keys.key(*parts)) == keys.KEY_LENGTH == 12
    assert _former(*parts).startswith(keys.key(*parts))
    assert keys.is_legacy_of(_former(*parts), keys.key(*parts))
    current = keys.key(*parts)
    assert keys.same_key(_former(*parts), current) and keys.same_key(current, current)
    assert not keys.same_key(_former("other"), current) and not keys.same_key(None, current)
    assert len(annotation_key("q", {"judge": 1}, AnnotateConfig(), "1.0")) == 12
    assert len(settings_key({"model": "m", "dim": 3})) == 12
    assert {len(v.rsplit("-", 1)[1]) for v in prompt_versions().values()} == {12}
    assert keys.checksum("abc") == hashlib.sha256(b"abc").hexdigest()  # checksums are never shortened
    assert keys.stream_checksum([b"a", b"bc"]) == keys.checksum(b"abc")


def test_adopt_renames_the_one_folder_of_the_former_format_and_says_so(tmp_path, capsys):
    wanted = tmp_path / f"model-{keys.key_of({'a': 1})}"
    legacy = tmp_path / f"model-{hashlib.sha256(keys.canonical({'a': 1})).hexdigest()[:16]}"
    (legacy / "inside").mkdir(parents=True)
    assert keys.adopt(wanted) == wanted and (wanted / "inside").is_dir() and not legacy.exists()
    assert "renamed to" in capsys.readouterr().err
    other = tmp_path / f"other-{keys.key_of(2)}"
    for suffix in ("aaaa", "bbbb"):  # two candidates: neither is taken
        Path(f"{other}{suffix}").mkdir()
    assert keys.adopt(other) == other and not other.exists()
    assert not keys.is_legacy_of(f"{other.name}zzzz", other.name)  # not hex: not a longer key
    assert keys.is_legacy_of(f"{other.name}abcd", other.name)


def test_an_embedding_cache_of_the_former_format_is_reused(tmp_path):
    settings = {"model": "bow", "dim": 4}
    former = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
    legacy = tmp_path / f"bow-{former}"
    legacy.mkdir()
    (legacy / "marker").write_text("kept")
    cache = EmbeddingCache(settings, tmp_path)
    assert cache.folder.name == f"bow-{settings_key(settings)}" and (cache.folder / "marker").exists()


def test_an_annotation_folder_of_the_former_format_is_reused_and_its_keys_rewritten(tmp_path, capsys):
    bench, bow, model = tiny_benchmark(), BagOfWords(), default_model()
    config = AnnotateConfig(retriever="bow", top_k=6, max_combinations=8)
    out = tmp_path / "run"
    ToolEX([bench], OfflineSimilarityJudge(bow, model), out, config, retriever=bow, progress=False).run()
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    former_fp = _former([bench.checksum], [q.id for q in bench.queries], config.pool)
    assert former_fp.startswith(manifest["data_fingerprint"])
    judge = OfflineSimilarityJudge(bow, model)
    manifest["data_fingerprint"] = former_fp
    for stage, info in manifest["stages"].items():
        info["key"] = _former(former_fp, stage, STAGE_VERSIONS[stage], judge_stage_settings(judge, stage),
                              config_part(config, stage))
    manifest_path.write_text(json.dumps(manifest))
    counts = count_stages(judge)
    ToolEX([bench], judge, out, config, retriever=bow, progress=False, refuse_other=True).run()
    assert dict(counts) == {}  # nothing recomputed, nothing refused
    rewritten = json.loads(manifest_path.read_text())
    assert len(rewritten["data_fingerprint"]) == 12
    assert {len(info["key"]) for info in rewritten["stages"].values()} == {12}
    assert "keys rewritten in the 12-character format" in capsys.readouterr().err


def _to_former_format(out, judge, config, bench):
    """Rewrite a fresh folder's manifest as the package wrote it before keys had one length."""
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    former_fp = _former([bench.checksum], [q.id for q in bench.queries], config.pool)
    manifest["data_fingerprint"] = former_fp
    for stage, info in manifest["stages"].items():
        info["key"] = _former(former_fp, stage, STAGE_VERSIONS[stage],
                              former_settings(judge_stage_settings(judge, stage)), config_part(config, stage))
    manifest_path.write_text(json.dumps(manifest))


def test_former_prompt_versions_carry_the_hash_of_today_cut_to_8_characters():
    assert former_settings({"v": ["audit-v4-runtime-58ec3cb17f06", "decompose-v4-8782a1b21221", "x-1"]}) == {
        "v": ["audit-v4-runtime-58ec3cb1", "decompose-v4-8782a1b2", "x-1"]}
    assert former_settings("offline-ded2f1fa3d89") == "offline-ded2f1fa3d89"


def test_an_llm_judges_folder_of_the_former_format_is_reused(tmp_path, capsys):
    bench, bow = tiny_benchmark(), BagOfWords()
    config = AnnotateConfig(retriever="bow", top_k=6, max_combinations=8)
    out = tmp_path / "run"
    with RuleServer() as server:
        settings = LLMSettings(base_url=server.base_url, model="rule-model", response_format="json_object",
                               max_retries=1, timeout=10.0, backoff=0.01)

        def judge():
            client = LLMClient(settings, cache=ResponseCache(tmp_path / "cache"))
            return LLMJudge(client=client, progress=False)

        first = judge()
        ToolEX([bench], first, out, config, retriever=bow, progress=False).run()
        versions = former_settings(judge_stage_settings(first, "verify"))["prompt_version"]
        assert len(versions.rsplit("-", 1)[1]) == 8  # the former format really differs
        _to_former_format(out, first, config, bench)
        again = judge()
        counts = count_stages(again)
        ToolEX([bench], again, out, config, retriever=bow, progress=False, refuse_other=True).run()
    assert dict(counts) == {}
    assert "data fingerprint and 3 of 3 stage keys rewritten" in capsys.readouterr().err


def test_an_annotation_folder_named_in_the_former_format_is_renamed_and_reused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "artifacts"))
    monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "cache"))
    bench, config = tiny_benchmark(), AnnotateConfig(retriever="bow", top_k=5, max_combinations=4)
    monkeypatch.setitem(workspace._RETRIEVERS, "bow", BagOfWords())
    with RuleServer() as server:
        for var, value in (("TOOLEX_LLM_BASE_URL", server.base_url), ("TOOLEX_LLM_MODEL", "rule-model"),
                           ("TOOLEX_LLM_RESPONSE_FORMAT", "json_object"), ("TOOLEX_LLM_API_KEY", "k")):
            monkeypatch.setenv(var, value)
        made = workspace.ensure_toolex("api", "tiny-key", [bench], bench.queries, config, "api")
        identity = judge_identity(workspace.build_judge("api", progress=False))
        former_key = annotation_key("tiny-key", former_settings(identity), config, __version__)
        former = made.folder.with_name(f"api-{former_key}")
        assert former != made.folder
        made.folder.rename(former)
        calls = server.calls
        again = workspace.ensure_toolex("api", "tiny-key", [bench], bench.queries, config, "api")
        assert again.folder == made.folder and not former.exists() and server.calls == calls
    assert f"{former.name} renamed to {made.folder.name}" in capsys.readouterr().err


def test_one_slug_names_every_path_and_id_part():
    """The readable part of a name, as each caller asks for it (and as the caches on disk are named)."""
    assert keys.slug("dense:minilm-ft") == "dense_minilm-ft"
    assert keys.slug("sentence-transformers/all-MiniLM-L6-v2") == "sentence-transformers_all-MiniLM-L6-v2"
    assert keys.slug("offline-similarity(mpnet)", ".", "-", lower=True) == "offline-similarity-mpnet"
    assert keys.slug("Open Weather_Map v2.5", "", "-", lower=True) == "open-weather-map-v2-5"
    assert keys.slug("::") == ""
