"""Figures fit to print: the layout check finds overlapping and clipped texts, and every figure builder
passes it through save_figure on crowded inputs (strict: a problem raises)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from toolex.report import figures  # noqa: E402
from toolex.report.export import save_figure  # noqa: E402
from toolex.report.layout import STRICT, FigureLayoutError, layout_problems  # noqa: E402
from toolex.report.rank_cdf import SERIES  # noqa: E402

FOOTER = ("Data: toolret/apibank+toolret/toolink+toolret/gorilla-huggingface (3,975 queries, data sha256 "
          "71dd383f) · Retrievers: bm25, dense:minilm · Judge: offline-similarity(mpnet) · toolex 0.1.0")


@pytest.fixture(autouse=True)
def _strict(monkeypatch):
    monkeypatch.setenv(STRICT, "1")
    yield
    plt.close("all")


def test_overlapping_texts_are_found():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(0.5, 0.5, "first label")
    ax.text(0.5, 0.5, "second label")
    assert "'first label' overlaps 'second label'" in layout_problems(fig)


def test_a_text_past_the_edge_is_found():
    fig, ax = plt.subplots(figsize=(4, 3))
    fig.text(0.9, 0.5, "this sentence runs past the right edge of the canvas")
    assert any("leaves the canvas" in p for p in layout_problems(fig))


def test_strict_save_refuses_a_crowded_figure(tmp_path):
    fig, ax = plt.subplots(figsize=(2.5, 2))
    ax.bar([f"a long category name {i}" for i in range(12)], range(12))
    with pytest.raises(FigureLayoutError, match="overlaps"):
        save_figure(fig, "crowded", FOOTER, tmp_path)


def _results(retrievers: int, categories: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"metric": "ndcg@10", "level": level, "retriever": f"retriever-{r}", "category": f"Category {c}",
             "one_to_one": rng.uniform(20, 95), "tooleq": rng.uniform(20, 100)}
            for level in ("query", "subquery_oracle") for r in range(retrievers) for c in range(categories)]
    return pd.DataFrame(rows)


def _tests(results: pd.DataFrame) -> pd.DataFrame:
    """Intervals around each Δ, one category's undefined (NaN), as delta_significance gives them."""
    out = results.assign(delta=results.tooleq - results.one_to_one)
    out = out.assign(ci_low=out.delta - 3.0, ci_high=out.delta + 2.0)
    out.loc[out.category == "Category 0", ["ci_low", "ci_high"]] = np.nan
    return out


BUILDERS = {
    "delta_bars": lambda: figures.delta_bars(_results(4, 4), "ndcg@10", "subquery_oracle"),
    "delta_bars_intervals": lambda: figures.delta_bars(_results(4, 4).assign(queries=1234), "ndcg@10",
                                                       "query", tests=_tests(_results(4, 4))),
    "delta_bars_small": lambda: figures.delta_bars(_results(1, 2), "ndcg@10", "query"),
    "illusion_bars": lambda: figures.illusion_bars(pd.DataFrame({
        "base": ["Qwen3-Embedding-0.6B", "Qwen3-Embedding-4B", "all-MiniLM-L6-v2"],
        "fine_tuned": ["Tool-Embed-0.6B", "Tool-Embed-4B", "all-MiniLM-L6-v2 (tuned)"],
        "tool_de_gain": [12.3, 10.1, 4.2], "tooleq_gain": [7.1, 6.5, -0.4],
        "illusion_share_pct": [42.0, 35.6, 109.5]})),
    "rank_cdf": lambda: figures.rank_cdf_plot(pd.DataFrame({
        "rank": np.arange(1, 101), **{label: np.linspace(10, 95, 100) for label in SERIES.values()}}),
        "Figure 4: best rank of the ground truth, of a verified equivalent and of a random negative (BM25)"),
    "combinations": lambda: figures.combinations_bars(pd.DataFrame({
        "group": ["toolret/gorilla-huggingface", "toolret/apibank", "toolret/toolink", "toollens/test",
                  "all"],
        "before_audit": [8.2, 6.1, 12.5, 9.9, 9.0], "after_audit": [4.1, 3.0, 7.7, 5.2, 5.0]}), 5.3),
    "rank_cdf_two_runs": lambda: figures.rank_cdf_plot(
        {name: pd.DataFrame({"rank": np.arange(1, 101),
                             **{label: np.linspace(5, 90, 100) for label in SERIES.values()}})
         for name in ("bm25", "dense:minilm")},
        "Best-rank CDF over 120 queries with at least one verified equivalent", 10,
        {"gt_in_top10_pct": 76.1, "best_equivalent_in_top10_pct": 79.4, "random_negative_in_top10_pct": 9.2},
        "Qwen3-Embedding-4B"),
    "histogram": lambda: figures.histogram(pd.Series(np.arange(1, 21).repeat(3)),
                                           "Retrieval rank of verified equivalents (top-20 candidates)",
                                           "rank"),
    "credit": lambda: figures.credit_distribution(pd.DataFrame({
        "metric": "ndcg@10", "retriever": ["bm25"] * 20 + ["dense:minilm"] * 20,
        "over": np.linspace(0, 0.9, 40), "under": np.linspace(0.9, 0, 40)}), "ndcg@10",
        "Per-query credit errors, offline-similarity(mpnet)"),
    "tradeoff": lambda: figures.tradeoff_curve(pd.DataFrame({
        "share_sent": np.linspace(0, 1, 11), "agreement": np.linspace(0.5, 1, 11),
        "rule": ["most unsure first"] * 10 + ["unsure band"]}),
        "Cascade trade-off on the recorded local-LLM sample (362 verification items)"),
}


@pytest.mark.parametrize("name", BUILDERS)
def test_every_figure_builder_passes_the_layout_check(name, tmp_path):
    written = save_figure(BUILDERS[name](), name, FOOTER, tmp_path)
    assert written["png"].stat().st_size > 0


def test_the_credit_histogram_has_equal_bins_and_whole_query_ticks():
    fig = figures.credit_distribution(pd.DataFrame({
        "metric": "ndcg@10", "retriever": "bm25", "over": [0.02, 0.04, 0.31, 0.0],
        "under": [0.0, 0.6, 0.0, 0.9]}),
        "ndcg@10", "Per-query credit errors")
    ax = fig.axes[0]
    widths = {round(patch.get_width(), 9) for patch in ax.patches}
    assert widths == {round(100 * figures.CREDIT_BIN, 9)}  # in points, as every table shows credit
    assert "points" in ax.get_xlabel()
    fig.canvas.draw()
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_the_delta_bars_carry_each_categorys_queries_and_labelled_intervals():
    results = _results(2, 3).assign(queries=[10, 20, 30] * 4)
    fig = figures.delta_bars(results, "ndcg@10", "query", tests=_tests(results))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"Category {c}\n(n={n})"
                                                             for c, n in zip(range(3), (10, 20, 30))]
    bars = [seg for c in ax.containers if hasattr(c, "lines") and c.lines[2]
            for seg in c.lines[2][0].get_segments() if len(seg) and np.isfinite(seg).all()]
    assert len(bars) == 2 * 2  # two retrievers, the categories with an interval (Category 0 has none)
    texts = [t.get_text() for t in (fig.legends[0] if fig.legends else ax.get_legend()).get_texts()]
    assert "Δ's 95% paired bootstrap interval" in texts
    plt.close(fig)
