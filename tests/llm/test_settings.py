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
