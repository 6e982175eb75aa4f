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
from collections.abc import Sequence

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
