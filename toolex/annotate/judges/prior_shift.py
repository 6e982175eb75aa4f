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
the fitting sources. Under it, the share that best explains the items lies strictly between 0 and 1 exactly
when the mean likelihood ratio of the items exceeds 1 and so does the mean inverse ratio (the slopes of the
mixture's log-likelihood at the bounds). :func:`share_estimable` asks for both beyond sampling noise (a
one-sided 95 % bound, the ratios computed from probabilities kept within :data:`CLIP`, so that no single item
decides). Where it fails, the items cannot tell a share near a bound from a failed assumption (a benchmark
whose non-alternatives score far lower than the fitting sources' do, where EM runs the share to zero), and the
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
#: Probabilities are kept within [CLIP, 1 - CLIP] for the likelihood ratios of :func:`share_estimable`.
CLIP = 1e-3
#: One-sided normal quantile of :func:`share_estimable`'s bounds (95 %).
Z = 1.645
#: EM's stopping rule.
TOLERANCE, MAX_ITERATIONS = 1e-8, 1000
#: Everything above that decides verdicts (part of an adapted score model's identity, hence of cache keys).
SETTINGS = {"min_items": MIN_ITEMS, "prior_bounds": list(PRIOR_BOUNDS), "clip": CLIP, "z": Z,
            "tolerance": TOLERANCE, "max_iterations": MAX_ITERATIONS}
_EPS = 1e-12


def adjusted(probabilities: np.ndarray, prior: float, new_prior: float) -> np.ndarray:
    """Probabilities calibrated to a share ``prior`` of positives, adjusted to a share ``new_prior``
    (Bayes' rule with the class-conditional densities unchanged)."""
    p = np.clip(np.asarray(probabilities, dtype=np.float64), _EPS, 1 - _EPS)
    positive = new_prior / prior * p
    negative = (1 - new_prior) / (1 - prior) * (1 - p)
    return positive / (positive + negative)


def ratio_bounds(probabilities: np.ndarray, prior: float) -> tuple[float, float]:
    """One-sided 95 % lower bounds of the mean likelihood ratio and of the mean inverse ratio of the items
    (probabilities calibrated to ``prior``, kept within :data:`CLIP`)."""
    p = np.clip(np.asarray(probabilities, dtype=np.float64), CLIP, 1 - CLIP)
    ratio = p / (1 - p) * (1 - prior) / prior
    bounds = []
    for values in (ratio, 1 / ratio):
        spread = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else np.inf
        bounds.append(float(values.mean() - Z * spread))
    return bounds[0], bounds[1]


def share_estimable(probabilities: np.ndarray, prior: float) -> bool:
    """Whether the items show, beyond sampling noise, that the share of positives explaining them best lies
    strictly between 0 and 1 (:func:`ratio_bounds` both above 1)."""
    low, high = ratio_bounds(probabilities, prior)
    return low > 1 and high > 1


def estimate_prior(probabilities: np.ndarray, prior: float, tolerance: float = TOLERANCE,
                   max_iterations: int = MAX_ITERATIONS) -> tuple[float, np.ndarray]:
    """The share of positives among the items whose probabilities (calibrated to ``prior``) are given, by
    EM, and the probabilities adjusted to it."""
    if not 0 < prior < 1:
        raise ValueError(f"the fitting share of positives must be in (0, 1), not {prior}")
    p = np.asarray(probabilities, dtype=np.float64)
    if not np.isfinite(p).all():
        raise ValueError("probabilities must be finite numbers")
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
