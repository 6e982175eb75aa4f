"""Stratified sampling: reproducible from a seed, proportional or equal allocation, per-stratum sizes."""

from __future__ import annotations

from collections import Counter

import pytest

from toolex.review.items import ReviewItem
from toolex.review.sample import draw
from toolex.sampling import allocate


def _items(sizes: dict[tuple[str, int], int]) -> list[ReviewItem]:
    return [ReviewItem(f"{cat}{k}_q{n}::t{n}", "run", f"{cat}{k}_q{n}", cat, k, (f"t{n}",), "judge")
            for (cat, k), count in sizes.items() for n in range(count)]


POPULATION = {("code", 1): 60, ("code", 2): 25, ("web", 1): 10, ("web", 3): 5}  # 100 items


def test_proportional_allocation_by_hand():
    sizes = {"a": 60, "b": 25, "c": 10, "d": 5}
    assert allocate(sizes, 20, "proportional") == {"a": 12, "b": 5, "c": 2, "d": 1}
    # 15 items: quotas 9, 3.75, 1.5, 0.75 -> floors 9, 3, 1, 0 and the largest remainders (.75, .75) win
    assert allocate(sizes, 15, "proportional") == {"a": 9, "b": 4, "c": 1, "d": 1}
    assert allocate(sizes, 1000, "proportional") == sizes


def test_equal_allocation_moves_what_a_small_stratum_cannot_take():
    sizes = {"a": 60, "b": 25, "c": 10, "d": 5}
    assert allocate(sizes, 20, "equal") == {"a": 5, "b": 5, "c": 5, "d": 5}
    # 10 each; d takes 5 and c 10, the 5 left go to a and b (the earlier stratum gets the odd one)
    assert allocate(sizes, 40, "equal") == {"a": 13, "b": 12, "c": 10, "d": 5}
    with pytest.raises(ValueError):
        allocate(sizes, 10, "random")


def test_draw_is_proportional_and_reproducible():
    items = _items(POPULATION)
    sample = draw(items, 20, seed=7)
    counts = Counter((i.category, i.complexity) for i in sample.items)
    assert counts == {("code", 1): 12, ("code", 2): 5, ("web", 1): 2, ("web", 3): 1}
    assert sample.plan["code · 1 tool"] == (60, 12)
    again = draw(list(reversed(items)), 20, seed=7)  # input order does not matter
    assert [i.item_id for i in again.items] == [i.item_id for i in sample.items]
    other = draw(items, 20, seed=8)
    assert {i.item_id for i in other.items} != {i.item_id for i in sample.items}


def test_a_stratum_draw_does_not_depend_on_the_others():
    items = _items(POPULATION)
    fewer = [i for i in items if i.category == "code"]
    picked = {i.item_id for i in draw(items, per_stratum=4, seed=3).items if i.category == "code"}
    assert picked == {i.item_id for i in draw(fewer, per_stratum=4, seed=3).items}


def test_per_stratum_size_is_capped_by_the_stratum():
    sample = draw(_items(POPULATION), per_stratum=8, seed=0)
    assert Counter(i.stratum for i in sample.items) == {"code · 1 tool": 8, "code · 2 tools": 8,
                                                        "web · 1 tool": 8, "web · 3 tools": 5}
    assert sample.allocation == "equal"
    assert len(draw(_items(POPULATION)).items) == 100  # no size: every item
