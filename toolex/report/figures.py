"""The plots of the notebooks (matplotlib, headless-safe): Δ bars, illusion bars, rank CDFs."""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from toolex.metrics.measures import HEADLINE
from toolex.report.illusion import interval_text
from toolex.report.rank_cdf import SERIES
from toolex.style import retriever_colour

#: One colour per Figure 4 series (C*, best equivalent, random negative), whatever the retriever.
SERIES_COLOURS = ("tab:green", "tab:blue", "tab:gray")
#: The paper's claim keys for the top-k share of each series.
PAPER_SHARE = {"gt_rank": "gt_in_top{k}_pct", "equivalent_rank": "best_equivalent_in_top{k}_pct",
               "negative_rank": "random_negative_in_top{k}_pct"}
#: Levels of the Δ figures, as a reader names them.
LEVELS = {"query": "query level", "subquery_oracle": "sub-query level (oracle sub-queries)"}


def set_title(ax: Any, text: str, size: float = 10) -> None:
    """A title from the axes' left edge, wrapped to most of the figure's width: never clipped by the canvas
    and clear of the tick labels, whatever room the layout later gives the legend."""
    width_in = 0.75 * ax.get_figure().get_size_inches()[0]
    lines = textwrap.wrap(text, max(24, int(width_in * 72 / (0.55 * size))))
    ax.set_title("\n".join(lines), fontsize=size, loc="left")


def _legend_beside(ax: Any) -> None:
    """The legend right of the axes, where it covers no data (the layout makes room for it)."""
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)


def delta_bars(results: pd.DataFrame, metric: str = HEADLINE.key, level: str = "query",
               title: str = "", tests: pd.DataFrame | None = None) -> Any:
    """Grouped bars per category: one-to-one and ToolEq for each retriever (our rows), each category named
    with its queries; with ``tests`` (:func:`toolex.report.significance.delta_significance`), Δ's 95 %
    paired bootstrap interval on each ToolEq bar (none where it is undefined, nor on ``Avg``, a mean over
    categories that the per-category tests do not cover)."""
    rows = results[(results.metric == metric) & (results.level == level)]
    retrievers = list(dict.fromkeys(rows.retriever))
    categories = list(dict.fromkeys(rows.category))
    fig, ax = plt.subplots(figsize=(max(4.8, 1.8 + 1.6 * len(categories) * max(1, len(retrievers)) / 2), 4.2))
    width = 0.8 / (2 * max(1, len(retrievers)))
    x = np.arange(len(categories))
    drawn = False
    for i, name in enumerate(retrievers):
        part = rows[rows.retriever == name].set_index("category").reindex(categories)
        colour = retriever_colour(name)
        ax.bar(x + (2 * i) * width, part.one_to_one, width, label=f"{name} one-to-one", color=colour,
               alpha=0.4)
        ax.bar(x + (2 * i + 1) * width, part.tooleq, width, label=f"{name} ToolEq", color=colour)
        if tests is not None:
            bounds = tests[(tests.metric == metric) & (tests.level == level) & (tests.retriever == name)]
            bounds = bounds.set_index("category").reindex(categories)
            low = (bounds.delta - bounds.ci_low).to_numpy(dtype=float)
            high = (bounds.ci_high - bounds.delta).to_numpy(dtype=float)
            if np.isfinite(low).any():
                ax.errorbar(x + (2 * i + 1) * width, part.tooleq.to_numpy(dtype=float),
                            yerr=np.vstack([low, high]), fmt="none", color="black", capsize=2, lw=0.8)
                drawn = True
    if drawn:
        ax.errorbar([], [], yerr=[], fmt="none", color="black", capsize=2, lw=0.8,
                    label="Δ's 95% paired bootstrap interval")
    counts = (rows.groupby("category", sort=False)["queries"].max().reindex(categories)
              if "queries" in rows else pd.Series(pd.NA, index=categories))
    ax.set_xticks(x + width * (2 * len(retrievers) - 1) / 2,
                  [f"{c}\n(n={int(n)})" if pd.notna(n) else str(c) for c, n in counts.items()])
    ax.set_ylabel(f"{metric} (%)")
    set_title(ax, title or f"One-to-one vs ToolEq, {metric}, {LEVELS.get(level, level)}")
    top = float(np.nanmax(rows[["one_to_one", "tooleq"]].to_numpy(), initial=1.0))
    ax.set_ylim(0, 100 if top <= 100 else 1.05 * top)  # a percentage axis ends at 100
    _legend_beside(ax)
    return fig


def combinations_bars(before_after: pd.DataFrame, paper_valid: float | None = None) -> Any:
    """Stage 3 per group: combinations considered (before the audit) and valid (after), horizontal so long
    subset names stay readable; ``paper_valid``: the paper's valid combinations per query, as a line."""
    fig, ax = plt.subplots(figsize=(6.4, 1.6 + 0.42 * len(before_after)))
    y = np.arange(len(before_after))
    ax.barh(y - 0.2, before_after.before_audit, 0.4, label="considered (before audit)", color="tab:gray")
    ax.barh(y + 0.2, before_after.after_audit, 0.4, label="valid (after audit)", color="tab:blue")
    ax.set_yticks(y, before_after.group, fontsize=7)
    ax.invert_yaxis()
    if paper_valid is not None:
        ax.axvline(paper_valid, color="black", ls="--", lw=0.9,
                   label=f"valid per query, reported by the paper ({paper_valid:g})")
    ax.set_xlabel("combinations per query (mean)")
    set_title(ax, "Stage 3: combinations before and after the audit")
    _legend_beside(ax)
    return fig


def illusion_bars(gains: pd.DataFrame, title: str = "Fine-tuning gain over the base retriever",
                  measure: str = str(HEADLINE)) -> Any:
    """Per pair: the one-to-one (Tool-DE) gain and the ToolEq gain, the illusion share written above; pairs
    with ``*_interval`` columns (lists ``[low, high]``) get error bars and the share's interval, and a
    ``source`` column names where each pair comes from under its label."""
    fig, ax = plt.subplots(figsize=(1.5 + 1.8 * len(gains), 3.6))
    x = np.arange(len(gains))
    highs = [max(de, *(_bounds(gains, "tool_de_gain_interval", i) or [de])) for i, de in
             enumerate(gains.tool_de_gain)]
    lows = [min(eq, *(_bounds(gains, "tooleq_gain_interval", i) or [eq])) for i, eq in
            enumerate(gains.tooleq_gain)]
    bottom, top = min(0.0, min(lows)) * 1.3, max(max(highs), 0.1)
    lines = 3 if "illusion_share_interval_pct" in gains else 2  # the annotation's lines and its offset
    ax.set_ylim(bottom, top + 0.14 * lines * (top - bottom))
    for offset, column, label, colour in ((-0.2, "tool_de_gain", "gain on Tool-DE (one-to-one)", "tab:gray"),
                                          (0.2, "tooleq_gain", "gain on ToolEq", "tab:blue")):
        values = gains[column].to_numpy(dtype=float)
        err = _error_bars(gains, f"{column}_interval", values)
        ax.bar(x + offset, values, 0.4, label=label, color=colour, yerr=err, capsize=3 if err is not None
               else 0, error_kw={"lw": 0.8})
    for xi, (high, share) in enumerate(zip(highs, gains.illusion_share_pct)):
        bounds = _bounds(gains, "illusion_share_interval_pct", xi)
        # one decimal where a whole percent would round a small share to "0" or "-0"
        text = "illusion n/a" if pd.isna(share) else f"illusion {share:.{0 if abs(share) >= 10 else 1}f}%"
        if bounds:
            text += f"\n{interval_text(*bounds)}"
        ax.annotate(text, (xi, high), ha="center", va="bottom", fontsize=8, xytext=(0, 4),
                    textcoords="offset points")
    sources = gains["source"] if "source" in gains else [""] * len(gains)
    ax.set_xticks(x, [f"{b}\n→ {t}" + (f"\n({src})" if src else "")
                      for b, t, src in zip(gains.base, gains.fine_tuned, sources)], fontsize=7)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_ylabel(f"{measure} gain (points)")
    set_title(ax, title)
    _legend_beside(ax)
    return fig


def _bounds(frame: pd.DataFrame, column: str, row: int) -> list[float] | None:
    """``[low, high]`` of a row's interval column, None where the column or the value is missing."""
    if column not in frame:
        return None
    value = frame[column].iloc[row]
    return [float(v) for v in value] if isinstance(value, (list, tuple, np.ndarray)) else None


def _error_bars(frame: pd.DataFrame, column: str, values: np.ndarray) -> np.ndarray | None:
    """Asymmetric error bars (2 × n) from an interval column; rows without one get none."""
    if column not in frame:
        return None
    err = np.full((2, len(values)), np.nan)  # NaN: no bar, no cap
    for i, value in enumerate(values):
        bounds = _bounds(frame, column, i)
        if bounds:
            err[:, i] = [max(value - bounds[0], 0.0), max(bounds[1] - value, 0.0)]
    return err


def rank_cdf_plot(tables: pd.DataFrame | Mapping[str, pd.DataFrame], title: str, cutoff: int = HEADLINE.k,
                  paper: Mapping[str, float] | None = None, paper_label: str = "",
                  intervals: Mapping[str, Mapping[str, tuple[float, float]]] | None = None) -> Any:
    """The CDF curves of :func:`toolex.report.rank_cdf.cdf_table` (one table, or one per retriever: a line
    style each), the top-``cutoff`` line, each curve's 95 % interval there (``intervals``: per retriever, per
    series label, :func:`toolex.report.rank_cdf.top_intervals`) and, when given, the paper's top-``cutoff``
    shares as markers."""
    runs = {"": tables} if isinstance(tables, pd.DataFrame) else dict(tables)
    fig, ax = plt.subplots(figsize=(6.4, 3.9))
    for i, ((name, table), style) in enumerate(zip(runs.items(), itertools.cycle(("-", "--", ":", "-.")))):
        for label, colour in zip(SERIES.values(), SERIES_COLOURS):
            ax.step(table["rank"], table[label], where="post", color=colour, ls=style,
                    label=f"{label} ({name})" if name else label)
            bounds = (intervals or {}).get(name, {}).get(label)
            if bounds:  # just right of the cut-off (the paper's markers sit on it), one per retriever
                at = float(table.loc[table["rank"] == cutoff, label].iloc[0])
                x = cutoff * (1.08 + 0.07 * i)
                ax.errorbar([x], [at], yerr=[[max(at - bounds[0], 0)], [max(bounds[1] - at, 0)]],
                            color=colour, capsize=2, lw=0.9, fmt="none", zorder=3)
    if intervals:
        ax.errorbar([], [], yerr=[], color="0.3", capsize=2, lw=0.9, fmt="none",
                    label=f"95% Wilson interval at top {cutoff}"
                          + (" (one per retriever, left to right)" if len(runs) > 1 else ""))
    if paper:
        for key, colour in zip(SERIES, SERIES_COLOURS):
            value = paper.get(PAPER_SHARE[key].format(k=cutoff))
            if value is not None:
                ax.scatter([cutoff], [value], marker="D", s=22, color=colour, edgecolor="black", zorder=4)
        source = f" ({paper_label})" if paper_label else ""
        ax.scatter([], [], marker="D", s=22, color="white", edgecolor="black",
                   label=f"top {cutoff}, reported by the paper{source}")
    ax.axvline(cutoff, color="0.5", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("best rank (log scale)")
    ax.set_ylabel("queries with rank ≤ r (%)")
    ax.set_ylim(0, 100)
    set_title(ax, title)
    _legend_beside(ax)
    return fig


def histogram(values: pd.Series, title: str, xlabel: str) -> Any:
    """Integer-valued histogram (counts per value)."""
    from matplotlib.ticker import MaxNLocator

    counts = values.value_counts().sort_index()
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.bar(counts.index.to_numpy(dtype=float), counts.to_numpy(), width=0.8, color="tab:blue")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=12, integer=True))  # never one label per bar
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    set_title(ax, title)
    return fig


#: Width of the bins of :func:`credit_distribution` (a per-query credit lies in [0, 1]).
CREDIT_BIN = 0.05


def credit_distribution(per_query: pd.DataFrame, metric: str, title: str) -> Any:
    """Per-query over- and under-credit (ours vs gold) of each retriever at ``metric``: queries with a
    non-zero error, in equal bins of :data:`CREDIT_BIN` with whole-query ticks."""
    from matplotlib.ticker import MaxNLocator

    rows = per_query[per_query["metric"] == metric]
    retrievers = list(dict.fromkeys(rows["retriever"]))
    fig, axes = plt.subplots(1, len(retrievers), figsize=(4.2 * len(retrievers), 3.2), squeeze=False)
    bins = 100 * np.linspace(0.0, 1.0, round(1 / CREDIT_BIN) + 1)  # in points, as every table shows them
    for ax, name in zip(axes[0], retrievers):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of queries: no half a query
        own = rows[rows["retriever"] == name]
        for kind, colour in (("over", "tab:red"), ("under", "tab:blue")):
            values = 100 * own[kind][own[kind] > 0]
            ax.hist(values, bins=bins, alpha=0.6, color=colour,
                    label=f"{kind}-credit ({len(values)} queries)")
        ax.set_title(f"{name} ({len(own)} queries)", fontsize=9)
        ax.set_xlabel(f"|ours − gold| {metric} per query, points")
        ax.set_ylabel("queries")
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    return fig


def tradeoff_curve(curve: pd.DataFrame, title: str, goal: tuple[float, float] = (0.20, 0.95)) -> Any:
    """Agreement with the LLM-only verdicts against the share of verdicts sent to the LLM."""
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.plot(100 * curve["share_sent"], 100 * curve["agreement"], marker="o", ms=3, label="most unsure first")
    band = curve[curve["rule"] == "unsure band"]
    ax.scatter(100 * band["share_sent"], 100 * band["agreement"], color="tab:red", zorder=3,
               label="the score model's unsure band")
    ax.axvline(100 * goal[0], color="grey", ls=":", lw=1)
    ax.axhline(100 * goal[1], color="grey", ls=":", lw=1, label="goal (≤ 20 % sent, ≥ 95 % agreement)")
    ax.set_xlabel("verdicts sent to the LLM (%)")
    ax.set_ylabel("agreement with LLM-only (%)")
    set_title(ax, title)
    _legend_beside(ax)
    return fig
