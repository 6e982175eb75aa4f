"""Cached inputs of the notebooks: annotation artifacts and retrieval runs, computed when missing.

Everything lives under :func:`toolex.paths.artifacts_dir`, keyed by a fingerprint of what determines it (data
checksums, query ids, judge, retriever, pool), so a second notebook or a second ``make paper`` reuses it.

| helper                 | writes                                                                   |
|------------------------|--------------------------------------------------------------------------|
| :func:`ensure_annotations` | ``annotations/<judge>-<key>/`` (the ToolEX artifact folder)          |
| :func:`ensure_toolex`      | ``annotations/<label>-<key>/`` (any queries, settings and judge)     |
| :func:`ensure_run`         | ``runs/report/<retriever>.<pool>.<key>.trec`` (query level, top 100) |
| :func:`ensure_subquery_run`| ``runs/report/<retriever>.subquery.<key>.trec`` (oracle sub-queries) |
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from toolex import __version__, keys, paths
from toolex.annotate.identity import (
    annotation_key,
    config_fields,
    former_settings,
    judge_identity,
    offline_identity,
)
from toolex.annotate.judges import build_judge
from toolex.annotate.judges.scoring import default_model
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.annotate.run_folder import ArtifactFolder
from toolex.data import load_benchmarks, tool_pools
from toolex.data.checksum import combine_checksums
from toolex.data.records import Annotation, Benchmark, Query, Tool, one_to_one
from toolex.data.registry import pool_identity
from toolex.errors import ToolexError
from toolex.experiments import release
from toolex.experiments.finetune import open_retriever
from toolex.experiments.listing import describe_run
from toolex.experiments.settings import ReportSettings, flag
from toolex.io.annotations import read_annotations
from toolex.io.trec import Run, read_run, write_run
from toolex.retrieval import SUBQUERY_K, over_pools, retrieve_over_pools, subquery_retrieve

_RETRIEVERS: dict[str, Any] = {}


def retriever(spec: str) -> Any:
    """One retriever per spec per process (models load once)."""
    if spec not in _RETRIEVERS:
        _RETRIEVERS[spec] = open_retriever(spec)
    return _RETRIEVERS[spec]


@dataclass
class Workspace:
    """The loaded benchmarks (full tool pools), the sampled queries and the settings they came from."""

    settings: ReportSettings
    benchmarks: list[Benchmark]
    queries: list[Query]

    @classmethod
    def load(cls, settings: ReportSettings) -> Workspace:
        benchmarks = load_benchmarks(list(settings.benchmarks))
        queries = [q for b in benchmarks for q in b.sample(settings.sample, settings.seed).queries]
        return cls(settings, benchmarks, queries)

    @cached_property
    def subset_of(self) -> dict[str, str]:
        """Query id to benchmark name (the ToolRet subset, or ``toollens``)."""
        return {q.id: b.name for b in self.benchmarks for q in b.queries}

    @cached_property
    def query(self) -> dict[str, Query]:
        return {q.id: q for q in self.queries}

    @cached_property
    def tools(self) -> dict[str, Tool]:
        out: dict[str, Tool] = {}
        for b in self.benchmarks:
            out.update(b.tools)
        return out

    @property
    def data_checksum(self) -> str:
        return combine_checksums(b.checksum for b in self.benchmarks)

    @cached_property
    def key(self) -> str:
        """Data and queries; a pool the benchmarks' checksums do not decide (``smoke``) adds its tools."""
        parts: list[Any] = [sorted(b.checksum for b in self.benchmarks), [q.id for q in self.queries]]
        if self.settings.pool == "smoke":
            parts.append(pool_identity(self.benchmarks, self.settings.pool))
        return keys.key(*parts)

    def one_to_one(self) -> list[Annotation]:
        keep = set(self.query)
        return [a for b in self.benchmarks for a in one_to_one(b) if a.query_id in keep]

    def describe(self) -> str:
        """``toolret/apibank+… (N queries[, sample n per benchmark], data sha256 abcd1234)``."""
        sample = f", sample {self.settings.sample}/benchmark" if self.settings.sample else ""
        return (f"{'+'.join(b.name for b in self.benchmarks)} ({len(self.queries)} queries{sample}, "
                f"data sha256 {self.data_checksum[:8]})")


@dataclass
class Annotated:
    """A finished ToolEX artifact folder and what the notebooks read from it."""

    folder: ArtifactFolder
    judge_name: str

    @cached_property
    def annotations(self) -> list[Annotation]:
        return read_annotations(self.folder.annotations_path())

    @cached_property
    def decompositions(self) -> list:
        return self.folder.decompositions()

    @cached_property
    def verified_sets(self) -> list:
        return self.folder.verified_sets()

    @cached_property
    def audited(self) -> list:
        return self.folder.audited()

    def subqueries(self) -> dict[str, list[str]]:
        """The oracle sub-queries of Stage 1 by query id (failed decompositions have none)."""
        return {d.query_id: [s.text for s in d.subqueries] if d.ok else [] for d in self.decompositions}


def _judge_key(kind: str, config: Any, judge: Any = None) -> dict[str, Any]:
    """What decides a judge's outputs, for the folder key, from the judge's own settings
    (:mod:`toolex.annotate.identity`): a built ``judge`` as given; an LLM judge ``kind`` is built (no call is
    made); the offline judge is keyed by its score model and encoder spec, without loading the encoder."""

    if judge is not None:
        return judge_identity(judge)
    if kind == "offline":
        return offline_identity(default_model(), config.retriever)

    return judge_identity(build_judge(kind, progress=False))


def toolex_folder(label: str, key: Any, config: Any, kind: str, judge: Any = None,
                  ) -> tuple[ArtifactFolder, dict[str, Any]]:
    """The folder ``annotations/<label>-<fingerprint>`` that :func:`ensure_toolex` uses, and the judge
    identity in its key; nothing is computed."""
    identity = _judge_key(kind, config, judge)
    folder = ArtifactFolder(paths.artifacts_dir() / "annotations"
                            / f"{label}-{annotation_key(key, identity, config, __version__)}")
    return folder, identity


def ensure_toolex(label: str, key: Any, benchmarks: Sequence[Benchmark], queries: Sequence[Query],
                  config: Any,
                  kind: str, progress: bool = False, judge: Any = None) -> ArtifactFolder:
    """The ToolEX artifact folder ``annotations/<label>-<fingerprint>`` of ``queries`` with a judge ``kind``
    (or the built ``judge``), reused when complete, else unpacked from the ToolEq release when the release
    holds this very folder (:mod:`toolex.experiments.release`; not with ``TOOLEX_FROM_SCRATCH=1``), else
    computed; the fingerprint covers ``key``, every stage's judge settings, ``config``, the stages' code
    versions and the package version (:func:`toolex.annotate.identity.annotation_key`), so a folder made with
    other settings is never reused."""

    if judge is None and kind != "offline":
        judge = build_judge(kind, progress=progress)  # cheap for an LLM judge: its key comes from it
    folder, identity = toolex_folder(label, key, config, kind, judge)
    _adopt_former(folder, label, annotation_key(key, former_settings(identity), config, __version__))
    if not folder.complete() and not flag(os.environ.get(release.FROM_SCRATCH_ENV)):
        _from_release(folder)
    if not folder.complete():
        embedder = retriever(config.retriever)
        judge = judge or build_judge(kind, embedder=embedder, progress=progress)
        ToolEX(benchmarks, judge, folder.folder, config, retriever=embedder, progress=progress,
               queries=queries).run()
    return folder


def _adopt_former(folder: ArtifactFolder, label: str, former_key: str) -> None:
    """Rename the folder an LLM judge's annotations had before content keys had one length (its prompt
    versions then carried 8-character hashes) to today's name, with a message."""
    former = folder.folder.with_name(f"{label}-{former_key}")
    if former != folder.folder and former.is_dir() and not folder.folder.exists():
        keys.rename_former(former, folder.folder)


def _from_release(folder: ArtifactFolder) -> None:
    """Unpack the release that holds that very folder (:func:`toolex.experiments.release.holding`) into
    ``folder``; a damaged release is reported and the folder computed instead."""
    kept = release.holding(folder.folder.name)
    if kept is None:
        return
    try:
        if release.restore(kept, folder.folder):
            print(f"[toolex] annotations {folder.folder.name} unpacked from the release "
                  f"{paths.portable(kept)} (TOOLEX_FROM_SCRATCH=1 recomputes them)", file=sys.stderr)
    except ToolexError as exc:
        print(f"[toolex] the release {paths.portable(kept)} is damaged ({exc}); computing "
              f"{folder.folder.name} instead", file=sys.stderr)


def default_folder(settings: ReportSettings | None = None, kind: str = "offline",
                   ) -> tuple[ArtifactFolder, dict[str, str], Workspace]:
    """The annotation folder of a setting (default: the default setting) with a judge ``kind``, its key
    parts (:func:`toolex.experiments.release.key_parts`) and the workspace; nothing is computed."""
    settings = settings or ReportSettings.make(judge=kind)
    workspace = Workspace.load(settings)
    config = AnnotateConfig(pool=settings.pool)
    folder, identity = toolex_folder(keys.slug(kind), workspace.key, config, kind)
    parts = release.key_parts(workspace.key, identity, config_fields(config))
    return folder, parts, workspace


def ensure_annotations(workspace: Workspace, judge_kind: str | None = None,
                       progress: bool = False) -> Annotated:
    """The ToolEX artifacts of the workspace's queries with a judge, reused when present, else computed."""

    kind = judge_kind or workspace.settings.judge
    folder = ensure_toolex(keys.slug(kind), workspace.key, workspace.benchmarks, workspace.queries,
                           AnnotateConfig(pool=workspace.settings.pool), kind, progress)
    return Annotated(folder, folder.manifest().get("judge", {}).get("name", kind))


def _run_path(spec: str, kind: str, key: str) -> Path:
    return paths.artifacts_dir() / "runs" / "report" / f"{keys.slug(spec)}.{kind}.{key}.trec"


def run_path(spec: str, workspace: Workspace, depth: int = 100) -> Path:
    """Where :func:`ensure_run` keeps the query-level run of ``spec`` over the workspace's queries."""
    pool = workspace.settings.pool
    return _run_path(spec, pool, keys.key(workspace.key, spec, pool, depth))


def runs_cached(specs: Sequence[str], workspace: Workspace) -> bool:
    """Whether every query-level run of ``specs`` over the workspace is on disk (nothing to encode)."""
    return all(run_path(spec, workspace).exists() for spec in specs)


def ensure_run(spec: str, workspace: Workspace, depth: int = 100) -> Run:
    """The query-level run (top ``depth``, instructions applied) of a retriever over the workspace's
    queries."""

    pool = workspace.settings.pool
    path = run_path(spec, workspace, depth)
    if path.exists():
        return read_run(path)
    pools = tool_pools(workspace.benchmarks, pool)
    run = retrieve_over_pools(retriever(spec), [
        (pools[bench.name], [q for q in workspace.queries if workspace.subset_of[q.id] == bench.name])
        for bench in workspace.benchmarks], k=depth)
    write_run(run, path, tag=keys.slug(spec))
    describe_run(path, {"retriever": spec, "workspace": workspace.describe(), "pool": pool,
                        "level": f"query level, top {depth}"})
    return run


def ensure_subquery_run(spec: str, workspace: Workspace, annotated: Annotated, k: int = SUBQUERY_K,
                        instructions: bool = False) -> Run:
    """Sub-query level run: each oracle sub-query of Stage 1 retrieves its top ``k``, merged by RRF.

    Sub-queries are searched as they are (``instructions=False``, the texts Stage 2 already encoded, so a
    dense retriever reuses their cached vectors); ``instructions=True`` prefixes each with its query's
    instruction. A query whose decomposition failed has no sub-queries: it is left out of the run, so the
    evaluation scores it 0 and counts it in ``missing_from_run`` (flagged), rather than scoring an empty
    ranking as retrieved.
    """

    subs = annotated.subqueries()
    pool = workspace.settings.pool
    path = _run_path(spec, "subquery", keys.key(workspace.key, spec, pool, k, subs, instructions))
    if path.exists():
        run = read_run(path)
        return {q.id: run.get(q.id, {}) for q in workspace.queries if subs.get(q.id)}
    model = retriever(spec)
    pools = tool_pools(workspace.benchmarks, pool)

    def search(ids: list[str]) -> Run:
        given = {q: workspace.query[q].instruction for q in ids} if instructions else None
        return subquery_retrieve(model, {q: subs[q] for q in ids if subs.get(q)}, k=k, instructions=given)

    run = over_pools(model, [
        (pools[bench.name], [q.id for q in workspace.queries if workspace.subset_of[q.id] == bench.name])
        for bench in workspace.benchmarks], search)
    write_run(run, path, tag=keys.slug(spec) + "-subquery")
    describe_run(path, {"retriever": spec, "workspace": workspace.describe(), "pool": pool,
                        "level": f"oracle sub-queries of {annotated.folder.folder.name}, top {k} each, RRF"
                                 + (", instructions prefixed" if instructions else "")})
    return run


def ensure_runs(specs: Sequence[str], workspace: Workspace) -> dict[str, Run]:
    return {spec: ensure_run(spec, workspace) for spec in specs}


def benchmark_runs(benchmark: Benchmark, specs: Sequence[str]) -> dict[str, Run]:
    """The cached runs of ``specs`` over every query of one loaded benchmark (its own pool)."""
    workspace = Workspace(ReportSettings.make([benchmark.name], specs), [benchmark], list(benchmark.queries))
    return ensure_runs(list(specs), workspace)
