"""The explorer pivots from the long-form scores: its numbers are the plain per-query means."""

from __future__ import annotations

import pytest

from toolex.widgets.explorer import category_summary, query_points, scores


def test_scores_are_one_measure_and_category(data):
    frame = scores(data, ["bm25", "dense:minilm"], "recall", 3, "web")
    assert set(frame.measure) == {"recall@3"} and set(frame.query_id) == {"q1"}
    assert set(frame.system) == {"bm25", "dense:minilm"}


@pytest.mark.parametrize("metric", ["ndcg", "recall", "comp"])
def test_summary_matches_per_query_means(data, metric):
    table = category_summary(data, ["bm25", "dense:minilm"], metric, 10).set_index("retriever")
    for name in ("bm25", "dense:minilm"):
        frame = data.per_query(name, 10)
        assert table.loc[name, "one_to_one"] == pytest.approx(100 * frame[f"one_to_one_{metric}"].mean())
        assert table.loc[name, "tooleq"] == pytest.approx(100 * frame[f"tooleq_{metric}"].mean())
        assert table.loc[name, "queries"] == 2


def test_empty_selection(data):
    assert category_summary(data, [], "ndcg", 10).empty
    points = query_points(data, [], "ndcg", 10)
    assert points.empty and list(points.columns) == ["retriever", "query_id", "one_to_one", "tooleq", "gap"]
