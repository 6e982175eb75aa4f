"""One model (and endpoint, and key) per stage: the servers see each stage's model, the manifest names
them."""

from __future__ import annotations

import json
import os

import pytest

from tests.llm.fake_server import FakeLLMServer
from toolex.annotate.judges import build_judge
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.data.records import Benchmark, Query, Tool
from toolex.io.artifact import MANIFEST
from toolex.llm import SettingsError

from . import responder
from .responder import RuleServer


class FirstTools:
    """A retriever stand-in: the pool's tools in id order, best first."""

    def index(self, pool):
        self.ids = sorted(pool)

    def search(self, texts, k):
        return [[(t, 1.0 - i / 100) for i, t in enumerate(self.ids[:k])] for _ in texts]

    def settings(self):
        return {"name": "first-tools"}


def _bench() -> Benchmark:
    tools = {f"t{i}": Tool(f"t{i}", f"tool_{i}_weather",
                           {"name": f"tool_{i}_weather", "description": "x" * 900})
             for i in range(5)}
    queries = [Query("q1", "weather in Paris and Rome", ("t0", "t1"), instruction="Find the tools."),
               Query("q2", "weather in Oslo", ("t2",))]
    return Benchmark("tiny", queries, tools, checksum="beef")


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "cache"))
    for var in [v for v in os.environ if v.startswith("TOOLEX_LLM_") or v == "OPENAI_API_KEY"]:
        monkeypatch.delenv(var, raising=False)


def test_each_stage_reaches_its_own_model_endpoint_and_key(tmp_path, monkeypatch):
    seen: list[tuple[str, str]] = []
    real = responder.answer

    def recording(body):
        user = body["messages"][-1]["content"]
        seen.append((body["model"], "decompose" if '"sub_queries"' in user else "audit"))
        return real(body)

    monkeypatch.setattr(responder, "answer", recording)
    with RuleServer() as rules, FakeLLMServer() as verifier:
        env = {"TOOLEX_LLM_BASE_URL": rules.base_url, "TOOLEX_LLM_MODEL": "common-model",
               "TOOLEX_LLM_API_KEY": "sk-common", "TOOLEX_LLM_RESPONSE_FORMAT": "json_object",
               "TOOLEX_LLM_DECOMPOSE_MODEL": "deepseek-v3.2", "TOOLEX_LLM_AUDIT_MODEL": "claude-audit",
               "TOOLEX_LLM_VERIFY_BASE_URL": verifier.base_url, "TOOLEX_LLM_VERIFY_MODEL": "gpt-4o-mini",
               "TOOLEX_LLM_VERIFY_API_KEY": "sk-verify", "TOOLEX_LLM_VERIFY_CONTEXT_TOKENS": "900"}
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        judge = build_judge("api", progress=False)
        out = tmp_path / "run"
        ToolEX([_bench()], judge, out, AnnotateConfig(top_k=3, max_combinations=3), retriever=FirstTools(),
               progress=False).run()
        verify_models = {r["model"] for r in verifier.requests}
        verify_calls = len(verifier.requests)
        verify_keys = {h.get("authorization") for h in verifier.headers if "authorization" in h}
    assert {m for m, stage in seen if stage == "decompose"} == {"deepseek-v3.2"}
    assert {m for m, stage in seen if stage == "audit"} == {"claude-audit"}
    assert ("deepseek-v3.2", "decompose") in seen and ("claude-audit", "audit") in seen
    assert verify_models == {"gpt-4o-mini"} and verify_keys == {"Bearer sk-verify"}
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["models"] == {"decompose": "deepseek-v3.2", "verify": "gpt-4o-mini",
                                  "audit": "claude-audit"}
    for model in manifest["models"].values():  # the judge name (figure footers) names each model
        assert model in manifest["judge"]["name"]
    assert manifest["audit_dependency"] == "runtime"
    assert set(manifest["prompt_versions"]) == {"decompose", "verify", "audit"}
    # the verifier's 900-token context cannot hold two 900-character documentations whole: counted
    truncation = manifest["truncation"]
    assert truncation["verify"]["prompts"] == verify_calls > 0
    assert truncation["verify"]["truncated_prompts"] == truncation["verify"]["prompts"]
    assert truncation["decompose"]["truncated_prompts"] == 0
    assert set(manifest["ledger"]["stages"]) == {"decompose", "verify", "audit"}
    text = (out / MANIFEST).read_text()
    assert "sk-verify" not in text and "sk-common" not in text


def test_an_endpoint_without_a_model_is_refused(monkeypatch):
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", "https://api.example.org/v1")
    with pytest.raises(SettingsError, match="TOOLEX_LLM_MODEL"):
        build_judge("api", progress=False)
