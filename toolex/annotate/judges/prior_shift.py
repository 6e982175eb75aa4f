"""The offline judge's operating point adapted to a benchmark's share of alternatives, from its own items.

A score model fitted on labelled sources gives probabilities calibrated to the share of alternatives among
those sources' candidates (its ``prior``). Tool libraries differ most in that share (6 % of Stage 2's
candidates are alternatives in SGD, 48 % in SGD-X), and a fixed threshold carries the fitting sources' share
into every benchmark. With no labels, the share of a new benchmark can still be estimated from the scores of
all its Stage-2 candidates, and the probabilities adjusted to it:

1. :func:`estimate_prior`: the EM procedure of Saerens, Latinne and Decaestecker (2002, "Adjusting the outputs
   of a classifier to new a priori probabilities: a simple procedure", Neural Computation 14(1)): each
   probability is reweighted by the ratio of the new to the old share, the new share is the mean of the
   reweighted probabilities, until it settles.
2. :func:`expected_balanced_threshold`: the cut on the model's probability at which the expected false
   positives (the adjusted probabilities' complements above it) equal the expected false negatives (the
   adjusted probabilities below it): the fitting procedure's own condition (false positives = false
   negatives), carried to the benchmark.

The procedure assumes that only the share changes: alternatives and non-alternatives score as they did in
the fitting sources. :func:`mixture_possible` tests what the items can refute of it: under that assumption
the mean likelihood ratio of the items is at least 1 (it is exactly 1 over non-alternatives alone, and
alternatives raise it), and so is the mean inverse ratio. Where the items fail this (a benchmark whose
non-alternatives score far lower than the fitting sources' do, where EM would drive the share to zero), the
fitted threshold is kept.

It is transductive: a query's verdicts depend on the other queries of its benchmark annotated with it, so the
estimate is made once per benchmark over every item of an annotation run, and below :data:`MIN_ITEMS` items
the fixed threshold is kept.
"""

from __future__ import annotations

import numpy as np

#: Fewer items than this keep the fitted threshold (the share cannot be estimated from a handful).
MIN_ITEMS = 200
#: The estimated share stays within these bounds.
PRIOR_BOUNDS = (1e-3, 1 - 1e-3)
_EPS = 1e-12


def adjusted(probabilities: np.ndarray, prior: float, new_prior: float) -> np.ndarray:
    """Probabilities calibrated to a share ``prior`` of positives, adjusted to a share ``new_prior``
    (Bayes' rule with the class-conditional densities unchanged)."""
    p = np.clip(np.asarray(probabilities, dtype=np.float64), _EPS, 1 - _EPS)
    positive = new_prior / prior * p
    negative = (1 - new_prior) / (1 - prior) * (1 - p)
    return positive / (positive + negative)


def mixture_possible(probabilities: np.ndarray, prior: float) -> bool:
    """Whether the items could be a mixture of the fitting sources' two classes in some share strictly
    between 0 and 1: the mean likelihood ratio and the mean inverse ratio both exceed 1 (else EM's estimate
    runs to a bound)."""
    p = np.clip(np.asarray(probabilities, dtype=np.float64), _EPS, 1 - _EPS)
    ratio = p / (1 - p) * (1 - prior) / prior
    return bool(ratio.mean() > 1 and (1 / ratio).mean() > 1)


def estimate_prior(probabilities: np.ndarray, prior: float, tolerance: float = 1e-8,
                   max_iterations: int = 1000) -> tuple[float, np.ndarray]:
    """The share of positives among the items whose probabilities (calibrated to ``prior``) are given, by
    EM, and the probabilities adjusted to it."""
    if not 0 < prior < 1:
        raise ValueError(f"the fitting share of positives must be in (0, 1), not {prior}")
    p = np.asarray(probabilities, dtype=np.float64)
    if not len(p):
        return prior, p
    share = prior
    for _ in range(max_iterations):
        posteriors = adjusted(p, prior, share)
        new = float(np.clip(posteriors.mean(), *PRIOR_BOUNDS))
        if abs(new - share) < tolerance:
            share = new
            break
        share = new
    return share, adjusted(p, prior, share)


def expected_balanced_threshold(probabilities: np.ndarray, posteriors: np.ndarray) -> float:
    """The cut on ``probabilities`` (items at or above it are said equivalent) at which the expected false
    positives, the sum of ``1 - posteriors`` above it, equal the expected false negatives, the sum of
    ``posteriors`` below it (closest to equal; ties take the higher cut). Cuts are the midpoints between
    consecutive distinct probabilities."""
    p = np.asarray(probabilities, dtype=np.float64)
    q = np.asarray(posteriors, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    sorted_p, sorted_q = p[order], q[order]
    distinct = np.unique(sorted_p)
    if len(distinct) < 2:
        return float(distinct[0]) if len(distinct) else 0.5
    cuts = np.concatenate([[distinct[0] - 1e-9], (distinct[:-1] + distinct[1:]) / 2, [distinct[-1] + 1e-9]])
    below = np.searchsorted(sorted_p, cuts, side="left")
    false_negatives = np.concatenate([[0.0], np.cumsum(sorted_q)])[below]
    false_positives = (1 - sorted_q).sum() - np.concatenate([[0.0], np.cumsum(1 - sorted_q)])[below]
    gaps = np.abs(false_positives - false_negatives)
    best = np.flatnonzero(gaps <= gaps.min() + 1e-9)[-1]
    return float(cuts[best])
