"""One long-form result: a row per query × system × level × measure × annotation kind, with its category and
benchmark; and the one way to average it (per category, over all queries, over categories).

Every table of the report layer pivots from this frame: Table 2, Table 3, the explorer, the significance
tests, the baselines and ``toolex evaluate``.

```pycon
>>> from toolex.data.records import Annotation
>>> from toolex.metrics import GroundTruth
>>> ann = [Annotation("q1", "code", ("a",), (("a",), ("b",))), Annotation("q2", "web", ("x",), (("x",),))]
>>> scores = GroundTruth(ann).evaluate({"q1": {"b": 2.0}, "q2": {"x": 1.0}}, k=10).long("bm25")
>>> table = means(scores, average="Avg", scale=100)
>>> columns = ["category", "queries", "one_to_one", "tooleq", "delta"]
>>> print(table[table.measure == "ndcg@10"][columns].to_string(index=False))
category  queries  one_to_one  tooleq  delta
    code        1         0.0   100.0  100.0
     web        1       100.0   100.0    0.0
     Avg        2        50.0   100.0   50.0

```
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from toolex.metrics.measures import KINDS, ONE_TO_ONE, TOOLEQ, measures_at

if TYPE_CHECKING:
    from toolex.metrics.tooleq import Evaluation

#: Columns of the long form, in order.
COLUMNS = ("query_id", "benchmark", "category", "level", "system", "measure", "kind", "value")
#: What identifies one scored system in the long form (a retriever at a level).
SYSTEM = ("level", "system", "measure")
#: Label of the mean over every query of a group, and of the mean over its categories (the paper's ``Avg``).
ALL = "all"
AVG = "Avg"
QUERY_LEVEL = "query"


def long_form(evaluation: Evaluation, system: str, level: str = QUERY_LEVEL,
              benchmarks: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The evaluation's per-query scores as long rows (``value`` a fraction); ``benchmarks`` maps query ids to
    their benchmark (empty when unknown)."""
    frame = evaluation.per_query
    n = len(frame)
    queries = frame["query_id"].to_numpy(dtype=object)
    bench = (np.array([benchmarks.get(q, "") for q in queries], dtype=object) if benchmarks
             else np.full(n, "", dtype=object))
    parts = []
    for measure in measures_at(evaluation.k):
        for kind in KINDS:
            parts.append(pd.DataFrame({
                "query_id": queries, "benchmark": bench, "category": frame["category"].to_numpy(dtype=object),
                "level": level, "system": system, "measure": measure.key, "kind": kind,
                "value": frame[measure.column(kind)].to_numpy(dtype=np.float64)}))
    if not parts or n == 0:
        return empty()
    return pd.concat(parts, ignore_index=True)


def empty() -> pd.DataFrame:
    """A long form without rows."""
    return pd.DataFrame({c: pd.Series(dtype=np.float64 if c == "value" else object) for c in COLUMNS})


def concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Several long forms as one (systems in the order given)."""
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else empty()


def paired(long: pd.DataFrame) -> pd.DataFrame:
    """One row per query of each group: the long form with the kinds side by side (``one_to_one``,
    ``tooleq``), queries in their original order."""
    keys = [c for c in COLUMNS if c not in ("kind", "value")]
    one = long[long["kind"] == ONE_TO_ONE].drop(columns="kind").rename(columns={"value": ONE_TO_ONE})
    eq = long[long["kind"] == TOOLEQ].drop(columns="kind").rename(columns={"value": TOOLEQ})
    return one.merge(eq, on=keys, how="inner", sort=False, validate="one_to_one").reset_index(drop=True)


def means(long: pd.DataFrame, by: Sequence[str] = SYSTEM, *, categories: bool = True,
          pooled: str | None = None,
          average: str | None = None, scale: float = 1.0,
          label: Callable[[str], str] = str) -> pd.DataFrame:
    """Mean one-to-one, ToolEq and Δ per group of ``by``: per category (sorted, named by ``label``) when
    ``categories``, then over every query of the group (named ``pooled``) and the mean over the categories
    (named ``average``) when given. Groups keep their order of appearance; ``queries`` counts the queries.

    The Δ and the category mean are taken on ``scale``d values, as the tables print them.
    """
    by = list(by)
    pairs = paired(long)
    columns = [*by, "category", "queries", ONE_TO_ONE, TOOLEQ, "delta"]
    if pairs.empty:
        return pd.DataFrame(columns=columns)
    order = {key: i for i, key in enumerate(dict.fromkeys(map(tuple, pairs[by].itertuples(index=False))))}
    parts = []
    per_category = _means(pairs, [*by, "category"], scale).sort_values("category", kind="stable")
    if categories:
        parts.append(per_category.assign(category=per_category["category"].map(label), _slot=0))
    if pooled is not None:
        parts.append(_means(pairs, by, scale).assign(category=pooled, _slot=1))
    if average is not None:
        avg = per_category.groupby(by, sort=False,
                                   dropna=False)[[ONE_TO_ONE, TOOLEQ]].agg(_mean).reset_index()
        counts = _means(pairs, by, scale)[[*by, "queries"]]
        parts.append(avg.merge(counts, on=by, how="left").assign(category=average, _slot=2))
    out = pd.concat(parts, ignore_index=True)
    out["_group"] = [order[key] for key in map(tuple, out[by].itertuples(index=False))]
    out = out.sort_values(["_group", "_slot"], kind="stable")
    out["delta"] = out[TOOLEQ] - out[ONE_TO_ONE]
    out["queries"] = out["queries"].astype(int)
    return out[columns].reset_index(drop=True)


def _mean(values: pd.Series) -> float:
    return float(values.mean())


def _means(pairs: pd.DataFrame, keys: list[str], scale: float) -> pd.DataFrame:
    grouped = pairs.groupby(keys, sort=False, dropna=False)
    # Series.mean (numpy's pairwise sum) per group, not groupby's running sum: the same bits as a plain mean
    out = grouped[[ONE_TO_ONE, TOOLEQ]].agg(_mean) * scale
    out["queries"] = grouped.size()
    return out.reset_index()
