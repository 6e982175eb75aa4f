"""Table 2: one-to-one against ToolEq per retriever, level and category, beside the paper's own rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from toolex.data.records import Annotation
from toolex.io.trec import Run
from toolex.metrics import GroundTruth, long
from toolex.metrics.long import AVG, QUERY_LEVEL
from toolex.metrics.measures import HEADLINE

OURS = "ours"
PAPER = "reported by the paper"
COLUMNS = ("source", "level", "retriever", "category", "metric", "queries", "one_to_one", "tooleq", "delta")


def category_label(category: str) -> str:
    """``code`` -> ``Code`` (the paper's spelling)."""
    return category[:1].upper() + category[1:] if category else category


def evaluate_runs(runs: Mapping[tuple[str, str], Run] | Mapping[str, Run],
                  annotations: Sequence[Annotation] | GroundTruth, k: int = HEADLINE.k,
                  benchmarks: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Every run scored against the same ground truth (built once), as one long form
    (:mod:`toolex.metrics.long`).

    ``runs`` is keyed by ``(level, retriever)`` (``level``: ``query`` or ``subquery_oracle``) or by retriever
    alone (query level); ``benchmarks`` maps query ids to their benchmark.
    """
    truth = annotations if isinstance(annotations, GroundTruth) else GroundTruth(annotations)
    frames = []
    for key, run in runs.items():
        level, name = key if isinstance(key, tuple) else (QUERY_LEVEL, key)
        frames.append(truth.evaluate(run, k).long(name, level, benchmarks))
    return long.concat(frames)


def main_results(scores: pd.DataFrame) -> pd.DataFrame:
    """Table 2 in long form from the long-form scores: per level, retriever and measure, each category and the
    mean over categories (``Avg``), one-to-one, ToolEq and Δ in percent."""
    table = long.means(scores, average=AVG, scale=100.0, label=category_label)
    table = table.rename(columns={"system": "retriever", "measure": "metric"}).assign(source=OURS)
    return table[list(COLUMNS)]


def paper_rows(table2: pd.DataFrame, models: Sequence[str] | None = None) -> pd.DataFrame:
    """The paper's Table 2 in the same long form (``source`` = "reported by the paper"), with ``Avg`` rows."""
    frame = table2 if models is None else table2[table2.model.isin(models)]
    frame = frame.rename(columns={"model": "retriever", "tool_de": "one_to_one"}).copy()
    avg = frame.groupby(["level", "retriever", "metric"], as_index=False,
                        sort=False)[["one_to_one", "tooleq"]].mean()
    avg["category"] = AVG
    frame = pd.concat([frame, avg], ignore_index=True)
    frame["delta"] = frame.tooleq - frame.one_to_one
    frame["source"] = PAPER
    frame["queries"] = pd.NA
    return frame[list(COLUMNS)]


def wide(long: pd.DataFrame, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (source, level, retriever), columns ``<Category> <metric> 1:1 / ToolEq / Δ``."""
    frame = long if metrics is None else long[long.metric.isin(metrics)]
    stacked = frame.melt(id_vars=["source", "level", "retriever", "category", "metric"],
                         value_vars=["one_to_one", "tooleq", "delta"], var_name="side")
    stacked["side"] = stacked.side.map({"one_to_one": "1:1", "tooleq": "ToolEq", "delta": "Δ"})
    out = stacked.pivot_table(index=["source", "level", "retriever"], columns=["category", "metric", "side"],
                              values="value", sort=False)
    out.columns = [" ".join(c) for c in out.columns]
    return out.reset_index()


def side_by_side(ours: pd.DataFrame, paper: pd.DataFrame, metric: str = HEADLINE.key) -> pd.DataFrame:
    """Our rows and the paper's rows for one metric, wide, ours first."""
    return wide(pd.concat([ours, paper], ignore_index=True), [metric])
