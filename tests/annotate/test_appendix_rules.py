"""Every rule of the paper's appendix (``appendix_a.md`` in the paper folder) is in the stage's prompt: one
test per rule, each naming the rule and the words that carry it."""

from __future__ import annotations

import pytest

from toolex.annotate import prompts
from toolex.annotate.judges.base import AuditItem, DecomposeItem, VerifyItem
from toolex.annotate.judges.llm import LLMJudge
from toolex.annotate.stage_records import SubQuery
from toolex.data.records import Query, Tool
from toolex.llm import LLMClient, LLMSettings, ResponseCache
from toolex.llm.schema import is_valid

REF = Tool("a", "get_weather", {"name": "get_weather", "description": "Weather of a city."})
CAND = Tool("x", "forecast", {"name": "forecast", "description": "Forecast for a place."})
QUERY = Query("q1", "What is the weather in Paris?", ("a",), instruction="Retrieve tools.")
SUB = SubQuery(0, "weather in Paris", "retrieve weather", "Paris", "a")


def _judge(tmp_path) -> LLMJudge:
    settings = LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", response_format="json_object")
    return LLMJudge(client=LLMClient(settings, cache=ResponseCache(tmp_path / "c")), progress=False)


def _text(request) -> str:
    return "\n".join(m["content"] for m in request.messages)


@pytest.fixture
def stages(tmp_path, monkeypatch) -> dict[str, str]:
    monkeypatch.delenv("TOOLEX_AUDIT_DEPENDENCY", raising=False)
    judge = _judge(tmp_path)
    return {"decompose": _text(judge.decomposition_request(DecomposeItem(QUERY, (REF,)))),
            "verify": _text(judge.verification_request(VerifyItem(SUB, REF, CAND))),
            "audit": _text(judge.audit_request(AuditItem(QUERY, (SUB,), (CAND,), (REF,))))}


RULES = [
    # Stage 1
    ("decompose", "role: planner of a plan-and-execute system", ["planner of a plan-and-execute system"]),
    ("decompose", "input: query, instruction and the N relevant tools with documentation",
     ["Task instruction:", "User query:", "N relevant tools", "documentation"]),
    ("decompose", "goal: exactly N executable steps, one per tool, executed in order they answer the query",
     ["exactly N executable steps, one per relevant tool",
      "executing them in order fully answers the query"]),
    ("decompose", "each step is later a search query: minimize the semantic gap",
     ["used as a search query to retrieve its tool", "minimize the semantic gap"]),
    ("decompose", "exactly N sub-queries, each mapped to one tool by relevant_tool_id",
     ["Write exactly N sub-queries", "relevant_tool_id"]),
    ("decompose", "focus on FUNCTIONALITY and ENTITY, with the appendix's examples",
     ["FUNCTIONALITY", "retrieve, calculate, search, filter, authenticate, convert", "ENTITY",
      "a stock ticker, historical events on a date, user credentials"]),
    ("decompose", "domain terms likely to appear in the documentation",
     ["domain terms likely to appear in the tool's documentation"]),
    ("decompose", "never name a tool, API or function", ["Never name a tool, an API or a function"]),
    ("decompose", "no parameter names, types or return types",
     ["parameter names, parameter types or return types"]),
    ("decompose", "output JSON only with the tool ids", ["Output JSON only"]),
    # Stage 2
    ("verify", "task: can the candidate be directly invoked to complete the sub-query",
     ["can the candidate tool be directly invoked to complete the sub-query"]),
    ("verify", "the sub-query is atomic: one operation, one tool call",
     ["The sub-query is atomic: one operation, completable by one tool call"]),
    ("verify", "the reference is ground truth that can complete it",
     ["reference tool is ground truth and can already complete it"]),
    ("verify", "yes: same core operation or equivalent functionality",
     ["performs the same core operation or has equivalent functionality"]),
    ("verify", "yes needs all: primary function performs the same operation",
     ["all of these hold", "primary function directly performs the same operation as the reference"]),
    ("verify", "yes needs all: output covers the need, same type of result",
     ["output covers what the sub-query needs", "the same type of result as the reference tool"]),
    ("verify", "no when any: function does not match the operation",
     ["any of these holds", "function does not match the required operation"]),
    ("verify", "no when any: output partial, significant extra steps",
     ["only partially satisfies the sub-query", "significant extra steps"]),
    ("verify", "when genuinely uncertain, answer no", ["When genuinely uncertain, answer no."]),
    ("verify", "output JSON only: verdict and one concise sentence",
     ["Output JSON only", '{"verdict": "yes" | "no", "reason": "<one concise sentence>"}']),
    # Stage 3
    ("audit", "role: a tool-use agent deciding whether the available tools suffice",
     ["tool-use agent deciding whether a set of available tools is sufficient to fully complete"]),
    ("audit", "inputs: query, instruction, available tools, sub-query checklist, C*",
     ["User query:", "Task instruction:", "available tool", "Sub-query breakdown (checklist)",
      "reference tool set C*"]),
    ("audit", "C* is a known-correct benchmark", ["C* is a known-correct benchmark"]),
    ("audit", "same core operations count as sufficient despite name, interface or parameter format",
     ["same core operations as the reference tools count as sufficient",
      "even if they differ in name, interface details, or parameter formats"]),
    ("audit", "yes when every operation is covered and the result can be produced",
     ["cover every operation the query needs and can produce the result the user wants"]),
    ("audit", "intermediate values are passed at run time: do not verify",
     ["authentication tokens, resource ids, session handles", "do not verify that",
      "judge whether the required operations exist"]),
    ("audit", "no only when an essential operation is entirely absent",
     ["no only when an essential operation is entirely absent"]),
    ("audit", "a functional mismatch, not a format or naming difference",
     ["functional mismatch, not a minor format or naming difference"]),
    ("audit", "output JSON only: verdict and one concise sentence",
     ["Output JSON only", '{"verdict": "yes" | "no", "reason": "<one concise sentence>"}']),
]


@pytest.mark.parametrize(("stage", "rule", "phrases"), RULES, ids=[f"{s}: {r}" for s, r, _ in RULES])
def test_appendix_rule_is_in_the_prompt(stages, stage, rule, phrases):
    text = stages[stage]
    missing = [p for p in phrases if p not in text]
    assert not missing, f"{stage} prompt lacks the appendix rule {rule!r}: {missing}"


def test_audit_answer_is_the_verdict_and_a_reason_only():
    """The appendix asks for nothing besides the verdict: no extra booleans can veto it."""
    schema = prompts.AUDIT_SCHEMA
    assert set(schema["required"]) == set(schema["properties"]) == {"verdict", "reason"}
    assert is_valid({"verdict": "yes", "reason": "covers all"}, schema)
    assert not is_valid({"verdict": "yes", "reason": "x", "covers_all_operations": False}, schema)


def test_verification_answer_is_the_verdict_and_a_reason():
    assert set(prompts.VERDICT_SCHEMA["required"]) == {"verdict", "reason"}


def test_the_main_texts_input_rule_is_not_in_the_appendix_prompt(stages):
    """The appendix's verification prompt does not ask the sub-query to supply the candidate's inputs (only
    the main text says so): the prompt follows the appendix."""
    assert "required input" not in stages["verify"] and "supply every input" not in stages["verify"]
