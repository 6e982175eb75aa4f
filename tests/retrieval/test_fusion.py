"""Reciprocal Rank Fusion against ranx, and sub-query retrieval."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from toolex.io.trec import ranked
from toolex.retrieval import retrieve_queries, rrf, rrf_scores, subquery_retrieve


def test_rrf_by_definition():
    fused = rrf_scores([["a", "b", "c"], ["c", "d"]], k=60)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["d"] == pytest.approx(1 / 62)
    assert rrf_scores([["a", "a", "b"]])["b"] == pytest.approx(1 / 62)  # repeated ids count once


def _strict(run):
    """The same rankings with distinct scores (1/rank), so that no library has to break ties."""
    return {q: {d: 1.0 / r for r, (d, _) in enumerate(ranked(s), 1)} for q, s in run.items()}


_RANX_RRF = """
import json, sys
from ranx import Run, fuse
runs = json.load(sys.stdin)
json.dump(fuse([Run(r) for r in runs], method="rrf", params={"k": 60}).to_dict(), sys.stdout)
"""


def test_rrf_matches_ranx_on_real_runs(toolret_parts, bm25_all):
    """Against ranx's own fusion code, run interpreted in a process of its own (``NUMBA_DISABLE_JIT=1``), so
    that a fresh environment does not compile ranx (about 30 s on 2 cores) for 80 queries."""
    queries = toolret_parts[1].queries[:80]
    with_inst = _strict(retrieve_queries(bm25_all, queries, k=50))
    without = _strict(retrieve_queries(bm25_all, queries, k=50, use_instruction=False))
    ours = rrf([with_inst, without], k=60)
    done = subprocess.run([sys.executable, "-c", _RANX_RRF], input=json.dumps([with_inst, without]),
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    assert ours.keys() == theirs.keys()
    for qid in ours:
        assert ours[qid].keys() == theirs[qid].keys()
        for doc, score in ours[qid].items():
            assert score == pytest.approx(theirs[qid][doc], rel=1e-9)


def test_subquery_retrieve_fuses_each_subquery_top_k(toolret_parts, bm25_all):
    queries = toolret_parts[1].queries[:40]
    subqueries = {q.id: [s for s in q.text.replace("?", ".").split(".") if s.strip()] or [q.text]
                  for q in queries}
    run = subquery_retrieve(bm25_all, subqueries, k=20)
    assert run.keys() == subqueries.keys()
    for qid, subs in subqueries.items():
        lists = [[t for t, _ in hits] for hits in bm25_all.search(subs, k=20)]
        assert all(len(lst) == 20 for lst in lists)
        assert run[qid] == pytest.approx(rrf_scores(lists, 60))
        assert set(run[qid]) == {t for lst in lists for t in lst}


def test_subquery_single_subquery_keeps_the_ranking(toolret_parts, bm25_all):
    q = toolret_parts[0].queries[0]
    run = subquery_retrieve(bm25_all, {q.id: [q.text]}, k=20)
    order = [t for t, _ in bm25_all.search([q.text], k=20)[0]]
    assert [t for t, _ in ranked(run[q.id])] == order
    assert subquery_retrieve(bm25_all, {"empty": []}) == {"empty": {}}
