"""Main-results table on a hand-made case, the paper's rows beside ours."""

from __future__ import annotations

import pandas as pd
import pytest

from toolex.io.annotations import Annotation
from toolex.metrics import GroundTruth
from toolex.paper import load_table2
from toolex.report.results import PAPER, main_results, paper_rows, side_by_side
from toolex.report.significance import delta_significance

ANNOTATIONS = [
    Annotation("q1", "code", ("a",), (("a",), ("b",))),
    Annotation("q2", "web", ("x",), (("x",),)),
]
RUN = {"q1": {"b": 2.0, "z": 1.0}, "q2": {"x": 1.0}}


@pytest.fixture
def ours() -> pd.DataFrame:
    evaluation = GroundTruth(ANNOTATIONS).evaluate(RUN, k=10)
    return main_results({("query", "toy"): evaluation})


def test_per_category_and_average(ours):
    ndcg = ours[ours.metric == "ndcg@10"].set_index("category")
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


def test_delta_significance_table():
    evaluation = GroundTruth(ANNOTATIONS).evaluate(RUN, k=10)
    table = delta_significance(evaluation, "toy", resamples=200)
    row = table[(table.category == "all") & (table.metric == "ndcg@10")].iloc[0]
    assert row.delta == pytest.approx(50.0) and row.queries == 2
    assert row.ci_low <= row.delta <= row.ci_high
