"""Stratified, reproducible sampling of review items by category and complexity (number of sub-queries).

>>> allocate({"a": 30, "b": 10}, 8, "proportional")
{'a': 6, 'b': 2}
>>> allocate({"a": 30, "b": 10}, 8, "equal")
{'a': 4, 'b': 4}
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolex.review.items import ReviewItem

ALLOCATIONS = ("proportional", "equal")


def strata(items: Sequence[ReviewItem]) -> dict[str, list[ReviewItem]]:
    """Items grouped by stratum (category × complexity), strata and items in a stable sorted order."""
    groups: dict[str, list[ReviewItem]] = {}
    for item in sorted(items, key=lambda i: (i.category, i.complexity, i.item_id)):
        groups.setdefault(item.stratum, []).append(item)
    return groups


def allocate(sizes: Mapping[str, int], total: int, allocation: str = "proportional") -> dict[str, int]:
    """Items to draw per stratum, summing to ``min(total, sum(sizes))`` and never above a stratum's size.

    ``proportional``: the largest-remainder (Hamilton) rounding of ``total × size / N``; ``equal``: the same
    number per stratum, what a small stratum cannot take going to the others. Ties go to the earlier stratum.
    """
    if allocation not in ALLOCATIONS:
        raise ValueError(f"allocation must be one of {', '.join(ALLOCATIONS)}, not {allocation!r}")
    if total < 0:
        raise ValueError("sample size must be positive")
    names = sorted(sizes)
    available = sum(sizes.values())
    total = min(total, available)
    if allocation == "proportional":
        quotas = {s: total * sizes[s] / available if available else 0.0 for s in names}
        out = {s: int(quotas[s]) for s in names}
        order = sorted(names, key=lambda s: (-(quotas[s] - out[s]), names.index(s)))
        for s in order[: total - sum(out.values())]:
            out[s] += 1
        return out
    out = dict.fromkeys(names, 0)
    left = total
    while left > 0:
        open_ = [s for s in names if out[s] < sizes[s]]
        share, extra = divmod(left, len(open_))
        for i, s in enumerate(open_):
            take = min(share + (1 if i < extra else 0), sizes[s] - out[s])
            out[s] += take
            left -= take
    return out


@dataclass(frozen=True)
class Sample:
    """The drawn items in review order and the plan: stratum -> (available, drawn)."""

    items: list[ReviewItem]
    plan: dict[str, tuple[int, int]]
    seed: int
    allocation: str


def draw(items: Sequence[ReviewItem], total: int | None = None, per_stratum: int | None = None,
         allocation: str = "proportional", seed: int = 0) -> Sample:
    """A stratified sample: ``total`` items split by ``allocation``, or ``per_stratum`` items in each stratum
    (capped by its size); all items when neither is given. Each stratum draws from its own seeded generator,
    so a stratum's draw does not depend on the others; the review order is a seeded shuffle of the sample."""
    groups = strata(items)
    sizes = {s: len(g) for s, g in groups.items()}
    if per_stratum is not None:
        if per_stratum < 0:
            raise ValueError("per-stratum size must be positive")
        counts = {s: min(per_stratum, n) for s, n in sizes.items()}
        allocation = "equal"
    else:
        counts = allocate(sizes, sum(sizes.values()) if total is None else total, allocation)
    picked: list[ReviewItem] = []
    for s, group in groups.items():
        picked += random.Random(f"{seed}:{s}").sample(group, counts[s])
    picked.sort(key=lambda i: i.item_id)
    random.Random(seed).shuffle(picked)
    return Sample(picked, {s: (sizes[s], counts[s]) for s in groups}, seed, allocation)
