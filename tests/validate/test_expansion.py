"""Expansion quality on hand-computed cases: recall and precision at combination and tool level."""

from __future__ import annotations

import math

import pytest

from toolex.data.records import Annotation
from toolex.errors import InputError
from toolex.validate import GoldRecord, pair, validate


def gold(qid: str, *combos: tuple[str, ...], given: bool = False) -> GoldRecord:
    return GoldRecord(qid, combos[0], tuple(combos), reference_given=given)


def ours(qid: str, *combos: tuple[str, ...]) -> Annotation:
    return Annotation(qid, "web", combos[0], tuple(combos))


GOLD = [
    gold("q1", ("a", "b"), ("c", "b"), ("d", "b"), ("c", "e")),  # 3 alternatives; tools c, d, e beyond C*
    gold("q2", ("f",), ("g",)),  # 1 alternative; tool g
    gold("q3", ("h",)),  # no alternative
    gold("q4", ("k",), ("m",)),  # not annotated by us: C* only
]
OURS = [
    # (b, c) = gold (c, b); (x, b) unlisted; (b, a) is C*
    ours("q1", ("a", "b"), ("b", "c"), ("x", "b"), ("b", "a")),
    ours("q2", ("f",), ("f", "g")),  # (f, g) is not gold's (g): combination unlisted, tool g listed
    ours("q3", ("h",), ("y",)),  # unlisted
    ours("q9", ("z",)),  # not in gold: ignored
]


def test_expansion_counts_by_hand():
    result = validate(GOLD, OURS)
    s = result.summary()
    assert s["queries"] == 4 and s["missing_annotations"] == 1 and s["ignored_annotations"] == 1
    combo, tool = s["expansion"]["combination"], s["expansion"]["tool"]
    # gold alternatives: q1 3 + q2 1 + q4 1 = 5; ours added: q1 2 + q2 1 + q3 1 = 4; matched: q1 (c, b) only
    assert (combo["gold_alternatives"], combo["added"], combo["matched"]) == (5, 4, 1)
    assert combo["recall"] == pytest.approx(1 / 5) and combo["precision"] == pytest.approx(1 / 4)
    # gold tools beyond C*: q1 {c, d, e} + q2 {g} + q4 {m} = 5; ours: q1 {c, x} + q2 {g} + q3 {y} = 4; shared
    # c, g
    assert (tool["gold_tools"], tool["added_tools"], tool["matched_tools"]) == (5, 4, 2)
    assert tool["recall"] == pytest.approx(2 / 5) and tool["precision"] == pytest.approx(2 / 4)
    assert s["expansion"]["queries_with_gold_alternatives"] == 3
    assert s["expansion"]["queries_with_additions"] == 3
    frame = result.expansion.set_index("query_id")
    assert frame.loc["q1", "missed"] == (("b", "d"), ("c", "e"))
    assert frame.loc["q1", "unlisted"] == (("b", "x"),)
    assert not frame.loc["q4", "annotated"] and frame.loc["q4", "missed"] == (("m",),)
    table = result.expansion_table().set_index("level")
    assert table.loc["tool", "matched"] == 2 and table.loc["combination", "gold"] == 5


def test_undefined_shares_are_nan_with_a_note_and_null_in_summary():
    result = validate([gold("q1", ("a",))], [ours("q1", ("a",))])
    exp = result.expansion_summary
    assert math.isnan(exp["combination"]["recall"]) and math.isnan(exp["tool"]["precision"])
    assert len(exp["notes"]) == 2
    assert result.summary()["expansion"]["combination"]["recall"] is None


def test_pairing_checks_c_star():
    # gold without a reference field: our C* is adopted when gold accepts it
    paired = pair([gold("q1", ("b",), ("a",))], [ours("q1", ("a",), ("b",))])
    assert paired.gold[0].reference == ("a",)
    assert paired.gold[0].alternatives == [frozenset({"b"})]
    with pytest.raises(InputError, match=r"ann.jsonl, record q1: C\* \['a'\] differs from the gold C\*"):
        pair([gold("q1", ("b",), ("a",), given=True)], [ours("q1", ("a",))], "gold.jsonl", "ann.jsonl")
    with pytest.raises(InputError, match="differs from the gold"):
        pair([gold("q1", ("b",))], [ours("q1", ("a",))])


def test_unknown_or_empty_inputs_are_errors():
    with pytest.raises(InputError, match="none of the 1 gold queries is annotated"):
        pair([gold("q1", ("a",))], [ours("other", ("a",))])
    with pytest.raises(InputError, match="no annotations"):
        pair([gold("q1", ("a",))], [])
    with pytest.raises(InputError, match="no gold queries"):
        pair([], [ours("q1", ("a",))])
