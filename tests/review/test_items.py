"""Review items: accepted combinations only, C* excluded, no model scores, readable documentation."""

from __future__ import annotations

import json

from tests.review.conftest import records, write_run
from toolex.data.records import Tool
from toolex.review.items import build_items, run_checksum, tool_doc


def test_items_are_the_accepted_combinations_without_c_star(items):
    ids = sorted(i.item_id for i in items)
    assert ids == sorted(["q1::t2", "q1::t3", "q2::t5", "q3::t2+t6", "q3::t1+t7", "q3::t2+t7",
                          "q4::w2", "q4::w3", "q4::w4", "q4::w5"])  # q1::t4 rejected, q5 only C*
    q3 = next(i for i in items if i.item_id == "q3::t2+t7")
    assert (q3.category, q3.complexity, q3.stratum) == ("code", 2, "code · 2 tools")
    assert [s["reference_tool"] for s in q3.payload["subqueries"]] == ["t1", "t6"]
    assert q3.payload["reference"] == ["t1", "t6"] and set(q3.payload["docs"]) == {"t2", "t7", "t1", "t6"}
    assert [s["reason"] for s in q3.payload["rationale"]["substitutions"]] == ["t2 does what t1 does",
                                                                               "t7 does what t6 does"]


def test_reviewers_never_see_model_scores(items):
    text = json.dumps([i.payload for i in items])
    assert "rrf" not in text and "score" not in text and "0.03" not in text and "rank" not in text


def test_run_checksum_is_stable_and_follows_the_stage_files(tmp_path):
    a, b = write_run(tmp_path / "a"), write_run(tmp_path / "b")
    assert run_checksum(a) == run_checksum(b) == build_items(a, *records())[0]
    (b / "manifest.json").write_text("{}")  # the manifest (timings, ledger) is not part of it
    assert run_checksum(a) == run_checksum(b)
    with open(b / "verified.jsonl", "a") as handle:
        handle.write("\n ")
    assert run_checksum(a) != run_checksum(b)


def test_tool_documentation_is_readable_in_every_shape():
    listed = tool_doc(Tool("a", "A", {"description": "get a token", "parameters": [
        {"name": "user", "schema": {"type": "str"}, "description": "who", "required": True}]}))
    assert listed["description"] == "get a token"
    assert listed["parameters"] == [{"name": "user", "type": "str", "required": "yes", "description": "who"}]
    schema = tool_doc(Tool("b", "B", {"name": "b", "description": "d", "parameters": {
        "type": "object", "properties": {"q": {"type": "string", "description": "query"}},
        "required": ["q"]}}))
    assert schema["parameters"][0] == {"name": "q", "type": "string", "required": "yes",
                                       "description": "query"}
    text = tool_doc(Tool("c", "C", "category_name:Food, tool_name:Recipes, api_name:Suggest, api_description:"
                                   "Get suggestions, required_params: [{\"name\": \"q\", \"type\": "
                                   "\"STRING\", \"description\": \"\"}], optional_params: [], return_schema: "
                                   "{}"))
    assert text["name"] == "Recipes / Suggest" and text["description"] == "Get suggestions"
    assert text["parameters"][0]["name"] == "q" and text["parameters"][0]["required"] == "yes"
