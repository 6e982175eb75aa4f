from __future__ import annotations

from pathlib import Path

import pytest

from toolex.llm import LLMClient, LLMSettings, OfflineCacheMiss, ResponseCache, request_key

from .conftest import VERDICT, make_client, messages


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
