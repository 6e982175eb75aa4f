"""A tiny annotation run built by hand (no model, no data folder) and review items from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolex.data.records import Query, Tool
from toolex.review.items import ReviewItem, build_items


def _jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _combo(tools, valid, reference=False, judge="offline-similarity(minilm)"):
    return {"tools": tools, "rrf": 0.03, "is_reference": reference, "valid": valid or reference,
            "audit": True if reference else valid, "reason": "C*" if reference else f"audit says {valid}",
            "judge": "reference" if reference else judge}


# query -> (category, C*, other combinations (tools, audit verdict))
RUN = {
    "q1": ("code", ["t1"], [(["t2"], True), (["t3"], True), (["t4"], False)]),
    "q2": ("code", ["t1"], [(["t5"], True)]),
    "q3": ("code", ["t1", "t6"], [(["t2", "t6"], True), (["t1", "t7"], True), (["t2", "t7"], True)]),
    "q4": ("web", ["w1"], [(["w2"], True), (["w3"], True), (["w4"], True), (["w5"], True)]),
    "q5": ("web", ["w1", "w6"], [(["w2", "w6"], False)]),  # nothing accepted beyond C*
}


def write_run(folder: Path, run: dict = RUN, judge: str = "offline-similarity(minilm)") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    subqueries, verified, combos = [], [], []
    for qid, (category, reference, others) in run.items():
        subqueries.append({"query_id": qid, "ok": True, "judge": judge, "subqueries": [
            {"index": i, "text": f"{qid} need {i}", "functionality": f"do {i}", "entity": "thing",
             "reference_tool": ref} for i, ref in enumerate(reference)]})
        for i, ref in enumerate(reference):
            alternatives = sorted({tools[i] for tools, _ in others if tools[i] != ref})
            verified.append({"query_id": qid, "index": i, "subquery": f"{qid} need {i}",
                             "reference_tool": ref,
                             "verified": [ref, *alternatives], "candidates": [
                                 {"tool_id": t, "rank": r + 1, "score": 0.9 - r / 10, "equivalent": True,
                                  "reason": f"{t} does what {ref} does", "judge": judge}
                                 for r, t in enumerate(alternatives)]})
        combos.append({"query_id": qid, "category": category, "reference": reference, "product_size": 4,
                       "combinations": [_combo(reference, True, True)]
                       + [_combo(tools, ok, judge=judge) for tools, ok in others]})
    _jsonl(folder / "subqueries.jsonl", subqueries)
    _jsonl(folder / "verified.jsonl", verified)
    _jsonl(folder / "query_combo_verified.jsonl", combos)
    (folder / "manifest.json").write_text(json.dumps({"judge": {"name": judge}, "benchmarks": []}))
    return folder


def records(run: dict = RUN) -> tuple[dict[str, Query], dict[str, Tool]]:
    queries = {qid: Query(qid, f"please {qid}", tuple(ref), f"instruction of {qid}", category)
               for qid, (category, ref, _) in run.items()}
    ids = {t for _, ref, others in run.values() for t in ref} | {t for _, _, o in run.values() for ts, _ in o
                                                                  for t in ts}
    tools = {t: Tool(t, f"name_{t}", {"name": f"name_{t}", "description": f"tool {t}",
                                      "parameters": {"x": {"type": "str", "description": "an x"}}})
             for t in ids}
    return queries, tools


@pytest.fixture
def run_folder(tmp_path) -> Path:
    return write_run(tmp_path / "run")


@pytest.fixture
def items(run_folder) -> list[ReviewItem]:
    return build_items(run_folder, *records())[1]
