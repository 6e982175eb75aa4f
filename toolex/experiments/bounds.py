"""What a score could reach on a labelled part, whatever rule places its threshold: the best threshold for
the part, chosen on its own gold (an oracle, :func:`best_threshold`), and how well the score ranks its
alternatives (:func:`area_under_curve`). Whether a judge's ranking, rather than where its threshold lies,
keeps it from the goals of :mod:`toolex.experiments.transfer`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from toolex.annotate.pipeline import AnnotateConfig
from toolex.experiments.transfer import CREDIT_GOAL, FixedVerdicts, Part, credit, goal_failures

#: Quantiles of a part's scores tried as thresholds by :func:`best_threshold`: from accepting a fifth of the
#: candidates to accepting one in a thousand, a thousandth apart (alternatives are a few percent of the
#: candidates, so the thresholds that matter lie near the top).
THRESHOLD_QUANTILES = tuple(float(q) for q in np.round(np.arange(0.8, 0.9995, 0.001), 3))


def best_threshold(scores: np.ndarray, part: Part, config: AnnotateConfig,
                   quantiles: Sequence[float] = THRESHOLD_QUANTILES) -> pd.DataFrame:
    """What the best threshold for one library could reach with a score (``scores``, one per item of the
    part; higher: more likely an alternative): each quantile of the scores tried as the threshold, scored
    against the part's own gold (an oracle no benchmark without gold has). Returns the credit rows at the
    threshold with the smallest summed over- and under-credit, with ``threshold``, ``quantile`` (``at_edge``
    when it is the first or last tried), ``goal_cells_failed`` (of that threshold), ``goal_reachable``
    (whether any threshold tried meets every goal for every retriever) and ``credit_reachable`` (whether any
    meets the over- and under-credit goals, whatever the recovered share): whether the score's ranking,
    rather than where its threshold lies, keeps a judge from the goals."""
    values = np.asarray(scores, dtype=np.float64)
    tried = sorted({float(np.quantile(values, q)): q for q in quantiles}.items())
    best, least, reachable, credit_ok = pd.DataFrame(), np.inf, False, False
    for at, (threshold, quantile) in enumerate(tried):
        rows = credit(FixedVerdicts(values >= threshold), part, config)  # type: ignore[arg-type]
        failed = goal_failures(rows)
        reachable = reachable or failed == 0
        credit_ok = credit_ok or bool(((rows["over_credit"] <= CREDIT_GOAL)
                                       & (rows["under_credit"] <= CREDIT_GOAL)).all())
        error = float((rows["over_credit"] + rows["under_credit"]).sum())
        if error < least:
            best = rows.assign(threshold=threshold, quantile=quantile, at_edge=at in (0, len(tried) - 1),
                               goal_cells_failed=failed)
            least = error
    return best.assign(goal_reachable=reachable, credit_reachable=credit_ok)


def area_under_curve(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC: the probability that an alternative outscores a non-alternative (ties count half)."""
    from scipy.stats import rankdata

    labels = np.asarray(labels, dtype=bool)
    ranks = rankdata(scores)
    positives = int(labels.sum())
    negatives = len(labels) - positives
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))
