from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolex.llm import LLMClient, LLMSettings, OfflineCacheMiss, ResponseCache, request_key
from toolex.llm.cache import OfflineCacheFailure

from .conftest import VERDICT, make_client, messages
from .fake_server import FakeLLMServer


def test_key_is_stable_and_sensitive() -> None:
    m = messages()
    k = request_key("m", m, {"schema": VERDICT, "temperature": 0})
    assert k == request_key("m", [dict(x) for x in m], {"temperature": 0, "schema": dict(VERDICT)})
    assert k != request_key("m2", m, {"schema": VERDICT, "temperature": 0})
    assert k != request_key("m", m, {"schema": VERDICT, "temperature": 0.5})
    assert k != request_key("m", messages(1), {"schema": VERDICT, "temperature": 0})


def test_put_get_and_reload(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    assert cache.get("k1") is None
    cache.put("verify", "k1", {"ok": True, "data": {"verdict": "yes"}})
    assert cache.get("k1")["data"] == {"verdict": "yes"}
    again = ResponseCache(tmp_path)
    assert "k1" in again and len(again) == 1


def test_torn_last_line_is_ignored_and_appends_continue(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put("verify", "k1", {"ok": True, "data": 1})
    path = cache.path_for("verify")
    with path.open("ab") as fh:
        fh.write(b'{"key": "k2", "ok": tr')  # the process died mid-write
    reloaded = ResponseCache(tmp_path)
    assert reloaded.get("k1") is not None and reloaded.get("k2") is None
    assert reloaded.skipped_lines == 1
    reloaded.put("verify", "k3", {"ok": True, "data": 3})
    final = ResponseCache(tmp_path)
    assert final.get("k3")["data"] == 3 and final.get("k1")["data"] == 1
    assert path.read_bytes().count(b"\n") == 3  # the torn line was closed, not glued to k3


def test_offline_miss_names_stage_and_key(tmp_path: Path) -> None:
    client = LLMClient(LLMSettings(offline=True), cache=ResponseCache(tmp_path))
    key = client.key_for(messages(), VERDICT, "verdict")
    with pytest.raises(OfflineCacheMiss, match="stage 'verify'") as err:
        client.complete_json(messages(), VERDICT, stage="verify", name="verdict")
    assert err.value.key == key and key in str(err.value)


def test_offline_replays_what_online_stored(server, tmp_path: Path) -> None:
    online = make_client(server.base_url, tmp_path)
    first = online.complete_json(messages(), VERDICT, stage="verify")
    offline = make_client("http://127.0.0.1:9/v1", tmp_path, offline=True)  # nothing listens there
    again = offline.complete_json(messages(), VERDICT, stage="verify")
    assert again.cached and again.data == first.data and server.calls == 1


def test_offline_map_json_stops_on_first_miss(server, tmp_path: Path) -> None:
    make_client(server.base_url, tmp_path).complete_json(messages(0), VERDICT, stage="verify")
    offline = make_client(server.base_url, tmp_path, offline=True)
    assert offline.map_json([(messages(0), VERDICT)], "verify", progress=False)[0].cached
    with pytest.raises(OfflineCacheMiss, match="stage 'verify'"):
        offline.map_json([(messages(0), VERDICT), (messages(1), VERDICT)], "verify", progress=False)
    assert server.calls == 1


BAD = ("ok", "the tool fits, so yes")  # not JSON


def test_failed_answer_is_asked_again_by_a_later_run(tmp_path: Path) -> None:
    with FakeLLMServer(default=BAD) as srv:
        first = make_client(srv.base_url, tmp_path, malformed_retries=0).complete_json(messages(), VERDICT,
                                                                                       "verify")
    assert not first.ok and "invalid JSON" in first.error
    with FakeLLMServer(default=("ok", '{"verdict": "no", "reason": "other job"}')) as srv:
        again = make_client(srv.base_url, tmp_path, malformed_retries=0)  # a fresh run, healthy server
        res = again.complete_json(messages(), VERDICT, "verify")
        assert srv.calls == 1 and res.ok and not res.cached and res.data["verdict"] == "no"
    assert again.ledger.stage("verify").api_calls == 1
    replay = make_client("http://127.0.0.1:9/v1", tmp_path, offline=True)
    assert replay.complete_json(messages(), VERDICT, "verify").data["verdict"] == "no"


def test_failures_are_bounded_across_runs_then_reported(tmp_path: Path) -> None:
    with FakeLLMServer(default=BAD) as srv:
        for run in range(3):
            res = make_client(srv.base_url, tmp_path, malformed_retries=0).complete_json(messages(), VERDICT,
                                                                                         "v")
            assert not res.ok and srv.calls == run + 1
        last = make_client(srv.base_url, tmp_path, malformed_retries=0)
        res = last.complete_json(messages(), VERDICT, "v")
        assert srv.calls == 3  # the bound: not asked a 4th time
    assert not res.ok and res.data is None and "failed in 3 runs" in res.error and "invalid JSON" in res.error
    counts = last.ledger.stage("v")
    assert (counts.gave_up, counts.failures, counts.api_calls, counts.cache_hits) == (1, 1, 0, 0)


def test_offline_replay_of_a_key_with_only_failures_fails_clearly(tmp_path: Path) -> None:
    with FakeLLMServer(default=BAD) as srv:
        make_client(srv.base_url, tmp_path, malformed_retries=0).complete_json(messages(), VERDICT, "verify")
    offline = make_client("http://127.0.0.1:9/v1", tmp_path, offline=True)
    with pytest.raises(OfflineCacheFailure, match="only 1 failed answer"):
        offline.complete_json(messages(), VERDICT, "verify")


def test_old_caches_with_failures_in_the_stage_file_are_not_replayed(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    client = make_client("http://127.0.0.1:9/v1", tmp_path)
    key = client.key_for(messages(), VERDICT, "answer")
    with cache.path_for("verify").open("w") as fh:  # the layout before failures had a file of their own
        fh.write(json.dumps({"key": key, "ok": False, "error": "invalid JSON", "raw": "yes"}) + "\n")
    fresh = ResponseCache(tmp_path)
    assert fresh.get(key) is None and len(fresh.failures(key)) == 1 and len(fresh) == 0
