"""The offline judge's decision rule: a logistic score over :data:`~toolex.annotate.judges.features.FEATURES`.

``p = sigmoid(bias + weights · features)``; a candidate is equivalent when ``p >= threshold``. ``band`` is the
interval of ``p`` in which the judge is unsure: a cascade may send those items to an LLM judge. The weights,
threshold and band are fitted by :mod:`toolex.annotate.calibration` on labelled calibration data, and the
result is kept as data (:data:`DEFAULT_MODEL_FILE`) with a record of how it was made.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from toolex.annotate.judges.features import FEATURES
from toolex.errors import InputError
from toolex.io.atomic import write_json

#: The calibrated default, written by ``toolex calibrate`` (see the README, "Validate annotations").
DEFAULT_MODEL_FILE = Path(__file__).with_name("offline_mpnet.json")


@dataclass(frozen=True)
class ScoreModel:
    """Weights (one per feature, in ``features`` order), bias, decision threshold and unsure band."""

    encoder: str
    weights: tuple[float, ...]
    bias: float
    threshold: float
    band: tuple[float, float]
    features: tuple[str, ...] = FEATURES
    calibration: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.features):
            raise InputError(None,
                             f"score model: {len(self.weights)} weights for {len(self.features)} features")
        if tuple(self.features) != FEATURES:
            raise InputError(None, f"score model: features {list(self.features)} are not {list(FEATURES)}")
        if not all(math.isfinite(v) for v in (*self.weights, self.bias)):
            raise InputError(None, "score model: weights and bias must be finite numbers")
        if not (0.0 <= self.band[0] <= self.threshold <= self.band[1] <= 1.0):
            raise InputError(None, f"score model: band {self.band} must hold the threshold {self.threshold}")

    @classmethod
    def untrained(cls, encoder: str) -> ScoreModel:
        """All weights zero: a placeholder that lets a judge compute features before any calibration."""
        return cls(encoder, (0.0,) * len(FEATURES), 0.0, 0.5, (0.5, 0.5), FEATURES, {"data": "untrained"})

    def logits(self, rows: np.ndarray) -> np.ndarray:
        return self.bias + np.asarray(rows, dtype=np.float64) @ np.asarray(self.weights, dtype=np.float64)

    def probability(self, rows: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.logits(rows)))

    def uncertainty_order(self, probabilities: np.ndarray, within_band: bool = True) -> np.ndarray:
        """Indices of the items inside the band (every item: ``within_band=False``), most unsure (closest to
        the threshold in logit) first."""
        p = np.clip(np.asarray(probabilities, dtype=np.float64), 1e-12, 1 - 1e-12)
        inside = (np.flatnonzero((p >= self.band[0]) & (p <= self.band[1])) if within_band
                  else np.arange(len(p)))
        distance = np.abs(np.log(p[inside] / (1 - p[inside])) - _logit(self.threshold))
        return inside[np.argsort(distance, kind="stable")]

    def with_threshold(self, threshold: float, note: str = "") -> ScoreModel:
        """The same weights with another decision threshold; the band widens to hold it if needed."""
        threshold = round(float(threshold), 6)
        band = (min(self.band[0], threshold), max(self.band[1], threshold))
        calibration = {**self.calibration, "threshold_from": note or "set after fitting"}
        return ScoreModel(self.encoder, self.weights, self.bias, threshold, band, self.features, calibration)

    def identity(self) -> dict[str, Any]:
        """What decides the verdicts (for cache keys and manifests): everything but the calibration record."""
        out = asdict(self)
        out.pop("calibration")
        out["weights"], out["band"] = list(self.weights), list(self.band)
        out["features"] = list(self.features)
        return out

    def to_json(self) -> dict[str, Any]:
        return {**self.identity(), "calibration": dict(self.calibration)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str = "score model") -> ScoreModel:
        try:
            return cls(str(data["encoder"]), tuple(float(w) for w in data["weights"]), float(data["bias"]),
                       float(data["threshold"]), (float(data["band"][0]), float(data["band"][1])),
                       tuple(data.get("features", FEATURES)), dict(data.get("calibration", {})))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise InputError(source, f"not a score model ({exc})") from exc

    @classmethod
    def load(cls, path: str | Path = DEFAULT_MODEL_FILE) -> ScoreModel:
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(str(path), f"cannot read the score model ({exc})") from exc
        return cls.from_json(data, str(path))

    def save(self, path: str | Path) -> None:
        write_json(path, self.to_json(), indent=1)


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def default_model() -> ScoreModel:
    """The calibrated default (:data:`DEFAULT_MODEL_FILE`)."""
    return ScoreModel.load(DEFAULT_MODEL_FILE)
