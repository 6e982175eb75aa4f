"""Figure 4: where the ground truth, the best verified equivalent and a random negative rank.

Per query, with a query-level run: the best (smallest, from 1) rank of any tool of C*, of any verified
equivalent of Stage 2 (a tool other than the reference that the judge accepted for one of its sub-queries),
and of one random negative (a seeded draw from the query's own benchmark pool, outside C* and the verified
tools). A tool beyond the run's depth has no rank (NaN) and counts as outside every cut-off.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from toolex.data import tool_pools
from toolex.experiments.workspace import Annotated, Workspace
from toolex.io.trec import Run, ranked
from toolex.metrics.intervals import wilson
from toolex.metrics.measures import HEADLINE

SERIES = {"gt_rank": "ground truth (C*)", "equivalent_rank": "best verified equivalent",
          "negative_rank": "random negative"}


def equivalents_of(verified_sets: Iterable) -> dict[str, set[str]]:
    """Query id to its verified equivalents (reference tools excluded)."""
    out: dict[str, set[str]] = {}
    for v in verified_sets:
        extra = set(v.verified) - {v.reference_tool}
        out.setdefault(v.query_id, set()).update(extra)
    return out


def best_rank(order: Mapping[str, int], tools: Iterable[str]) -> float:
    """Smallest rank (from 1) of any of ``tools`` in a ranking, NaN when none is in it."""
    ranks = [order[t] for t in tools if t in order]
    return float(min(ranks)) if ranks else float("nan")


def best_ranks(run: Run, references: Mapping[str, Sequence[str]], equivalents: Mapping[str, set[str]],
               pools: Mapping[str, Sequence[str]], seed: int = 0) -> pd.DataFrame:
    """One row per query of ``references``: ``gt_rank``, ``equivalent_rank``, ``negative_rank``,
    ``n_equivalents``.

    ``pools`` maps each query to the tool ids a random negative is drawn from.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for qid, reference in references.items():
        order = {tool: r for r, (tool, _) in enumerate(ranked(run.get(qid, {})), 1)}
        extra = equivalents.get(qid, set()) - set(reference)
        excluded = set(reference) | extra
        pool = [t for t in pools.get(qid, ()) if t not in excluded]
        negative = pool[int(rng.integers(len(pool)))] if pool else None
        rows.append({"query_id": qid, "n_equivalents": len(extra), "gt_rank": best_rank(order, reference),
                     "equivalent_rank": best_rank(order, extra),
                     "negative_rank": best_rank(order, [negative] if negative else [])})
    return pd.DataFrame(rows)


def workspace_ranks(run: Run, workspace: Workspace, annotated: Annotated, seed: int = 0) -> pd.DataFrame:
    """:func:`best_ranks` of a run over a workspace's queries: equivalents from its annotation's Stage 2,
    random negatives drawn from each query's own benchmark's tools in the searched pool."""
    searched = tool_pools(workspace.benchmarks, workspace.settings.pool)
    own = {b.name: [t for t in b.tools if t in searched[b.name]] for b in workspace.benchmarks}
    pools = {q.id: own[b.name] for b in workspace.benchmarks for q in b.queries}
    references = {q.id: q.reference for q in workspace.queries}
    return best_ranks(run, references, equivalents_of(annotated.verified_sets), pools, seed=seed)


def cdf(ranks: pd.Series, max_rank: int = 100) -> pd.DataFrame:
    """Share of queries (percent) whose rank is ``<= r`` for ``r = 1 … max_rank`` (NaN counts as outside)."""
    values = ranks.to_numpy(dtype=np.float64)
    grid = np.arange(1, max_rank + 1)
    share = [(100.0 * np.mean(values <= r)) if len(values) else float("nan") for r in grid]
    return pd.DataFrame({"rank": grid, "share_pct": share})


def summary(ranks: pd.DataFrame, cutoff: int = HEADLINE.k) -> dict[str, float]:
    """Figure 4's numbers over queries with at least one verified equivalent (percent)."""
    sub = ranks[ranks.n_equivalents > 0]
    inside = {col: sub[col].le(cutoff) for col in SERIES}
    n = len(sub)

    def pct(mask: pd.Series) -> float:
        return 100.0 * float(mask.sum()) / n if n else float("nan")

    return {
        "queries_with_equivalent": n,
        "queries": len(ranks),
        f"gt_in_top{cutoff}_pct": pct(inside["gt_rank"]),
        f"best_equivalent_in_top{cutoff}_pct": pct(inside["equivalent_rank"]),
        f"random_negative_in_top{cutoff}_pct": pct(inside["negative_rank"]),
        f"gt_outside_equivalent_inside_top{cutoff}_pct": pct(~inside["gt_rank"] & inside["equivalent_rank"]),
    }


def top_intervals(ranks: pd.DataFrame, cutoff: int = HEADLINE.k) -> dict[str, tuple[float, float]]:
    """Per series (its label): the 95 % Wilson interval, in percent, of the share of queries with a verified
    equivalent whose best rank is within ``cutoff`` (the shares Figure 4 states)."""
    sub = ranks[ranks.n_equivalents > 0]
    out = {}
    for column, label in SERIES.items():
        low, high = wilson(float(sub[column].le(cutoff).sum()), len(sub))
        out[label] = (100 * low, 100 * high)
    return out


def cdf_table(ranks: pd.DataFrame, max_rank: int = 100) -> pd.DataFrame:
    """The three CDFs side by side over queries with at least one verified equivalent."""
    sub = ranks[ranks.n_equivalents > 0]
    out = pd.DataFrame({"rank": np.arange(1, max_rank + 1)})
    for col, label in SERIES.items():
        out[label] = cdf(sub[col], max_rank).share_pct.to_numpy()
    return out
