"""MiniLM fine-tuned on one-to-one labels (:mod:`toolex.experiments.finetune`) beside other retrievers, scored
on the held-out queries only (none of them trained it), under one-to-one and ToolEq: our own base /
fine-tuned pair of Figure 3 (and the pair trained on ToolEq labels) and the held-out rows of Table 2."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from toolex.experiments.finetune import FinetuneSettings, ensure_finetuned, evaluation_queries
from toolex.experiments.settings import ReportSettings
from toolex.experiments.workspace import ensure_run
from toolex.io.artifact import read_manifest
from toolex.report.context import Analysis
from toolex.report.table2 import evaluate_runs

BASE = "dense:minilm"
TUNED = "dense:minilm-ft"
#: The same fine-tuning on the ToolEq labels of the analysis's annotations (:func:`tooleq_settings`).
TUNED_TOOLEQ = "dense:minilm-ft-tooleq"
#: The smoke setting's fine-tuning: 24 training queries per benchmark, short texts, small batches (about
#: 25 s on 2 cores); the full setting trains with the defaults of :class:`FinetuneSettings`.
SMOKE_FINETUNE: dict[str, Any] = {"own_train": 24, "max_train_queries": 24, "batch_size": 16,
                                  "max_length": 64}


@dataclass
class HeldOut:
    """Long-form scores of retrievers and of the fine-tuned model on the held-out queries, and the model."""

    retrievers: list[str]
    tuned: str
    model: Path
    manifest: dict[str, Any]
    scores: pd.DataFrame
    held_out: int

    @property
    def base(self) -> str:
        """The first retriever: the fine-tuned model's base in :func:`own_pair`."""
        return self.retrievers[0]

    def describe(self) -> str:
        training = self.manifest["training"]
        labels = "one-to-one" if isinstance(self.manifest.get("labels"), str) else "ToolEq"
        return (f"{self.tuned} = {self.manifest['base']} fine-tuned on {labels} labels of "
                f"{training['queries']} training queries ({training['triples']} triples, {training['steps']} "
                f"steps; model {self.model.name}); scored on {self.held_out} held-out queries")


def finetune_settings(settings: ReportSettings) -> FinetuneSettings:
    """The fine-tuning that belongs to an analysis: trained on the analysis's benchmarks (their training
    part), with :data:`SMOKE_FINETUNE` in the smoke setting."""
    extra: dict[str, Any] = SMOKE_FINETUNE if settings.smoke else {}
    return FinetuneSettings(benchmarks=tuple(settings.benchmarks), seed=settings.seed, pool=settings.pool,
                            **extra)


def tooleq_settings(analysis: Analysis) -> FinetuneSettings:
    """The analysis's fine-tuning on the ToolEq labels of its own annotations: every tool of a valid
    combination is a positive (training queries the annotations lack, ToolLens's own training split, keep
    C*)."""
    labels = analysis.annotated.folder.annotations_path()
    return replace(finetune_settings(analysis.settings), labels=str(labels))


def held_out_scores(analysis: Analysis, retrievers: Sequence[str], settings: FinetuneSettings | None = None,
                    progress: bool = False, name: str = TUNED) -> HeldOut:
    """Fine-tune (or reuse) the model, then score ``retrievers`` and the fine-tuned model (as ``name``) on
    the analysis's queries that did not train it, under one-to-one and ToolEq."""
    settings = settings or finetune_settings(analysis.settings)
    workspace = analysis.workspace
    folder = ensure_finetuned(settings, progress=progress, loaded=workspace.benchmarks)
    held = {q.id for b in workspace.benchmarks for q in evaluation_queries(b, settings)}
    held &= {q.id for q in workspace.queries}
    specs = {**{r: r for r in retrievers}, name: f"dense:{folder}"}
    runs = {system: {q: ranking for q, ranking in ensure_run(spec, workspace).items() if q in held}
            for system, spec in specs.items()}
    annotations = [a for a in analysis.annotated.annotations if a.query_id in held]
    scores = evaluate_runs(runs, annotations, analysis.settings.k, workspace.subset_of)
    return HeldOut(list(retrievers), name, folder, read_manifest(folder, required=True), scores, len(held))


def pair_scores(analysis: Analysis, base: str, tuned: str) -> pd.DataFrame:
    """Long-form scores of a configured (base, fine-tuned) pair of retriever specs on every query of the
    analysis, at the analysis's cut-off."""
    runs = {spec: ensure_run(spec, analysis.workspace) for spec in (base, tuned)}
    workspace = analysis.workspace
    return evaluate_runs(runs, analysis.annotated.annotations, analysis.settings.k, workspace.subset_of)


def own_pair(analysis: Analysis, settings: FinetuneSettings | None = None, base: str = BASE,
             progress: bool = False) -> HeldOut:
    """The base / fine-tuned pair of Figure 3, on the held-out queries."""
    return held_out_scores(analysis, [base], settings, progress)
