"""Stage 3 enumeration: the heap gives exactly the best combinations of the full product."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from toolex.annotate.combine import best_combinations, product_size

sets_strategy = st.lists(
    st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(1, 20)), min_size=1, max_size=5,
             unique_by=lambda x: x[0]),
    min_size=1, max_size=4,
)


@settings(max_examples=150, deadline=None)
@given(sets_strategy, st.integers(1, 30))
def test_heap_matches_brute_force(sets, limit):
    brute = sorted((sum(1 / (60 + r) for _, r in combo) for combo in itertools.product(*sets)), reverse=True)
    got = best_combinations(sets, limit)
    assert len(got) == min(limit, product_size(sets))
    assert [round(s, 12) for _, s in got] == [round(s, 12) for s in brute[:limit]]


def test_reference_first_and_deterministic():
    sets = [[("ref1", 1), ("x", 2), ("y", 3)], [("ref2", 1), ("z", 5)]]
    got = best_combinations(sets, 10)
    assert got[0][0] == ("ref1", "ref2")
    assert got == best_combinations(sets, 10)
    assert best_combinations([[("a", 1)], []], 5) == []
