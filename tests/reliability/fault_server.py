"""An OpenAI-compatible server on 127.0.0.1 that injects faults in a scripted order.

Each chat request takes the next fault of the script (``ok`` when it is exhausted); a good answer comes from
the rule-based responder of ``tests/annotate/responder.py``, so it is valid for the three ToolEX prompts.

| fault           | what the client gets                                                       |
|-----------------|----------------------------------------------------------------------------|
| ``500``         | HTTP 500                                                                   |
| ``429``         | HTTP 429 with ``Retry-After: 0``                                           |
| ``malformed``   | a completion whose text is prose, not JSON                                 |
| ``truncated``   | the answer cut in half, ``finish_reason: length``                          |
| ``slow``        | the good answer after ``slow_s`` seconds (past the client's timeout)       |
| ``wrong-schema``| valid JSON of the wrong shape (``{"answer": "yes"}``)                       |
| ``not-a-completion`` | HTTP 200 whose body is JSON but no chat completion (no ``choices``)   |

``hang_at=(stage, n)`` makes the n-th request of a stage (``decompose``, ``verify``, ``audit``) never answer,
so a test can SIGKILL the client at a known point. ``GET /v1/models`` answers the health check. ``port``:
reuse the port of an earlier server, as a resumed run talks to the same endpoint (its URL is in the stage
keys).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.annotate.responder import answer

FAULTS = ("500", "429", "malformed", "truncated", "slow", "wrong-schema", "not-a-completion")


def stage_of(body: dict[str, Any]) -> str:
    """The ToolEX stage of a request, from the schema it asks for."""
    text = json.dumps(body.get("response_format") or {}) + json.dumps(body.get("messages") or [])
    if "sub_queries" in text:
        return "decompose"
    if "covers_all_operations" in text:
        return "audit"
    return "verify"


def _completion(content: str, finish: str = "stop", model: str = "rule") -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


class FaultServer:
    """``with FaultServer(["500", "ok", "malformed"]) as srv:``; ``srv.injected`` counts the faults served."""

    def __init__(self, faults: Iterable[str] = (), hang_at: tuple[str, int] | None = None,
                 slow_s: float = 1.5, port: int = 0) -> None:
        self.faults: deque[str] = deque(faults)
        self.hang_at, self.slow_s = hang_at, slow_s
        self.calls = 0
        self.by_stage: Counter[str] = Counter()
        self.injected: Counter[str] = Counter()
        self.hanging = threading.Event()
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "rule-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                stage = stage_of(body)
                with outer.lock:
                    outer.calls += 1
                    outer.by_stage[stage] += 1
                    hang = outer.hang_at == (stage, outer.by_stage[stage])
                    fault = "ok" if hang else (outer.faults.popleft() if outer.faults else "ok")
                    if fault != "ok":
                        outer.injected[fault] += 1
                if hang:
                    outer.hanging.set()
                    outer.stopping.wait()
                    return
                good = answer(body)
                if fault == "ok":
                    self._send(200, _completion(good))
                elif fault in ("500", "429"):
                    self._send(int(fault), {"error": {"message": f"injected {fault}", "type": "fault"}},
                               {"Retry-After": "0"} if fault == "429" else None)
                elif fault == "malformed":
                    self._send(200, _completion("Sure! The answer is yes, these tools match."))
                elif fault == "truncated":
                    self._send(200, _completion(good[: len(good) // 2], "length"))
                elif fault == "slow":
                    time.sleep(outer.slow_s)
                    with contextlib.suppress(OSError):
                        self._send(200, _completion(good))
                elif fault == "wrong-schema":
                    self._send(200, _completion('{"answer": "yes"}'))
                elif fault == "not-a-completion":
                    self._send(200, {"result": "ok", "text": good})
                else:
                    raise ValueError(f"unknown fault {fault!r}")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FaultServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
