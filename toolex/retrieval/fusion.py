"""Reciprocal Rank Fusion (Cormack, Clarke and Büttcher, SIGIR 2009): score(d) = Σ 1 / (k + rank(d)).

Ranks count from 1 in each list; a document absent from a list adds nothing for it. Ties in the fused scores
are left to the run order (trec_eval: score, then tool id).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from toolex.io.trec import Run, ranked

#: The RRF constant k of the paper and of Cormack et al., defined here once: sub-query retrieval and the
#: ranking of combinations (Stage 3) both use it.
RRF_K = 60


def rrf_scores(rankings: Iterable[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Fused scores of several rankings (each a list of ids, best first)."""
    if k < 0:
        raise ValueError(f"RRF k must be non-negative, got {k}")
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(dict.fromkeys(ranking), 1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + rank)
    return fused


def rrf(runs: Sequence[Mapping[str, Mapping[str, float]]], k: int = RRF_K, top: int | None = None) -> Run:
    """Fuse runs query by query; each run's ranking is re-derived from its scores in trec_eval order."""
    query_ids = list(dict.fromkeys(q for run in runs for q in run))
    fused: Run = {}
    for qid in query_ids:
        rankings = [[doc for doc, _ in ranked(run[qid])] for run in runs if qid in run]
        scores = rrf_scores(rankings, k)
        fused[qid] = dict(ranked(scores, top))
    return fused
