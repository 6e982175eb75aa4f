"""The one HTTP scaffold of the test servers that speak the OpenAI chat-completions protocol on 127.0.0.1.

A subclass decides what each request gets by overriding ``respond(body)``; this class owns the socket, the
thread, ``GET /v1/models`` (the health check) and shutdown. ``respond`` returns a :class:`Reply`, or
``None`` to leave the request unanswered (a hang that ends when the server stops).
"""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(
    content: str,
    finish_reason: str = "stop",
    model: str = "fake-model",
    usage: tuple[int, int] = (11, 7),
) -> dict[str, Any]:
    """A chat completion carrying ``content``, with the usage block clients count tokens from."""
    prompt, generated = usage
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
        ],
        "usage": {
            "prompt_tokens": prompt, "completion_tokens": generated, "total_tokens": prompt + generated
        },
    }


@dataclass
class Reply:
    """What one request gets: an HTTP status, a JSON payload and extra headers."""

    status: int
    payload: Any
    headers: dict[str, str] = field(default_factory=dict)


class OpenAIStub:
    """``with Subclass(...) as srv:``; ``srv.base_url`` ends in ``/v1``."""

    model_id = "fake-model"

    def __init__(self, port: int = 0) -> None:
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, reply: Reply) -> None:
                data = json.dumps(reply.payload).encode()
                with contextlib.suppress(OSError):  # the client may have given up (a timeout test)
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)

            def do_GET(self) -> None:
                models = [{"id": outer.model_id, "object": "model"}]
                self._send(Reply(200, {"object": "list", "data": models}))

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                reply = outer.respond(body, {k.lower(): v for k, v in self.headers.items()})
                if reply is None:
                    outer.stopping.wait()
                    return
                self._send(reply)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def respond(self, body: dict[str, Any], headers: dict[str, str]) -> Reply | None:
        """The reply to one chat request (runs on the server's handler thread)."""
        raise NotImplementedError

    def __enter__(self) -> OpenAIStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
