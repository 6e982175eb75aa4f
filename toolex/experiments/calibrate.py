"""The offline judge's calibration workflow: draw a benchmark's Stage-2 items for people to label, place the
default score's threshold from their labels, or fit a whole score model on one labelled benchmark.

``toolex calibrate`` parses its options and calls :func:`draw_items`, :func:`place_threshold` or
:func:`fit_model`; each writes its files atomically and returns what it wrote.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolex.annotate.calibration import calibrate, labelled_items, stage_two
from toolex.annotate.judges import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel, default_model
from toolex.annotate.operating_point import (
    draw,
    draw_record_path,
    fit_threshold,
    item_key,
    read_draw_record,
    read_labels,
    to_label,
    write_draw,
)
from toolex.annotate.pipeline import AnnotateConfig
from toolex.data import load_benchmark
from toolex.data.records import Benchmark
from toolex.data.registry import own_gold
from toolex.errors import InputError
from toolex.experiments.finetune import open_retriever, resolve_spec
from toolex.retrieval.base import Embedder
from toolex.validate.gold import read_gold

PROCEDURE = ("stratified by the default score: the unsure band (60 % of the items) and equal-count bins "
             "below and above it (the rest, equally, at least one each); uniform within a stratum, each "
             "stratum from its own generator seeded by the seed and its name "
             "(toolex.annotate.operating_point over toolex.sampling)")


@dataclass(frozen=True)
class JudgeOptions:
    """The judge's encoder and Stage 2's candidates: retriever (default: the annotate default), candidates
    per sub-query and the reference tool's nearest tools added."""

    encoder: str = "dense:mpnet"
    retriever: str | None = None
    top_k: int = 20
    reference_k: int = 0

    def __post_init__(self) -> None:
        if self.reference_k < 0:
            raise InputError(None, f"--reference-k must be 0 or more, got {self.reference_k}")

    def judge(self, model: ScoreModel,
              data_dir: str | None = None) -> tuple[OfflineSimilarityJudge, AnnotateConfig, Any]:
        """The offline judge with ``model``, Stage 2's settings and its candidate retriever (the encoder
        itself when they are the same spec, so it is loaded once); a fine-tuned alias (``dense:minilm-ft``)
        is the model trained on the benchmarks of ``data_dir``."""
        config = AnnotateConfig(top_k=self.top_k, reference_k=self.reference_k)
        if self.retriever:
            config = dataclasses.replace(config, retriever=resolve_spec(self.retriever, data_dir))
        encoder_spec = resolve_spec(self.encoder, data_dir)  # once: an alias loads the training benchmarks
        encoder = open_retriever(encoder_spec, data_dir)
        if not isinstance(encoder, Embedder):
            raise InputError(None, f"--encoder {self.encoder!r} is not a dense encoder (dense:<model>)")
        candidates = encoder if config.retriever == encoder_spec else None
        return OfflineSimilarityJudge(encoder, model), config, candidates


@dataclass(frozen=True)
class DrawnItems:
    """What :func:`draw_items` wrote: the items file, its draw record and how many items of how many."""

    items_file: Path
    record_file: Path
    drawn: int
    total: int


def draw_items(benchmark_name: str, n: int, out: str | Path, options: JudgeOptions = JudgeOptions(),
               seed: int = 0, data_dir: str | None = None) -> DrawnItems:
    """``n`` Stage-2 items of the benchmark drawn for people to label (no judge score in the file), one per
    (query, reference, candidate), stratified by the default score; the draw record (each item's score,
    stratum and inclusion probability) beside them."""
    benchmark = load_benchmark(benchmark_name, data_dir)
    model = default_model()
    judge, config, candidates = options.judge(model, data_dir)
    done = stage_two([benchmark], judge, config, candidates)
    first: dict[str, int] = {}  # a label file names items by (query, reference, candidate)
    for i, (item, slot) in enumerate(zip(done.items, done.slots)):
        first.setdefault(item_key(slot.query_id, item.reference.id, slot.tool_id), i)
    unique = list(first.values())
    every = judge.scores(done.items)
    decider = model.decision_model(every)  # the threshold the benchmark's annotation would use (all items)
    probabilities = every[unique]
    drawn = draw(probabilities, decider, n, seed)
    query = {q.id: q for q in benchmark.queries}
    picked = [unique[i] for i in drawn.indices]
    records = [to_label(done.items[i], done.slots[i].query_id, query[done.slots[i].query_id].text,
                        query[done.slots[i].query_id].category) for i in picked]
    record = {"benchmark": benchmark.name, "data_sha256": benchmark.checksum, "seed": seed,
              "judge": judge.name, "score_model": model.identity(), "items_total": len(unique),
              "decision_threshold": decider.threshold, "decision_band": list(decider.band),
              "strata": drawn.sizes, "procedure": PROCEDURE,
              "items": drawn.record_items({i: item_key(r["query_id"], r["reference"], r["candidate"])
                                          for i, r in zip(drawn.indices, records)}, probabilities)}
    sidecar = write_draw(out, records, record)
    return DrawnItems(Path(out), sidecar, len(records), len(unique))


def place_threshold(benchmark_name: str, labels: str | Path, out: str | Path,
                    draw_record: str | Path | None = None) -> tuple[ScoreModel, ScoreModel]:
    """The default score model with its threshold placed where the labelled, inclusion-weighted errors
    balance, written to ``out``; returns it and the default. ``draw_record``: the labelled items' draw
    record (default: beside the labels file)."""
    read = read_labels(labels)
    record_path = Path(draw_record) if draw_record else draw_record_path(labels)
    record = read_draw_record(record_path)
    if record.get("benchmark") != benchmark_name:
        raise InputError(record_path, f"the items were drawn from {record.get('benchmark')!r}, not from "
                                      f"--benchmark {benchmark_name!r}")
    model = default_model()
    if record.get("score_model") != model.identity():
        raise InputError(record_path, "the items were drawn with another default score model; draw again")
    fitted = fit_threshold(model, read, record, str(labels))
    fitted.save(out)
    return fitted, model


def acceptable_for(benchmark: Benchmark, gold_path: str | Path | None) -> dict[str, list[list[str]]]:
    """Query id → accepted combinations, from ``gold_path`` or the benchmark's own ground truth (SGD)."""
    if gold_path:
        return {g.query_id: [list(c) for c in g.acceptable] for g in read_gold(gold_path)}
    return own_gold(benchmark)


def fit_model(benchmark_name: str, out: str | Path, options: JudgeOptions = JudgeOptions(),
              gold: str | Path | None = None, l2: float = 1.0, band_errors: float = 0.9,
              data_dir: str | None = None) -> ScoreModel:
    """A whole score model fitted on one labelled benchmark (:func:`toolex.annotate.calibration.calibrate`),
    written to ``out``."""
    benchmark = load_benchmark(benchmark_name, data_dir)
    acceptable = acceptable_for(benchmark, gold)
    judge, config, candidates = options.judge(ScoreModel.untrained("features only"), data_dir)
    data = labelled_items([benchmark], acceptable, judge, config, retriever=candidates)
    record = {"data": f"{benchmark.name} (data sha256 {benchmark.checksum[:12]})",
              "gold": str(gold) if gold else "the benchmark's own", "encoder_spec": options.encoder,
              "candidates": {"retriever": options.retriever or config.retriever, "top_k": config.top_k,
                             **({"reference_k": config.reference_k} if config.reference_k else {})}}
    model = calibrate(data, judge.encoder.short, l2, band_errors, record)
    model.save(out)
    return model
