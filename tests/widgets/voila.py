"""Serve a notebook with Voila on 127.0.0.1 for the browser tests: start, wait until it answers, stop."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from toolex.widgets.serve import CULL_S, voila_command


@dataclass(frozen=True)
class Served:
    """A running Voila: its URL and process id."""

    url: str
    pid: int

    def kernels(self) -> int:
        """How many kernels the server keeps running (a kernel that exits while being counted is gone)."""
        return sum(1 for c in psutil.Process(self.pid).children(recursive=True) if _is_kernel(c))


def _is_kernel(process: psutil.Process) -> bool:
    try:
        alive = process.status() != psutil.STATUS_ZOMBIE
        return alive and "ipykernel_launcher" in " ".join(process.cmdline())
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve(notebook: Path, env: Mapping[str, str], log_path: Path, wait_s: float = 60,
          cull_s: int = CULL_S) -> Iterator[Served]:
    """``notebook`` served by Voila as ``make inspector`` serves it (log in ``log_path``), once it answers
    HTTP (at most ``wait_s``); stops on exit."""
    port = free_port()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(voila_command(notebook, port, cull_s), cwd=notebook.parent, env=dict(env),
                                stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/"
        try:
            deadline = time.time() + wait_s
            while time.time() < deadline:
                try:
                    urllib.request.urlopen(url + "api", timeout=2)  # answers without starting a kernel
                    break
                except urllib.error.HTTPError:  # an error page is an answer: the server is up
                    break
                except OSError:
                    if proc.poll() is not None:
                        pytest.fail(f"voila exited: {log_path.read_text()[-2000:]}")
                    time.sleep(0.5)
            yield Served(url, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
