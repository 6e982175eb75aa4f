"""The operating point adapted to a benchmark's share of alternatives (Saerens, Latinne and Decaestecker's EM)
and the score model's adapted threshold rule."""

from __future__ import annotations

import numpy as np
import pytest

from toolex.annotate.calibration import balanced_threshold
from toolex.annotate.judges import prior_shift
from toolex.annotate.judges.features import FEATURES
from toolex.annotate.judges.scoring import Decision, ScoreModel
from toolex.errors import InputError


def calibrated_scores(share: float, n: int, prior: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Items of which ``share`` are positive, with one Gaussian feature (means ±1) and the probability a
    model calibrated to a share ``prior`` gives them (Bayes' rule): the setting the EM procedure assumes."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < share
    x = rng.normal(np.where(labels, 1.0, -1.0), 1.0)
    odds = prior / (1 - prior) * np.exp(2 * x)  # likelihood ratio of N(1,1) to N(-1,1) is exp(2x)
    return odds / (1 + odds), labels


@pytest.mark.parametrize("share", [0.05, 0.3, 0.5, 0.8])
def test_em_recovers_the_share_of_positives(share):
    probabilities, labels = calibrated_scores(share, 20_000, prior=0.2)
    estimated, posteriors = prior_shift.estimate_prior(probabilities, 0.2)
    assert estimated == pytest.approx(labels.mean(), abs=0.02)
    assert posteriors.mean() == pytest.approx(estimated, abs=1e-6)


def test_adjusting_to_the_same_share_changes_nothing():
    p = np.array([0.01, 0.3, 0.5, 0.99])
    assert np.allclose(prior_shift.adjusted(p, 0.3, 0.3), p)
    assert np.all(prior_shift.adjusted(p, 0.3, 0.6) > p)


def test_expected_balance_lands_near_the_labelled_balance():
    probabilities, labels = calibrated_scores(0.5, 20_000, prior=0.1, seed=1)
    _, posteriors = prior_shift.estimate_prior(probabilities, 0.1)
    adapted = prior_shift.expected_balanced_threshold(probabilities, posteriors)
    labelled = balanced_threshold(probabilities, labels)
    assert abs(np.mean(probabilities >= adapted) - np.mean(probabilities >= labelled)) < 0.02


def test_expected_balance_with_posteriors_equal_to_labels_is_the_labelled_balance():
    rng = np.random.default_rng(2)
    p = rng.random(500)
    labels = rng.random(500) < p
    assert prior_shift.expected_balanced_threshold(p, labels.astype(float)) == balanced_threshold(p, labels)


def test_the_fitting_share_must_be_a_share():
    with pytest.raises(ValueError, match="in \\(0, 1\\)"):
        prior_shift.estimate_prior(np.array([0.5]), 0.0)


def _model(rule: str = "adapted", prior: float | None = 0.1) -> ScoreModel:
    return ScoreModel("fake", (1.0,) + (0.0,) * (len(FEATURES) - 1), 0.0, 0.5, (0.2, 0.8), FEATURES,
                      {"data": "test"}, rule, prior)


def test_an_adapted_model_moves_its_threshold_and_band_to_the_items():
    probabilities, _ = calibrated_scores(0.5, 5_000, prior=0.1, seed=3)
    decider = _model().decision_model(probabilities)
    assert decider.threshold_rule == "fixed"
    assert decider.threshold < 0.5  # more alternatives than the fitting share: a lower cut
    assert decider.band[0] <= decider.threshold <= decider.band[1]
    record = decider.calibration["adapted"]
    assert record["estimated_share"] == pytest.approx(0.5, abs=0.03)
    assert record["items"] == 5_000 and record["fitted_threshold"] == 0.5


def test_few_items_and_fixed_models_keep_the_fitted_threshold():
    few = np.linspace(0.1, 0.9, prior_shift.MIN_ITEMS - 1)
    kept = _model().decision_model(few)
    assert kept.threshold == 0.5 and "kept" in kept.calibration["adapted"]
    fixed = _model("fixed")
    assert fixed.decision_model(np.linspace(0, 1, 1000)) is fixed


def test_the_rule_is_validated_and_round_trips():
    with pytest.raises(InputError, match="threshold rule"):
        _model("sometimes")
    with pytest.raises(InputError, match="prior"):
        _model("adapted", None)
    model = _model()
    assert ScoreModel.from_json(model.to_json()) == model
    assert model.identity()["threshold_rule"] == "adapted" and model.identity()["prior"] == 0.1
    assert "threshold_rule" not in _model("fixed").identity()  # fixed models keep their former identity
    assert model.identity()["adapted_rule"]["min_items"] == prior_shift.MIN_ITEMS  # constants decide too


def test_the_packaged_default_has_the_threshold_rule_the_kept_study_chose():
    """The choice decides whether the default adapts (it did not: the fixed median rule won)."""
    import json

    from toolex import paths
    from toolex.annotate.judges.scoring import default_model

    model = default_model()
    study = json.loads((paths.validation_dir() / "judge_transfer.json").read_text(encoding="utf-8"))
    chosen_rule = study["chosen"].rsplit("| ", 1)[1]
    assert (model.threshold_rule == "adapted") == (chosen_rule == "adapted")
    if chosen_rule == "adapted":
        assert 0 < (model.prior or 0) < 1
    assert model.calibration["recipe"]["threshold"] == chosen_rule


def test_each_benchmark_gets_its_own_threshold_whatever_it_is_annotated_with():
    rare, _ = calibrated_scores(0.05, 3_000, prior=0.1, seed=4)
    common, _ = calibrated_scores(0.6, 3_000, prior=0.1, seed=5)
    model = _model()
    together = model.decide(np.concatenate([rare, common]), ["a"] * len(rare) + ["b"] * len(common))
    alone = model.decide(rare, ["a"] * len(rare))
    assert np.allclose(together.thresholds[:len(rare)], alone.thresholds)
    assert together.thresholds[0] > together.thresholds[-1]  # fewer alternatives: a higher cut
    assert set(together.adapted()) == {"a", "b"}
    both = np.concatenate([rare, common])
    said, low, high = together.said(both), together.thresholds[-1], together.thresholds[0]
    between = (both >= low) & (both < high)  # said in the common benchmark, not in the rare one
    in_rare = np.arange(len(both)) < len(rare)
    assert (between & in_rare).any() and (between & ~in_rare).any()
    assert not said[between & in_rare].any() and said[between & ~in_rare].all()


def test_a_decision_orders_items_by_their_own_threshold():
    low = _model("fixed").with_threshold(0.2)
    high = _model("fixed").with_threshold(0.8)
    decision = Decision(np.array([0.2, 0.2, 0.8, 0.8]), np.zeros(4), np.ones(4), {"a": low, "b": high})
    p = np.array([0.5, 0.21, 0.79, 0.5])
    # each item against its own threshold: 0.21 is nearest its 0.2, 0.79 its 0.8; the two 0.5 are far
    assert decision.uncertainty_order(p).tolist()[:2] == [1, 2]


def test_items_that_score_lower_than_any_mixture_keep_the_fitted_threshold():
    # negatives scoring far lower than in fitting (a shifted benchmark): EM would run to a share of zero
    probabilities, _ = calibrated_scores(0.05, 5_000, prior=0.2, seed=6)
    shifted = probabilities ** 3
    assert prior_shift.share_estimable(probabilities, 0.2)
    assert not prior_shift.share_estimable(shifted, 0.2)
    assert prior_shift.estimate_prior(shifted, 0.2)[0] == prior_shift.PRIOR_BOUNDS[0]
    kept = _model(prior=0.2).decision_model(shifted)
    assert kept.threshold == 0.5 and "not estimable" in kept.calibration["adapted"]["kept"]
    assert kept.calibration["adapted"]["ratio_bounds"][0] < 1


def test_one_extreme_item_does_not_decide_a_benchmark():
    probabilities, _ = calibrated_scores(0.05, 5_000, prior=0.2, seed=6)
    shifted = np.append(probabilities ** 3, 1 - 1e-9)
    assert not prior_shift.share_estimable(shifted, 0.2)
    assert _model(prior=0.2).decision_model(shifted).threshold == 0.5


def test_a_share_indistinguishable_from_zero_keeps_the_fitted_threshold():
    negatives_only, _ = calibrated_scores(0.0, 3_000, prior=0.2, seed=7)
    assert not prior_shift.share_estimable(negatives_only, 0.2)


def test_non_finite_scores_are_refused():
    with pytest.raises(ValueError, match="finite"):
        prior_shift.estimate_prior(np.array([0.2, np.nan]), 0.2)
