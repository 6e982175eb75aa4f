"""A rule-based OpenAI-compatible server that plays the downstream experiment's three roles deterministically.

* simulator: ``{"response": {"result": "<api> answered <arguments>"}, "error": ""}`` (keys unsorted, as a
  model may write them); an API whose name holds ``silent`` answers an empty response.
* agent: calls the first offered function with every required parameter filled (``"x"``, 1 for numbers),
  then Finishes with the last observation as its answer; a task containing ``loop forever`` never
  Finishes, one containing ``give up`` gives up at once, one containing ``garbled`` gets a malformed answer
  while ``broken`` is set.
* evaluator: ``Solved`` when the final answer holds ``answered``, else ``Unsolved``.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from tests.openai_stub import OpenAIStub, Reply, completion


class DownstreamLLM(OpenAIStub):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[dict[str, Any]] = []
        self.roles: list[str] = []
        self.broken = threading.Event()

    def respond(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self.lock:
            self.requests.append(body)
        system, last = body["messages"][0]["content"], body["messages"][-1]["content"]
        if "imitate a real web API" in system:
            role, answer = "simulator", self._simulate(last)
        elif "solves the user's task" in system:
            role, answer = "agent", self._act(system, body["messages"])
        else:
            role = "evaluator"
            status = "Solved" if "answered" in last.split("Final answer:")[-1] else "Unsolved"
            answer = {"answer_status": status, "reason": "rule"}
        with self.lock:
            self.roles.append(role)
        content = answer if isinstance(answer, str) else json.dumps(answer)
        return Reply(200, completion(content))

    @staticmethod
    def _simulate(user: str) -> dict[str, Any]:
        doc = json.loads(user.split("API documentation:\n", 1)[1].split("\n\n", 1)[0])
        arguments = user.rsplit("Call arguments:\n", 1)[1]
        if "silent" in str(doc.get("api_name", "")):
            return {"response": "", "error": ""}
        return {"response": {"result": f"{doc.get('api_name')} answered {arguments}"}, "error": ""}

    def _act(self, system: str, messages: list[dict[str, Any]]) -> dict[str, Any] | str:
        task = messages[1]["content"]
        if "garbled" in task and self.broken.is_set():
            return "not json at all"
        specs = [json.loads(line) for line in system.split("Functions:\n", 1)[1].splitlines()]
        observations = [m["content"] for m in messages if m["role"] == "user" and
                        m["content"].startswith("Observation: ")]
        if "give up" in task:
            return {"thought": "no", "action": "Finish", "action_input": {"return_type": "give_up"}}
        if observations and "loop forever" not in task:
            return {"thought": "done", "action": "Finish",
                    "action_input": {"return_type": "give_answer", "final_answer": observations[-1][13:]}}
        first = specs[0]
        arguments = {name: (1 if spec["type"] == "number" else "x")
                     for name, spec in first["parameters"]["properties"].items()
                     if name in first["parameters"]["required"]}
        return {"thought": "call", "action": first["name"], "action_input": arguments}


def count(server: DownstreamLLM, role: str) -> int:
    return sum(r == role for r in server.roles)


__all__ = ["DownstreamLLM", "count", "re"]
