"""Stage 3's candidates: the Cartesian product of verified sets, best first by Reciprocal Rank Fusion.

A combination takes one verified tool per sub-query; its score is ``sum_i 1 / (k + rank_i)`` (Cormack et al.
2009, k = 60) over the tools' ranks for their sub-queries. The best ``limit`` combinations are enumerated
best-first with a heap, so the full product (which can be large) is never built.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

RRF_K = 60


def product_size(sets: Sequence[Sequence[str]]) -> int:
    size = 1
    for s in sets:
        size *= len(s)
    return size


def best_combinations(
    sets: Sequence[Sequence[tuple[str, int]]], limit: int, rrf_k: int = RRF_K
) -> list[tuple[tuple[str, ...], float]]:
    """The ``limit`` best combinations of ``(tool, rank)`` sets by RRF score; ties keep lexicographic order of
    the positions, so the result is deterministic."""
    if not sets or any(len(s) == 0 for s in sets) or limit <= 0:
        return []
    ordered = [sorted(s, key=lambda item: (item[1], item[0])) for s in sets]
    gains = [[1.0 / (rrf_k + rank) for _, rank in s] for s in ordered]

    def score(position: tuple[int, ...]) -> float:
        return sum(g[i] for g, i in zip(gains, position))

    start = (0,) * len(ordered)
    heap = [(-score(start), start)]
    seen = {start}
    out: list[tuple[tuple[str, ...], float]] = []
    while heap and len(out) < limit:
        neg, position = heapq.heappop(heap)
        out.append((tuple(s[i][0] for s, i in zip(ordered, position)), -neg))
        for axis in range(len(position)):
            if position[axis] + 1 < len(ordered[axis]):
                nxt = position[:axis] + (position[axis] + 1,) + position[axis + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (-score(nxt), nxt))
    return out
