"""One unit per measure in what people read, and column names that say what they hold.

Retrieval scores (NDCG, Recall, Comp@K) and every difference of them (a ToolEq gain, a per-query over- or
under-credit) are shown in **points**, percent of the metric's range, as the paper's tables, ``toolex
evaluate`` and ``toolex validate`` print them; the recovered share is a ratio and stays one. Kept files and
``--json`` outputs hold fractions, as pytrec_eval gives them: :func:`for_reading` converts at the last step,
for a notebook's table or an exported one.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

#: Columns that hold a retrieval score or a difference of scores, as fractions (with their summaries: a
#: column ``"<name> mean"``, ``"<name> min"`` … is one too).
SCORES = ("one_to_one", "ours", "gold", "over_credit", "under_credit", "over", "under")
#: Code names → what a reader sees.
HEADERS = {
    "one_to_one": "one-to-one", "tooleq": "ToolEq", "delta": "Δ", "ours": "ToolEq (ours)",
    "gold": "ToolEq (people)", "recovered": "recovered share", "recovered_low": "share, CI low",
    "recovered_high": "share, CI high", "over_credit": "over-credit", "under_credit": "under-credit",
    "over": "over-credit", "under": "under-credit", "expansion_recall": "expansion recall",
    "expansion_precision": "expansion precision", "reported_on": "reported on", "fitted_on": "fitted on",
    "share_ok": "share in goal", "over_ok": "over in goal", "under_ok": "under in goal",
    "max_combinations": "combinations audited", "p_value": "p (raw)", "p_holm": "p (Holm)",
    "p": "p (as printed)", "ci_low": "95 % CI low", "ci_high": "95 % CI high", "mean_a": "mean of a",
    "mean_b": "mean of b", "difference": "b − a",
}


def score_columns(columns: Iterable[str]) -> list[str]:
    """The columns among ``columns`` that hold scores or score differences (:data:`SCORES`)."""
    return [c for c in columns if isinstance(c, str) and (c in SCORES or c.split(" ")[0] in SCORES)]


def in_points(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy with every score column in points (× 100)."""
    out = frame.copy()
    for column in score_columns(out.columns):
        out[column] = pd.to_numeric(out[column], errors="coerce") * 100
    return out


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy with :data:`HEADERS`' names (``"over_credit mean"`` → ``"over-credit mean"``)."""

    def name(column: object) -> object:
        if not isinstance(column, str):
            return column
        head, _, rest = column.partition(" ")
        return f"{HEADERS[head]} {rest}".strip() if head in HEADERS else column

    return frame.rename(columns=name)


def for_reading(frame: pd.DataFrame) -> pd.DataFrame:
    """Scores in points, columns named for a reader."""
    return readable(in_points(frame))
