"""Calibrating the offline judge for one benchmark from people's labels on a small drawn sample.

A few labels cannot support a new model, but they can place the decision threshold of the cross-source score
where this benchmark's errors balance. The workflow (``toolex calibrate --draw`` / ``--labels``):

1. :func:`draw`: Stage-2 items of the benchmark (every top-K candidate of every sub-query), stratified by the
   default score: the judge's unsure band (most of the sample, :data:`NEAR_SHARE`) and equal-count bins below
   and above it, each drawn at random with a fixed seed. Each item's inclusion probability is kept in the draw
   record, never in the file people label (which shows no score, feature or verdict).
2. People label the items: ``{"query_id", "reference", "candidate", "equivalent": true|false}`` a line.
3. :func:`fit_threshold`: the threshold where the labelled false positives and false negatives balance, each
   item weighted by the inverse of its inclusion probability (so the sample stands for the whole benchmark);
   the weights and features of the score stay those of the cross-source default.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toolex import sampling
from toolex.annotate.calibration import balanced_threshold
from toolex.annotate.judges.base import VerifyItem
from toolex.annotate.judges.scoring import ScoreModel
from toolex.data.readers import read_keyed_jsonl
from toolex.errors import InputError, refuse_folder
from toolex.io.atomic import write_json, write_jsonl

#: Share of the sample drawn inside the judge's unsure band (the rest spread equally over the bins outside it,
#: at least one item each; :func:`toolex.sampling.allocate`).
NEAR_SHARE = 0.6
#: Equal-count bins below and above the band.
BINS_BELOW, BINS_ABOVE = 3, 2
#: The draw record's format (what it holds, not how the items were drawn: the record keeps each inclusion).
DRAW_VERSION = 1


@dataclass(frozen=True)
class Draw:
    """Indices of the drawn items, their strata and inclusion probabilities, and the strata sizes."""

    indices: np.ndarray
    strata: list[str]
    inclusion: np.ndarray
    sizes: dict[str, dict[str, int]]

    def record_items(self, keys: Sequence[str] | Mapping[int, str],
                     probabilities: np.ndarray) -> dict[str, dict[str, Any]]:
        """The draw record's items: each drawn item's key (``keys[i]`` of item ``i``, as :func:`item_key`
        makes it) with its score, inclusion probability and stratum, what :func:`fit_threshold` weighs."""
        return {keys[i]: {"score": float(probabilities[i]), "inclusion": float(q), "stratum": s}
                for i, q, s in zip(self.indices, self.inclusion, self.strata)}


def strata_of(probabilities: np.ndarray, model: ScoreModel) -> list[str]:
    """``near`` inside the model's band, ``below-i`` / ``above-i`` for equal-count bins outside it."""
    p = np.asarray(probabilities, dtype=np.float64)
    labels = np.array(["near"] * len(p), dtype=object)
    sides = (("below", p < model.band[0], BINS_BELOW), ("above", p > model.band[1], BINS_ABOVE))
    for side, mask, bins in sides:
        where = np.flatnonzero(mask)
        if not len(where):
            continue
        order = where[np.argsort(p[where], kind="stable")]
        for b, chunk in enumerate(np.array_split(order, min(bins, len(order)))):
            labels[chunk] = f"{side}-{b + 1}"
    return [str(s) for s in labels]


def draw(probabilities: np.ndarray, model: ScoreModel, n: int, seed: int = 0) -> Draw:
    """A stratified random draw of ``n`` items (all when fewer exist); every stratum gets at least one item,
    so that the inverse inclusion probabilities stand for every item. The band is that of the model deciding
    these items (:meth:`ScoreModel.decision_model`)."""
    if n < 1:
        raise InputError(None, f"--draw must be positive, got {n}")
    strata = strata_of(probabilities, model.decision_model(probabilities))
    if n < min(len(set(strata)), len(strata)):
        raise InputError(None, f"--draw {n} is fewer than the {len(set(strata))} strata of the score; "
                               "draw at least one item per stratum")
    members: dict[str, list[int]] = {}
    for i, s in enumerate(strata):
        members.setdefault(s, []).append(i)
    sizes = {s: len(m) for s, m in members.items()}
    take = sampling.allocate(sizes, n, "equal", shares={"near": NEAR_SHARE}, at_least=1)
    chosen = sampling.draw(members, take, seed)
    share = sampling.inclusion(sizes, take)
    picked = np.asarray(sorted(i for c in chosen.values() for i in c), dtype=np.int64)
    return Draw(picked, [strata[i] for i in picked], np.asarray([share[strata[i]] for i in picked]),
                {s: {"items": sizes[s], "drawn": take[s]} for s in sorted(members)})


def item_key(query_id: str, reference: str, candidate: str) -> str:
    return f"{query_id}\t{reference}\t{candidate}"


def to_label(item: VerifyItem, query_id: str, query: str, category: str = "") -> dict[str, Any]:
    """What a person sees for one item: the query (and its category), the sub-query, both tools and their
    documentation; no score, feature or verdict of any judge."""
    return {"query_id": query_id, "query": query, "category": category, "subquery": item.subquery.text,
            "reference": item.reference.id, "candidate": item.candidate.id,
            "reference_documentation": item.reference.documentation,
            "candidate_documentation": item.candidate.documentation, "equivalent": None}


def write_draw(out: str | Path, records: Sequence[dict[str, Any]], record: dict[str, Any]) -> Path:
    """``out`` (the items to label) and ``<out>.draw.json`` (how they were drawn, with each item's score
    and inclusion probability)."""
    out = Path(out)
    write_jsonl(out, records)
    sidecar = draw_record_path(out)
    write_json(sidecar, {"version": DRAW_VERSION, **record})
    return sidecar


def draw_record_path(items_file: str | Path) -> Path:
    path = Path(items_file)
    return path.with_name(path.stem + ".draw.json")


@dataclass(frozen=True)
class Label:
    query_id: str
    reference: str
    candidate: str
    equivalent: bool


def _parse_label(record: dict[str, Any], path: Path, lineno: int) -> Label:
    where = f"line {lineno}"
    for name in ("query_id", "reference", "candidate"):
        if not isinstance(record.get(name), str) or not record[name]:
            raise InputError(path, f"'{name}' must be a non-empty string", record=where)
    if not isinstance(record.get("equivalent"), bool):
        raise InputError(path, "'equivalent' must be true or false (unlabelled item?)", record=where)
    return Label(record["query_id"], record["reference"], record["candidate"], record["equivalent"])


def read_labels(path: str | Path) -> list[Label]:
    """A labels file: one ``{"query_id", "reference", "candidate", "equivalent"}`` a line; an item listed
    twice or an unlabelled item is an error naming the line."""
    return read_keyed_jsonl(path, "labels file", _parse_label,
                            lambda x: item_key(x.query_id, x.reference, x.candidate),
                            "item {!r} labelled twice", "no labels (empty file)")


def read_draw_record(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise InputError(path, "draw record not found (`toolex calibrate --draw` writes it beside the items)")
    refuse_folder(path, "draw record file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(path, f"not a draw record ({exc})") from exc
    if not isinstance(data.get("items"), dict):
        raise InputError(path, "not a draw record (no 'items')")
    if data.get("version") != DRAW_VERSION:
        raise InputError(path, f"draw record version {data.get('version')!r}, this toolex reads "
                               f"{DRAW_VERSION}: draw again")
    return data


def fit_threshold(model: ScoreModel, labels: Sequence[Label], record: Mapping[str, Any],
                  source: str = "labels") -> ScoreModel:
    """``model`` with the threshold at which the labelled, inclusion-weighted errors balance."""
    drawn = record["items"]
    keys = [item_key(x.query_id, x.reference, x.candidate) for x in labels]
    unknown = [key for key in keys if key not in drawn]
    if unknown:
        raise InputError(source, f"{len(unknown)} labelled items were not drawn, e.g. {unknown[0]!r}")
    scores = np.array([drawn[key]["score"] for key in keys])
    weights = np.array([1.0 / drawn[key]["inclusion"] for key in keys])
    truth = np.array([x.equivalent for x in labels], dtype=bool)
    if truth.all() or not truth.any():
        raise InputError(source, "the labels hold only one kind (all equivalent or none): no threshold "
                                 "can be placed")
    threshold = balanced_threshold(scores, truth, weights)
    fitted = model.with_threshold(threshold, f"{len(labels)} labelled items of {record.get('benchmark')}, "
                                             "inclusion-weighted false positives = false negatives")
    calibration = {**fitted.calibration, "per_benchmark": {
        "benchmark": record.get("benchmark"), "labels": len(labels), "equivalent": int(truth.sum()),
        "estimated_items": float(weights.sum()), "estimated_equivalent_share":
            float(weights[truth].sum() / weights.sum()), "default_threshold": model.threshold,
        "default_threshold_rule": model.threshold_rule,
        "labels_source": source}}
    return ScoreModel(fitted.encoder, fitted.weights, fitted.bias, fitted.threshold, fitted.band,
                      fitted.features, calibration, "fixed", model.prior)


