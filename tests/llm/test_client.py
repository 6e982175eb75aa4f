"""LLMClient against a real HTTP server on 127.0.0.1 with scripted answers (no mock of the openai client)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from toolex.llm import LLMClient, LLMConfigError, LLMRequest, LLMSettings, ResponseCache

from .conftest import SECRET, VERDICT, make_client, messages
from .fake_server import FakeLLMServer

GOOD = '{"verdict": "no", "reason": "wrong domain"}'


def test_answer_is_parsed_validated_and_cached(server: FakeLLMServer, tmp_path: Path) -> None:
    client = make_client(server.base_url, tmp_path)
    res = client.complete_json(messages(), VERDICT, stage="verify", name="verdict")
    assert res.ok and res.data == {"verdict": "yes", "reason": "fits"} and not res.cached
    assert res.usage == {"prompt_tokens": 11, "completion_tokens": 7} and res.latency > 0
    body = server.requests[0]
    assert body["temperature"] == 0 and body["seed"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"] == {"name": "verdict", "schema": VERDICT, "strict": True}
    again = client.complete_json(messages(), VERDICT, stage="verify", name="verdict")
    assert again.cached and again.data == res.data and server.calls == 1
    stage = client.ledger.stage("verify")
    assert (stage.requests, stage.api_calls, stage.cache_hits, stage.prompt_tokens) == (2, 1, 1, 11)


def test_json_object_mode_sends_schema_llama_style(server: FakeLLMServer, tmp_path: Path) -> None:
    client = make_client(server.base_url, tmp_path, response_format="json_object")
    assert client.complete_json(messages(), VERDICT, stage="verify").ok
    assert server.requests[0]["response_format"] == {"type": "json_object", "schema": VERDICT}


def test_prompt_mode_puts_schema_in_messages(server: FakeLLMServer, tmp_path: Path) -> None:
    client = make_client(server.base_url, tmp_path, response_format="prompt")
    assert client.complete_json(messages(), VERDICT, stage="verify").ok
    body = server.requests[0]
    assert "response_format" not in body and '"enum": ["yes", "no"]' in body["messages"][-1]["content"]


@pytest.mark.parametrize("status", [400, 422, 500])
def test_auto_steps_down_when_json_schema_is_rejected(
    server: FakeLLMServer, tmp_path: Path, status: int
) -> None:
    server.reject_json_schema = status
    client = make_client(server.base_url, tmp_path, response_format="auto")
    res = client.complete_json(messages(), VERDICT, stage="verify")
    assert res.ok and client.mode == "json_object"
    assert [r.get("response_format", {}).get("type") for r in server.requests] == [
        "json_schema",
        "json_object",
    ]


@pytest.mark.parametrize("code", [429, 500, 502, 503])
def test_retries_transient_status(tmp_path: Path, code: int) -> None:
    with FakeLLMServer([("status", code), ("status", code), ("ok", GOOD)]) as srv:
        client = make_client(srv.base_url, tmp_path)
        res = client.complete_json(messages(), VERDICT, stage="verify")
    assert res.ok and res.data["verdict"] == "no" and res.attempts == 3 and srv.calls == 3
    assert client.ledger.stage("verify").retries == 2


def test_retries_timeouts(tmp_path: Path) -> None:
    with FakeLLMServer([("sleep", 1.0), ("ok", GOOD)]) as srv:
        client = make_client(srv.base_url, tmp_path, timeout=0.3)
        res = client.complete_json(messages(), VERDICT, stage="verify")
    assert res.ok and res.attempts == 2


def test_transport_failure_is_reported_and_not_cached(tmp_path: Path) -> None:
    with FakeLLMServer(default=("status", 503)) as srv:
        client = make_client(srv.base_url, tmp_path, max_retries=2)
        res = client.complete_json(messages(), VERDICT, stage="verify")
        assert not res.ok and "503" in res.error and srv.calls == 3
        assert client.cache.get(res.key) is None  # next run asks again
        assert client.ledger.stage("verify").failures == 1


@pytest.mark.parametrize(
    "bad, finish, why",
    [
        ("the tool fits, so yes", "stop", "invalid JSON"),
        ('{"verdict": "yes", "reason": "cut', "length", "truncated"),
        ('{"verdict": "probably", "reason": "x"}', "stop", "schema violation"),
        ('{"verdict": "yes"}', "stop", "schema violation"),
    ],
)
def test_malformed_is_retried_then_recorded_with_raw_text(
    tmp_path: Path, bad: str, finish: str, why: str
) -> None:
    with FakeLLMServer(default=("ok", bad, finish)) as srv:
        client = make_client(srv.base_url, tmp_path, malformed_retries=2)
        res = client.complete_json(messages(), VERDICT, stage="verify")
        assert srv.calls == 3
    assert not res.ok and res.data is None and why in res.error and res.raw == bad
    assert client.cache.get(res.key) is None  # a failure is never an answer to replay
    (stored,) = client.cache.failures(res.key)
    assert stored["ok"] is False and stored["raw"] == bad and why in stored["error"]
    ledger = client.ledger.stage("verify")
    assert (ledger.failures, ledger.api_calls, ledger.retries, ledger.completion_tokens) == (1, 3, 2, 21)


def test_malformed_then_good(tmp_path: Path) -> None:
    with FakeLLMServer([("ok", "not json"), ("ok", f"```json\n{GOOD}\n```")]) as srv:
        res = make_client(srv.base_url, tmp_path).complete_json(messages(), VERDICT, stage="verify")
    assert res.ok and res.data["verdict"] == "no" and res.attempts == 2


def test_refused_credentials_stop_the_run(tmp_path: Path) -> None:
    with FakeLLMServer(default=("status", 401)) as srv:
        client = make_client(srv.base_url, tmp_path)
        with pytest.raises(LLMConfigError, match="401"):
            client.complete_json(messages(), VERDICT, stage="verify")


def test_map_json_keeps_input_order(tmp_path: Path) -> None:
    script = [("status", 500)] + [("ok", GOOD)] * 3
    with FakeLLMServer(script) as srv:
        client = make_client(srv.base_url, tmp_path, concurrency=3)
        reqs = [LLMRequest(messages(i), VERDICT, "verdict") for i in range(8)]
        results = client.map_json(reqs, stage="verify", progress=False)
    assert len(results) == 8 and all(r.ok for r in results)
    keys = [client.key_for(messages(i), VERDICT, "verdict") for i in range(8)]
    assert [r.key for r in results] == keys
    assert client.ledger.stage("verify").requests == 8


def test_map_json_reports_each_answer_as_it_arrives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    import tqdm.auto

    release = threading.Event()
    updates: list[float] = []

    class Bar:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def update(self, n: int = 1) -> None:
            updates.append(time.monotonic())
            release.set()  # the slow request finishes only after the fast one was counted

        def close(self) -> None:
            pass

    client = make_client("http://127.0.0.1:9/v1", tmp_path, concurrency=2)

    def fake_complete(messages_, schema, stage, name):
        if messages_ == messages(1):
            assert release.wait(5), "the first answer was not reported while another was running"
        return name

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    monkeypatch.setattr(client, "complete_json", fake_complete)
    out = client.map_json([LLMRequest(messages(0), VERDICT, "a"), LLMRequest(messages(1), VERDICT, "b")],
                          "verify")
    assert out == ["a", "b"] and len(updates) == 2


def test_map_json_accepts_mappings_and_tuples(server: FakeLLMServer, tmp_path: Path) -> None:
    client = make_client(server.base_url, tmp_path)
    out = client.map_json(
        [{"messages": messages(0), "schema": VERDICT}, (messages(1), VERDICT, "v")], "verify", progress=False
    )
    assert [r.ok for r in out] == [True, True]


def test_ledger_cost_from_price_table(server: FakeLLMServer, tmp_path: Path) -> None:
    client = make_client(server.base_url, tmp_path, price_prompt=1.0, price_completion=2.0)
    client.map_json([LLMRequest(messages(i), VERDICT) for i in range(3)], "verify", progress=False)
    client.complete_json(messages(0), VERDICT, stage="audit")
    data = client.ledger.to_dict()
    assert data["stages"]["verify"]["cost"] == pytest.approx((3 * 11 * 1.0 + 3 * 7 * 2.0) / 1e6)
    assert data["stages"]["audit"]["cache_hits"] == 1 and data["stages"]["audit"]["cost"] == 0
    assert data["total"]["requests"] == 4
    assert "verify" in client.ledger.summary()


def test_key_never_reaches_disk_ledger_or_repr(server: FakeLLMServer, tmp_path: Path) -> None:
    with FakeLLMServer(default=("ok", "garbage")) as bad:
        make_client(bad.base_url, tmp_path / "c").complete_json(messages(9), VERDICT, stage="verify")
    client = make_client(server.base_url, tmp_path / "c")
    res = client.complete_json(messages(), VERDICT, stage="verify")
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"  # it is sent ...
    texts = [p.read_text() for p in (tmp_path / "c").rglob("*") if p.is_file()]  # ... and nowhere else
    texts += [json.dumps(client.ledger.to_dict()), client.ledger.summary(), repr(client), repr(res)]
    texts += [json.dumps(client.settings.public_dict())]
    assert texts and not any(SECRET in t for t in texts)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_health_check_fails_fast_naming_url_and_model(tmp_path: Path) -> None:
    from toolex.llm.client import LLMUnreachable

    url = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens: connection refused
    client = make_client(url, tmp_path)
    started = time.monotonic()
    with pytest.raises(LLMUnreachable, match=f"{url}.*'fake-model'"):
        client.health_check()
    assert time.monotonic() - started < 5


def test_health_check_passes_on_a_live_server_and_in_offline_mode(server: FakeLLMServer,
                                                                  tmp_path: Path) -> None:
    make_client(server.base_url, tmp_path).health_check()
    assert server.calls == 0  # a GET, no completion spent
    make_client("http://127.0.0.1:9/v1", tmp_path, offline=True).health_check()


def test_api_endpoint_without_a_model_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = "http://127.0.0.1:9/v1"
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", url)
    client = LLMClient(LLMSettings(base_url=url), cache=ResponseCache(tmp_path))  # model left at the default
    with pytest.raises(LLMConfigError, match="TOOLEX_LLM_MODEL"):
        client.health_check()
    monkeypatch.setenv("TOOLEX_LLM_MODEL", "gpt-x")
    LLMClient(LLMSettings(base_url=url, model="gpt-x"),
              cache=ResponseCache(tmp_path)).check_model_configured()


def test_health_check_counts_a_busy_server_as_reachable(tmp_path: Path) -> None:
    import http.server
    import threading

    class Busy(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # connected, then slow: a local server generating another answer
            time.sleep(3)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Busy)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        make_client(f"http://127.0.0.1:{httpd.server_address[1]}/v1", tmp_path, timeout=0.5).health_check()
    finally:
        httpd.shutdown()
        httpd.server_close()
