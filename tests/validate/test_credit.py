"""Runs scored one-to-one, with our combinations and with gold's: recovered share, bootstrap, over/under."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from toolex.data.records import Annotation
from toolex.errors import InputError, ToolexError
from toolex.validate import GoldRecord, recovered_share, validate

D2 = 1 / math.log2(3)  # NDCG@2 of a single relevant tool at rank 2

GOLD = [
    GoldRecord("q1", ("a",), (("a",), ("b",))),
    GoldRecord("q2", ("c",), (("c",), ("d",))),
    GoldRecord("q3", ("f",), (("f",), ("g",))),
]
OURS = [
    Annotation("q1", "web", ("a",), (("a",), ("b",))),  # as gold
    Annotation("q2", "web", ("c",), (("c",), ("e",))),  # e: unlisted by gold; d missed
    Annotation("q3", "code", ("f",), (("f",),)),  # g missed
]
RUN = {
    "q1": {"b": 3.0, "x": 2.0, "a": 1.0},  # top 2: b, x
    "q2": {"e": 2.0, "c": 1.0},  # top 2: e, c
    "q3": {"g": 2.0, "f": 1.0},  # top 2: g, f
}


def test_per_query_scores_and_credit_by_hand():
    result = validate(GOLD, OURS, {"bm25": RUN}, k=2, bootstrap=200)
    ndcg = result.per_query[result.per_query["metric"] == "ndcg@2"].set_index("query_id")
    assert ndcg["one_to_one"].tolist() == pytest.approx([0.0, D2, D2])
    assert ndcg["ours"].tolist() == pytest.approx([1.0, 1.0, D2])
    assert ndcg["gold"].tolist() == pytest.approx([1.0, D2, 1.0])
    # q2: credit for e that gold does not list
    assert ndcg["over"].tolist() == pytest.approx([0.0, 1 - D2, 0.0])
    assert ndcg["under"].tolist() == pytest.approx([0.0, 0.0, 1 - D2])  # q3: no credit for g that gold lists
    row = result.table().set_index(["retriever", "metric"]).loc[("bm25", "ndcg@2")]
    assert row["over_credit"] == pytest.approx((1 - D2) / 3)
    assert row["under_credit"] == pytest.approx((1 - D2) / 3)
    # ours − 1:1 = (1 + (1 − D2) + 0) / 3, gold − 1:1 = (1 + 0 + (1 − D2)) / 3: over and under cancel out
    assert row["recovered"] == pytest.approx(1.0)
    recall = result.table().set_index("metric").loc["recall@2"]
    # recall@2 per query: 1:1 (0, 1, 1), ours (1, 1, 1), gold (1, 1, 1)
    assert (recall["one_to_one"], recall["ours"], recall["gold"]) == pytest.approx((2 / 3, 1.0, 1.0))
    assert recall["recovered"] == 1.0 and recall["over_credit"] == 0 and recall["under_credit"] == 0


def test_recovered_share_is_one_when_ours_is_gold_and_zero_when_ours_is_one_to_one():
    gold_as_ours = [g.to_annotation() for g in GOLD]
    same = validate(GOLD, gold_as_ours, {"r": RUN}, k=2, bootstrap=100).table()
    assert same["recovered"].tolist() == [1.0, 1.0, 1.0]
    assert (same["recovered_low"] == 1.0).all() and (same["recovered_high"] == 1.0).all()
    assert (same["over_credit"] == 0).all() and (same["under_credit"] == 0).all()
    one_to_one = [Annotation(g.query_id, "", g.reference, (g.reference,)) for g in GOLD]
    none = validate(GOLD, one_to_one, {"r": RUN}, k=2, bootstrap=100)
    table = none.table()
    assert table["recovered"].tolist() == [0.0, 0.0, 0.0]
    assert (table["over_credit"] == 0).all() and (table["under_credit"] > 0).all()
    # ours missing for every gold query but one: missing ones count as C* only
    partial = validate(GOLD, one_to_one[:1], {"r": RUN}, k=2, bootstrap=0)
    assert partial.missing_annotations == 2 and partial.table()["recovered"].tolist() == [0.0, 0.0, 0.0]


def test_zero_gold_gap_gives_nan_with_a_reason_and_json_null():
    gold = [GoldRecord("q1", ("a",), (("a",), ("b",)))]
    ours = [Annotation("q1", "", ("a",), (("a",), ("c",)))]
    result = validate(gold, ours, {"r": {"q1": {"c": 2.0, "a": 1.0}}}, k=1)  # gold's b never retrieved
    row = result.table().iloc[0]
    assert math.isnan(row["recovered"]) and "gold adds nothing" in row["note"]
    assert row["over_credit"] == 1.0 and row["under_credit"] == 0.0  # all the credit for c is over-credit
    text = json.dumps(result.summary(), allow_nan=False)
    block = json.loads(text)["runs"]["r"]["ndcg@1"]
    assert block["recovered"] is None and block["recovered_interval"] == [None, None]


def test_bootstrap_interval_contains_the_estimate_and_is_reproducible():
    rng = np.random.default_rng(7)
    one = rng.uniform(0, 0.5, 200)
    gold = one + rng.uniform(0, 0.4, 200)
    ours = one + 0.6 * (gold - one) + rng.normal(0, 0.05, 200)
    share = recovered_share(one, ours, gold, resamples=500, seed=3)
    expected = (ours - one).mean() / (gold - one).mean()
    assert share.value == pytest.approx(expected)
    assert share.low < share.value < share.high and share.resamples == 500
    assert share.high - share.low < 0.3
    assert recovered_share(one, ours, gold, resamples=500, seed=3) == share
    other = recovered_share(one, ours, gold, resamples=500, seed=4)
    assert (other.low, other.high) != (share.low, share.high)
    wider = recovered_share(one, ours, gold, resamples=500, seed=3, level=0.99)
    assert wider.low <= share.low and wider.high >= share.high
    # the paired resampling by hand: the same queries for numerator and denominator
    idx = np.random.default_rng(3).integers(0, 200, size=(500, 200))
    ratios = (ours - one)[idx].mean(axis=1) / (gold - one)[idx].mean(axis=1)
    assert (share.low, share.high) == pytest.approx(tuple(np.percentile(ratios, [2.5, 97.5])))


def test_runs_are_checked():
    with pytest.raises(InputError, match="ranks none of the 3 gold queries"):
        validate(GOLD, OURS, {"r": {"zz": {"a": 1.0}}})
    with pytest.raises(InputError, match="empty run"):
        validate(GOLD, OURS, {"r": {}})
    with pytest.raises(ToolexError, match="K must be positive"):
        validate(GOLD, OURS, {"r": RUN}, k=0)
    partial = validate(GOLD, OURS, {"r": {"q1": RUN["q1"]}}, k=2, bootstrap=0)
    assert (partial.table()["missing_from_run"] == 2).all()  # q2 and q3 score 0 everywhere


def test_examples_of_each_error_kind():
    result = validate(GOLD, OURS, {"bm25": RUN, "other": {q: {"zz": 1.0, **s} for q, s in RUN.items()}}, k=2)
    over = result.examples("over", 5)
    assert over["query_id"].tolist() == ["q2"] and over["combinations"].tolist() == [(("e",),)]
    assert (over["retriever"] == "bm25").all() and (over["metric"] == "ndcg@2").all()
    under = result.examples("under", 5, retriever="other", metric="recall@2")
    assert under["query_id"].tolist() == ["q3"] and under["combinations"].tolist() == [(("g",),)]
    no_runs = validate(GOLD, OURS).examples("under", 5)
    assert no_runs["query_id"].tolist() == ["q2", "q3"] and no_runs["count"].tolist() == [1, 1]
    with pytest.raises(ValueError, match="kind must be"):
        result.examples("sideways")
    with pytest.raises(ValueError, match="unknown retriever"):
        result.examples("over", retriever="nope")
