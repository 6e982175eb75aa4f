"""A real OpenAI-compatible HTTP server on 127.0.0.1 that answers the three ToolEX prompts by rule.

Decomposition: one sub-query per tool asked for. Verification: "yes" when the two tool names share a word.
Audit: "yes" unless the listing holds the same tool twice. Every answer is valid JSON for the schema sent.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.openai_stub import OpenAIStub, Reply, completion


def _names(text: str, label: str) -> list[str]:
    return [json.loads(m) for m in re.findall(label + r'[^\n]*?name <data>("(?:[^"\\]|\\.)*")</data>', text)]


def answer(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"]
    if '"sub_queries"' in user:
        k = int(re.search(r"with exactly (\d+) items", user).group(1))
        return json.dumps({"sub_queries": [
            {"relevant_tool_id": i, "functionality": f"operation {i}", "entity": "the thing",
             "sub_query": f"do operation {i} on the thing"} for i in range(1, k + 1)]})
    if "Sub-query breakdown (checklist)" in user:
        tools = re.findall(r'tool: name <data>("(?:[^"\\]|\\.)*")</data>', user)
        ok = len(set(tools)) == len(tools)
        return json.dumps({"verdict": "yes" if ok else "no", "reason": "rule-based audit"})
    if '"verdicts"' in user:
        ref = _names(user, "Reference tool:")[0]
        cands = _names(user, r"Candidate \d+:")
        words = set(re.split(r"[\W_]+", ref.lower())) - {""}
        return json.dumps({"verdicts": [
            {"candidate": i,
             "reason": "shared word" if words & set(re.split(r"[\W_]+", c.lower())) else "none",
             "verdict": "yes" if words & set(re.split(r"[\W_]+", c.lower())) else "no"}
            for i, c in enumerate(cands, 1)]})
    ref, cand = _names(user, "Reference tool:")[0], _names(user, "Candidate tool:")[0]
    shared = set(re.split(r"[\W_]+", ref.lower())) & set(re.split(r"[\W_]+", cand.lower())) - {""}
    return json.dumps({"reason": f"shared words {sorted(shared)}" if shared else "different operations",
                       "verdict": "yes" if shared else "no"})


class RuleServer(OpenAIStub):
    """Answers every chat request by :func:`answer`; ``calls`` counts them."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def respond(self, body: dict[str, Any], headers: dict[str, str]) -> Reply | None:
        with self.lock:
            self.calls += 1
        return Reply(200, completion(answer(body), model=body.get("model", "rule"), usage=(100, 20)))
