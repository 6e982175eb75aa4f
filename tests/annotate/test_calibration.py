"""Fitting the score model: the penalised logistic fit, the balanced threshold, the unsure band,
calibrate()."""

from __future__ import annotations

import math

import numpy as np
import pytest

from toolex.annotate.calibration import (
    LabelledItems,
    balanced_threshold,
    calibrate,
    fit_logistic,
    fit_signed,
    quality,
    unsure_band,
)
from toolex.annotate.judges.features import EXPECTED_SIGNS, FEATURES
from toolex.annotate.judges.scoring import ScoreModel


def _synthetic(n: int = 600, weights=(2.0, -1.0, 0.5), bias: float = -0.5, seed: int = 0):
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(n, len(weights)))
    p = 1 / (1 + np.exp(-(bias + rows @ np.asarray(weights))))
    return rows, rng.random(n) < p


def _penalised_gradient(rows, labels, weights, bias, l2):
    """Gradient of -log-likelihood + l2/2 |weights|^2 (the bias unpenalised), with respect to (bias,
    weights)."""
    p = 1 / (1 + np.exp(-(bias + rows @ weights)))
    residual = p - labels.astype(float)
    return np.concatenate([[residual.sum()], rows.T @ residual + l2 * weights])


@pytest.mark.parametrize("l2", [0.0, 1.0, 25.0])
def test_fit_logistic_is_a_stationary_point_of_the_penalised_likelihood(l2):
    rows, labels = _synthetic()
    weights, bias = fit_logistic(rows, labels, l2)
    gradient = _penalised_gradient(rows, labels, weights, bias, l2)
    assert np.max(np.abs(gradient)) < 1e-6
    # and a minimum: any small step raises the objective
    def objective(w, b):
        z = b + rows @ w
        return float(np.sum(np.logaddexp(0, z) - labels * z) + l2 / 2 * w @ w)

    best = objective(weights, bias)
    rng = np.random.default_rng(1)
    for _ in range(20):
        step = rng.normal(scale=1e-3, size=len(weights) + 1)
        assert objective(weights + step[1:], bias + step[0]) > best


def test_fit_logistic_without_penalty_matches_scikit_learn():
    sklearn = pytest.importorskip("sklearn.linear_model")
    rows, labels = _synthetic(seed=3)
    weights, bias = fit_logistic(rows, labels, l2=0.0)
    reference = sklearn.LogisticRegression(C=np.inf, tol=1e-10, max_iter=10_000).fit(rows, labels)
    assert weights == pytest.approx(reference.coef_[0], abs=1e-5)
    assert bias == pytest.approx(reference.intercept_[0], abs=1e-5)


def test_fit_logistic_recovers_signs_and_order_and_leaves_the_bias_unpenalised():
    rows, labels = _synthetic(n=2000, weights=(3.0, -1.5, 0.4), seed=7)
    weights, _ = fit_logistic(rows, labels, l2=1.0)
    assert np.sign(weights).tolist() == [1.0, -1.0, 1.0]
    assert abs(weights[0]) > abs(weights[1]) > abs(weights[2])
    # a huge penalty flattens the weights, but the bias still matches the share of positives
    weights, bias = fit_logistic(rows, labels, l2=1e9)
    assert np.max(np.abs(weights)) < 1e-5
    share = labels.mean()
    assert bias == pytest.approx(math.log(share / (1 - share)), abs=1e-4)
    # the penalty shrinks: the weight norm falls as l2 grows
    norms = [np.linalg.norm(fit_logistic(rows, labels, l2)[0]) for l2 in (0.0, 10.0, 100.0, 1000.0)]
    assert norms == sorted(norms, reverse=True)


def test_fit_logistic_stays_finite_on_separable_data():
    rows = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    labels = np.array([False, False, True, True])
    weights, bias = fit_logistic(rows, labels, l2=1.0)
    assert np.isfinite(weights).all() and math.isfinite(bias) and weights[0] > 0
    assert np.max(np.abs(_penalised_gradient(rows, labels, weights, bias, 1.0))) < 1e-6


def _fp_fn(probabilities, labels, threshold):
    said = np.asarray(probabilities) >= threshold
    labels = np.asarray(labels, dtype=bool)
    return int(np.sum(said & ~labels)), int(np.sum(~said & labels))


def test_balanced_threshold_by_hand():
    p = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    labels = [False, False, True, False, True, False, True, True]
    threshold = balanced_threshold(np.array(p), np.array(labels))
    # crediting 0.6 and above: one false positive (0.7), one false negative (0.3)
    assert threshold == pytest.approx(0.5)
    assert _fp_fn(p, labels, threshold) == (1, 1)
    assert balanced_threshold(p, [int(x) for x in labels]) == pytest.approx(0.5)  # lists of 0/1 are fine


def test_balanced_threshold_ties_take_the_higher_score():
    # a tied score holds a positive and a negative: |FP - FN| = 1 on either side of it; the higher cut wins
    p = np.array([0.2, 0.5, 0.5, 0.8])
    labels = np.array([False, True, False, True])
    threshold = balanced_threshold(p, labels)
    assert threshold == pytest.approx(0.65)
    assert _fp_fn(p, labels, threshold) == (0, 1)
    assert balanced_threshold(np.array([0.3, 0.3]), np.array([True, False])) == 0.3
    assert balanced_threshold(np.array([]), np.array([], dtype=bool)) == 0.5


def test_balanced_threshold_balances_random_scores():
    rng = np.random.default_rng(5)
    for _ in range(20):
        p = rng.random(200)
        labels = rng.random(200) < p
        fp, fn = _fp_fn(p, labels, balanced_threshold(p, labels))
        assert fp == fn  # distinct scores: FP - FN falls by one at each step, so it meets zero


def _errors_inside(p, labels, threshold, band):
    wrong = (p >= threshold) != labels
    inside = (p >= band[0]) & (p <= band[1])
    return int(np.sum(wrong & inside)), int(wrong.sum())


@pytest.mark.parametrize("share", [0.5, 0.8, 0.9, 1.0])
def test_unsure_band_holds_the_stated_share_of_errors(share):
    rng = np.random.default_rng(11)
    p = rng.random(300)
    labels = rng.random(300) < p
    threshold = balanced_threshold(p, labels)
    band = unsure_band(p, labels, threshold, share)
    assert band[0] <= threshold <= band[1]
    held, errors = _errors_inside(p, labels, threshold, band)
    assert held >= share * errors
    # symmetric in logit around the threshold
    logit = lambda v: math.log(v / (1 - v))  # noqa: E731
    assert logit(band[0]) + logit(band[1]) == pytest.approx(2 * logit(threshold))
    # the narrowest such band: shrink it a little and it holds too few
    centre, width = logit(threshold), logit(band[1]) - logit(threshold)
    narrower = (1 / (1 + math.exp(-(centre - width + 1e-9))), 1 / (1 + math.exp(-(centre + width - 1e-9))))
    assert _errors_inside(p, labels, threshold, narrower)[0] < share * errors


def test_unsure_band_with_few_errors_holds_all_it_must():
    # five errors at logit distances 1..5 from the threshold 0.5: 90 % of five is 4.5, so all five
    distances = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    p = 1 / (1 + np.exp(-np.concatenate([distances, [8.0, -8.0]])))  # five wrong, two right
    labels = np.array([False] * 5 + [True, False])
    band = unsure_band(p, labels, 0.5, 0.9)
    assert _errors_inside(p, labels, 0.5, band) == (5, 5)
    assert math.log(band[1] / (1 - band[1])) == pytest.approx(5.0)
    assert unsure_band(p, labels, 0.5, 0.6)[1] == pytest.approx(1 / (1 + math.exp(-3.0)))
    # no errors: the band is the threshold alone
    assert unsure_band(np.array([0.9, 0.1]), np.array([True, False]), 0.5) == (0.5, 0.5)


def test_quality_counts():
    p = np.array([0.9, 0.8, 0.3, 0.2])
    labels = np.array([True, False, True, False])
    assert quality(p, labels, 0.5) == {"items": 4, "positives": 2, "credited": 2, "true_positives": 1,
                                       "false_positives": 1, "false_negatives": 1, "precision": 0.5,
                                       "recall": 0.5}
    nothing = quality(p, labels, 0.95)
    assert nothing["credited"] == 0 and nothing["precision"] is None and nothing["recall"] == 0.0


def _items(n: int = 800, seed: int = 2) -> LabelledItems:
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(n, len(FEATURES)))
    true = np.array([3.0, 1.0, 1.0, 0.5, 0.0, -1.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0])
    labels = rng.random(n) < 1 / (1 + np.exp(-(-2.5 + rows @ true)))
    return LabelledItems([], rows, labels, [f"q{i // 4}" for i in range(n)])


def test_fit_signed_drops_a_weight_against_its_meaning_and_refits():
    rng = np.random.default_rng(5)
    rows = rng.normal(size=(2000, 3))
    labels = rng.random(2000) < 1 / (1 + np.exp(-(rows @ np.array([2.0, -1.5, 1.0]))))
    free, _ = fit_logistic(rows, labels, 1.0)
    assert free[1] < 0
    weights, bias, dropped = fit_signed(rows, labels, [1, 1, 0], 1.0)
    assert dropped == [1] and weights[1] == 0.0
    refit, refit_bias = fit_logistic(rows[:, [0, 2]], labels, 1.0)
    assert weights[[0, 2]] == pytest.approx(refit) and bias == pytest.approx(refit_bias)
    # a free feature (sign 0) keeps its negative weight; agreeing signs drop nothing
    assert fit_signed(rows, labels, [1, 0, 1], 1.0)[2] == []


def test_calibrate_fits_weights_threshold_and_band(tmp_path):
    data = _items()
    model = calibrate(data, "fake", l2=1.0, band_errors=0.9, record={"data": "synthetic"})
    assert model.features == FEATURES and model.encoder == "fake"
    weights, bias, dropped = fit_signed(data.rows, data.labels, [EXPECTED_SIGNS[f] for f in FEATURES], 1.0)
    assert model.weights == pytest.approx(weights, abs=1e-6) and model.bias == pytest.approx(bias, abs=1e-6)
    assert model.weights[0] == max(model.weights)
    record = model.calibration
    assert record["dropped_for_sign"] == [FEATURES[i] for i in dropped]
    assert record["data"] == "synthetic" and record["queries"] == 200 and record["l2"] == 1.0
    q = record["quality"]
    assert q["items"] == 800 and q["false_positives"] == q["false_negatives"]
    p = model.probability(data.rows)
    assert _fp_fn(p, data.labels, model.threshold) == (q["false_positives"], q["false_negatives"])
    held, errors = _errors_inside(p, data.labels, model.threshold, model.band)
    assert held >= 0.9 * errors  # the rounded band still holds the stated share
    assert record["share_in_band"] == pytest.approx(np.mean((p >= model.band[0]) & (p <= model.band[1])),
                                                    abs=0.01)
    model.save(tmp_path / "model.json")
    assert ScoreModel.load(tmp_path / "model.json") == model


def test_calibrate_needs_both_kinds_and_undefined_precision_saves(tmp_path):
    data = _items()
    for labels in (np.ones(800, dtype=bool), np.zeros(800, dtype=bool)):
        with pytest.raises(ValueError, match="both kinds"):
            calibrate(LabelledItems([], data.rows, labels, data.query_ids), "fake")
    with pytest.raises(ValueError, match="both kinds"):
        calibrate(LabelledItems([], np.zeros((0, len(FEATURES))), np.zeros(0, dtype=bool), []), "fake")
    # a quality record where nothing is credited has no precision; the model file still saves (JSON has no
    # NaN)
    record = quality(np.array([0.1, 0.2]), np.array([True, False]), 0.5)
    assert record["precision"] is None
    model = ScoreModel("fake", (0.0,) * len(FEATURES), 0.0, 0.5, (0.5, 0.5), FEATURES, {"quality": record})
    model.save(tmp_path / "model.json")
    assert ScoreModel.load(tmp_path / "model.json").calibration["quality"]["precision"] is None


def test_integer_weights_equal_repeated_items():
    """An item of weight w counts as w copies, in the fit and in the balanced threshold."""
    rows, labels = _synthetic(n=300, seed=3)
    weights = np.random.default_rng(1).integers(1, 4, size=len(labels))
    repeated_rows, repeated_labels = np.repeat(rows, weights, axis=0), np.repeat(labels, weights)
    fitted = fit_logistic(rows, labels, 1.0, weights=weights.astype(float))
    copied = fit_logistic(repeated_rows, repeated_labels, 1.0)
    assert fitted[0] == pytest.approx(copied[0], abs=1e-8) and fitted[1] == pytest.approx(copied[1], abs=1e-8)
    p = 1 / (1 + np.exp(-(fitted[1] + rows @ fitted[0])))
    assert balanced_threshold(p, labels, weights.astype(float)) == pytest.approx(
        balanced_threshold(np.repeat(p, weights), repeated_labels), abs=1e-12)


def test_only_allowed_features_take_a_weight():
    data = _items()
    allowed = ("description_cosine", "subquery_fit")
    model = calibrate(data, "fake", features=allowed)
    assert {f for f, w in zip(FEATURES, model.weights) if w} <= set(allowed)
    assert model.calibration["features_allowed"] == list(allowed)


def test_with_threshold_keeps_the_weights_and_holds_the_threshold_in_the_band():
    model = calibrate(_items(), "fake")
    moved = model.with_threshold(0.99, "for a test")
    assert moved.weights == model.weights and moved.threshold == 0.99 and moved.band[1] == 0.99
    assert moved.calibration["threshold_from"] == "for a test"
