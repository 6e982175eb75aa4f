"""Compare retrievers as ranx's ``compare`` does, under one-to-one and under ToolEq.

For each level and measure, every pair of systems (a, b) is tested on the queries both scored: the mean
difference b − a, a two-sided paired randomisation (sign-flip) p-value, and Holm's correction over the pairs
of that level, measure and annotation kind. Systems are ranked by their mean under each kind; a pair whose
order flips between one-to-one and ToolEq, and a change of the ranking, are reported: that is the question
equivalence-aware evaluation asks of a leaderboard. Within one run, ToolEq − one-to-one is ≥ 0 by
construction (C* is one of ToolEq's combinations), so only comparisons *between* systems can say who is
better.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from toolex.metrics import ONE_TO_ONE, TOOLEQ
from toolex.metrics.measures import KINDS
from toolex.report.significance import p_label, randomisation_p

COLUMNS = ["level", "measure", "kind", "a", "b", "queries", "mean_a", "mean_b", "difference", "p_value",
           "p_holm", "p", "significant", "resamples"]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values (monotone, capped at 1), in the input order."""
    m = len(p_values)
    order = np.argsort(p_values, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[index])))
        adjusted[index] = running
    return adjusted.tolist()


def compare(scores: pd.DataFrame, resamples: int = 10_000, alpha: float = 0.05,
            seed: int = 0) -> pd.DataFrame:
    """Every pair of systems per level, measure and kind from the long-form ``scores``
    (:mod:`toolex.metrics.long`): means in points, p-values raw and Holm-corrected, significance at
    ``alpha``."""
    rows = []
    for (level, measure, kind), frame in scores.groupby(["level", "measure", "kind"], sort=False):
        wide = frame.pivot_table(index="query_id", columns="system", values="value", aggfunc="first",
                                 sort=False)
        systems = list(dict.fromkeys(frame["system"]))
        block = []
        for a, b in itertools.combinations(systems, 2):
            both = wide[[a, b]].dropna()
            p_value = randomisation_p(both[a].to_numpy(), both[b].to_numpy(), resamples, seed)
            block.append({"level": level, "measure": measure, "kind": kind, "a": a, "b": b,
                          "queries": len(both), "mean_a": 100 * both[a].mean(),
                          "mean_b": 100 * both[b].mean(),
                          "difference": 100 * (both[b].mean() - both[a].mean()), "p_value": p_value,
                          "resamples": resamples})
        for row, adjusted in zip(block, holm([r["p_value"] for r in block])):
            row["p_holm"] = adjusted
            row["p"] = p_label(adjusted, resamples)
            row["significant"] = bool(adjusted < alpha)
        rows.extend(block)
    return pd.DataFrame(rows, columns=COLUMNS)


def verdicts(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per pair of systems: the difference and its significance under each kind side by side, and whether the
    order of the two flips between one-to-one and ToolEq."""
    keys = ["level", "measure", "a", "b"]
    sides = [pairs[pairs["kind"] == kind].set_index(keys)[["difference", "p", "significant"]]
             .add_prefix(f"{kind}_") for kind in KINDS]
    table = sides[0].join(sides[1], how="inner").reset_index()
    signs = {kind: np.sign(table[f"{kind}_difference"]) for kind in KINDS}
    table["order_flips"] = signs[ONE_TO_ONE] != signs[TOOLEQ]
    table["significance_changes"] = table[f"{ONE_TO_ONE}_significant"] != table[f"{TOOLEQ}_significant"]
    return table


def rankings(scores: pd.DataFrame) -> pd.DataFrame:
    """Per level and measure: the systems ordered by their mean under each kind, and whether the order
    differs."""
    rows = []
    for (level, measure), frame in scores.groupby(["level", "measure"], sort=False):
        means = frame.groupby(["kind", "system"], sort=False)["value"].mean()
        order = {kind: " > ".join(means[kind].sort_values(ascending=False, kind="stable").index)
                 for kind in KINDS if kind in means.index.get_level_values(0)}
        rows.append({"level": level, "measure": measure, f"{ONE_TO_ONE}_ranking": order.get(ONE_TO_ONE, ""),
                     f"{TOOLEQ}_ranking": order.get(TOOLEQ, ""),
                     "ranking_changes": order.get(ONE_TO_ONE) != order.get(TOOLEQ)})
    return pd.DataFrame(rows)
