"""The offline judge's decision rule: a logistic score over :data:`~toolex.annotate.judges.features.FEATURES`.

``p = sigmoid(bias + weights · features)``; a candidate is equivalent when ``p >= threshold``. ``band`` is the
interval of ``p`` in which the judge is unsure: a cascade may send those items to an LLM judge. The weights,
threshold and band are fitted by :mod:`toolex.annotate.calibration` on labelled calibration data, and the
result is kept as data (:data:`DEFAULT_MODEL_FILE`) with a record of how it was made.

``threshold_rule`` says where the decision is made: ``fixed`` at ``threshold``; ``adapted`` at the threshold
:mod:`~toolex.annotate.judges.prior_shift` places for the items of one annotation run, from the share of
alternatives it estimates among them (``prior`` is the share the probabilities are calibrated to), where the
items allow such an estimate.
:meth:`ScoreModel.decision_model` gives the fixed model that decides a given set of items.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from toolex import keys
from toolex.annotate.judges import prior_shift
from toolex.annotate.judges.features import FEATURES
from toolex.errors import InputError, refuse_folder
from toolex.io.atomic import write_json

#: The calibrated default, written by ``toolex calibrate`` (see docs/judge.md).
DEFAULT_MODEL_FILE = Path(__file__).with_name("offline_mpnet.json")
#: Where the decision is made: at the fitted threshold, or adapted to each run's items.
THRESHOLD_RULES = ("fixed", "adapted")
#: How an adapted threshold is placed (in an adapted model's identity, so that a change of the rule's code
#: changes the annotation folders it decides): per benchmark, :mod:`~toolex.annotate.judges.prior_shift`.
ADAPTED_RULE = "per benchmark; EM share; expected errors balanced; fitted where not estimable; v3"


@dataclass(frozen=True)
class ScoreModel:
    """Weights (one per feature, in ``features`` order), bias, decision threshold and unsure band; the
    threshold rule and the share of positives the probabilities are calibrated to."""

    encoder: str
    weights: tuple[float, ...]
    bias: float
    threshold: float
    band: tuple[float, float]
    features: tuple[str, ...] = FEATURES
    calibration: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    threshold_rule: str = "fixed"
    prior: float | None = None

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
        if self.threshold_rule not in THRESHOLD_RULES:
            raise InputError(None, f"score model: threshold rule {self.threshold_rule!r} is not one of "
                                   f"{list(THRESHOLD_RULES)}")
        if self.threshold_rule == "adapted" and not (self.prior is not None and 0 < self.prior < 1):
            raise InputError(None, "score model: an adapted threshold needs the fitting share of positives "
                                   f"(prior) in (0, 1), not {self.prior}")

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
        n = len(probabilities)
        return _unsure_order(probabilities, np.full(n, self.threshold), np.full(n, self.band[0]),
                             np.full(n, self.band[1]), within_band)

    def with_threshold(self, threshold: float, note: str = "") -> ScoreModel:
        """The same weights with another, fixed decision threshold; the band widens to hold it if needed."""
        threshold = round(float(threshold), 6)
        band = (min(self.band[0], threshold), max(self.band[1], threshold))
        calibration = {**self.calibration, "threshold_from": note or "set after fitting"}
        return ScoreModel(self.encoder, self.weights, self.bias, threshold, band, self.features, calibration,
                          "fixed", self.prior)

    def with_rule(self, rule: str, prior: float | None = None) -> ScoreModel:
        """The same model with another threshold rule (and fitting share of positives, if given)."""
        return ScoreModel(self.encoder, self.weights, self.bias, self.threshold, self.band, self.features,
                          self.calibration, rule, self.prior if prior is None else round(float(prior), 6))

    def decision_model(self, probabilities: np.ndarray) -> ScoreModel:
        """The fixed model that decides these items: this one when its rule is fixed; else its threshold moved
        to where the items' expected false positives equal their expected false negatives, under the share of
        alternatives estimated among them (the band moves by as much, in logit), and the estimate recorded in
        its calibration record under ``adapted``. Fewer than :data:`prior_shift.MIN_ITEMS` items keep the
        fitted threshold."""
        if self.threshold_rule == "fixed":
            return self
        assert self.prior is not None
        p = np.asarray(probabilities, dtype=np.float64)
        record: dict[str, Any] = {"items": int(len(p)), "fitting_share": self.prior,
                                  "fitted_threshold": self.threshold}
        if len(p) < prior_shift.MIN_ITEMS:
            threshold, band = self.threshold, self.band
            record["kept"] = f"fewer than {prior_shift.MIN_ITEMS} items: the fitted threshold"
        elif not prior_shift.share_estimable(p, self.prior):
            threshold, band = self.threshold, self.band
            low, high = prior_shift.ratio_bounds(p, self.prior)
            record["ratio_bounds"] = [round(low, 4), round(high, 4)]
            record["kept"] = ("the share is not estimable from these items (the lower bound of the mean "
                              "likelihood ratio or of its inverse is at most 1): the fitted threshold")
        else:
            share, posteriors = prior_shift.estimate_prior(p, self.prior)
            threshold = round(min(max(prior_shift.expected_balanced_threshold(p, posteriors), 1e-6),
                                  1 - 1e-6), 6)
            shift = _logit(threshold) - _logit(self.threshold)
            band = (math.floor(_sigmoid(_logit(self.band[0]) + shift) * 1e6) / 1e6,
                    math.ceil(_sigmoid(_logit(self.band[1]) + shift) * 1e6) / 1e6)
            band = (min(band[0], threshold), max(band[1], threshold))
            record["estimated_share"] = round(share, 6)
        record["threshold"], record["band"] = threshold, list(band)
        calibration = {**self.calibration, "adapted": record}
        return ScoreModel(self.encoder, self.weights, self.bias, threshold, band, self.features, calibration,
                          "fixed", self.prior)

    def decide(self, probabilities: np.ndarray, groups: Sequence[str] | None = None) -> Decision:
        """Per-item thresholds and bands for these items: one :meth:`decision_model` per group (the benchmark
        of each item's query; ``None``: one group), so that a benchmark's verdicts do not depend on which
        other benchmarks are annotated with it."""
        p = np.asarray(probabilities, dtype=np.float64)
        labels = [""] * len(p) if groups is None else list(groups)
        if len(labels) != len(p):
            raise ValueError(f"{len(labels)} groups for {len(p)} items")
        thresholds, lows, highs = np.empty(len(p)), np.empty(len(p)), np.empty(len(p))
        models: dict[str, ScoreModel] = {}
        for group in dict.fromkeys(labels):
            where = np.fromiter((g == group for g in labels), dtype=bool, count=len(labels))
            model = models[group] = self.decision_model(p[where])
            thresholds[where], lows[where], highs[where] = model.threshold, model.band[0], model.band[1]
        return Decision(thresholds, lows, highs, models)

    def label(self) -> str:
        """``score model <key> (threshold t)``: which model decided, as figures and run records name it
        (the key of :meth:`identity`, as :func:`identity_label` reads it back from a manifest)."""
        return identity_label(self.identity())

    def identity(self) -> dict[str, Any]:
        """What decides the verdicts (for cache keys and manifests): everything but the calibration record
        (the rule and fitting share only when the threshold is adapted)."""
        out = asdict(self)
        out.pop("calibration")
        if self.threshold_rule == "fixed":
            out.pop("threshold_rule")
            out.pop("prior")
        else:
            out["adapted_rule"] = {"rule": ADAPTED_RULE, **prior_shift.SETTINGS}
        out["weights"], out["band"] = list(self.weights), list(self.band)
        out["features"] = list(self.features)
        return out

    def to_json(self) -> dict[str, Any]:
        return {**self.identity(), "threshold_rule": self.threshold_rule, "prior": self.prior,
                "calibration": dict(self.calibration)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str = "score model") -> ScoreModel:
        try:
            weights = tuple(float(w) for w in data["weights"])
            named = tuple(data.get("features", FEATURES))
            if len(named) == len(weights) and named != FEATURES and set(named) <= set(FEATURES):
                # a model of fewer features (an earlier feature set): the others weigh nothing
                by_name = dict(zip(named, weights))
                weights, named = tuple(by_name.get(f, 0.0) for f in FEATURES), FEATURES
            return cls(str(data["encoder"]), weights, float(data["bias"]),
                       float(data["threshold"]), (float(data["band"][0]), float(data["band"][1])),
                       named, dict(data.get("calibration", {})),
                       str(data.get("threshold_rule", "fixed")),
                       None if data.get("prior") is None else float(data["prior"]))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise InputError(source, f"not a score model ({exc})") from exc

    @classmethod
    def load(cls, path: str | Path = DEFAULT_MODEL_FILE) -> ScoreModel:
        path = Path(path)
        refuse_folder(path, "score model file")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(str(path), f"cannot read the score model ({exc})") from exc
        return cls.from_json(data, str(path))

    def save(self, path: str | Path) -> None:
        write_json(path, self.to_json(), indent=1)


@dataclass(frozen=True)
class Decision:
    """How a batch of items is decided: each item's threshold and unsure band, and the fixed model of each
    group (:meth:`ScoreModel.decide`)."""

    thresholds: np.ndarray
    lows: np.ndarray
    highs: np.ndarray
    models: Mapping[str, ScoreModel]

    def said(self, probabilities: np.ndarray) -> np.ndarray:
        """Equivalent: the score reaches the item's threshold."""
        return np.asarray(probabilities, dtype=np.float64) >= self.thresholds

    def uncertainty_order(self, probabilities: np.ndarray, within_band: bool = True) -> np.ndarray:
        """As :meth:`ScoreModel.uncertainty_order`, each item against its own threshold and band."""
        return _unsure_order(probabilities, self.thresholds, self.lows, self.highs, within_band)

    def adapted(self) -> dict[str, Any]:
        """Per group, where an adapted threshold was placed (empty when every model's rule is fixed)."""
        return {g or "all": dict(m.calibration["adapted"]) for g, m in self.models.items()
                if "adapted" in m.calibration}


def _unsure_order(probabilities: np.ndarray, thresholds: np.ndarray, lows: np.ndarray, highs: np.ndarray,
                  within_band: bool) -> np.ndarray:
    p = np.clip(np.asarray(probabilities, dtype=np.float64), 1e-12, 1 - 1e-12)
    inside = np.flatnonzero((p >= lows) & (p <= highs)) if within_band else np.arange(len(p))
    t = np.clip(thresholds[inside], 1e-12, 1 - 1e-12)
    distance = np.abs(np.log(p[inside] / (1 - p[inside])) - np.log(t / (1 - t)))
    return inside[np.argsort(distance, kind="stable")]


def identity_label(identity: Mapping[str, Any]) -> str:
    """A score model's label from its identity (:meth:`ScoreModel.label`)."""
    return f"score model {keys.key_of(dict(identity))[:12]} (threshold {identity.get('threshold')})"


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def default_model() -> ScoreModel:
    """The calibrated default (:data:`DEFAULT_MODEL_FILE`)."""
    return ScoreModel.load(DEFAULT_MODEL_FILE)
