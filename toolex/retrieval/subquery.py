"""Sub-query-level retrieval: each sub-query retrieves its own top K, the lists are merged by RRF."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolex.io.trec import Run, ranked
from toolex.retrieval.base import Retriever
from toolex.retrieval.fusion import RRF_K, rrf_scores

SUBQUERY_K = 20


def subquery_retrieve(retriever: Retriever, subqueries: Mapping[str, Sequence[str]], k: int = SUBQUERY_K,
                      rrf_k: int = RRF_K, instructions: Mapping[str, str] | None = None,
                      top: int | None = None) -> Run:
    """One ranking per query: the RRF fusion of the top-``k`` lists of its sub-queries.

    All sub-queries are searched in one batch; ``instructions`` (by query id) apply to every sub-query of a
    query;
    ``top`` cuts each fused ranking (default: keep every tool that any sub-query retrieved). A query without
    sub-queries gets an empty ranking.
    """
    owners: list[str] = []
    texts: list[str] = []
    for qid, subs in subqueries.items():
        for text in subs:
            owners.append(qid)
            texts.append(text)
    inst = [instructions.get(q, "") for q in owners] if instructions else None
    hits = retriever.search(texts, k=k, instructions=inst) if texts else []
    lists: dict[str, list[list[str]]] = {qid: [] for qid in subqueries}
    for qid, ranking in zip(owners, hits):
        lists[qid].append([tool for tool, _ in ranking])
    return {qid: dict(ranked(rrf_scores(rankings, rrf_k), top)) for qid, rankings in lists.items()}
