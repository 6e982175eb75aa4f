"""Table 2: one-to-one against ToolEq per retriever, level and category, beside the paper's own rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from toolex.io.annotations import Annotation
from toolex.io.trec import Run
from toolex.metrics import NAMES, Evaluation, GroundTruth

OURS = "ours"
PAPER = "reported by the paper"
COLUMNS = ("source", "level", "retriever", "category", "metric", "queries", "one_to_one", "tooleq", "delta")


def category_label(category: str) -> str:
    """``code`` -> ``Code`` (the paper's spelling)."""
    return category[:1].upper() + category[1:] if category else category


def evaluate_runs(runs: Mapping[str, Run], annotations: Sequence[Annotation] | GroundTruth,
                  k: int = 10) -> dict[str, Evaluation]:
    """Every run scored against the same ground truth (built once)."""
    truth = annotations if isinstance(annotations, GroundTruth) else GroundTruth(annotations)
    return {name: truth.evaluate(run, k) for name, run in runs.items()}


def rows_of(evaluation: Evaluation, retriever: str, level: str = "query") -> list[dict]:
    """Per category and the mean over categories (``Avg``): one-to-one, ToolEq and Δ in percent."""
    frame = evaluation.per_query
    rows = []
    groups = [(category_label(str(c)), g) for c, g in frame.groupby("category", sort=True)]
    for metric in NAMES:
        means = []
        for name, group in groups:
            one, eq = 100 * group[f"one_to_one_{metric}"].mean(), 100 * group[f"tooleq_{metric}"].mean()
            means.append((one, eq))
            rows.append({"source": OURS, "level": level, "retriever": retriever, "category": name,
                         "metric": f"{metric}@{evaluation.k}", "queries": len(group), "one_to_one": one,
                         "tooleq": eq, "delta": eq - one})
        if means:
            one = sum(m[0] for m in means) / len(means)
            eq = sum(m[1] for m in means) / len(means)
            rows.append({"source": OURS, "level": level, "retriever": retriever, "category": "Avg",
                         "metric": f"{metric}@{evaluation.k}", "queries": len(frame), "one_to_one": one,
                         "tooleq": eq, "delta": eq - one})
    return rows


def main_results(evaluations: Mapping[tuple[str, str], Evaluation]) -> pd.DataFrame:
    """Long table from ``{(level, retriever): Evaluation}``; ``level`` is ``query`` or ``subquery_oracle``."""
    rows = [r for (level, name), ev in evaluations.items() for r in rows_of(ev, name, level)]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def paper_rows(table2: pd.DataFrame, models: Sequence[str] | None = None) -> pd.DataFrame:
    """The paper's Table 2 in the same long form (``source`` = "reported by the paper"), with ``Avg`` rows."""
    frame = table2 if models is None else table2[table2.model.isin(models)]
    frame = frame.rename(columns={"model": "retriever", "tool_de": "one_to_one"}).copy()
    avg = frame.groupby(["level", "retriever", "metric"], as_index=False, sort=False)[["one_to_one", "tooleq"]].mean()
    avg["category"] = "Avg"
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


def side_by_side(ours: pd.DataFrame, paper: pd.DataFrame, metric: str = "ndcg@10") -> pd.DataFrame:
    """Our rows and the paper's rows for one metric, wide, ours first."""
    return wide(pd.concat([ours, paper], ignore_index=True), [metric])
