"""The offline judge's score model: validation, JSON round trip, the unsure order and the packaged default."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from toolex.annotate.judges.features import EXPECTED_SIGNS, FEATURES, RAW_FEATURES
from toolex.annotate.judges.scoring import DEFAULT_MODEL_FILE, ScoreModel, default_model
from toolex.errors import InputError

WEIGHTS = (2.0, 1.0, 0.5, 0.25, -0.5, -1.0, 3.0, 0.5, 0.25, 0.1, 0.2, 0.4)


def _model(**changes) -> ScoreModel:
    settings = {"encoder": "mpnet", "weights": WEIGHTS, "bias": -1.5, "threshold": 0.4, "band": (0.1, 0.8),
                "calibration": {"data": "sgd/calibration"}}
    settings.update(changes)
    return ScoreModel(**settings)


@pytest.mark.parametrize(("changes", "message"), [
    ({"weights": WEIGHTS[:6]}, "6 weights for 12 features"),
    ({"weights": (*WEIGHTS, 1.0)}, "13 weights for 12 features"),
    ({"band": (0.5, 0.8)}, "must hold the threshold"),
    ({"band": (0.1, 0.3)}, "must hold the threshold"),
    ({"band": (-0.1, 0.8)}, "must hold the threshold"),
    ({"band": (0.1, 1.2)}, "must hold the threshold"),
    ({"threshold": float("nan")}, "must hold the threshold"),
    ({"features": tuple(reversed(FEATURES))}, "are not"),
    ({"weights": (math.nan, *WEIGHTS[1:])}, "finite"),
    ({"bias": math.inf}, "finite"),
])
def test_invalid_models_are_refused(changes, message):
    with pytest.raises(InputError, match=message):
        _model(**changes)


def test_band_may_be_a_single_point_at_the_threshold():
    model = _model(band=(0.4, 0.4))
    assert model.band == (0.4, 0.4)
    assert ScoreModel.untrained("x").probability(np.ones((2, len(FEATURES)))).tolist() == [0.5, 0.5]


def test_probability_is_the_logistic_of_the_weighted_sum():
    rows = np.array([[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0.5, 0.2, 1, 0, 1, 1, -0.1, 0, 0, 0, 0, -1]],
                    dtype=float)
    logits = [-1.5 + 2.0, -1.5 + 1.0 + 0.2 + 0.5 - 0.5 - 1.0 - 0.3 - 0.4]
    model = _model()
    assert model.logits(rows) == pytest.approx(logits)
    assert model.probability(rows) == pytest.approx([1 / (1 + math.exp(-v)) for v in logits])


def test_json_round_trip(tmp_path):
    model = _model()
    path = tmp_path / "model.json"
    model.save(path)
    loaded = ScoreModel.load(path)
    assert loaded == model
    assert loaded.calibration == {"data": "sgd/calibration"}
    assert ScoreModel.from_json(json.loads(path.read_text())) == model
    assert not list(tmp_path.glob("*.tmp*"))  # written atomically, nothing left behind
    identity = model.identity()
    assert "calibration" not in identity and identity["features"] == list(FEATURES)
    assert json.loads(json.dumps(model.to_json())) == model.to_json()
    # the calibration record is not part of the identity: two models that decide alike are equal
    assert _model(calibration={"data": "other"}) == model


def test_bad_model_files_name_the_file(tmp_path):
    path = tmp_path / "model.json"
    with pytest.raises(InputError, match="model.json: cannot read the score model"):
        ScoreModel.load(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="model.json: cannot read the score model"):
        ScoreModel.load(path)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match="model.json: cannot read the score model"):
        ScoreModel.load(path)
    record = _model().to_json()
    for broken in ({k: v for k, v in record.items() if k != "bias"}, {**record, "weights": "abc"},
                   {**record, "band": [0.1]}, [1, 2], {**record, "weights": [1.0] * 6}):
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(InputError, match="model.json"):
            ScoreModel.load(path)


def test_uncertainty_order_keeps_the_band_closest_to_the_threshold_first():
    model = _model(threshold=0.5, band=(0.2, 0.9))
    p = np.array([0.95, 0.5, 0.3, 0.85, 0.1, 0.56, 0.2, 0.9, 0.45, 0.0, 1.0])
    # logit distances to logit(0.5) = 0: 0.5: 0, 0.45: 0.20, 0.56: 0.24, 0.3: 0.85, 0.2: 1.39 (on the edge),
    # 0.85: 1.73, 0.9: 2.20 (on the edge); 0.95, 0.1, 0 and 1 are outside the band
    assert model.uncertainty_order(p).tolist() == [1, 8, 5, 2, 6, 3, 7]
    assert model.uncertainty_order(np.array([0.3, 0.6, 0.3])).tolist() == [1, 0, 2]  # a tie keeps input order
    # distance in logit, not in probability: with the threshold at 0.1, 0.01 is nearer than 0.3 in probability
    # (0.09 vs 0.2) but farther in logit (2.40 vs 1.35)
    off_centre = _model(threshold=0.1, band=(0.005, 0.5))
    p = np.array([0.4, 0.12, 0.05, 0.6, 0.3, 0.01])
    assert off_centre.uncertainty_order(p).tolist() == [1, 2, 4, 0, 5]
    assert off_centre.uncertainty_order(np.array([])).tolist() == []


def test_packaged_default_loads():
    assert DEFAULT_MODEL_FILE.name == "offline_mpnet.json" and DEFAULT_MODEL_FILE.exists()
    model = default_model()
    assert model.features == FEATURES and FEATURES[:7] == RAW_FEATURES == (
        "description_cosine", "documentation_cosine", "name_overlap", "parameter_overlap", "required_overlap",
        "same_platform", "subquery_fit")
    raw = json.loads(DEFAULT_MODEL_FILE.read_text(encoding="utf-8"))
    assert raw["features"] == list(FEATURES) and len(raw["weights"]) == len(FEATURES)
    assert model.encoder == "mpnet"
    assert model.band[0] < model.threshold < model.band[1]
    # chosen across sources: fitted on the calibration parts of all four, none of the report parts
    data = model.calibration["data"]
    assert all(part in data for part in ("sgd/calibration", "sgd-x/calibration", "sgd-pairs/calibration",
                                         "etom/calibration"))
    assert "report" not in data and "leave-one-source-out" in model.calibration["chosen_by"]
    # similarity to the reference raises the score; signals of how one dataset was built weigh nothing
    weights = dict(zip(FEATURES, model.weights))
    assert weights["description_cosine"] > 0
    assert weights["name_overlap"] == weights["same_platform"] == 0.0
    assert all(w >= 0 for f, w in weights.items() if EXPECTED_SIGNS[f] > 0)


def test_a_model_of_an_earlier_feature_set_loads_with_the_new_features_weighing_nothing():
    old = {**_model().to_json(), "features": list(FEATURES[:7]), "weights": list(WEIGHTS[:7])}
    model = ScoreModel.from_json(old)
    assert model.features == FEATURES and model.weights == (*WEIGHTS[:7], *(0.0,) * (len(FEATURES) - 7))


def test_a_score_model_is_named_alike_in_memory_and_from_a_run_manifest(tmp_path):
    """Figures name the score model that decided: its label, read back from a run's manifest, is the
    model's own, and another threshold gives another label."""
    from toolex.annotate.run_folder import ArtifactFolder

    model = default_model()
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"judge": {"name": "offline-similarity(mpnet)", "score_model": model.identity()}}))
    assert ArtifactFolder(tmp_path).judge() == f"offline-similarity(mpnet), {model.label()}"
    assert model.with_threshold(0.9).label() != model.label()
    assert ArtifactFolder(tmp_path / "missing").judge() == "not recorded"
