"""Placing the offline judge's threshold from people's labels: the stratified draw, its inclusion
probabilities, the labels file and the weighted threshold."""

from __future__ import annotations

import json

import numpy as np
import pytest

from toolex.annotate.calibration import balanced_threshold
from toolex.annotate.judges.features import FEATURES
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.operating_point import (
    NEAR_SHARE,
    Label,
    draw,
    draw_record_path,
    fit_threshold,
    item_key,
    read_labels,
    strata_of,
)
from toolex.errors import InputError
from toolex.sampling import allocate

MODEL = ScoreModel("fake", (1.0,) + (0.0,) * (len(FEATURES) - 1), 0.0, 0.5, (0.3, 0.7), FEATURES, {})


def test_strata_are_the_band_and_equal_count_bins_outside_it():
    p = np.array([0.01, 0.05, 0.1, 0.2, 0.25, 0.4, 0.5, 0.6, 0.8, 0.9])
    strata = strata_of(p, MODEL)
    assert strata[5:8] == ["near"] * 3
    assert strata[:5] == ["below-1", "below-1", "below-2", "below-2", "below-3"]
    assert strata[8:] == ["above-1", "above-2"]


def test_allocation_favours_the_band_and_hands_on_what_a_small_stratum_cannot_take():
    take = allocate({"near": 500, "below-1": 100, "below-2": 100, "above-1": 100}, 100, "equal",
                    shares={"near": NEAR_SHARE}, at_least=1)
    assert take["near"] == round(100 * NEAR_SHARE) and sum(take.values()) == 100
    small = allocate({"near": 5, "below-1": 100, "above-1": 100}, 50, "equal", shares={"near": NEAR_SHARE})
    assert small["near"] == 5 and sum(small.values()) == 50
    both = allocate({"near": 3, "below-1": 2}, 50, "equal", shares={"near": NEAR_SHARE})
    assert both == {"below-1": 2, "near": 3}


def test_draw_is_seeded_and_its_inclusion_probabilities_are_the_drawn_shares():
    p = np.random.default_rng(0).random(2000)
    first, again = draw(p, MODEL, 150, seed=4), draw(p, MODEL, 150, seed=4)
    assert np.array_equal(first.indices, again.indices) and len(first.indices) == 150
    assert not np.array_equal(first.indices, draw(p, MODEL, 150, seed=5).indices)
    assert len(set(first.indices.tolist())) == 150
    for stratum, size in first.sizes.items():
        chosen = [q for q, s in zip(first.inclusion, first.strata) if s == stratum]
        assert len(chosen) == size["drawn"] and all(q == size["drawn"] / size["items"] for q in chosen)
    # the inverse inclusion probabilities add up to the whole population
    assert (1 / first.inclusion).sum() == pytest.approx(2000)
    with pytest.raises(InputError, match="must be positive"):
        draw(p, MODEL, 0)


def test_weighted_threshold_from_labels_estimates_the_population_threshold():
    rng = np.random.default_rng(2)
    p = rng.random(5000)
    truth = rng.random(5000) < p ** 3  # equivalents are rarer than the score says
    drawn = draw(p, MODEL, 150, seed=0)
    keys = [item_key(f"q{i}", "ref", f"c{i}") for i in range(len(p))]
    record = {"benchmark": "b", "items": {keys[i]: {"score": float(p[i]), "inclusion": float(q)}
                                          for i, q in zip(drawn.indices, drawn.inclusion)}}
    labels = [Label(f"q{i}", "ref", f"c{i}", bool(truth[i])) for i in drawn.indices]
    fitted = fit_threshold(MODEL, labels, record)
    population = balanced_threshold(p, truth)
    assert abs(fitted.threshold - population) < 0.08
    assert fitted.weights == MODEL.weights and fitted.calibration["per_benchmark"]["labels"] == 150
    with pytest.raises(InputError, match="were not drawn"):
        fit_threshold(MODEL, [Label("q", "ref", "nope", True)], record)
    with pytest.raises(InputError, match="only one kind"):
        fit_threshold(MODEL, [Label(x.query_id, x.reference, x.candidate, True) for x in labels], record)


def test_labels_file_errors_name_the_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    good = {"query_id": "q1", "reference": "a", "candidate": "b", "equivalent": True}
    unlabelled = {**good, "candidate": "c", "equivalent": None}
    path.write_text(json.dumps(good) + "\n" + json.dumps(unlabelled) + "\n")
    with pytest.raises(InputError, match=r"line 2.*unlabelled"):
        read_labels(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(InputError, match="labelled twice"):
        read_labels(path)
    path.write_text(json.dumps(good) + "\n")
    assert read_labels(path) == [Label("q1", "a", "b", True)]
    assert draw_record_path(tmp_path / "to_label.jsonl") == tmp_path / "to_label.draw.json"


def test_every_stratum_gets_an_item_and_too_small_a_draw_is_refused():
    sizes = {"near": 50, "below-1": 30, "below-2": 30, "below-3": 30, "above-1": 10, "above-2": 10}
    take = allocate(sizes, 6, "equal", shares={"near": NEAR_SHARE}, at_least=1)
    assert all(v >= 1 for v in take.values()) and sum(take.values()) == 6
    p = np.random.default_rng(0).random(500)
    with pytest.raises(InputError, match="at least one item per stratum"):
        draw(p, MODEL, 3)
    assert set(draw(p, MODEL, 6).strata) == set(strata_of(p, MODEL))


def test_a_draw_record_of_another_version_is_refused(tmp_path):
    from toolex.annotate.operating_point import read_draw_record

    path = tmp_path / "r.draw.json"
    path.write_text(json.dumps({"version": 99, "items": {}}))
    with pytest.raises(InputError, match="draw again"):
        read_draw_record(path)
