"""NDCG@K, Recall@K and Comp@K against one reference (one-to-one) and as the best over every valid
combination (ToolEq), vectorised over all queries and combinations at once.

Definitions (as ToolRet / Tool-DE compute them with pytrec_eval): binary relevance, linear gains, DCG over the
top K with discount ``1 / log2(rank + 1)``, ideal DCG over ``min(|C|, K)`` tools, Recall@K = hits / |C|,
Comp@K = 1 when Recall@K = 1. ToolEq keeps, per metric separately, the maximum over the combinations of a
query (C* always among them), so ToolEq >= one-to-one for every query and metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolex.data.records import Annotation
from toolex.metrics.long import ALL, AVG, QUERY_LEVEL, long_form, means
from toolex.metrics.measures import HEADLINE, KIND_LABEL, KINDS, NAMES, ONE_TO_ONE, TOOLEQ, measures_at
from toolex.metrics.ranking import RunArrays


@dataclass(frozen=True)
class RankedKeys:
    """The top-K of every query as sorted ``row * n_codes + tool code`` keys, with the rank of each."""

    keys: np.ndarray
    ranks: np.ndarray
    k: int

    @classmethod
    def of(cls, topk: np.ndarray, n_codes: int) -> RankedKeys:
        rows, ranks = np.nonzero(topk >= 0)
        keys = rows * n_codes + topk[rows, ranks]
        order = np.argsort(keys)
        return cls(keys[order], ranks[order], topk.shape[1])

    def rank_of(self, keys: np.ndarray) -> np.ndarray:
        """Rank (from 0) of each key in its query's top-K, ``-1`` when absent."""
        if len(self.keys) == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        where = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[where] == keys, self.ranks[where], -1)


@dataclass(frozen=True)
class Combinations:
    """Combinations of many queries as flat arrays: combination ``c`` belongs to query row ``row[c]``."""

    row: np.ndarray  # (n_combinations,) query row of each combination, non-decreasing
    size: np.ndarray  # (n_combinations,) number of distinct tools
    member_combo: np.ndarray  # (n_members,) combination of each member tool
    member_key: np.ndarray  # (n_members,) ``row * n_codes + tool code`` of each member
    n_rows: int

    @classmethod
    def build(cls, per_row: Sequence[Sequence[Sequence[str]]], code: Mapping[str, int]) -> Combinations:
        rows, sizes, members, owners = [], [], [], []
        c = 0
        for r, combos in enumerate(per_row):
            for combo in combos:
                tools = list(dict.fromkeys(combo))
                rows.append(r)
                sizes.append(len(tools))
                members.extend(tools)
                owners.extend([c] * len(tools))
                c += 1
        tool_codes = np.fromiter((code[t] for t in members), dtype=np.int64, count=len(members))
        row = np.asarray(rows, dtype=np.int64)
        member_combo = np.asarray(owners, dtype=np.int64)
        member_row = row[member_combo] if len(member_combo) else member_combo
        return cls(row, np.asarray(sizes, dtype=np.int64), member_combo, member_row * len(code) + tool_codes,
                   len(per_row))

    def hits(self, ranked: RankedKeys) -> np.ndarray:
        """Boolean ``n_combinations × K``: is the tool at each rank a member of the combination."""
        hits = np.zeros((len(self.row), ranked.k), dtype=bool)
        rank = ranked.rank_of(self.member_key)
        found = rank >= 0
        hits[self.member_combo[found], rank[found]] = True
        return hits

    def scores(self, ranked: RankedKeys) -> dict[str, np.ndarray]:
        """NDCG, Recall and Comp of every combination at the ranking's cut-off."""
        k = ranked.k
        hits = self.hits(ranked)
        discounts = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
        ideal = np.cumsum(discounts)[np.minimum(self.size, k) - 1]
        found = hits.sum(axis=1)
        return {
            "ndcg": (hits @ discounts) / ideal,
            "recall": found / self.size,
            "comp": (found == self.size).astype(np.float64),
        }

    def best(self, values: np.ndarray) -> np.ndarray:
        """Per query row, the maximum over its combinations."""
        starts = np.searchsorted(self.row, np.arange(self.n_rows))
        return np.maximum.reduceat(values, starts)


@dataclass(frozen=True)
class Evaluation:
    """Per-query one-to-one and ToolEq scores at cut-off ``k``; :meth:`summary` averages them."""

    k: int
    per_query: pd.DataFrame
    missing_from_run: int
    not_annotated: int

    @property
    def queries(self) -> int:
        return len(self.per_query)

    def long(self, system: str, level: str = QUERY_LEVEL,
             benchmarks: Mapping[str, str] | None = None) -> pd.DataFrame:
        """The per-query scores as the long form of :mod:`toolex.metrics.long` (one row per query, measure and
        annotation kind)."""
        return long_form(self, system, level, benchmarks)

    def summary(self) -> dict:
        """``{"queries", "k", "one_to_one", "tooleq", "delta", "by_category", "category_mean", ...}``
        (fractions)."""
        table = means(self.long(""), by=["measure"], pooled=ALL, average=AVG)
        names = {m.key: m.name for m in measures_at(self.k)}

        def block(rows: pd.DataFrame) -> dict[str, dict[str, float]]:
            return {kind: {names[r.measure]: float(getattr(r, kind)) for r in rows.itertuples()}
                    for kind in KINDS}

        nan = {kind: dict.fromkeys(NAMES, float("nan")) for kind in KINDS}
        per_category = table[~table.category.isin([ALL, AVG])]
        overall = block(table[table.category == ALL]) if len(table) else nan
        return {
            "queries": self.queries,
            "k": self.k,
            ONE_TO_ONE: overall[ONE_TO_ONE],
            TOOLEQ: overall[TOOLEQ],
            "delta": {m: overall[TOOLEQ][m] - overall[ONE_TO_ONE][m] for m in NAMES},
            "by_category": {str(cat): {**block(rows), "queries": int(rows.queries.iloc[0])}
                            for cat, rows in per_category.groupby("category", sort=True)},
            "category_mean": block(table[table.category == AVG]) if len(table) else nan,
            "missing_from_run": self.missing_from_run,
            "not_annotated": self.not_annotated,
        }

    def table(self, percent: bool = True) -> pd.DataFrame:
        """One row per category (then ``all``): one-to-one, ToolEq and Δ for each measure."""
        table = means(self.long(""), by=["measure"], pooled=ALL, scale=100.0 if percent else 1.0)
        rows: dict[str, dict[str, object]] = {}
        for r in table.itertuples():
            row = rows.setdefault(r.category, {"category": r.category, "queries": r.queries})
            for kind in KINDS:
                row[f"{r.measure} {KIND_LABEL[kind]}"] = getattr(r, kind)
            row[f"{r.measure} Δ"] = r.delta
        return pd.DataFrame(list(rows.values()))


class GroundTruth:
    """Annotations prepared once for scoring many runs: tool codes and flat combination arrays.

    ```pycon
    >>> from toolex.data.records import Annotation
    >>> truth = GroundTruth([Annotation("q1", "web", ("a",), (("a",), ("b",)))])
    >>> truth.evaluate({"q1": {"b": 2.0, "a": 1.0}}, k=10).summary()["tooleq"]["ndcg"]
    1.0

    ```
    """

    def __init__(self, annotations: Sequence[Annotation]) -> None:
        self.annotations = list(annotations)
        tools = sorted({t for a in self.annotations for c in (a.reference, *a.combinations) for t in c})
        self.tool_ids = np.array(tools, dtype=object)
        self.code = {t: i for i, t in enumerate(tools)}
        self.row = {a.query_id: i for i, a in enumerate(self.annotations)}
        self._queries = pd.Index([a.query_id for a in self.annotations])
        self.references = Combinations.build([[a.reference] for a in self.annotations], self.code)
        self.expanded = Combinations.build(
            [[a.reference, *(c for c in a.combinations if set(c) != set(a.reference))]
             for a in self.annotations],
            self.code,
        )

    def __len__(self) -> int:
        return len(self.annotations)

    def top_k(self, run: RunArrays, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Each annotated query's top-K as ground-truth tool codes (``-1``: not a ground-truth tool or no
        tool), and whether the query is in the run."""
        code = self.code
        translate = np.fromiter((code.get(t, -1) for t in run.tool_ids), dtype=np.int64,
                                count=len(run.tool_ids))
        run_topk = run.top_k(k)
        target = pd.Index(run.query_ids).get_indexer(self._queries)
        present = target >= 0
        topk = np.full((len(self.annotations), k), -1, dtype=np.int64)
        picked = run_topk[target[present]]
        topk[present] = np.where(picked >= 0, translate[np.maximum(picked, 0)], -1)
        return topk, present

    def evaluate(self, run: RunArrays | Mapping[str, Mapping[str, float]], k: int = HEADLINE.k) -> Evaluation:
        """Score a run (arrays or ``{query: {tool: score}}``) at cut-off ``k``."""
        if k < 1:
            raise ValueError(f"k must be positive, got {k}")
        arrays = run if isinstance(run, RunArrays) else RunArrays.from_dict(run)
        topk, present = self.top_k(arrays, k)
        ranked = RankedKeys.of(topk, len(self.tool_ids))
        one = self.references.scores(ranked)
        every = self.expanded.scores(ranked)
        frame: dict[str, object] = {
            "query_id": [a.query_id for a in self.annotations],
            "category": [a.category for a in self.annotations],
            "n_combinations": np.bincount(self.expanded.row, minlength=len(self.annotations)),
            "in_run": present,
        }
        for m in measures_at(k):
            frame[m.column(ONE_TO_ONE)] = one[m.name]
        for m in measures_at(k):
            frame[m.column(TOOLEQ)] = self.expanded.best(every[m.name]) if self.annotations else every[m.name]
        return Evaluation(
            k=k,
            per_query=pd.DataFrame(frame),
            missing_from_run=int((~present).sum()),
            not_annotated=int(sum(1 for q in arrays.query_ids if q not in self.row)),
        )


def evaluate(
    run: RunArrays | Mapping[str, Mapping[str, float]],
    annotations: Sequence[Annotation] | GroundTruth,
    k: int = HEADLINE.k,
) -> Evaluation:
    """Score a run against one-to-one (C*) and ToolEq (every combination) ground truth.

    Queries in ``annotations`` but not in ``run`` score 0 (an empty ranking); run queries without an
    annotation are ignored. Both counts are reported. To score many runs against the same annotations,
    build a :class:`GroundTruth` once.

    ```pycon
    >>> from toolex.data.records import Annotation
    >>> ann = [Annotation("q1", "web", ("a",), (("a",), ("b",)))]
    >>> evaluate({"q1": {"b": 2.0, "a": 1.0}}, ann, k=10).summary()["tooleq"]["ndcg"]
    1.0

    ```
    """
    truth = annotations if isinstance(annotations, GroundTruth) else GroundTruth(annotations)
    return truth.evaluate(run, k)
