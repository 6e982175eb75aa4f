"""The delta explorer: controls change the summary and the query list; selecting a query opens it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from toolex.widgets import DeltaExplorer, QueryInspector  # noqa: E402
from toolex.widgets.explorer import category_summary, query_points  # noqa: E402


def test_summary_per_retriever(data):
    table = category_summary(data, ["bm25", "dense:minilm"], "comp", 10).set_index("retriever")
    assert table.loc["bm25", "one_to_one"] == 50.0  # q2 complete, q1 not
    assert table.loc["bm25", "tooleq"] == 100.0
    assert table.loc["dense:minilm", "delta"] == 0.0


def test_points_sorted_by_gap(data):
    points = query_points(data, ["bm25"], "comp", 10)
    assert points.query_id.tolist() == ["q1", "q2"] and points.gap.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("plots", [False, True])
def test_controls_and_selection(data, plots):
    inspector = QueryInspector(data)
    explorer = DeltaExplorer(data, inspector, plots=plots)
    assert len(explorer.summary) == 2
    explorer.retrievers.value = ("bm25",)
    explorer.metric.value = "comp"
    assert explorer.summary.retriever.tolist() == ["bm25"]
    assert explorer.summary.tooleq.iloc[0] == 100.0
    explorer.category.value = "code"
    assert explorer.summary.queries.iloc[0] == 1
    assert [v for _, v in explorer.queries.options] == [("q2", "bm25")]
    explorer.category.value = "all"
    explorer.k.value = 5
    explorer.queries.value = ("q2", "bm25")
    assert inspector.query.value == "q2" and "translate code" in inspector.header.value
    assert inspector.retriever.value == "bm25" and inspector.k.value == 5  # the row's retriever, the K shown
    assert explorer.queries.value is None  # handed over: picking the same row again opens it again
    explorer.retrievers.value = tuple(data.runs)
    inspector.retriever.value = "bm25"
    row = next((v for _, v in explorer.queries.options if v[1] != "bm25"), explorer.queries.options[0][1])
    explorer.queries.value = row
    assert inspector.retriever.value == row[1] and inspector.query.value == row[0]
    explorer.k.value = 1
    assert explorer.queries.value is None  # a refresh clears the selection, the inspector keeps its query
    assert inspector.query.value == row[0]


@pytest.mark.parametrize("plots", [False, True])
def test_no_retriever_selected_says_so_instead_of_failing(data, plots):
    explorer = DeltaExplorer(data, QueryInspector(data), plots=plots)
    explorer.retrievers.value = ()
    assert "Select at least one retriever" in explorer.table.value
    assert explorer.queries.options == () and explorer.summary.empty
    explorer.retrievers.value = ("bm25",)
    assert explorer.summary.retriever.tolist() == ["bm25"] and explorer.queries.options


def test_pooled_category_is_named_and_the_list_shows_query_text(data):
    explorer = DeltaExplorer(data, plots=False)
    assert explorer.category.options[0] == ("all (query-weighted)", "all")
    label, (qid, _) = explorer.queries.options[0]
    assert label.startswith(f"{qid} · {data.queries[qid].text[:20]}")


def test_the_papers_numbers_stand_beside_ours(data):
    import pandas as pd

    paper = pd.DataFrame({"level": ["query"] * 3 + ["subquery_oracle"], "model": ["M1", "M1", "M2", "M1"],
                          "category": ["Code", "Web", "Web", "Web"], "metric": ["ndcg@10"] * 4,
                          "tool_de": [40.0, 30.0, 20.0, 99.0], "tooleq": [50.0, 34.0, 21.0, 99.0]})
    explorer = DeltaExplorer(data, plots=False, paper=paper)
    assert "reported by the paper" in explorer.paper_table.value
    assert "<td>M1</td>" in explorer.paper_table.value and "42.0" in explorer.paper_table.value  # Avg of M1
    explorer.category.value = "web"
    assert "34.0" in explorer.paper_table.value and "99.0" not in explorer.paper_table.value
    explorer.k.value = 5
    assert "reports no ndcg@5" in explorer.paper_table.value


def test_the_list_gives_every_retrievers_gap_and_filters_to_gains(data):
    explorer = DeltaExplorer(data, plots=False)
    explorer.metric.value = "comp"
    label, (qid, retriever) = explorer.queries.options[0]
    for name in data.runs:  # every selected retriever's scores in the row, the row's retriever first
        assert f"{name}: " in label
    assert label.split("(", 1)[1].startswith(f"{retriever}: ")
    everything = len(explorer.queries.options)
    explorer.positive.value = True
    gains = explorer.points[explorer.points["gap"] > 0]["query_id"].unique()
    assert sorted(q for _, (q, _) in explorer.queries.options) == sorted(gains)
    assert len(explorer.queries.options) < everything  # q2 gains nothing under comp for any retriever


def test_the_inspector_takes_the_explorers_setting_before_any_row_is_picked(data):
    """Before a row is picked, the inspector ranks with the explorer's first selected retriever at its K."""
    names = list(data.runs)
    inspector = QueryInspector(data, retriever=names[0])
    explorer = DeltaExplorer(data, inspector, k=5, plots=False)
    assert inspector.k.value == 5 and inspector.retriever.value == names[0]
    explorer.retrievers.value = (names[-1],)
    explorer.k.value = 1
    assert inspector.retriever.value == names[-1] and inspector.k.value == 1
    assert inspector.query.value is not None  # it still shows a query, now ranked as the explorer says


def test_ours_and_the_papers_tables_share_one_style_with_units(data):
    import pandas as pd

    paper = pd.DataFrame({"level": ["query"], "metric": ["ndcg@10"], "category": ["Code"], "model": ["M1"],
                          "tool_de": [40.0], "tooleq": [44.0]})
    explorer = DeltaExplorer(data, plots=False, paper=paper)
    for html in (explorer.table.value, explorer.paper_table.value):
        for header in ("one-to-one (%)", "ToolEq (%)", "Δ (points)"):
            assert f"<th>{header}</th>" in html
    assert "40.00" in explorer.paper_table.value and "4.00" in explorer.paper_table.value
