"""The one stratified sampler: allocations (proportional, equal, fixed shares, a floor per stratum) and seeded
draws whose strata do not depend on each other."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolex.sampling import allocate, draw, inclusion, round_robin

SIZES = st.dictionaries(st.sampled_from("abcdefg"), st.integers(0, 40), min_size=1, max_size=7)


@given(SIZES, st.integers(0, 200), st.sampled_from(("proportional", "equal")), st.floats(0, 1),
       st.integers(0, 2))
def test_an_allocation_fills_the_total_and_never_overfills_a_stratum(sizes, total, allocation, share, floor):
    shares = {next(iter(sizes)): share}
    take = allocate(sizes, total, allocation, shares=shares, at_least=floor)
    assert sum(take.values()) == min(total, sum(sizes.values()))
    assert all(0 <= take[s] <= sizes[s] for s in sizes)
    if total >= sum(min(floor, n) for n in sizes.values()):
        assert all(take[s] >= min(floor, n) for s, n in sizes.items())


def test_a_share_is_taken_first_and_what_others_cannot_take_goes_back():
    assert allocate({"near": 500, "low": 100, "high": 100}, 100, "equal", shares={"near": 0.6}) == \
        {"high": 20, "low": 20, "near": 60}
    # the band holds 5: the others take the rest
    assert allocate({"near": 5, "low": 100, "high": 100}, 50, "equal", shares={"near": 0.6}) == \
        {"high": 23, "low": 22, "near": 5}
    # the others hold 3: the band takes what they cannot
    assert allocate({"near": 100, "low": 1, "high": 2}, 50, "equal", shares={"near": 0.6}) == \
        {"high": 2, "low": 1, "near": 47}


def test_a_floor_per_stratum_takes_from_the_largest_allocation():
    sizes = {"near": 50, "b1": 30, "b2": 30, "b3": 30, "a1": 10, "a2": 10}
    take = allocate(sizes, 6, "equal", shares={"near": 0.6}, at_least=1)
    assert take == dict.fromkeys(sorted(sizes), 1)
    assert allocate({"a": 100, "b": 1}, 10, "proportional") == {"a": 10, "b": 0}
    assert allocate({"a": 100, "b": 1}, 10, "proportional", at_least=1) == {"a": 9, "b": 1}
    # a floor above a stratum's size asks only for what it holds
    assert allocate({"a": 100, "b": 1}, 3, "proportional", at_least=2) == {"a": 2, "b": 1}


def test_unknown_allocations_and_negative_sizes_are_refused():
    with pytest.raises(ValueError, match="allocation"):
        allocate({"a": 1}, 1, "random")
    with pytest.raises(ValueError, match="positive"):
        allocate({"a": 1}, -1)
    with pytest.raises(ValueError, match="add up to at most 1"):
        allocate({"a": 10, "b": 10, "c": 10}, 10, "equal", shares={"a": 0.7, "b": 0.7})
    with pytest.raises(ValueError, match="lie in"):
        allocate({"a": 10, "b": 10}, 10, "equal", shares={"a": -0.1})


def test_a_draw_is_seeded_and_each_stratum_is_drawn_on_its_own():
    strata = {"a": list(range(100)), "b": list(range(100, 150))}
    first = draw(strata, {"a": 10, "b": 5}, seed=3)
    assert first == draw(strata, {"a": 10, "b": 5}, seed=3)
    assert first["a"] == draw({"a": strata["a"]}, {"a": 10}, seed=3)["a"]  # b does not move a
    assert first["a"] != draw(strata, {"a": 10, "b": 5}, seed=4)["a"]
    assert len(set(first["a"])) == 10 and set(first["b"]) <= set(strata["b"])
    assert draw(strata, {"a": 2}, seed=0)["b"] == []
    assert inclusion({"a": 100, "b": 50, "c": 0}, {"a": 10, "b": 5}) == {"a": 0.1, "b": 0.1}


STRATA = st.lists(st.lists(st.integers(0, 999), max_size=6), max_size=6)


@given(st.lists(st.integers(0, 6), max_size=6), st.integers(0, 40))
def test_the_round_robin_spreads_a_sample_evenly_and_takes_each_stratum_in_its_order(sizes, n):
    strata = [[(i, j) for j in range(size)] for i, size in enumerate(sizes)]
    picked = round_robin(strata, n)
    assert len(picked) == min(n, sum(sizes)) and len(set(picked)) == len(picked)
    taken = [sum(1 for member in picked if member[0] == i) for i in range(len(sizes))]
    for i, members in enumerate(strata):
        assert [m for m in picked if m[0] == i] == members[:taken[i]]  # a stratum gives its first members
        if taken[i] < len(members):  # one that still has members gave at most one fewer than any other
            assert all(taken[i] >= other - 1 for other in taken)


def _former_metatool_loop(by_tool, order, n):
    """The loop ``toolex.data.metatool.select`` ran before the round robin was shared."""
    picked, depth = [], 0
    while len(picked) < n and any(len(items) > depth for items in by_tool.values()):
        for tool in order:
            if len(picked) == n:
                break
            if len(by_tool[tool]) > depth:
                picked.append(by_tool[tool][depth])
        depth += 1
    return picked


def _former_downstream_loop(groups, n):
    """The loop ``toolex.downstream.run.sample_queries`` ran before: pop each group's last member in turn."""
    groups = {k: list(v) for k, v in groups.items()}
    picked = []
    while len(picked) < n and any(groups.values()):
        for name in sorted(groups):
            if groups[name] and len(picked) < n:
                picked.append(groups[name].pop())
    return picked


@given(STRATA, st.integers(0, 40))
def test_the_two_data_selections_pick_what_their_former_loops_picked(strata, n):
    """MetaTool's query selection and the downstream sample keep their kept data as drawn."""
    by_tool = {f"t{i}": members for i, members in enumerate(strata)}
    order = sorted(by_tool, reverse=True)
    assert round_robin([by_tool[t] for t in order], n) == _former_metatool_loop(by_tool, order, n)
    assert round_robin([by_tool[t][::-1] for t in sorted(by_tool)], n) == _former_downstream_loop(by_tool, n)
