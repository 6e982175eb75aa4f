"""Fine-tune a dense tool retriever on one-to-one labels, as Tool-Embed was trained on ToolRet's training
data, or on ToolEq labels.

The model (all-MiniLM-L6-v2 by default) learns from (query, C* tool, hard negative) triples with in-batch
negatives (sentence-transformers' ``MultipleNegativesRankingLoss``). The hard negative of a query is the tool
the base model ranks highest among those that are not in C*: the one-to-one reading of the labels, under which
an equivalent tool is a negative too. That is the training signal whose evaluation the paper questions. With
:attr:`FinetuneSettings.labels` (an annotations file) every tool of a valid combination is a positive and
none of them a negative: the same training on the expanded (ToolEq) labels.

Training queries never overlap the queries a report evaluates:

* a benchmark with its own training split (ToolLens: ``toollens:train``) trains on up to
  :attr:`FinetuneSettings.own_train` of those queries; all its evaluated (test) queries are held out;
* any other benchmark (the ToolRet subsets, the Customized benchmarks) is split by query: a query trains
  when a hash of the seed and its id falls below :attr:`FinetuneSettings.train_fraction`; the rest are held
  out (:func:`held_out`).
  Tools are shared between the parts, as ToolRet's training set shares tool sources with its test set.

The model is written to ``<artifacts>/models/<name>-ft-<key>/`` with a ``manifest.json``; the key is a hash
of the settings and the data checksums, so a second call with the same settings reuses the model and a
changed setting trains a new one. ``dense:minilm-ft`` names the model of the default settings
(:func:`resolve_spec`; it never trains: ``toolex finetune`` or ``make finetune`` does).
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from toolex import __version__, keys, paths
from toolex.data import DEFAULT_BENCHMARKS, load_benchmark, tool_pools
from toolex.data.checksum import file_sha256
from toolex.data.records import Benchmark, Query, Tool
from toolex.data.registry import pool_identity
from toolex.errors import InputError
from toolex.io.annotations import read_annotations
from toolex.io.artifact import MANIFEST, publish_folder, read_manifest, restore_aside, write_manifest
from toolex.io.progress import Tracker, duration
from toolex.retrieval.base import Retriever, retrieve_over_pools
from toolex.retrieval.encoders import FINETUNED_ALIAS, embedded_model
from toolex.retrieval.spec import build_retriever

#: Benchmarks with a training split of their own: the evaluated name -> the training split's name.
OWN_TRAIN_SPLITS = {"toollens": "toollens:train"}
#: The trainer's identity inside model keys; it names the module's first home, so that models trained before
#: the move keep their keys (change it when training changes).
TRAINER = "toolex.retrieval.finetune v1"
LABELS_ONE_TO_ONE = "one-to-one (C* positive; every other tool, equivalents included, a negative)"
LABELS_TOOLEQ = "ToolEq (every tool of a valid combination positive, none of them a negative)"


@dataclass(frozen=True)
class FinetuneSettings:
    """Everything that determines the fine-tuned model (and its folder's key)."""

    base: str = "minilm"
    benchmarks: tuple[str, ...] = DEFAULT_BENCHMARKS
    #: Share of a benchmark's queries that train, for benchmarks without a training split of their own.
    train_fraction: float = 0.5
    #: Queries drawn (seeded) from a benchmark's own training split.
    own_train: int = 1000
    #: At most this many training queries per benchmark (a seeded draw), None: all of them.
    max_train_queries: int | None = None
    pool: str = "all"
    hard_negatives: int = 1
    epochs: int = 1
    batch_size: int = 32
    learning_rate: float = 2e-5
    warmup: float = 0.1
    max_length: int = 128
    seed: int = 0
    #: None: one-to-one labels (C* the only positive). Else an annotations file (``annotations.jsonl`` of a
    #: ToolEX run over the training queries): every tool of a valid combination is a positive, and none of
    #: them a negative; a training query the file lacks keeps C*.
    labels: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 < self.train_fraction < 1.0:
            raise ValueError(f"train_fraction must lie in (0, 1), got {self.train_fraction}")
        if self.batch_size < 2:
            raise ValueError("in-batch negatives need batch_size >= 2")

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["benchmarks"] = list(self.benchmarks)
        return out


def held_out(query_id: str, settings: FinetuneSettings) -> bool:
    """True when a query of a benchmark without its own training split is kept for evaluation."""
    digest = keys.text_digest(f"{settings.seed}:{query_id}")
    return int.from_bytes(digest[:8], "big") / 2**64 >= settings.train_fraction


def evaluation_queries(benchmark: Benchmark, settings: FinetuneSettings) -> list[Query]:
    """The queries of ``benchmark`` a fine-tuned model may be evaluated on (none of them trained it)."""
    if benchmark.name in OWN_TRAIN_SPLITS:
        return list(benchmark.queries)
    return [q for q in benchmark.queries if held_out(q.id, settings)]


def training_queries(benchmark: Benchmark, settings: FinetuneSettings,
                     data_dir: str | Path | None = None) -> list[Query]:
    """The queries of ``benchmark`` (or of its own training split) that train the model."""
    if benchmark.name in OWN_TRAIN_SPLITS:
        train = load_benchmark(OWN_TRAIN_SPLITS[benchmark.name], data_dir)
        queries = list(train.sample(settings.own_train, settings.seed).queries)
    else:
        queries = [q for q in benchmark.queries if not held_out(q.id, settings)]
    cap = settings.max_train_queries
    if cap is not None and cap < len(queries):
        picked = sorted(random.Random(settings.seed).sample(range(len(queries)), cap))
        queries = [queries[i] for i in picked]
    return queries


@dataclass(frozen=True)
class Triple:
    benchmark: str
    query_id: str
    query: str
    positive: str
    negative: str
    positive_id: str
    #: The positive is an equivalent from the labels, not a tool of C*.
    equivalent: bool = False


def read_labels(settings: FinetuneSettings) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The valid combinations by query id from the settings' annotations file (empty: one-to-one labels)."""
    if settings.labels is None:
        return {}

    return {a.query_id: a.combinations for a in read_annotations(settings.labels)}


def positives_of(query: Query, labels: Mapping[str, tuple[tuple[str, ...], ...]]) -> list[str]:
    """C*'s tools, then every other tool of the query's valid combinations (when labelled), in order."""
    combinations = labels.get(query.id, ())
    return list(dict.fromkeys([*query.reference, *(t for combo in combinations for t in combo)]))


def mine_triples(base: Any, benchmarks: Sequence[Benchmark], settings: FinetuneSettings,
                 data_dir: str | Path | None = None) -> list[Triple]:
    """One triple per (training query, positive tool in the pool) with the base model's best tools that are
    no positive as hard negatives, all texts in the base retriever's formats. Positives: C* (one-to-one), or
    every tool of the query's valid combinations when the settings name an annotations file."""

    labels = read_labels(settings)
    pools = tool_pools(list(benchmarks), settings.pool)
    triples: list[Triple] = []
    asked = {bench.name: training_queries(bench, settings, data_dir) for bench in benchmarks}
    run = retrieve_over_pools(base, [(pools[b.name], asked[b.name]) for b in benchmarks],
                              k=settings.hard_negatives + 20)
    for bench in benchmarks:
        pool: dict[str, Tool] = pools[bench.name]
        for q in asked[bench.name]:
            labelled = positives_of(q, labels)
            positives = [tid for tid in labelled if tid in pool]
            negatives = [tid for tid in run.get(q.id, {}) if tid not in labelled][:settings.hard_negatives]
            text = base.prompt.query(q.text, q.instruction)
            for tid in positives:
                for neg in negatives:
                    triples.append(Triple(bench.name, q.id, text, base.prompt.doc(pool[tid].text),
                                          base.prompt.doc(pool[neg].text), tid, tid not in q.reference))
    return triples


def batches(triples: Sequence[Triple], size: int, seed: int) -> list[list[Triple]]:
    """Shuffled batches in which no tool is the positive twice (an in-batch duplicate would be a false
    negative); a triple that cannot join the current batch waits for the next."""
    order = list(triples)
    random.Random(seed).shuffle(order)
    out: list[list[Triple]] = []
    pending = order
    while pending:
        batch: list[Triple] = []
        seen: set[str] = set()
        rest = []
        for t in pending:
            if len(batch) < size and t.positive_id not in seen:
                batch.append(t)
                seen.add(t.positive_id)
            else:
                rest.append(t)
        out.append(batch)
        pending = rest
    return [b for b in out if len(b) >= 2]


def _model_dir(settings: FinetuneSettings, key: str) -> Path:
    return paths.artifacts_dir() / "models" / f"{settings.base}-ft-{key}"


def settings_identity(settings: FinetuneSettings, benchmarks: Sequence[Benchmark]) -> dict[str, Any]:
    """What decides a fine-tuned model, the identity its manifest keeps and its folder's key hashes: the
    settings set (an unset optional one is left out, so adding one keeps the models trained before), the
    labels and the data by content, the pool and the trainer's version."""
    chosen = {k: v for k, v in settings.as_dict().items() if v is not None}
    if settings.labels is not None:  # the labels by content, not by where the file lies
        chosen["labels"] = file_sha256(settings.labels)
    chosen["pool"] = pool_identity(list(benchmarks), settings.pool)  # the name, or the smoke pool's tools
    return {"settings": chosen, "data": {b.name: b.checksum for b in benchmarks}, "trainer": TRAINER}


def settings_key(settings: FinetuneSettings, benchmarks: Sequence[Benchmark]) -> str:
    return keys.key_of(settings_identity(settings, benchmarks))


def train(settings: FinetuneSettings, benchmarks: Sequence[Benchmark], out: Path,
          data_dir: str | Path | None = None, progress: bool = False) -> dict[str, Any]:
    """Fine-tune and save the model to ``out`` (written to a sibling folder, then renamed); the manifest."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.losses import MultipleNegativesRankingLoss
    from tqdm.auto import tqdm

    started = time.perf_counter()
    base = build_retriever(f"dense:{settings.base}")
    triples = mine_triples(base, benchmarks, settings, data_dir)
    if not triples:
        raise ValueError("no training triples: the training queries have no C* tool in the pool")
    folder = embedded_model(settings.base)
    random.seed(settings.seed)
    torch.manual_seed(settings.seed)
    model = SentenceTransformer(folder[0] if folder else settings.base, device="cpu")
    reads = model.max_seq_length  # what the base reads at inference; training may read less
    model.max_seq_length = settings.max_length
    loss_fn = MultipleNegativesRankingLoss(model)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    plan = [b for epoch in range(settings.epochs) for b in batches(triples, settings.batch_size,
                                                                  settings.seed + epoch)]
    warmup = max(1, int(settings.warmup * len(plan)))
    decay = len(plan) - warmup + 1
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min((step + 1) / warmup, max(0.0, (len(plan) - step) / decay)))
    tokenize = getattr(model, "preprocess", None) or model.tokenize  # sentence-transformers >= 5.2 renamed it
    model.train()
    losses: list[float | None] = []
    tracker, looped = announced(settings, len(triples), len(plan), out.parent), time.perf_counter()
    for batch in tqdm(plan, desc="fine-tune", disable=not progress, unit="batch"):
        columns = ([t.query for t in batch], [t.positive for t in batch], [t.negative for t in batch])
        features = [{k: v.to(model.device) if isinstance(v, torch.Tensor) else v
                     for k, v in tokenize(list(c)).items()} for c in columns]
        loss = loss_fn(features, None)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        value = float(loss.detach())
        losses.append(round(value, 5) if math.isfinite(value) else None)  # a diverged batch: no JSON number
        tracker.update()
    model.eval()
    model.max_seq_length = reads  # the tuned model reads what its base reads, so only the weights differ
    manifest = _manifest(settings, benchmarks, triples, len(plan), losses, reads, started)
    manifest["training"]["loop_seconds"] = round(time.perf_counter() - looped, 1)
    manifest["versions"]["torch"] = torch.__version__
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")  # hidden: no listing or glob takes it for a model
    shutil.rmtree(tmp, ignore_errors=True)
    model.save(str(tmp))
    write_manifest(tmp, "model", manifest, identity=settings_identity(settings, benchmarks), indent=1)
    publish_folder(tmp, out)
    return manifest


def announced(settings: FinetuneSettings, triples: int, steps: int, models: Path) -> Tracker:
    """Say on stderr, before the first batch, what the training is and how long it should take; the
    :class:`Tracker` of its batches."""
    labels = "one-to-one labels" if settings.labels is None else "ToolEq labels"
    what = f"fine-tune {settings.base} ({labels}, {triples:,} triples)"
    print(f"[toolex] {what}: {steps:,} batches of {settings.batch_size}, "
          f"{expected_duration(settings, steps, models)}", file=sys.stderr, flush=True)
    return Tracker(what, steps, "batches")


def expected_duration(settings: FinetuneSettings, steps: int, models: Path) -> str:
    """What ``steps`` batches should take, said before the first: the median seconds per batch of the
    models in ``models`` trained here with the same base, batch size and token length (their batches alone
    where the manifest records it, else the whole training with its triple mining), or, with none, that the
    first batches will tell."""
    rates: list[tuple[float, bool]] = []
    for path in sorted(models.glob(f"{settings.base}-ft-*/{MANIFEST}")):
        if ".tmp-" in path.parent.name:
            continue  # a model being written (named so before such folders were hidden)
        try:
            made = read_manifest(path.parent)
            chosen, training = made["settings"], made["training"]
            if not (isinstance(chosen, dict) and isinstance(training, dict)):
                continue
            loop = training.get("loop_seconds")
            seconds, steps_made = (loop if loop is not None else made["seconds"]), training["steps"]
            rate = float(seconds) / int(steps_made)
        except (InputError, ValueError, KeyError, TypeError, ZeroDivisionError):
            continue  # a manifest of another layout says nothing here
        if all(chosen.get(k) == getattr(settings, k) for k in ("batch_size", "max_length")) \
                and math.isfinite(rate) and rate > 0:
            rates.append((rate, loop is not None))
    if not rates:
        return "expected duration shown after its first batches (no earlier training here to go by)"
    rate, batches_only = sorted(rates)[(len(rates) - 1) // 2]
    what = "the batches alone" if batches_only else "whole trainings, triple mining included"
    count = "1 earlier training" if len(rates) == 1 else f"the median of {len(rates)} earlier trainings"
    return (f"expected about {duration(rate * steps)} ({rate:.1f} s per batch: {count} here with these batch "
            f"and length settings, {what})")


def _manifest(settings: FinetuneSettings, benchmarks: Sequence[Benchmark], triples: Sequence[Triple],
              steps: int, losses: Sequence[float | None], reads: int | None,
              started: float) -> dict[str, Any]:
    """What a trained model's ``manifest.json`` says: settings, labels, data, training, losses, versions."""
    queries = {t.query_id for t in triples}
    tenth = max(1, len(losses) // 10)
    return {
        "model": f"toolex/{settings.base}-ft", "base": settings.base, "settings": settings.as_dict(),
        "labels": LABELS_ONE_TO_ONE if settings.labels is None else {
            "source": settings.labels, "sha256": file_sha256(settings.labels), "rule": LABELS_TOOLEQ,
            "queries_with_equivalents": len({t.query_id for t in triples if t.equivalent})},
        "reads_tokens": {"training": settings.max_length, "inference": reads},
        "loss": "MultipleNegativesRankingLoss (in-batch negatives + mined hard negatives)",
        "data": {b.name: b.checksum for b in benchmarks},
        "training": {"queries": len(queries), "triples": len(triples), "steps": steps,
                     "per_benchmark": dict(Counter(t.benchmark for t in triples))},
        "held_out": "ToolRet-style subsets: sha256(seed:query id) >= train_fraction; "
                    f"own training split for {sorted(OWN_TRAIN_SPLITS)}",
        "losses": {"first": list(losses[:5]), "last": list(losses[-5:]),
                   "mean_first_tenth": _mean(losses[:tenth]), "mean_last_tenth": _mean(losses[-tenth:])},
        "seconds": round(time.perf_counter() - started, 1),
        "versions": {"toolex": __version__, "torch": None, "sentence_transformers": _st_version()},
    }


def _mean(values: Sequence[float | None]) -> float | None:
    """The mean of the finite losses (None where there is none: JSON has no NaN)."""
    finite = [v for v in values if v is not None]
    return round(sum(finite) / len(finite), 5) if finite else None


def _st_version() -> str:
    import sentence_transformers

    return str(sentence_transformers.__version__)


def ensure_finetuned(settings: FinetuneSettings | None = None, data_dir: str | Path | None = None,
                     progress: bool = False, force: bool = False,
                     loaded: Sequence[Benchmark] | None = None) -> Path:
    """The folder of the model fine-tuned with ``settings`` (default settings when None), trained when
    missing; ``loaded``: the settings' benchmarks when the caller has them already."""
    settings = settings or FinetuneSettings()
    have = {b.name: b for b in loaded or ()}
    benchmarks = [have.get(name) or load_benchmark(name, data_dir) for name in settings.benchmarks]
    out = _model_dir(settings, settings_key(settings, benchmarks))
    restore_aside(out)  # a model a killed publication left aside is this model
    if force or not (out / MANIFEST).exists():
        train(settings, benchmarks, out, data_dir, progress)
    return out


def with_overrides(settings: FinetuneSettings, **overrides: Any) -> FinetuneSettings:
    """``settings`` with the given fields replaced (None values ignored)."""
    return replace(settings, **{k: v for k, v in overrides.items() if v is not None})


_ALIAS = re.compile(rf"(dense|openvino):{re.escape(FINETUNED_ALIAS)}(?=$|\+)", re.IGNORECASE)


def open_retriever(spec: str, data_dir: str | Path | None = None, **options: Any) -> Retriever:
    """The retriever of ``spec``, its fine-tuned aliases resolved (:func:`resolve_spec`), built with
    ``options`` (:func:`toolex.retrieval.build_retriever`): the one way a spec becomes a retriever, so
    ``dense:minilm-ft`` means the same model in every caller."""
    return build_retriever(resolve_spec(spec, data_dir), **options)


def resolve_spec(spec: str, data_dir: str | Path | None = None) -> str:
    """``spec`` with ``dense:minilm-ft`` (also inside ``rrf:...``; ``openvino:minilm-ft`` alike) replaced by
    ``<kind>:<folder>`` of the model fine-tuned with the default settings. It never trains: a missing model is
    an error naming the command that trains it."""
    found = _ALIAS.search(spec)
    if not found:
        return spec
    settings = FinetuneSettings()
    benchmarks = [load_benchmark(name, data_dir) for name in settings.benchmarks]
    folder = _model_dir(settings, settings_key(settings, benchmarks))
    if not (folder / MANIFEST).exists():
        raise InputError(None, f"{found.group(0)} is not trained yet (no {folder}): run `toolex "
                               "finetune` or `make finetune` first")
    return _ALIAS.sub(lambda found: f"{found.group(1)}:{folder}", spec)
