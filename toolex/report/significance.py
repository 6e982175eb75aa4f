"""Paired significance of Δ = ToolEq − one-to-one: sign-flip randomisation and a percentile bootstrap
(seeded)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolex.metrics import ONE_TO_ONE, TOOLEQ, long
from toolex.report.table2 import category_label

COLUMNS = ["level", "retriever", "category", "metric", "queries", "delta", "ci_low", "ci_high", "p_value",
           "resamples"]
#: The printed table (:func:`printed`): one column per quantity, an undefined interval or test as ``n/a``.
PRINTED = ["level", "retriever", "category", "metric", "queries", "delta", "95% interval", "p", "resamples"]


def p_label(p_value: float, resamples: int) -> str:
    """A p-value as printed: at the floor of the test (1 / (resamples + 1), no resample as extreme as the
    observed difference) it reads ``< 1e-4`` for 10,000 resamples, as the test cannot resolve below it."""
    if math.isnan(p_value):
        return "n/a"
    floor = 1 / (resamples + 1)
    if p_value <= floor * (1 + 1e-9):
        return f"< {1 / resamples:.0e}".replace("e-0", "e-")
    return f"{p_value:.4f}"


@dataclass(frozen=True)
class PairedTest:
    """Mean paired difference ``b − a``, its bootstrap confidence interval and the randomisation p-value."""

    n: int
    mean: float
    low: float
    high: float
    p_value: float
    level: float
    resamples: int


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def randomisation_p(a: Sequence[float], b: Sequence[float], resamples: int = 10_000, seed: int = 0,
                    chunk: int = 500) -> float:
    """Two-sided paired randomisation (sign-flip) test of ``mean(b − a) = 0``, with the +1 correction."""
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if len(diff) == 0:
        return float("nan")
    observed = abs(diff.mean())
    rng = np.random.default_rng(seed)
    extreme = 0
    for size in _chunks(resamples, chunk):  # chunks keep memory flat for thousands of queries
        signs = rng.integers(0, 2, size=(size, len(diff)), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        extreme += int((np.abs(signs @ diff) / len(diff) >= observed - 1e-12).sum())
    return float((extreme + 1) / (resamples + 1))


def bootstrap_ci(a: Sequence[float], b: Sequence[float], resamples: int = 10_000, level: float = 0.95,
                 seed: int = 0, chunk: int = 500) -> tuple[float, float, float]:
    """Mean of ``b − a`` and its percentile bootstrap interval over queries."""
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if len(diff) == 0:
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = np.concatenate([diff[rng.integers(0, len(diff), size=(size, len(diff)))].mean(axis=1)
                            for size in _chunks(resamples, chunk)])
    tail = 100 * (1 - level) / 2
    return float(diff.mean()), float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def paired_test(a: Sequence[float], b: Sequence[float], resamples: int = 10_000, level: float = 0.95,
                seed: int = 0) -> PairedTest:
    mean, low, high = bootstrap_ci(a, b, resamples, level, seed)
    return PairedTest(len(a), mean, low, high, randomisation_p(a, b, resamples, seed), level, resamples)


def undefined(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether a paired interval and test say nothing: fewer than two pairs, or no pair that differs (every
    resample gives Δ = 0 and every sign flip the same mean)."""
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    return len(diff) < 2 or bool(np.all(np.abs(diff) <= 1e-12))


def delta_significance(scores: pd.DataFrame, resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """From the long-form scores (:func:`toolex.report.table2.evaluate_runs`): per level, retriever, category
    (then ``all``) and measure, Δ in points with its 95% interval and p-value (queries paired in their
    order); interval and p-value are NaN where they are undefined (:func:`undefined`)."""
    pairs = long.paired(scores)
    rows = []
    for (level, system), frame in pairs.groupby(["level", "system"], sort=False):
        groups = [(category_label(str(c)), g) for c, g in frame.groupby("category", sort=True)]
        for name, group in [*groups, (long.ALL, frame)]:
            for measure, part in group.groupby("measure", sort=False):
                a, b = part[ONE_TO_ONE].to_numpy(), part[TOOLEQ].to_numpy()
                if undefined(a, b):  # nothing to resample: Δ alone
                    test = PairedTest(len(a), float(np.mean(b - a)) if len(a) else math.nan, math.nan,
                                      math.nan, math.nan, 0.95, resamples)
                else:
                    test = paired_test(a, b, resamples, seed=seed)
                rows.append({"level": level, "retriever": system, "category": name, "metric": measure,
                             "queries": test.n, "delta": 100 * test.mean, "ci_low": 100 * test.low,
                             "ci_high": 100 * test.high, "p_value": test.p_value, "resamples": resamples})
    return pd.DataFrame(rows, columns=COLUMNS)


def printed(tests: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """:func:`delta_significance`'s table as printed: the interval as one ``[low, high]`` cell (points,
    ``digits`` decimals) and the p-value as :func:`p_label` prints it, ``n/a`` where either is undefined."""
    out = tests.copy()
    out["95% interval"] = [("n/a" if math.isnan(low) else f"[{low:.{digits}f}, {high:.{digits}f}]")
                           for low, high in zip(tests["ci_low"], tests["ci_high"])]
    out["p"] = [p_label(p, int(n)) for p, n in zip(tests["p_value"], tests["resamples"])]
    return out[PRINTED]
