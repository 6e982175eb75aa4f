"""Stage 3's candidates: the Cartesian product of verified sets, best first by Reciprocal Rank Fusion.

A combination takes one verified tool per sub-query; its score is ``sum_i 1 / (k + rank_i)`` (Cormack et al.
2009, k = 60) over the tools' ranks for their sub-queries. The best ``limit`` combinations are enumerated
best-first with a heap, so the full product (which can be large) is never built.

Given the reference combination C*, the enumeration keeps only *admissible* combinations: a tool serves two
sub-queries only where C* itself uses one tool for both (:func:`admissible`), and a combination equal as a set
of tools to a better-ranked one (a permutation, say) is the same annotation and is not repeated. Both are
filtered while enumerating, before the ``limit`` cut, so the limit counts distinct, admissible combinations.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

from toolex.annotate.judges.base import AuditItem
from toolex.annotate.stage_records import AuditedQuery, Combination, Decomposition, Verdict, VerifiedSet
from toolex.data.records import Query, Tool
from toolex.retrieval.fusion import RRF_K


def product_size(sets: Sequence[Sequence[object]]) -> int:
    size = 1
    for s in sets:
        size *= len(s)
    return size


def admissible(tools: Sequence[str], reference: Sequence[str]) -> bool:
    """True when ``tools`` uses one tool for two positions only where ``reference`` (C*, aligned with the
    positions) does too: every operation of C* with its own tool keeps its own tool."""
    first: dict[str, int] = {}
    for position, tool in enumerate(tools):
        earlier = first.setdefault(tool, position)
        if earlier != position and reference[earlier] != reference[position]:
            return False
    return True


def best_combinations(
    sets: Sequence[Sequence[tuple[str, int]]], limit: int, rrf_k: int = RRF_K,
    reference: Sequence[str] | None = None,
) -> list[tuple[tuple[str, ...], float]]:
    """The ``limit`` best combinations of ``(tool, rank)`` sets by RRF score; ties keep lexicographic order of
    the positions, so the result is deterministic.

    With ``reference`` (C*, one tool per set), only :func:`admissible` combinations are kept, and of several
    combinations equal as sets of tools only the best-ranked one.
    """
    if not sets or any(len(s) == 0 for s in sets) or limit <= 0:
        return []
    if reference is not None and len(reference) != len(sets):
        raise ValueError(f"reference has {len(reference)} tools for {len(sets)} sets")
    ordered = [sorted(s, key=lambda item: (item[1], item[0])) for s in sets]
    gains = [[1.0 / (rrf_k + rank) for _, rank in s] for s in ordered]

    def score(position: tuple[int, ...]) -> float:
        return sum(g[i] for g, i in zip(gains, position))

    start = (0,) * len(ordered)
    heap = [(-score(start), start)]
    seen = {start}
    kept: set[frozenset[str]] = set()
    out: list[tuple[tuple[str, ...], float]] = []
    while heap and len(out) < limit:
        neg, position = heapq.heappop(heap)
        tools = tuple(s[i][0] for s, i in zip(ordered, position))
        if reference is None:
            out.append((tools, -neg))
        elif admissible(tools, reference) and frozenset(tools) not in kept:
            kept.add(frozenset(tools))
            out.append((tools, -neg))
        for axis in range(len(position)):
            if position[axis] + 1 < len(ordered[axis]):
                nxt = position[:axis] + (position[axis] + 1,) + position[axis + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (-score(nxt), nxt))
    return out


def _reference(query: Query, score: float) -> Combination:
    return Combination(query.reference, score, True,
                       Verdict(True, "C*, the original annotation", "reference"))


def audit_combinations(queries: Sequence[Query], decompositions: Sequence[Decomposition],
                       verified: Sequence[VerifiedSet], tools: dict[str, Tool],
                       audit: Callable[[list[AuditItem]], list[Verdict]], limit: int,
                       rrf_k: int = RRF_K) -> tuple[list[AuditedQuery], int]:
    """Stage 3 over every query: the ``limit`` best admissible combinations of its verified sets, each one
    but C* audited by ``audit`` (one call for all); C* is always valid and listed once. Returns the audited
    queries and the number of combinations audited."""
    sets: dict[str, list[VerifiedSet]] = {}
    for v in verified:
        sets.setdefault(v.query_id, []).append(v)
    decomposition = {d.query_id: d for d in decompositions}
    pending: list[tuple[str, tuple[str, ...]]] = []
    items: list[AuditItem] = []
    candidates: dict[str, list[tuple[tuple[str, ...], float]]] = {}
    sizes: dict[str, int] = {}
    for q in queries:
        d = decomposition.get(q.id)
        if d is None or not d.ok:
            continue
        subsets = sorted(sets.get(q.id, []), key=lambda v: v.index)
        ranked_sets = [[(t, v.rank_of(t)) for t in v.verified] for v in subsets]
        sizes[q.id] = product_size(ranked_sets)
        # admissible combinations only, each set of tools once (its best-ranked order)
        candidates[q.id] = best_combinations(ranked_sets, limit, rrf_k,
                                             reference=tuple(v.reference_tool for v in subsets))
        references = tuple(tools[s.reference_tool] for s in d.subqueries)
        for combo, _ in candidates[q.id]:
            if set(combo) != set(q.reference):
                pending.append((q.id, combo))
                items.append(AuditItem(q, d.subqueries, tuple(tools[t] for t in combo), references))
    verdicts = dict(zip(pending, audit(items)))
    out = []
    for q in queries:
        chosen: list[Combination] = []
        for combo, score in candidates.get(q.id, []):
            if set(combo) == set(q.reference):  # C* (or a permutation of it): written as C*, once
                chosen.append(_reference(q, score))
            else:
                chosen.append(Combination(combo, score, False, verdicts[(q.id, combo)]))
        if not any(c.is_reference for c in chosen):
            chosen.insert(0, _reference(q, 0.0))
        out.append(AuditedQuery(q.id, q.category, q.reference, tuple(chosen), sizes.get(q.id, 1)))
    return out, len(items)
