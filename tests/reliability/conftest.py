"""Fixtures of the reliability suite: the tiny benchmark and its fault-free reference run."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fault_server import FaultServer
from .tiny import make_benchmark, pipeline, snapshot

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("child.py")
# the suite's figures, printed at the end of the session (README: Reliability)
TALLY: Counter[str] = Counter()


def pytest_terminal_summary(terminalreporter) -> None:
    if TALLY:
        terminalreporter.write_line("reliability: " + ", ".join(f"{v} {k}" for k, v in sorted(TALLY.items())))


@dataclass(frozen=True)
class Reference:
    files: dict[str, bytes]
    calls: int
    by_stage: dict[str, int]


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "toolex-cache"))
    for var in ("TOOLEX_LLM_BASE_URL", "TOOLEX_LLM_OFFLINE", "TOOLEX_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="session")
def port() -> int:
    """One port for every server of the session: a resumed run must find the endpoint it started with."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_benchmark(tmp_path_factory.mktemp("tiny-data"))


@pytest.fixture(scope="session")
def reference(tiny_data: Path, tmp_path_factory: pytest.TempPathFactory, port: int) -> Reference:
    """The uninterrupted, fault-free run every other run must reproduce byte for byte."""
    work = tmp_path_factory.mktemp("reference")
    with FaultServer(port=port) as srv:
        pipeline(tiny_data, work / "out", srv.base_url, work / "cache").run()
    return Reference(snapshot(work / "out"), srv.calls, dict(srv.by_stage))


def spawn(data_dir: Path, out: Path, base_url: str, cache_root: Path) -> subprocess.Popen[str]:
    """The child run (tests/reliability/child.py) in its own process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(CHILD), str(data_dir), str(out), base_url, str(cache_root)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
