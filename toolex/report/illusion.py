"""Figure 3: the gain of a fine-tuned retriever over its base on one-to-one (Tool-DE) and on ToolEq.

The illusion share is the part of the one-to-one gain that ToolEq does not confirm:
``1 − ToolEq gain / one-to-one gain`` (:func:`toolex.paper.claims.illusion_share`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from toolex.metrics import Measure
from toolex.metrics.long import QUERY_LEVEL, paired
from toolex.metrics.measures import HEADLINE
from toolex.paper.claims import finetuning_gains, illusion_share


def paper_illusion(table2: pd.DataFrame, metric: str = HEADLINE.key, printed: bool = True) -> pd.DataFrame:
    """The paper's two pairs (0.6B, 4B); with ``printed`` the share comes from the gains rounded to 0.1 point,
    as the paper divides them (30% and 47%), beside the share from unrounded cells."""
    gains = finetuning_gains(table2, metric=metric).reset_index()
    gains = gains.rename(columns={"illusion_share_pct": "illusion_share_unrounded_pct"})
    if printed:
        gains["illusion_share_pct"] = [
            100 * illusion_share(round(de, 1), round(eq, 1))
            for de, eq in zip(gains.tool_de_gain, gains.tooleq_gain)
        ]
    else:
        gains["illusion_share_pct"] = gains.illusion_share_unrounded_pct
    gains["source"] = "reported by the paper"
    return gains


#: Column names as a reader of the tables sees them.
READABLE = {"size": "pair", "base": "base", "fine_tuned": "fine-tuned",
            "tool_de_gain": "gain one-to-one (Tool-DE), points", "tooleq_gain": "gain ToolEq, points",
            "illusion_share_pct": "illusion share, % (from gains rounded as printed)",
            "illusion_share_unrounded_pct": "illusion share, % (unrounded gains)", "source": "source"}


def readable(gains: pd.DataFrame) -> pd.DataFrame:
    """The gains table with :data:`READABLE` column names, for export and display."""
    return gains.rename(columns=READABLE)


def illusion_interval(scores: pd.DataFrame, base: str, tuned: str, metric: str = HEADLINE.key,
                      resamples: int = 1000, seed: int = 0, level: float = 0.95,
                      name: str | None = None) -> dict[str, object]:
    """Gains of ``tuned`` over ``base`` (points, mean over categories as Table 2's ``Avg``) under one-to-one
    and ToolEq, the illusion share, and percentile bootstrap intervals of all three.

    ``scores`` is the long form (:mod:`toolex.metrics.long`) of both systems on the same queries. Queries are
    resampled within each category (the ``Avg`` weighs categories equally) and paired across the two systems
    and both annotations, so one resample moves all four means together. A share whose one-to-one gain does
    not stay positive in a resample is undefined there; ``undefined_share_resamples`` counts those.
    """
    import numpy as np

    key = Measure.parse(metric).key
    rows = paired(scores[(scores.level == QUERY_LEVEL) & (scores.measure == key)
                         & scores.system.isin([base, tuned])])
    wide = rows.pivot_table(index=["query_id", "category"], columns="system",
                            values=["one_to_one", "tooleq"], aggfunc="first")
    missing = [s for s in (base, tuned) if ("one_to_one", s) not in wide.columns]
    if missing:
        raise KeyError(f"no {key} scores of {missing} in the long form")
    wide = wide.dropna()
    gain_one = 100 * (wide["one_to_one"][tuned] - wide["one_to_one"][base])
    gain_eq = 100 * (wide["tooleq"][tuned] - wide["tooleq"][base])
    categories = wide.index.get_level_values("category")
    groups = [np.flatnonzero(categories == c) for c in sorted(set(categories))]
    one, eq = gain_one.to_numpy(), gain_eq.to_numpy()

    def avg(index_sets: list[np.ndarray]) -> tuple[float, float]:
        return (float(np.mean([one[i].mean() for i in index_sets])),
                float(np.mean([eq[i].mean() for i in index_sets])))

    point_one, point_eq = avg(groups)
    rng = np.random.default_rng(seed)
    draws = np.array([avg([g[rng.integers(0, len(g), len(g))] for g in groups]) for _ in range(resamples)])
    shares = np.array([illusion_share(one_gain, eq_gain) if one_gain > 0 else np.nan
                       for one_gain, eq_gain in draws])
    tail = 100 * (1 - level) / 2

    def interval(values: np.ndarray) -> list[float]:
        values = values[~np.isnan(values)]
        if not len(values):
            return [float("nan"), float("nan")]
        return [float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))]

    share = illusion_share(point_one, point_eq) if point_one > 0 else float("nan")
    return {"size": name or tuned, "base": base, "fine_tuned": tuned, "metric": key,
            "queries": int(len(wide)), "categories": len(groups),
            "tool_de_gain": point_one, "tool_de_gain_interval": interval(draws[:, 0]),
            "tooleq_gain": point_eq, "tooleq_gain_interval": interval(draws[:, 1]),
            "illusion_share_pct": 100 * share,
            "illusion_share_interval_pct": [100 * v for v in interval(shares)],
            "undefined_share_resamples": int(np.isnan(shares).sum()), "resamples": resamples,
            "level": level, "seed": seed, "source": "ours"}


_INTERVAL_COLUMNS = (("gain one-to-one (Tool-DE), points", "tool_de_gain", "tool_de_gain_interval"),
                     ("gain ToolEq, points", "tooleq_gain", "tooleq_gain_interval"),
                     ("illusion share, %", "illusion_share_pct", "illusion_share_interval_pct"))


def interval_text(low: float, high: float) -> str:
    """``[low, high]``; ``n/a`` when undefined, or when every resample gave the same value (a zero-width
    interval says the resampling had nothing to vary, not that the value is certain)."""
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    if low == high:
        return f"n/a (every resample {low:.1f})"
    return f"[{low:.1f}, {high:.1f}]"


def illusion_table(intervals: Sequence[dict[str, object]]) -> pd.DataFrame:
    """One readable row per pair of :func:`illusion_interval`: each estimate beside its interval."""
    rows = []
    for r in intervals:
        level = f"{100 * float(r['level']):.0f}% CI"  # type: ignore[arg-type]
        row: dict[str, object] = {"pair": r["size"], "base": r["base"], "fine-tuned": r["fine_tuned"]}
        for label, point, bounds in _INTERVAL_COLUMNS:
            low, high = (float(v) for v in r[bounds])  # type: ignore[attr-defined]
            row[label] = r[point]
            row[f"{label.split(',')[0]} {level}"] = interval_text(low, high)
        row["held-out queries"] = r["queries"]
        row["source"] = r["source"]
        rows.append(row)
    return pd.DataFrame(rows)
