from __future__ import annotations

import json

import pytest

from toolex.llm import LLMClient, LLMSettings, SettingsError

from .conftest import SECRET


def test_from_env_without_base_url_is_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_LLM_PORT", "9123")
    s = LLMSettings.from_env()
    assert s.base_url == "http://127.0.0.1:9123/v1"
    assert s.response_format == "json_object"
    assert s.temperature == 0


def test_from_env_reads_every_field(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "TOOLEX_LLM_BASE_URL": "https://api.example.org/v1",
        "TOOLEX_LLM_MODEL": "some-model",
        "TOOLEX_LLM_MAX_TOKENS": "64",
        "TOOLEX_LLM_CONCURRENCY": "8",
        "TOOLEX_LLM_SEED": "none",
        "TOOLEX_LLM_OFFLINE": "1",
        "TOOLEX_LLM_PRICE_PROMPT": "0.27",
        "TOOLEX_LLM_PRICE_COMPLETION": "1.10",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = LLMSettings.from_env()
    assert (s.model, s.max_tokens, s.concurrency, s.seed, s.offline) == ("some-model", 64, 8, None, True)
    assert s.response_format == "auto" and s.price_completion == 1.10


def test_bad_env_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_LLM_OFFLINE", "perhaps")
    with pytest.raises(SettingsError, match="TOOLEX_LLM_OFFLINE"):
        LLMSettings.from_env()


def test_key_is_never_on_the_settings_or_client(monkeypatch: pytest.MonkeyPatch) -> None:
    s = LLMSettings.from_env()
    assert s.api_key() == SECRET
    public = s.public_dict()
    assert public["api_key_set"] is True
    for text in (repr(s), json.dumps(public), repr(LLMClient(s))):
        assert SECRET not in text
    monkeypatch.delenv("TOOLEX_LLM_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other")
    assert s.api_key() == "sk-other"


def test_invalid_response_format() -> None:
    with pytest.raises(SettingsError):
        LLMSettings(response_format="xml")


def test_local_from_env_keeps_the_local_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", "https://api.example.com/v1")
    monkeypatch.setenv("TOOLEX_LLM_MODEL", "big-model")
    monkeypatch.setenv("TOOLEX_LLM_CONCURRENCY", "4")
    monkeypatch.setenv("TOOLEX_LLM_PORT", "8123")
    s = LLMSettings.local_from_env()
    assert s.base_url == "http://127.0.0.1:8123/v1" and s.model == LLMSettings.local().model
    assert s.concurrency == 4 and s.response_format == "json_object"
    assert LLMSettings.local_from_env(concurrency=3).concurrency == 3


def test_local_from_env_applies_each_roles_own_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_LLM_AGENT_MAX_TOKENS", "512")
    monkeypatch.setenv("TOOLEX_LLM_AGENT_MODEL", "elsewhere")  # the local server is always the target
    s = LLMSettings.local_from_env()
    agent = s.for_stage("agent")
    assert agent.max_tokens == 512 and agent.model == LLMSettings.local().model
    assert s.for_stage("evaluator").max_tokens == LLMSettings.local().max_tokens


def _api_env(monkeypatch: pytest.MonkeyPatch, **extra: str) -> None:
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", "https://api.example.org/v1")
    monkeypatch.setenv("TOOLEX_LLM_MODEL", "common-model")
    for k, v in extra.items():
        monkeypatch.setenv(k, v)


def test_each_stage_falls_back_to_the_common_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    _api_env(monkeypatch, TOOLEX_LLM_AUDIT_MODEL="claude-x", TOOLEX_LLM_VERIFY_BASE_URL="https://other/v1",
             TOOLEX_LLM_VERIFY_MODEL="gpt-4o-mini", TOOLEX_LLM_VERIFY_MAX_TOKENS="99")
    s = LLMSettings.from_env()
    decompose, verify, audit = (s.for_stage(x) for x in ("decompose", "verify", "audit"))
    assert (decompose.model, decompose.base_url) == ("common-model", "https://api.example.org/v1")
    assert (verify.model, verify.base_url, verify.max_tokens) == ("gpt-4o-mini", "https://other/v1", 99)
    assert (audit.model, audit.base_url, audit.max_tokens) == ("claude-x", "https://api.example.org/v1", 256)
    assert audit.stage == "audit" and audit.stages == {}


def test_a_stage_key_comes_first_and_stays_off_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    _api_env(monkeypatch, TOOLEX_LLM_AUDIT_API_KEY="sk-audit-only")
    s = LLMSettings.from_env()
    assert s.for_stage("audit").api_key() == "sk-audit-only"
    assert s.for_stage("verify").api_key() == SECRET
    for text in (repr(s.for_stage("audit")), json.dumps(s.for_stage("audit").public_dict())):
        assert "sk-audit-only" not in text


def test_missing_models_and_endpoints_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", "https://api.example.org/v1")
    with pytest.raises(SettingsError, match="TOOLEX_LLM_MODEL is not"):
        LLMSettings.from_env()  # the local model's name would label, and be sent to, the API
    monkeypatch.delenv("TOOLEX_LLM_BASE_URL")
    monkeypatch.setenv("TOOLEX_LLM_AUDIT_MODEL", "claude-x")
    with pytest.raises(SettingsError, match="TOOLEX_LLM_AUDIT_MODEL.*needs an endpoint"):
        LLMSettings.from_env()
    monkeypatch.delenv("TOOLEX_LLM_AUDIT_MODEL")
    monkeypatch.setenv("TOOLEX_LLM_VERIFY_BASE_URL", "https://other/v1")
    with pytest.raises(SettingsError, match="TOOLEX_LLM_VERIFY_BASE_URL"):
        LLMSettings.from_env()
    with pytest.raises(SettingsError, match="unknown stage"):
        LLMSettings().for_stage("rerank")


def test_context_and_tokenizer_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolex.llm.tokens import EstimateCounter, counter_for

    _api_env(monkeypatch, TOOLEX_LLM_CONTEXT_TOKENS="32000", TOOLEX_LLM_TOKENIZER="estimate")
    s = LLMSettings.from_env()
    assert s.context_tokens == 32000 and isinstance(counter_for(s), EstimateCounter)
    with pytest.raises(SettingsError, match="exceed max_tokens"):
        LLMSettings(context_tokens=100, max_tokens=200)
    with pytest.raises(SettingsError, match="TOOLEX_LLM_TOKENIZER"):
        counter_for(s.replace(tokenizer="sentencepiece"))
    assert counter_for(s.replace(tokenizer="auto", model="qwen")).name == EstimateCounter.name
    # the estimate over-counts: digits one by one, 3 bytes of other text per token
    assert EstimateCounter().count("get weather 2024") == 8
    assert EstimateCounter().count("天气") == 2
