"""A real HTTP server on 127.0.0.1 speaking the /v1/chat/completions protocol with scripted answers.

Each script step is one of:
``("ok", content)`` / ``("ok", content, finish_reason)``, ``("status", code)``, ``("sleep", seconds)``
(answer late, so a client timeout fires), ``("hang",)`` (never answer until the server stops).
When the script is exhausted, ``default`` (a step) answers.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from tests.openai_stub import OpenAIStub, Reply, completion


class FakeLLMServer(OpenAIStub):
    """Start with ``with FakeLLMServer(script) as srv:``; ``srv.requests`` holds every body it was sent."""

    def __init__(
        self, script: list[tuple[Any, ...]] | None = None, default: tuple[Any, ...] | None = None
    ) -> None:
        super().__init__()
        self.script: deque[tuple[Any, ...]] = deque(script or [])
        self.default = default or ("ok", '{"verdict": "yes", "reason": "fits"}')
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.reject_json_schema: int | None = None  # HTTP status answering a json_schema request

    @property
    def calls(self) -> int:
        with self.lock:
            return len(self.requests)

    def respond(self, body: dict[str, Any], headers: dict[str, str]) -> Reply | None:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            fmt = (body.get("response_format") or {}).get("type")
            if self.reject_json_schema and fmt == "json_schema":
                step: tuple[Any, ...] = ("status", self.reject_json_schema, "response_format.type invalid")
            else:
                step = self.script.popleft() if self.script else self.default
        kind = step[0]
        if kind == "ok":
            return Reply(200, completion(step[1], step[2] if len(step) > 2 else "stop"))
        if kind == "status":
            message = step[2] if len(step) > 2 else f"scripted {step[1]}"
            return Reply(step[1], {"error": {"message": message, "type": "scripted"}})
        if kind == "sleep":
            time.sleep(step[1])
            return Reply(200, completion(step[2] if len(step) > 2 else '{"verdict": "no", "reason": "late"}'))
        if kind == "hang":
            return None
        raise ValueError(f"unknown step {step}")
