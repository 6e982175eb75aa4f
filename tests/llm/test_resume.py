"""A run killed mid-way and started again repeats no finished call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from toolex.llm import ResponseCache

from .fake_server import FakeLLMServer

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("resume_child.py")
YES = ("ok", '{"verdict": "yes"}')


def _spawn(base_url: str, cache_root: Path, n: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(CHILD), base_url, str(cache_root), str(n)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_killed_run_resumes_without_repeating_calls(tmp_path: Path) -> None:
    cache_root, n, done_before_kill = tmp_path / "llm", 6, 3
    with FakeLLMServer([YES] * done_before_kill, default=("hang",)) as srv:
        child = _spawn(srv.base_url, cache_root, n)
        try:
            deadline = time.monotonic() + 30
            while srv.calls <= done_before_kill and time.monotonic() < deadline:
                time.sleep(0.05)  # the 4th request hangs: 3 answers are on disk by then
            assert srv.calls == done_before_kill + 1, child.stderr.read() if child.poll() is not None else ""
        finally:
            child.kill()
            child.wait(timeout=10)
    assert len(ResponseCache(cache_root)) == done_before_kill

    with FakeLLMServer(default=YES) as srv:
        child = _spawn(srv.base_url, cache_root, n)
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        assert srv.calls == n - done_before_kill
    report = json.loads(out)
    assert report["ok"] == n and report["ledger"]["cache_hits"] == done_before_kill

    with FakeLLMServer(default=YES) as srv:
        child = _spawn(srv.base_url, cache_root, n)
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        assert srv.calls == 0
    assert json.loads(out)["ledger"]["api_calls"] == 0
