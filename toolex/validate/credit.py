"""Runs scored three ways on the gold queries — one-to-one (C*), ToolEq with our combinations, ToolEq with the
gold combinations — and how much of the underestimation that gold reveals our annotations recover.

recovered share = (ours − one-to-one) / (gold − one-to-one), on the means over queries, with a paired
bootstrap interval (the same resampled queries for all three); undefined (NaN) when gold adds nothing over
one-to-one. Per query, over-credit = max(ours − gold, 0) and under-credit = max(gold − ours, 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolex.errors import InputError
from toolex.metrics import NAMES, GroundTruth, Measure, RunArrays
from toolex.validate.pairing import Paired

PER_QUERY_COLUMNS = ("query_id", "retriever", "metric", "one_to_one", "ours", "gold", "over", "under")
_CHUNK_CELLS = 2_000_000  # resampled query indices held at once by the bootstrap
_EPS = 1e-12


@dataclass(frozen=True)
class Share:
    """A recovered share, its bootstrap interval and, when undefined, why."""

    value: float
    low: float
    high: float
    resamples: int  # resamples with a defined ratio (the interval is taken over these)
    reason: str = ""


def recovered_share(one: np.ndarray, ours: np.ndarray, gold: np.ndarray, resamples: int = 1000, seed: int = 0,
                    level: float = 0.95) -> Share:
    """(mean ours − mean one) / (mean gold − mean one) with a percentile bootstrap interval over queries."""
    ours_gap = np.asarray(ours, dtype=np.float64) - np.asarray(one, dtype=np.float64)
    gold_gap = np.asarray(gold, dtype=np.float64) - np.asarray(one, dtype=np.float64)
    n = len(gold_gap)
    if n == 0:
        return Share(math.nan, math.nan, math.nan, 0, "no queries")
    denominator = gold_gap.mean()
    if abs(denominator) <= _EPS:
        return Share(math.nan, math.nan, math.nan, 0, "gold adds nothing over one-to-one on these queries")
    value = float(ours_gap.mean() / denominator)
    if resamples <= 0:
        return Share(value, math.nan, math.nan, 0, "no bootstrap")
    rng = np.random.default_rng(seed)
    ratios = []
    chunk = max(1, _CHUNK_CELLS // n)
    for start in range(0, resamples, chunk):
        index = rng.integers(0, n, size=(min(chunk, resamples - start), n))
        den = gold_gap[index].mean(axis=1)
        num = ours_gap[index].mean(axis=1)
        defined = np.abs(den) > _EPS
        ratios.append(num[defined] / den[defined])
    valid = np.concatenate(ratios)
    if not len(valid):
        return Share(value, math.nan, math.nan, 0, "every resample has a zero gold gap")
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(valid, [tail, 100 - tail])
    return Share(value, float(low), float(high), int(len(valid)))


def score_runs(paired: Paired, runs: Mapping[str, RunArrays], k: int) -> tuple[pd.DataFrame, dict[str, int]]:
    """Per-query scores of every run (long: one row per query, retriever and metric) and, per run, how many
    gold queries it does not rank (they score 0)."""
    ours_truth = GroundTruth(list(paired.ours))
    gold_truth = GroundTruth(paired.gold_truth)
    frames = []
    missing: dict[str, int] = {}
    for name, run in runs.items():
        ours = ours_truth.evaluate(run, k).per_query
        gold = gold_truth.evaluate(run, k).per_query
        if not ours["in_run"].any():
            raise InputError(None, f"run {name!r} ranks none of the {len(paired)} gold queries "
                                   f"(unknown query ids)")
        missing[name] = int((~ours["in_run"]).sum())
        for m in NAMES:
            one = ours[f"one_to_one_{m}"].to_numpy()
            mine, theirs = ours[f"tooleq_{m}"].to_numpy(), gold[f"tooleq_{m}"].to_numpy()
            frames.append(pd.DataFrame({
                "query_id": ours["query_id"].to_numpy(),
                "retriever": name,
                "metric": Measure(m, k).key,
                "one_to_one": one,
                "ours": mine,
                "gold": theirs,
                "over": np.maximum(mine - theirs, 0.0),
                "under": np.maximum(theirs - mine, 0.0),
            }))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(PER_QUERY_COLUMNS))
    return frame, missing


def credit_table(per_query: pd.DataFrame, missing: Mapping[str, int], resamples: int = 1000, seed: int = 0,
                 level: float = 0.95) -> pd.DataFrame:
    """One row per retriever and metric: means, recovered share with its interval, over- and under-credit."""
    rows = []
    for (name, metric), group in per_query.groupby(["retriever", "metric"], sort=False):
        share = recovered_share(group["one_to_one"].to_numpy(), group["ours"].to_numpy(),
                                group["gold"].to_numpy(), resamples, seed, level)
        rows.append({
            "retriever": name,
            "metric": metric,
            "queries": len(group),
            "one_to_one": float(group["one_to_one"].mean()),
            "ours": float(group["ours"].mean()),
            "gold": float(group["gold"].mean()),
            "recovered": share.value,
            "recovered_low": share.low,
            "recovered_high": share.high,
            "over_credit": float(group["over"].mean()),
            "under_credit": float(group["under"].mean()),
            "over_queries": int((group["over"] > 0).sum()),
            "under_queries": int((group["under"] > 0).sum()),
            "missing_from_run": int(missing.get(name, 0)),
            "resamples": share.resamples,
            "note": share.reason,
        })
    return pd.DataFrame(rows)
