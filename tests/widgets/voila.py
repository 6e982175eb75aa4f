"""Serve a notebook with Voila on 127.0.0.1 for the browser tests: start, wait until it answers, stop."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve(notebook: Path, env: Mapping[str, str], log_path: Path, wait_s: float = 60) -> Iterator[str]:
    """The URL of ``notebook`` served by Voila (its log in ``log_path``); the server stops on exit."""
    port = free_port()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}",
             "--Voila.ip=127.0.0.1", "--show_tracebacks=True"],
            cwd=notebook.parent, env=dict(env), stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/"
        try:
            deadline = time.time() + wait_s
            while time.time() < deadline:
                try:
                    urllib.request.urlopen(url + "api", timeout=2)
                    break
                except OSError:
                    if proc.poll() is not None:
                        pytest.fail(f"voila exited: {log_path.read_text()[-2000:]}")
                    time.sleep(0.5)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
