"""Main-results table on a hand-made case, the paper's rows beside ours."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolex.data.records import Annotation
from toolex.paper import load_table2
from toolex.report.significance import delta_significance
from toolex.report.table2 import PAPER, evaluate_runs, main_results, paper_rows, side_by_side

ANNOTATIONS = [
    Annotation("q1", "code", ("a",), (("a",), ("b",))),
    Annotation("q2", "web", ("x",), (("x",),)),
]
RUN = {"q1": {"b": 2.0, "z": 1.0}, "q2": {"x": 1.0}}


@pytest.fixture
def scores() -> pd.DataFrame:
    return evaluate_runs({("query", "toy"): RUN}, ANNOTATIONS, k=10, benchmarks={"q1": "b1", "q2": "b2"})


@pytest.fixture
def ours(scores) -> pd.DataFrame:
    return main_results(scores)


def test_long_form_has_a_row_per_query_system_measure_and_kind(scores):
    assert len(scores) == 2 * 1 * 3 * 2
    assert set(scores.kind) == {"one_to_one", "tooleq"} and set(scores.measure) == {"ndcg@10", "recall@10",
                                                                                    "comp@10"}
    row = scores[(scores.query_id == "q1") & (scores.measure == "ndcg@10")
                 & (scores.kind == "tooleq")].iloc[0]
    assert row.value == 1.0 and row.benchmark == "b1" and row.category == "code" and row.level == "query"


def test_runs_keyed_by_retriever_alone_are_query_level():
    scores = evaluate_runs({"a": RUN, "b": {}}, ANNOTATIONS, k=5)
    assert set(scores.level) == {"query"} and list(dict.fromkeys(scores.system)) == ["a", "b"]
    assert set(scores.measure) == {"ndcg@5", "recall@5", "comp@5"}
    assert scores[scores.system == "b"].value.eq(0.0).all()  # an empty run scores 0 everywhere


def test_per_category_and_average(ours):
    assert ours.category.tolist() == ["Code", "Web", "Avg"] * 3
    assert ours.metric.tolist() == ["ndcg@10"] * 3 + ["recall@10"] * 3 + ["comp@10"] * 3
    ndcg = ours[ours.metric == "ndcg@10"].set_index("category")
    assert ndcg.queries.tolist() == [1, 1, 2]
    assert ndcg.loc["Code", "one_to_one"] == 0.0 and ndcg.loc["Code", "tooleq"] == 100.0
    assert ndcg.loc["Web", "one_to_one"] == 100.0 and ndcg.loc["Web", "delta"] == 0.0
    assert ndcg.loc["Avg", "one_to_one"] == 50.0 and ndcg.loc["Avg", "tooleq"] == 100.0
    assert set(ours.source) == {"ours"}


def test_paper_rows_are_labelled_and_averaged():
    paper = paper_rows(load_table2())
    assert set(paper.source) == {PAPER}
    avg = paper[(paper.retriever == "BM25s") & (paper.category == "Avg") & (paper.metric == "ndcg@10")
                & (paper.level == "query")]
    cells = load_table2().query("model == 'BM25s' and metric == 'ndcg@10' and level == 'query'")
    assert float(avg.one_to_one.iloc[0]) == pytest.approx(cells.tool_de.mean())


def test_side_by_side_has_both_sources(ours):
    wide = side_by_side(ours, paper_rows(load_table2()))
    assert wide.source.iloc[0] == "ours" and PAPER in set(wide.source)
    assert "Code ndcg@10 Δ" in wide.columns


def test_delta_significance_table(scores):
    table = delta_significance(scores, resamples=200)
    assert table.category.tolist() == ["Code"] * 3 + ["Web"] * 3 + ["all"] * 3
    row = table[(table.category == "all") & (table.metric == "ndcg@10")].iloc[0]
    assert row.delta == pytest.approx(50.0) and row.queries == 2 and row.retriever == "toy"
    assert row.ci_low <= row.delta <= row.ci_high
    code = table[(table.category == "Code") & (table.metric == "recall@10")].iloc[0]
    assert code.delta == pytest.approx(100.0) and code.queries == 1


def test_delta_significance_pairs_queries_in_their_order():
    """The bootstrap draws queries by position: the long form must keep each query's two scores paired."""
    annotations = [Annotation(f"q{i}", "web", ("a",), (("a",), ("b",))) for i in range(30)]
    run = {f"q{i}": ({"b": 1.0} if i % 3 else {"a": 1.0}) for i in range(30)}
    scores = evaluate_runs({"r": run}, annotations)
    from toolex.metrics import GroundTruth
    from toolex.report.significance import paired_test
    per_query = GroundTruth(annotations).evaluate(run).per_query
    want = paired_test(per_query.one_to_one_ndcg, per_query.tooleq_ndcg, 300, seed=4)
    got = delta_significance(scores, 300, seed=4).iloc[0]
    assert got.delta == pytest.approx(100 * want.mean) and got.ci_low == pytest.approx(100 * want.low)
    assert got.ci_high == pytest.approx(100 * want.high) and got.p_value == want.p_value


def test_an_unchanged_category_has_no_interval_and_no_test():
    """Where no query's score changes, the interval and the test are undefined: NaN in the data, n/a in the
    printed table, which holds one column per quantity."""
    from toolex.report.significance import printed

    annotations = [Annotation(f"q{i}", "web" if i < 5 else "code", ("a",), (("a",), ("b",)))
                   for i in range(10)]
    run = {f"q{i}": ({"a": 1.0} if i < 5 else {"b": 1.0}) for i in range(10)}
    table = delta_significance(evaluate_runs({"r": run}, annotations), 200)
    web = table[(table.category == "Web") & (table.metric == "ndcg@10")].iloc[0]
    assert web.delta == 0 and np.isnan(web.ci_low) and np.isnan(web.ci_high) and np.isnan(web.p_value)
    code = table[(table.category == "Code") & (table.metric == "ndcg@10")].iloc[0]
    assert code.delta == pytest.approx(100.0) and not np.isnan(code.p_value)
    shown = printed(table)
    assert list(shown.columns) == ["level", "retriever", "category", "metric", "queries", "delta",
                                   "95% interval", "p", "resamples"]
    row = shown[(shown.category == "Web") & (shown.metric == "ndcg@10")].iloc[0]
    assert row["95% interval"] == "n/a" and row["p"] == "n/a"
    row = shown[(shown.category == "Code") & (shown.metric == "ndcg@10")].iloc[0]
    assert row["95% interval"] == "[100.00, 100.00]" and row["p"] != "n/a"
