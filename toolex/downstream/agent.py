"""The agent: a ReAct loop in JSON, as StableToolBench's CoT agent runs it.

At each step the model answers ``{"thought", "action", "action_input"}``: ``action`` names one of the offered
functions (called on the virtual server, its answer shown as the next observation) or ``Finish`` with
``{"return_type": "give_answer" | "give_up", "final_answer"}``. The loop stops at ``Finish`` or after
:data:`MAX_STEPS` steps. Every LLM answer goes through the response cache (a killed run resumes without
repeating a call); a step the model fails to answer ends the trajectory as ``agent_failed``, which is never
recorded as a result and is asked again on the next run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from toolex.data.records import Query, Tool
from toolex.downstream.functions import FINISH, finish_spec, function_spec, functions_of
from toolex.llm.client import LLMClient

#: v2: answers and observations go back into the prompt with sorted keys, as the cache replays them.
PROMPT_VERSION = "agent-v2"
#: Steps before the loop stops without a Finish (StableToolBench's CoT agent: a handful of API calls).
MAX_STEPS = 6
#: Characters of an observation shown to the model (a small model's context is 4,096 tokens).
OBSERVATION_CHARS = 1200
STEP_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["thought", "action", "action_input"],
    "properties": {"thought": {"type": "string"}, "action": {"type": "string"},
                   "action_input": {"type": "object"}}}
_SYSTEM = re.sub(r"\s+", " ", """
You are an assistant that solves the user's task by calling functions. Think step by step. At each step
answer with one JSON object {{"thought": ..., "action": <function name>, "action_input": {{...}}}}; you will
see the function's answer as the observation. When you have the information, call Finish with return_type
give_answer and a complete final_answer for the user; if the functions cannot solve the task, call Finish
with return_type give_up.""").strip() + "\nFunctions:\n{functions}"


class Api(Protocol):
    """What the agent calls: the virtual server (or any object answering calls the same way)."""

    def call(self, api: str, arguments: Any) -> dict[str, Any]: ...


@dataclass
class Step:
    """One step: what the model thought and called, and what it saw."""

    thought: str
    action: str
    arguments: Any
    observation: dict[str, Any] | None = None
    cached: bool = False


@dataclass
class Trajectory:
    """A query's run: the tools offered, the steps, and how it ended (``give_answer``, ``give_up``,
    ``step_limit`` or ``agent_failed``)."""

    query_id: str
    tools: tuple[str, ...]
    steps: list[Step] = field(default_factory=list)
    finish: str = "step_limit"
    final_answer: str = ""
    error: str | None = None

    @property
    def complete(self) -> bool:
        """A trajectory worth recording: every step the model was asked, it answered."""
        return self.finish != "agent_failed"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["tools"] = list(self.tools)
        return out


def prompt_json(value: Any) -> str:
    """JSON as a prompt shows an answer or an observation: keys sorted, as the response cache stores them, so
    a step replayed from the cache gives the next step the same prompt as a fresh one."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def system_prompt(functions: dict[str, Tool]) -> str:
    specs = [function_spec(tool) | {"name": name} for name, tool in functions.items()] + [finish_spec()]
    return _SYSTEM.format(functions="\n".join(json.dumps(s, ensure_ascii=False) for s in specs))


class Agent:
    """Runs the loop with the LLM ``client`` (its ``agent`` stage) against ``api``."""

    def __init__(self, client: LLMClient, api: Api, max_steps: int = MAX_STEPS) -> None:
        self.client, self.api, self.max_steps = client, api, max_steps

    def solve(self, query: Query, tools: Sequence[Tool]) -> Trajectory:
        functions = functions_of(tools)
        trajectory = Trajectory(query.id, tuple(t.id for t in tools))
        messages = [{"role": "system", "content": system_prompt(functions)},
                    {"role": "user", "content": query.text}]
        for index in range(self.max_steps):
            result = self.client.complete_json(messages, STEP_SCHEMA, "agent",
                                               name=f"{query.id} step {index}")
            if not result.ok:
                trajectory.finish, trajectory.error = "agent_failed", result.error
                return trajectory
            answer = result.data
            step = Step(str(answer["thought"]), str(answer["action"]), answer["action_input"],
                        cached=result.cached)
            trajectory.steps.append(step)
            if step.action == FINISH:
                kind = str(step.arguments.get("return_type", ""))
                trajectory.finish = "give_answer" if kind == "give_answer" else "give_up"
                trajectory.final_answer = str(step.arguments.get("final_answer") or "")
                return trajectory
            tool = functions.get(step.action)
            step.observation = (self.api.call(tool.id, step.arguments) if tool else
                                {"error": f"No such function name: {step.action}", "response": ""})
            shown = prompt_json(step.observation)[:OBSERVATION_CHARS]
            messages += [{"role": "assistant", "content": prompt_json(answer)},
                         {"role": "user", "content": f"Observation: {shown}"}]
        return trajectory
