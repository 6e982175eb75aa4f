"""A tiny hand-made annotation run (two queries, six tools): the fixture of the widget and stage-table
tests."""

from __future__ import annotations

from toolex.annotate.stage_records import (
    AuditedQuery,
    Candidate,
    Combination,
    Decomposition,
    SubQuery,
    Verdict,
    VerifiedSet,
)
from toolex.data.records import Annotation, Query, Tool
from toolex.widgets.data import InspectorData

J = "offline-similarity(minilm)"


def _verdict(ok: bool | None, reason: str) -> Verdict:
    return Verdict(ok, reason, J)


def toy_data() -> InspectorData:
    """Two queries: q1 (web, C* = a, c; b verified for a; {b, c} valid) and q2 (code, decomposition
    failed)."""
    tools = {t: Tool(t, f"name of {t}", {"description": t}) for t in ("a", "b", "c", "d", "e", "f")}
    queries = [Query("q1", "find weather then book a cab", ("a", "c"), "retrieve tools", "web", "toy"),
               Query("q2", "translate code", ("e",), "", "code", "toy")]
    subs = (SubQuery(0, "get weather: city", "get weather", "city", "a"),
            SubQuery(1, "book cab: airport", "book cab", "airport", "c"))
    decompositions = [Decomposition("q1", subs, J), Decomposition("q2", (), J, ok=False, error="bad JSON")]
    verified = [
        VerifiedSet("q1", 0, subs[0].text, "a", (
            Candidate("a", 2, 0.8, Verdict(True, "the ground-truth reference tool", "reference")),
            Candidate("b", 1, 0.9, _verdict(True, "same weather API")),
            Candidate("f", 3, 0.5, _verdict(False, "a different task")))),
        VerifiedSet("q1", 1, subs[1].text, "c", (
            Candidate("c", 1, 0.9, Verdict(True, "the ground-truth reference tool", "reference")),
            Candidate("d", 2, 0.7, _verdict(None, "")))),
    ]
    audited = [
        AuditedQuery("q1", "web", ("a", "c"), (
            Combination(("a", "c"), 0.03, True, Verdict(True, "C*, the original annotation", "reference")),
            Combination(("b", "c"), 0.02, False, _verdict(True, "works together")),
            Combination(("b", "b"), 0.01, False, _verdict(False, "one tool would serve two operations"))), 2),
        AuditedQuery("q2", "code", ("e",), (
            Combination(("e",), 0.0, True, Verdict(True, "C*, the original annotation", "reference")),), 1),
    ]
    annotations = [Annotation("q1", "web", ("a", "c"), (("a", "c"), ("b", "c"))),
                   Annotation("q2", "code", ("e",), (("e",),))]
    runs = {"bm25": {"q1": {"b": 3.0, "c": 2.0, "f": 1.0}, "q2": {"e": 1.0}},
            "dense:minilm": {"q1": {"a": 3.0, "c": 2.0}, "q2": {"f": 1.0}}}
    return InspectorData.build(queries, tools, annotations, runs, decompositions, verified, audited,
                               label="Data: toy · Judge: " + J)
