"""The outcome of a validation: expansion quality, per-run credit table, per-query frames and examples."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from toolex.metrics import Measure

KINDS = ("over", "under")


def jsonable(value: Any) -> Any:
    """``value`` with NaN / infinity as None and numpy scalars as Python numbers (for strict JSON)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class ValidationResult:
    """Annotations scored against a human one-to-many ground truth.

    ``expansion`` has one row per gold query (counts, ``missed`` gold alternatives, ``unlisted`` additions);
    ``per_query`` one row per query, retriever and metric (``one_to_one``, ``ours``, ``gold``, ``over``,
    ``under``); ``credit`` one row per retriever and metric (see :meth:`table`).
    """

    k: int
    expansion: pd.DataFrame
    expansion_summary: dict[str, Any]
    per_query: pd.DataFrame
    credit: pd.DataFrame
    missing_annotations: int
    ignored_annotations: int
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def retrievers(self) -> list[str]:
        return list(dict.fromkeys(self.credit["retriever"])) if len(self.credit) else []

    def summary(self) -> dict[str, Any]:
        """A JSON-able dict (NaN as None): counts, expansion quality and, per retriever and metric, the
        credit."""
        runs: dict[str, dict[str, Any]] = {}
        for row in self.credit.to_dict(orient="records"):
            block = {key: row[key] for key in row
                     if key not in ("retriever", "metric", "note", "recovered_low",
                                                                  "recovered_high")}
            block["recovered_interval"] = [row["recovered_low"], row["recovered_high"]]
            if row["note"]:
                block["note"] = row["note"]
            runs.setdefault(row["retriever"], {})[row["metric"]] = block
        return jsonable({
            "k": self.k,
            "queries": len(self.expansion),
            "missing_annotations": self.missing_annotations,
            "ignored_annotations": self.ignored_annotations,
            "expansion": self.expansion_summary,
            "runs": runs,
            "settings": self.settings,
        })

    def table(self) -> pd.DataFrame:
        """Tidy credit table: one row per retriever and metric (means as fractions, recovered share with its
        bootstrap interval, mean over- and under-credit per query)."""
        return self.credit.copy()

    def expansion_table(self) -> pd.DataFrame:
        """Expansion quality as rows: level (combination, tool), recall, precision and the counts behind
        them."""
        s = self.expansion_summary
        rows = [
            {"level": "combination", "recall": s["combination"]["recall"],
             "precision": s["combination"]["precision"],
             "gold": s["combination"]["gold_alternatives"], "added": s["combination"]["added"],
             "matched": s["combination"]["matched"]},
            {"level": "tool", "recall": s["tool"]["recall"], "precision": s["tool"]["precision"],
             "gold": s["tool"]["gold_tools"], "added": s["tool"]["added_tools"],
             "matched": s["tool"]["matched_tools"]},
        ]
        return pd.DataFrame(rows)

    def examples(self, kind: str, n: int = 5, retriever: str | None = None,
                 metric: str = "ndcg") -> pd.DataFrame:
        """The ``n`` queries most over- or under-credited, with the combinations at fault.

        ``over``: our added combinations that gold does not list (``combinations``); ``under``: the gold
        alternatives we missed. With runs, queries are ranked by over- / under-credit of ``retriever``
        (default the first) at ``metric``; without runs, by the number of such combinations.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        column = "unlisted" if kind == "over" else "missed"
        expansion = self.expansion[["query_id", "category", column]].rename(columns={column: "combinations"})
        if not len(self.per_query):
            ranked = expansion.assign(count=expansion["combinations"].map(len))
            ranked = ranked[ranked["count"] > 0].sort_values(["count", "query_id"], ascending=[False, True])
            return ranked.head(n).reset_index(drop=True)
        retriever = retriever if retriever is not None else self.retrievers[0]
        if retriever not in self.retrievers:
            raise ValueError(f"unknown retriever {retriever!r}; known: {', '.join(self.retrievers)}")
        key = Measure.parse(metric).key if "@" in metric else Measure(metric, self.k).key
        rows = self.per_query[(self.per_query["retriever"] == retriever) & (self.per_query["metric"] == key)]
        rows = rows[rows[kind] > 0].sort_values([kind, "query_id"], ascending=[False, True]).head(n)
        return rows.merge(expansion, on="query_id", how="left").reset_index(drop=True)
