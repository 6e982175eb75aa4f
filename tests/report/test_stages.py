"""Per-stage tables from hand-made records (the widget fixture's two queries)."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.widgets.toy import toy_data
from toolex.report import stages

GROUPS = {"q1": "toy/web", "q2": "toy/code"}


@pytest.fixture
def records():
    d = toy_data()
    return list(d.decompositions.values()), [v for vs in d.verified.values()
                                             for v in vs], list(d.audited.values())


def test_decomposition_and_examples(records):
    decompositions, _, _ = records
    frame = stages.decomposition_frame(decompositions, GROUPS).set_index("query_id")
    assert frame.loc["q1", "sub_queries"] == 2 and not frame.loc["q2", "ok"]
    examples = stages.subquery_examples(decompositions, {"q1": "find weather"})
    assert examples.sub_query.tolist() == ["get weather: city", "book cab: airport"]


def test_verification_summary(records):
    _, verified, _ = records
    table = stages.verification_summary(verified, GROUPS).set_index("group")
    row = table.loc["all"]
    assert row.sub_queries == 2 and row.candidates_per_sub_query == 1.5
    assert row.equivalent_pct == pytest.approx(100 / 3) and row.failed_pct == pytest.approx(100 / 3)
    assert row.sub_queries_with_extra_equivalent_pct == 50.0


def test_audit_and_rejection_reasons(records):
    _, _, audited = records
    frame = stages.audit_frame(audited, GROUPS).set_index("query_id")
    assert frame.loc["q1", "before_audit"] == 3 and frame.loc["q1", "after_audit"] == 2
    reasons = stages.rejection_reasons(audited)
    assert reasons.reason.tolist() == ["one tool would serve two operations"]
    assert reasons.share_pct.iloc[0] == 100


def test_table1_beside_paper():
    ours = pd.DataFrame({"queries": [10], "avg_items_per_sub_query": [2.5],
                         "queries_with_extra_combination_pct": [40.0]}, index=["all"])
    paper = pd.DataFrame({"tooleq": [7360, 4.2]}, index=["queries", "avg_items_per_sub_query"])
    table = stages.table1_beside_paper(ours, paper, claims={"queries_with_extra_combination_pct": 75.2})
    assert table.statistic.tolist() == ["queries", "avg_items_per_sub_query",
                                        "queries_with_extra_combination_pct"]
    assert table["reported by the paper"].tolist() == [7360, 4.2, 75.2]
