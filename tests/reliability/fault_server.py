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

import json
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable
from typing import Any

from tests.annotate.responder import answer
from tests.openai_stub import OpenAIStub, Reply, completion

FAULTS = ("500", "429", "malformed", "truncated", "slow", "wrong-schema", "not-a-completion")
USAGE = (100, 20)


def stage_of(body: dict[str, Any]) -> str:
    """The ToolEX stage of a request, from the schema it asks for."""
    text = json.dumps(body.get("response_format") or {}) + json.dumps(body.get("messages") or [])
    if "sub_queries" in text:
        return "decompose"
    if "Sub-query breakdown (checklist)" in text:
        return "audit"
    return "verify"


def _ok(content: str, finish: str = "stop") -> Reply:
    return Reply(200, completion(content, finish, model="rule", usage=USAGE))


class FaultServer(OpenAIStub):
    """``with FaultServer(["500", "ok", "malformed"]) as srv:``; ``srv.injected`` counts the faults served."""

    model_id = "rule-model"

    def __init__(self, faults: Iterable[str] = (), hang_at: tuple[str, int] | None = None,
                 slow_s: float = 1.5, port: int = 0) -> None:
        super().__init__(port)
        self.faults: deque[str] = deque(faults)
        self.hang_at, self.slow_s = hang_at, slow_s
        self.calls = 0
        self.by_stage: Counter[str] = Counter()
        self.injected: Counter[str] = Counter()
        self.hanging = threading.Event()

    def respond(self, body: dict[str, Any], headers: dict[str, str]) -> Reply | None:
        stage = stage_of(body)
        with self.lock:
            self.calls += 1
            self.by_stage[stage] += 1
            hang = self.hang_at == (stage, self.by_stage[stage])
            fault = "ok" if hang else (self.faults.popleft() if self.faults else "ok")
            if fault != "ok":
                self.injected[fault] += 1
        if hang:
            self.hanging.set()
            return None
        good = answer(body)
        if fault == "ok":
            return _ok(good)
        if fault in ("500", "429"):
            return Reply(int(fault), {"error": {"message": f"injected {fault}", "type": "fault"}},
                         {"Retry-After": "0"} if fault == "429" else {})
        if fault == "malformed":
            return _ok("Sure! The answer is yes, these tools match.")
        if fault == "truncated":
            return _ok(good[: len(good) // 2], "length")
        if fault == "slow":
            time.sleep(self.slow_s)
            return _ok(good)
        if fault == "wrong-schema":
            return _ok('{"answer": "yes"}')
        if fault == "not-a-completion":
            return Reply(200, {"result": "ok", "text": good})
        raise ValueError(f"unknown fault {fault!r}")
