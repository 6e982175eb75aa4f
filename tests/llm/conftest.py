from __future__ import annotations

from pathlib import Path

import pytest

from toolex.llm import LLMClient, LLMSettings, ResponseCache

from .fake_server import FakeLLMServer

SECRET = "sk-test-SECRET-never-written-0123456789"

VERDICT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["verdict", "reason"],
    "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}, "reason": {"type": "string"}},
}


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TOOLEX_LLM_API_KEY", SECRET)
    for var in ("TOOLEX_LLM_BASE_URL", "TOOLEX_LLM_OFFLINE", "TOOLEX_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server():
    with FakeLLMServer() as srv:
        yield srv


def make_client(base_url: str, root: Path, **overrides) -> LLMClient:
    params = dict(
        base_url=base_url, model="fake-model", backoff=0.01, max_retries=3, timeout=5.0,
        response_format="json_schema", concurrency=2,
    )  # fmt: skip
    params.update(overrides)
    return LLMClient(LLMSettings(**params), cache=ResponseCache(root))


def messages(i: int = 0) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": "Judge whether the tool solves the query. Answer yes or no with a reason.",
        },
        {"role": "user", "content": f"query #{i}: convert 10 USD to EUR\ntool: currency_converter"},
    ]
