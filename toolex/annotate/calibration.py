"""Fitting the offline judge's score model on labelled calibration data (``toolex calibrate``).

The procedure is deterministic and uses the calibration data only:

1. **Items**: ToolEX runs Stage 1 (the judge's decomposition: spans of the query) and Stage 2's retrieval
   on the calibration benchmark with the given settings, so the items are exactly those the judge will face:
   every top-K candidate of every sub-query except the reference itself.
2. **Labels**: a candidate is equivalent when some combination people accept (same length as C*) puts it at
that
   sub-query's position.
3. **Weights**: logistic regression of the labels on the :data:`~toolex.annotate.judges.features.FEATURES`,
with
   an L2 penalty ``l2`` on the weights (not the bias), fitted by iteratively reweighted least squares. Every
   weight must have the sign of its meaning (:data:`~toolex.annotate.judges.features.EXPECTED_SIGNS`): a
   feature whose weight comes out the other way is dropped and the model refit (:func:`fit_signed`).
4. **Threshold**: the score at which the calibration items' false positives equal their false negatives, so
the
   judge credits about as many tools as there are true alternatives: the condition under which ToolEq with our
   annotations neither over- nor under-states a retriever on average.
5. **Band**: the interval around the threshold, symmetric in logit, that holds ``band_errors`` (90 %) of the
   calibration items the score gets wrong: where a cascade should ask an LLM.

The fitted :class:`~toolex.annotate.judges.scoring.ScoreModel` keeps a record of the data, settings and
calibration quality.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from toolex.annotate.judges.base import VerifyItem
from toolex.annotate.judges.features import EXPECTED_SIGNS, FEATURES
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.annotate.stage_records import Decomposition
from toolex.annotate.verification import Slot, verification_items
from toolex.data.records import Benchmark


@dataclass(frozen=True)
class LabelledItems:
    """Verification items with their features and gold labels, and the Stage 1 and 2 records they came from
    (so that any verdicts on them can be carried through Stage 3)."""

    items: list[VerifyItem]
    rows: np.ndarray
    labels: np.ndarray
    query_ids: list[str]
    decompositions: list[Decomposition] = field(default_factory=list)
    hits: dict[tuple[str, int], list[tuple[str, float]]] = field(default_factory=dict)
    slots: list[Slot] = field(default_factory=list)


@dataclass(frozen=True)
class StageTwo:
    """Stages 1 and 2 of ToolEX on some queries: decompositions, candidates and the items to verify."""

    decompositions: list[Decomposition]
    hits: dict[tuple[str, int], list[tuple[str, float]]]
    items: list[VerifyItem]
    slots: list[Slot]


def stage_two(benchmarks: Sequence[Benchmark], judge: OfflineSimilarityJudge, config: Any = None,
              retriever: Any = None, queries: Sequence[Any] | None = None) -> StageTwo:
    """Stage 1 and Stage 2's retrieval of ToolEX over ``queries`` (default: every query of ``benchmarks``)."""

    config = config or AnnotateConfig()
    with tempfile.TemporaryDirectory() as folder:
        pipeline = ToolEX(benchmarks, judge, folder, config, retriever=retriever, queries=queries,
                          progress=False)
        decompositions = pipeline.decompose()
        hits = pipeline.retrieve_candidates(decompositions)
    items, slots = verification_items(decompositions, hits, pipeline.tools, pipeline.bench_of)
    return StageTwo(list(decompositions), dict(hits), items, slots)


def labelled_items(benchmarks: Sequence[Benchmark], acceptable: Mapping[str, Sequence[Sequence[str]]],
                   judge: OfflineSimilarityJudge, config: Any = None, retriever: Any = None) -> LabelledItems:
    """Stage 1 and Stage 2's retrieval of ToolEX over ``benchmarks``; each candidate labelled from
    ``acceptable`` (query id → accepted combinations); queries without gold are left out."""
    queries = [q for b in benchmarks for q in b.queries if q.id in acceptable]
    done = stage_two(benchmarks, judge, config, retriever, queries)
    size = {d.query_id: len(d.subqueries) for d in done.decompositions}
    labels = [accepted_at(acceptable[slot.query_id], size[slot.query_id], slot.index, slot.tool_id)
              for slot in done.slots]
    return LabelledItems(done.items, judge.features(done.items), np.asarray(labels, dtype=bool),
                         [slot.query_id for slot in done.slots], done.decompositions, done.hits, done.slots)


def accepted_at(combinations: Sequence[Sequence[str]], size: int, index: int, tool_id: str) -> bool:
    """Whether some accepted combination of ``size`` tools puts ``tool_id`` at position ``index``."""
    return any(len(c) == size and c[index] == tool_id for c in combinations)


def fit_logistic(rows: np.ndarray, labels: np.ndarray, l2: float = 1.0, iterations: int = 100,
                 weights: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-penalised logistic regression (the bias is not penalised), by IRLS;
    ``weights``: one per item (default 1), e.g. the inverse of the probability it was drawn with."""
    x = np.hstack([np.ones((len(rows), 1)), np.asarray(rows, dtype=np.float64)])
    y = np.asarray(labels, dtype=np.float64)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    penalty = np.eye(x.shape[1]) * l2
    penalty[0, 0] = 0.0
    beta = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        gradient = x.T @ (w * (p - y)) + penalty @ beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian + 1e-9 * np.eye(x.shape[1]), gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta[1:], float(beta[0])


def fit_signed(rows: np.ndarray, labels: np.ndarray, signs: Sequence[int], l2: float = 1.0,
               weights: np.ndarray | None = None,
               allowed: Sequence[int] | None = None) -> tuple[np.ndarray, float, list[int]]:
    """:func:`fit_logistic` where every weight must have its expected sign (``signs``: +1, -1, 0 for free):
    the feature whose weight is most strongly against its sign is dropped (weight 0) and the model refit,
    until all agree. Only the ``allowed`` feature indices (default: all) take a weight. Returns the weights,
    the bias and the dropped feature indices."""
    rows = np.asarray(rows, dtype=np.float64)
    active = list(range(rows.shape[1])) if allowed is None else sorted(allowed)
    dropped: list[int] = []
    while True:
        fitted, bias = fit_logistic(rows[:, active], labels, l2, weights=weights)
        coefficients = np.zeros(rows.shape[1])
        coefficients[active] = fitted
        against = [(coefficients[i] * signs[i], i) for i in active
                   if signs[i] and coefficients[i] * signs[i] < 0]
        if not against:
            return coefficients, bias, sorted(dropped)
        worst = min(against)[1]
        active.remove(worst)
        dropped.append(worst)


def balanced_threshold(probabilities: np.ndarray, labels: np.ndarray,
                       weights: np.ndarray | None = None) -> float:
    """The score at which the (weighted) false positives and false negatives are (closest to) equal; ties
    take the higher score. Candidate thresholds are the midpoints between consecutive distinct scores."""
    probabilities, labels = np.asarray(probabilities, dtype=np.float64), np.asarray(labels, dtype=bool)
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=np.float64)
    p = np.sort(np.unique(probabilities))
    if len(p) < 2:
        return float(p[0]) if len(p) else 0.5
    cuts = np.concatenate([[p[0] - 1e-9], (p[:-1] + p[1:]) / 2, [p[-1] + 1e-9]])
    # sweep: items at or above a cut are said equivalent
    order = np.argsort(probabilities, kind="stable")
    sorted_p, positive, negative = probabilities[order], (w * labels)[order], (w * ~labels)[order]
    below = np.searchsorted(sorted_p, cuts, side="left")  # items under each cut
    false_negatives = np.concatenate([[0.0], np.cumsum(positive)])[below]
    false_positives = negative.sum() - np.concatenate([[0.0], np.cumsum(negative)])[below]
    gaps = np.abs(false_positives - false_negatives)
    best = np.flatnonzero(gaps <= gaps.min() + 1e-9)[-1]
    return float(cuts[best])


def unsure_band(probabilities: np.ndarray, labels: np.ndarray, threshold: float,
                band_errors: float = 0.9) -> tuple[float, float]:
    """The narrowest interval around ``threshold``, symmetric in logit, that holds at least ``band_errors`` of
    the wrong verdicts."""
    p = np.clip(np.asarray(probabilities, dtype=np.float64), 1e-12, 1 - 1e-12)
    labels = np.asarray(labels, dtype=bool)
    logits = np.log(p / (1 - p))
    centre = math.log(max(threshold, 1e-12) / max(1 - threshold, 1e-12))
    wrong = (p >= threshold) != labels
    if not wrong.any():
        return threshold, threshold
    # the smallest distance whose share of errors at or within it reaches band_errors (an interpolated
    # quantile can fall short of it with few errors)
    width = float(np.quantile(np.abs(logits[wrong] - centre), band_errors, method="inverted_cdf"))
    return 1 / (1 + math.exp(-(centre - width))), 1 / (1 + math.exp(-(centre + width)))


def quality(probabilities: np.ndarray, labels: np.ndarray, threshold: float) -> dict[str, Any]:
    """Counts, precision and recall (None when undefined) of the verdicts ``probabilities >= threshold``."""
    labels = np.asarray(labels, dtype=bool)
    said = np.asarray(probabilities, dtype=np.float64) >= threshold
    tp, fp = int(np.sum(said & labels)), int(np.sum(said & ~labels))
    fn = int(np.sum(~said & labels))
    return {"items": int(len(labels)), "positives": int(labels.sum()), "credited": int(said.sum()),
            "true_positives": tp, "false_positives": fp, "false_negatives": fn,
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else None}


def calibrate(data: LabelledItems, encoder: str, l2: float = 1.0, band_errors: float = 0.9,
              record: Mapping[str, Any] | None = None, features: Sequence[str] | None = None,
              weights: np.ndarray | None = None) -> ScoreModel:
    """The score model fitted on ``data`` by the procedure of this module; ``record`` (data names, settings)
    is kept with it. ``features``: the only features that may take a weight (default: all); ``weights``: one
    per item (the threshold balances weighted errors too)."""
    if not len(data.labels) or data.labels.all() or not data.labels.any():
        raise ValueError("calibration needs items of both kinds (equivalent and not)")
    allowed = None if features is None else [FEATURES.index(f) for f in features]
    coefficients, bias, dropped = fit_signed(data.rows, data.labels, [EXPECTED_SIGNS[f] for f in FEATURES],
                                             l2, weights=weights, allowed=allowed)
    probabilities = 1.0 / (1.0 + np.exp(-(bias + data.rows @ coefficients)))
    threshold = balanced_threshold(probabilities, data.labels, weights)
    band = unsure_band(probabilities, data.labels, threshold, band_errors)
    in_band = (probabilities >= band[0]) & (probabilities <= band[1])
    calibration = {**(record or {}),
                   "procedure": "toolex.annotate.calibration (L2 logistic regression, IRLS; "
                   "threshold where false positives = false negatives; band holding "
                   f"{band_errors:.0%} of the errors)", "l2": l2, "band_errors": band_errors,
                   "dropped_for_sign": [FEATURES[i] for i in dropped],
                   "queries": len(set(data.query_ids)),
                   "quality": quality(probabilities, data.labels, threshold),
                   "share_in_band": float(in_band.mean())}
    if features is not None:
        calibration["features_allowed"] = list(features)
    if weights is not None:
        calibration["weighted"] = True
    # the band is rounded outwards, so that it still holds the errors at its edges
    band = (math.floor(band[0] * 1e6) / 1e6, math.ceil(band[1] * 1e6) / 1e6)
    item_weights = np.ones(len(data.labels)) if weights is None else np.asarray(weights, dtype=np.float64)
    # the share of positives the probabilities are fitted to (an adapted threshold starts from it)
    prior = round(float((item_weights * data.labels).sum() / item_weights.sum()), 6)
    return ScoreModel(encoder, tuple(round(float(w), 6) for w in coefficients), round(bias, 6),
                      round(threshold, 6), band, FEATURES, calibration, "fixed", prior)
