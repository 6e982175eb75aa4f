"""Paired randomisation and bootstrap on data whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from toolex.report.significance import bootstrap_ci, paired_test, randomisation_p


def test_identical_scores_are_not_significant():
    a = np.linspace(0, 1, 30)
    assert randomisation_p(a, a) == 1.0
    assert bootstrap_ci(a, a) == (0.0, 0.0, 0.0)


def test_sign_flip_p_value_matches_exact_enumeration():
    # differences 1, 2, 3: of the 8 sign patterns only all-plus and all-minus reach |mean| = 2, so p = 2/8
    p = randomisation_p([0, 0, 0], [1, 2, 3], resamples=40_000, seed=1)
    assert p == pytest.approx(0.25, abs=0.01)


def test_constant_improvement_is_significant_with_a_tight_interval():
    a = np.zeros(40)
    test = paired_test(a, a + 0.1, resamples=5_000, seed=3)
    assert test.p_value < 0.001
    assert test.mean == pytest.approx(0.1)
    assert test.low == pytest.approx(0.1) and test.high == pytest.approx(0.1)


def test_interval_covers_the_mean_and_is_seeded():
    rng = np.random.default_rng(0)
    a, b = rng.random(50), rng.random(50)
    first, again = bootstrap_ci(a, b, seed=7), bootstrap_ci(a, b, seed=7)
    assert first == again
    mean, low, high = first
    assert low < mean < high
    assert randomisation_p(a, b, seed=7) == randomisation_p(a, b, seed=7)


def test_empty_input_gives_nan():
    assert np.isnan(randomisation_p([], []))
    assert all(np.isnan(v) for v in bootstrap_ci([], []))


def test_a_p_value_at_the_floor_of_the_test_prints_as_a_bound():
    from toolex.report.significance import p_label

    assert p_label(1 / 10_001, 10_000) == "< 1e-4"
    assert p_label(0.0002, 10_000) == "0.0002"
    assert p_label(1 / 1_001, 1_000) == "< 1e-3"
    assert p_label(float("nan"), 10_000) == "n/a"
