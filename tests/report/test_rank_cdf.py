"""Rank CDF on a tiny hand-made case."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from toolex.report import rank_cdf
from toolex.report.rank_cdf import best_ranks, cdf, cdf_table, summary

RUN = {
    "q1": {"a": 0.9, "b": 0.8, "c": 0.7},  # C* = c at rank 3, equivalent b at rank 2
    "q2": {"x": 0.9, "y": 0.5},  # C* = x at rank 1, no equivalent
    "q3": {"m": 0.9, "n": 0.1},  # C* = z not retrieved, equivalent n at rank 2
}
REFS = {"q1": ("c",), "q2": ("x",), "q3": ("z",)}
EQUIVALENTS = {"q1": {"b"}, "q3": {"n", "z"}}
POOLS = {"q1": ["a", "b", "c"], "q2": ["x", "y"], "q3": ["z", "n", "m"]}


def test_best_ranks():
    ranks = best_ranks(RUN, REFS, EQUIVALENTS, POOLS).set_index("query_id")
    assert ranks.loc["q1", "gt_rank"] == 3 and ranks.loc["q1", "equivalent_rank"] == 2
    assert ranks.loc["q1", "negative_rank"] == 1  # the only tool outside C* and the equivalents is a
    assert ranks.loc["q2", "n_equivalents"] == 0 and math.isnan(ranks.loc["q2", "equivalent_rank"])
    assert ranks.loc["q2", "negative_rank"] == 2
    assert math.isnan(ranks.loc["q3", "gt_rank"]) and ranks.loc["q3", "equivalent_rank"] == 2
    assert ranks.loc["q3", "n_equivalents"] == 1  # z is the reference, not an extra equivalent


def test_summary_counts_only_queries_with_an_equivalent():
    ranks = best_ranks(RUN, REFS, EQUIVALENTS, POOLS)
    out = summary(ranks, cutoff=2)
    assert out["queries_with_equivalent"] == 2 and out["queries"] == 3
    assert out["gt_in_top2_pct"] == 0.0
    assert out["best_equivalent_in_top2_pct"] == 100.0
    assert out["gt_outside_equivalent_inside_top2_pct"] == 100.0
    # the only negatives left: a (q1) and m (q3), both rank 1
    assert out["random_negative_in_top2_pct"] == 100.0


def test_cdf_counts_missing_as_outside():
    table = cdf(pd.Series([1.0, 3.0, float("nan")]), max_rank=3)
    assert table.share_pct.tolist() == pytest.approx([100 / 3, 100 / 3, 200 / 3])


def test_cdf_table_has_the_three_curves():
    table = cdf_table(best_ranks(RUN, REFS, EQUIVALENTS, POOLS), max_rank=3)
    assert list(table.columns) == ["rank", "ground truth (C*)", "best verified equivalent", "random negative"]
    assert table["best verified equivalent"].tolist() == [0.0, 100.0, 100.0]


def test_the_top_k_shares_carry_wilson_intervals_and_the_figure_draws_them():
    import matplotlib

    matplotlib.use("Agg")
    from toolex.report import figures

    frame = pd.DataFrame({"gt_rank": [1, 2, 50, np.nan], "equivalent_rank": [3, np.nan, 4, 5],
                          "negative_rank": [90, np.nan, np.nan, 70], "n_equivalents": [1, 1, 2, 1]})
    bounds = rank_cdf.top_intervals(frame, 10)
    low, high = bounds["ground truth (C*)"]  # 2 of 4 within the top 10: Wilson (15.0, 85.0)
    assert low == pytest.approx(15.0, abs=0.1) and high == pytest.approx(85.0, abs=0.1)
    assert bounds["random negative"][0] == 0.0
    fig = figures.rank_cdf_plot({"bm25": rank_cdf.cdf_table(frame)}, "t", 10, intervals={"bm25": bounds})
    segments = [seg for c in fig.axes[0].containers for seg in c.lines[2][0].get_segments()]
    assert len(segments) == 3  # one error bar per curve at the cut-off (and the legend's empty proxy)
    assert all(seg[0][0] > 10 for seg in segments)  # right of the cut-off, where the paper's markers sit
    labels = [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else [
        t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "95% Wilson interval at top 10" in labels
