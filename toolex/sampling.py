"""Stratified, seeded sampling: how many items each stratum gives (:func:`allocate`) and which (:func:`draw`),
and a sample spread over strata as evenly as its size allows (:func:`round_robin`).

The stratified sampler of the samples people label. Its two callers choose their strata: a review
campaign's items by category and complexity (:func:`toolex.review.sample.draw`), the labelled sample that
places the judge's threshold by the score's unsure band and the bins either side of it
(:func:`toolex.annotate.operating_point.draw`). The round robin serves the data selections that spread a
fixed number of items over groups: MetaTool's queries over their tools (:func:`toolex.data.metatool.select`)
and the downstream experiment's queries over their subsets (:func:`toolex.downstream.run.sample_queries`),
each with the seeded order of members and strata it has always used, so that its kept data stays as drawn.

>>> allocate({"a": 30, "b": 10}, 8, "proportional")
{'a': 6, 'b': 2}
>>> allocate({"a": 30, "b": 10}, 8, "equal")
{'a': 4, 'b': 4}
>>> allocate({"near": 50, "low": 30, "high": 30}, 10, "equal", shares={"near": 0.6})
{'high': 2, 'low': 2, 'near': 6}
>>> round_robin([["a1", "a2", "a3"], ["b1"], ["c1", "c2"]], 5)
['a1', 'b1', 'c1', 'a2', 'c2']
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TypeVar

ALLOCATIONS = ("proportional", "equal")
T = TypeVar("T")


def _proportional(sizes: Mapping[str, int], total: int) -> dict[str, int]:
    """The largest-remainder (Hamilton) rounding of ``total × size / N``; ties go to the earlier stratum."""
    names = sorted(sizes)
    available = sum(sizes.values())
    quotas = {s: total * sizes[s] / available if available else 0.0 for s in names}
    out = {s: int(quotas[s]) for s in names}
    order = sorted(names, key=lambda s: (-(quotas[s] - out[s]), names.index(s)))
    for s in order[: total - sum(out.values())]:
        out[s] += 1
    return out


def _equal(sizes: Mapping[str, int], total: int, start: Mapping[str, int] | None = None) -> dict[str, int]:
    """The same number per stratum on top of ``start``, what a small stratum cannot take going to the others;
    the earlier stratum gets the odd one."""
    names = sorted(sizes)
    out = {s: (start or {}).get(s, 0) for s in names}
    left = total
    while left > 0:
        open_ = [s for s in names if out[s] < sizes[s]]
        if not open_:
            break
        share, extra = divmod(left, len(open_))
        for i, s in enumerate(open_):
            take = min(share + (1 if i < extra else 0), sizes[s] - out[s])
            out[s] += take
            left -= take
    return out


def allocate(sizes: Mapping[str, int], total: int, allocation: str = "proportional", *,
             shares: Mapping[str, float] | None = None, at_least: int = 0) -> dict[str, int]:
    """Items to draw per stratum, summing to ``min(total, sum(sizes))`` and never above a stratum's size.

    ``proportional``: the largest-remainder rounding of ``total × size / N``; ``equal``: the same number per
    stratum, what a small stratum cannot take going to the others. ``shares``: strata that take a fixed
    share of ``total`` first (capped by their size); the others share the rest by ``allocation``, and what
    they cannot take goes back to the share-holding strata. ``at_least``: every stratum gets at least that
    many items (or all it holds) where ``total`` allows, taken from the strata with most to spare.
    """
    if allocation not in ALLOCATIONS:
        raise ValueError(f"allocation must be one of {', '.join(ALLOCATIONS)}, not {allocation!r}")
    if total < 0:
        raise ValueError("sample size must be positive")
    if any(not 0 <= share <= 1 for share in (shares or {}).values()) or sum((shares or {}).values()) > 1:
        raise ValueError(f"shares must lie in [0, 1] and add up to at most 1, not {dict(shares or {})}")
    total = min(total, sum(sizes.values()))
    fixed = {s: min(sizes[s], round(total * share)) for s, share in (shares or {}).items() if s in sizes}
    others = {s: n for s, n in sizes.items() if s not in fixed}
    rest = total - sum(fixed.values())
    if not others:
        fixed = dict.fromkeys(fixed, 0)
        rest = total
    spread = _proportional(others, min(rest, sum(others.values()))) if allocation == "proportional" \
        else _equal(others, rest)
    out = _equal(sizes, total - sum(fixed.values()) - sum(spread.values()), {**fixed, **spread})
    needy = [s for s in sorted(sizes) if sizes[s] and out[s] < min(at_least, sizes[s])]
    if needy and total >= sum(min(at_least, n) for n in sizes.values()):
        for s in needy:
            while out[s] < min(at_least, sizes[s]):
                donor = max(sorted(out), key=lambda d: out[d] - min(at_least, sizes[d]))
                out[donor] -= 1
                out[s] += 1
    return {s: out[s] for s in sorted(sizes)}


def draw(strata: Mapping[str, Sequence[T]], counts: Mapping[str, int],
         seed: int | str = 0) -> dict[str, list[T]]:
    """``counts[s]`` members of each stratum ``s`` without replacement, each stratum from its own generator
    seeded by ``seed`` and its name, so that one stratum's draw depends neither on the others nor on their
    order. Members keep the order they are drawn in."""
    return {s: random.Random(f"{seed}:{s}").sample(list(members), counts.get(s, 0))
            for s, members in strata.items()}


def round_robin(strata: Sequence[Sequence[T]], n: int) -> list[T]:
    """Up to ``n`` members: the first of every stratum in the order given, then the second of each, and so on
    (strata and members already in their seeded order); a stratum that runs out is passed over."""
    picked: list[T] = []
    depth = 0
    while len(picked) < n and any(len(members) > depth for members in strata):
        for members in strata:
            if len(picked) == n:
                break
            if len(members) > depth:
                picked.append(members[depth])
        depth += 1
    return picked


def inclusion(sizes: Mapping[str, int], counts: Mapping[str, int]) -> dict[str, float]:
    """Each stratum's inclusion probability, drawn over available (what inverse-probability weights read)."""
    return {s: counts.get(s, 0) / n for s, n in sizes.items() if n}
