"""Stratified, reproducible sampling of review items by category and complexity (number of sub-queries),
with the sampler of :mod:`toolex.sampling`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from toolex import sampling
from toolex.review.items import ReviewItem


def strata(items: Sequence[ReviewItem]) -> dict[str, list[ReviewItem]]:
    """Items grouped by stratum (category × complexity), strata and items in a stable sorted order."""
    groups: dict[str, list[ReviewItem]] = {}
    for item in sorted(items, key=lambda i: (i.category, i.complexity, i.item_id)):
        groups.setdefault(item.stratum, []).append(item)
    return groups


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
        counts = sampling.allocate(sizes, sum(sizes.values()) if total is None else total, allocation)
    picked = sorted((i for chosen in sampling.draw(groups, counts, seed).values() for i in chosen),
                    key=lambda i: i.item_id)
    random.Random(seed).shuffle(picked)
    return Sample(picked, {s: (sizes[s], counts[s]) for s in groups}, seed, allocation)
