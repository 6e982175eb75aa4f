"""A real HTTP server on 127.0.0.1 speaking the /v1/chat/completions protocol with scripted answers.

Each script step is one of:
``("ok", content)`` / ``("ok", content, finish_reason)``, ``("status", code)``, ``("sleep", seconds)``
(answer late, so a client timeout fires), ``("hang",)`` (never answer until the server stops).
When the script is exhausted, ``default`` (a step) answers.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(content: str, finish_reason: str = "stop", model: str = "fake-model") -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


class FakeLLMServer:
    """Start with ``with FakeLLMServer(script) as srv:``; ``srv.base_url`` ends in ``/v1``."""

    def __init__(
        self, script: list[tuple[Any, ...]] | None = None, default: tuple[Any, ...] | None = None
    ) -> None:
        self.script: deque[tuple[Any, ...]] = deque(script or [])
        self.default = default or ("ok", '{"verdict": "yes", "reason": "fits"}')
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.reject_json_schema: int | None = None  # HTTP status answering a json_schema request
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, code: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with outer.lock:
                    outer.requests.append(body)
                    outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                    fmt = (body.get("response_format") or {}).get("type")
                    if outer.reject_json_schema and fmt == "json_schema":
                        step: tuple[Any, ...] = (
                            "status",
                            outer.reject_json_schema,
                            "response_format.type invalid",
                        )
                    else:
                        step = outer.script.popleft() if outer.script else outer.default
                kind = step[0]
                if kind == "ok":
                    self._send(200, completion(step[1], step[2] if len(step) > 2 else "stop"))
                elif kind == "status":
                    message = step[2] if len(step) > 2 else f"scripted {step[1]}"
                    self._send(step[1], {"error": {"message": message, "type": "scripted"}})
                elif kind == "sleep":
                    time.sleep(step[1])
                    with contextlib.suppress(OSError):
                        self._send(
                            200,
                            completion(step[2] if len(step) > 2 else '{"verdict": "no", "reason": "late"}'),
                        )
                elif kind == "hang":
                    outer.stopping.wait()
                else:
                    raise ValueError(f"unknown step {step}")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def calls(self) -> int:
        with self.lock:
            return len(self.requests)

    def __enter__(self) -> FakeLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


import contextlib  # noqa: E402  (kept at the end so the handler above reads as the protocol)
