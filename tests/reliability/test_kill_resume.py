"""SIGKILL a run at points of each stage, then resume it: byte-identical artifacts, no finished call
repeated."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from toolex.io.artifact import MANIFEST

from .conftest import TALLY, spawn
from .fault_server import FaultServer
from .tiny import pipeline, snapshot

# (stage, n): the n-th request of that stage hangs and the run is killed there
KILL_POINTS = [("decompose", 1), ("decompose", 4), ("verify", 1), ("verify", 12), ("verify", 25),
               ("audit", 1),
               ("audit", 3)]


@pytest.mark.parametrize("stage, n", KILL_POINTS, ids=[f"{s}-{n}" for s, n in KILL_POINTS])
def test_killed_run_resumes_to_the_same_bytes(tiny_data: Path, reference, tmp_path: Path, port: int,
                                              stage: str, n: int) -> None:
    out, cache = tmp_path / "out", tmp_path / "cache"
    with FaultServer(hang_at=(stage, n), port=port) as srv:
        child = spawn(tiny_data, out, srv.base_url, cache)
        try:
            assert srv.hanging.wait(30), child.communicate(timeout=5)
            answered = srv.calls - 1  # every call but the hanging one was answered (concurrency 1)
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        finally:
            if child.poll() is None:
                child.kill()
    assert child.returncode == -signal.SIGKILL
    assert answered == sum(v for s, v in reference.by_stage.items()
                           if ["decompose", "verify", "audit"].index(s) < ["decompose", "verify", "audit"]
                           .index(stage)) + n - 1
    stages_done = json.loads((out / MANIFEST).read_text()).get("stages",
                                                               {}) if (out / MANIFEST).exists() else {}
    assert stage not in stages_done  # the killed stage was never marked done
    with FaultServer(port=port) as srv:
        pipeline(tiny_data, out, srv.base_url, cache, refuse_other=True).run()
        assert srv.calls + answered == reference.calls  # only the missing answers were asked
    assert snapshot(out) == reference.files
    TALLY["runs killed (SIGKILL) and resumed byte-identical"] += 1
    with FaultServer(port=port) as srv:  # a third run asks nothing and writes the same bytes
        pipeline(tiny_data, out, srv.base_url, cache, refuse_other=True).run()
        assert srv.calls == 0
    assert snapshot(out) == reference.files
