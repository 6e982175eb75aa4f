"""StableToolBench's solvable pass rate: an LLM evaluator decides, from the query, the final answer and the
trajectory, whether the query was solved.

A trajectory that gave up or never called Finish is ``Unsolved`` without asking. Otherwise the evaluator
(``TOOLEX_LLM_EVALUATOR_*``) answers ``Solved``, ``Unsolved`` or ``Unsure`` under StableToolBench's rules: a
sorry message or an answer that does not respond to the query is unsolved; an answer that responds is solved
when it is sufficient to settle the query, unsure when it is not. StableToolBench passes a query when its
passed evaluations outnumber its failed ones and decides a tie by a coin flip; with one evaluation an
``Unsure`` is such a tie, counted here as its expectation, one half (:data:`PASS_VALUE`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from toolex.data.records import Query
from toolex.downstream.agent import Trajectory, prompt_json
from toolex.llm.client import LLMClient

#: v2: the tool calls are shown with sorted keys, as the cache replays them.
PROMPT_VERSION = "pass-rate-v2"
STATUSES = ("Solved", "Unsolved", "Unsure")
PASS_VALUE = {"Solved": 1.0, "Unsolved": 0.0, "Unsure": 0.5}
SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["answer_status", "reason"],
    "properties": {"answer_status": {"type": "string", "enum": list(STATUSES)},
                   "reason": {"type": "string"}}}
_SYSTEM = re.sub(r"\s+", " ", """
You check whether an assistant solved a user's task with tools. Rules: 1. If the final answer is a sorry
message, or does not respond to the task, the status is Unsolved. 2. If it responds to the task: when the
answer (with the tool calls behind it) is sufficient to settle every part of the task, the status is Solved;
when it misses a part or contradicts what the tools returned, Unsolved; when you cannot tell, Unsure. Answer
with JSON {"answer_status": "Solved" | "Unsolved" | "Unsure", "reason": ...}.""").strip()


@dataclass(frozen=True)
class PassVerdict:
    """The evaluator's status, its reason and the pass value it counts for."""

    status: str
    reason: str
    asked: bool

    @property
    def passed(self) -> float:
        return PASS_VALUE[self.status]


def evaluation_messages(query: Query, trajectory: Trajectory) -> list[dict[str, Any]]:
    steps = [{"action": s.action, "arguments": s.arguments,
              "observation": prompt_json(s.observation)[:400] if s.observation else None}
             for s in trajectory.steps if s.action != "Finish"]
    user = (f"Task: {query.text}\n\nTool calls: {prompt_json(steps)[:2500]}\n\n"
            f"Final answer: {trajectory.final_answer[:1500]}")
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


class PassRateEvaluator:
    """Evaluates trajectories with the LLM ``client`` (its ``evaluator`` stage)."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def evaluate(self, query: Query, trajectory: Trajectory) -> PassVerdict | None:
        """The evaluation, or None when the evaluator failed to answer (asked again on the next run)."""
        if trajectory.finish != "give_answer" or not trajectory.final_answer.strip():
            return PassVerdict("Unsolved", f"no final answer ({trajectory.finish})", asked=False)
        result = self.client.complete_json(evaluation_messages(query, trajectory), SCHEMA, "evaluator",
                                           name=query.id)
        if not result.ok:
            return None
        return PassVerdict(str(result.data["answer_status"]), str(result.data["reason"]), asked=True)
