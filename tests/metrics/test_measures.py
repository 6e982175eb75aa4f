"""Measures as objects: one rendering of names and keys, parsing; the long form and its one way to average."""

from __future__ import annotations

import numpy as np
import pytest

from toolex.data.records import Annotation
from toolex.metrics import NAMES, GroundTruth, Measure, measures_at
from toolex.metrics.long import ALL, AVG, means, paired
from toolex.metrics.measures import KINDS, ONE_TO_ONE, TOOLEQ


def test_names_keys_and_columns_are_rendered_once():
    m = Measure("ndcg", 10)
    assert (str(m), m.key, m.key_of(TOOLEQ), m.column(ONE_TO_ONE)) == (
        "NDCG@10", "ndcg@10", "tooleq_ndcg@10", "one_to_one_ndcg")
    assert [x.key for x in measures_at(5)] == ["ndcg@5", "recall@5", "comp@5"]
    assert tuple(x.name for x in measures_at(1)) == NAMES


@pytest.mark.parametrize(("text", "want"),
                         [("ndcg@10", Measure("ndcg", 10)), (" nDCG@3 ", Measure("ndcg", 3)),
                                            ("Recall@100", Measure("recall", 100)),
                                            ("COMP@1", Measure("comp", 1))])
def test_parse(text, want):
    assert Measure.parse(text) == want and Measure.parse(want.key) == want


@pytest.mark.parametrize("text", ["ndcg", "map@10", "ndcg@", "ndcg@-1", "ndcg@0", "tooleq_ndcg@10"])
def test_parse_refuses(text):
    with pytest.raises(ValueError):
        Measure.parse(text)


def test_bad_measure_and_kind():
    with pytest.raises(ValueError):
        Measure("map", 10)
    with pytest.raises(ValueError):
        Measure("ndcg", 0)
    with pytest.raises(ValueError):
        Measure("ndcg", 10).column("gold")


def test_measures_are_hashable_keys_and_sort():
    assert {Measure("ndcg", 10): 1}[Measure.parse("NDCG@10")] == 1
    assert sorted([Measure("recall", 5), Measure("comp", 10)])[0] == Measure("comp", 10)


ANNOTATIONS = [Annotation("c1", "code", ("a",), (("a",), ("b",))),
               Annotation("c2", "code", ("a",), (("a",),)),
               Annotation("c3", "code", ("x",), (("x",),)), Annotation("w1", "web", ("y",), (("y",), ("z",)))]
RUN = {"c1": {"b": 1.0}, "c2": {"a": 1.0}, "c3": {"q": 1.0}, "w1": {"z": 1.0}}


@pytest.fixture
def scores():
    return GroundTruth(ANNOTATIONS).evaluate(RUN, k=10).long("bm25", benchmarks={"w1": "web-bench"})


def test_long_form_rows(scores):
    assert len(scores) == len(ANNOTATIONS) * len(NAMES) * len(KINDS)
    assert set(scores.benchmark) == {"", "web-bench"} and set(scores.system) == {"bm25"}
    pairs = paired(scores)
    assert len(pairs) == len(ANNOTATIONS) * len(NAMES)
    assert pairs[pairs.measure == "comp@10"].query_id.tolist() == ["c1", "c2", "c3", "w1"]  # original order
    assert (pairs.tooleq >= pairs.one_to_one).all()


def test_means_per_category_pooled_and_average(scores):
    table = means(scores, pooled=ALL, average=AVG, scale=100.0, label=str.upper)
    comp = table[table.measure == "comp@10"].set_index("category")
    assert comp.index.tolist() == ["CODE", "WEB", ALL, AVG]
    assert comp.queries.tolist() == [3, 1, 4, 4]
    assert comp.loc["CODE", "one_to_one"] == pytest.approx(100 / 3)  # c2 only
    assert comp.loc["CODE", "tooleq"] == pytest.approx(200 / 3)  # c1 through b, c2
    assert comp.loc["WEB", "one_to_one"] == 0.0 and comp.loc["WEB", "tooleq"] == 100.0
    assert comp.loc[ALL, "tooleq"] == pytest.approx(75.0)  # 3 of 4 queries: pooled over queries
    assert comp.loc[AVG, "tooleq"] == pytest.approx((200 / 3 + 100) / 2)  # mean of the category means
    np.testing.assert_allclose(comp.delta, comp.tooleq - comp.one_to_one)


def test_means_without_categories_and_empty(scores):
    table = means(scores, by=["system", "measure"], categories=False, pooled="everything")
    assert table.category.tolist() == ["everything"] * 3 and table.queries.tolist() == [4, 4, 4]
    assert means(scores.iloc[:0]).empty


def test_summary_and_table_agree_with_plain_means(scores):
    evaluation = GroundTruth(ANNOTATIONS).evaluate(RUN, k=10)
    summary, frame = evaluation.summary(), evaluation.per_query
    for m in measures_at(10):
        for kind in KINDS:
            assert summary[kind][m.name] == frame[m.column(kind)].mean()
            by = frame.groupby("category")[m.column(kind)].mean()
            assert summary["category_mean"][kind][m.name] == pytest.approx(by.mean())
            assert summary["by_category"]["code"][kind][m.name] == by["code"]
    table = evaluation.table().set_index("category")
    assert table.index.tolist() == ["code", "web", "all"]
    assert table.loc["all", "comp@10 ToolEq"] == 75.0 and table.loc["web", "ndcg@10 Δ"] == 100.0
