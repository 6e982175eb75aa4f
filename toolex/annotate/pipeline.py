"""ToolEX end to end: decompose (Stage 1), retrieve and verify (Stage 2), combine and audit (Stage 3).

Each stage reads the previous stage's records, writes its artifact file whole, and records a fingerprint of
its inputs and settings in the manifest. A rerun skips every stage whose file and fingerprint are in place and
replays the LLM response cache for the rest, so a killed run repeats no finished call and ends with the same
bytes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from toolex import __version__, keys
from toolex.annotate.combine import RRF_K, audit_combinations
from toolex.annotate.identity import config_fields, stage_key
from toolex.annotate.judges.base import DecomposeItem, Judge
from toolex.annotate.prompts import PROMPT_VERSION
from toolex.annotate.run_folder import (
    ANNOTATIONS,
    COMBINATIONS,
    SUBQUERIES,
    TIMINGS,
    VERIFIED,
    ArtifactFolder,
    write_json,
    write_jsonl,
)
from toolex.annotate.stage_records import AuditedQuery, Decomposition, VerifiedSet
from toolex.annotate.verification import verification_items, verified_sets, with_reference_neighbours
from toolex.data.records import Annotation, Benchmark, Query, Tool
from toolex.data.registry import pool_identity, tool_pools
from toolex.errors import ToolexError
from toolex.io.annotations import write_annotations
from toolex.io.atomic import file_digest
from toolex.io.lock import FolderLock
from toolex.retrieval import build_retriever

STAGE_FILES = {"decompose": SUBQUERIES, "verify": VERIFIED, "audit": COMBINATIONS}
STAGE_INPUTS = {"verify": SUBQUERIES, "audit": VERIFIED}  # the artifact each later stage reads


class FolderHoldsAnotherRun(ToolexError, RuntimeError):
    """The output folder holds the artifacts of another sample, benchmark or settings."""


#: Combinations audited per query at most: the whole product of a two-tool query's verified sets,
#: ``(20 + 1)² − 1``, as the paper audits each combination; a query of three or more tools is cut there (its
#: best by RRF).
MAX_COMBINATIONS = (20 + 1) ** 2 - 1


@dataclass(frozen=True)
class AnnotateConfig:
    """Settings of a run; ``top_k`` candidates per sub-query (paper: 20), at most ``max_combinations`` audited
    combinations per query (:data:`MAX_COMBINATIONS`), candidates from the ``pool`` (``subset``, ``category``
    ``all``; ``smoke``, the smoke setting's). ``reference_k`` > 0 adds, after a sub-query's top-K, those of
    the reference tool's ``reference_k`` nearest tools of the pool (by its own documentation) that the
    sub-query did not retrieve (0, the default: the paper's Stage 2, sub-query retrieval only)."""

    retriever: str = "dense:mpnet"
    pool: str = "all"
    top_k: int = 20
    max_combinations: int = MAX_COMBINATIONS
    rrf_k: int = RRF_K
    reference_k: int = 0


class ToolEX:
    """Runs the three stages over benchmarks into an artifact folder."""

    def __init__(self, benchmarks: Sequence[Benchmark], judge: Judge, out_dir: str | Path,
                 config: AnnotateConfig = AnnotateConfig(), retriever: Any = None, progress: bool = True,
                 queries: Sequence[Query] | None = None, refuse_other: bool = False) -> None:
        """``refuse_other``: :meth:`run` refuses a folder holding another run's artifacts (else it redoes
        the stages whose inputs or settings changed)."""
        self.benchmarks, self.judge, self.config = list(benchmarks), judge, config
        self.refuse_other = refuse_other
        self._redo = False  # a stage was computed in this run: every later stage is computed too
        self.folder = ArtifactFolder(out_dir)
        self.progress = progress
        self.pools = tool_pools(self.benchmarks, config.pool)
        self.tools: dict[str, Tool] = {}
        for pool in self.pools.values():
            self.tools.update(pool)
        self.queries = list(queries) if queries is not None else [q for b in self.benchmarks
                                                                  for q in b.queries]
        self.bench_of = {q.id: b.name for b in self.benchmarks for q in b.queries}
        self._retriever = retriever
        self.timings: dict[str, float] = {}

    # -- bookkeeping -------------------------------------------------------------------------------------
    @cached_property
    def data_fingerprint(self) -> str:
        return keys.key([b.checksum for b in self.benchmarks], [q.id for q in self.queries],
                        pool_identity(self.benchmarks, self.config.pool))

    def _stage_key(self, stage: str) -> str:
        """Data, the judge's own settings for this stage, the config fields of this stage and the stage's
        code version (:func:`toolex.annotate.identity.stage_key`)."""
        return stage_key(self.data_fingerprint, self.judge, stage, self.config)

    def _input_digest(self, stage: str) -> dict[str, Any] | None:
        name = STAGE_INPUTS.get(stage)
        return file_digest(self.folder.path(name)) if name and self.folder.path(name).exists() else None

    def _done(self, stage: str, filename: str) -> bool:
        """A stage is skipped only when its settings key, its input artifact's digest, its own artifact's line
        count and sha256 match the manifest, no earlier stage was recomputed in this run, and it recorded no
        failure (failures are asked again: answers come from the LLM cache)."""
        info = self.folder.manifest().get("stages", {}).get(stage, {})
        path = self.folder.path(filename)
        if (self._redo or not path.exists() or info.get("key") != self._stage_key(stage)
                or info.get("failures")):
            return False
        if info.get("input") != self._input_digest(stage):
            return False
        return info.get("artifact") == file_digest(path)

    def _mark(self, stage: str, **info: Any) -> None:
        self._redo = True
        manifest = self.folder.manifest()
        artifact = file_digest(self.folder.path(STAGE_FILES[stage]))
        manifest.setdefault("stages", {})[stage] = {"key": self._stage_key(stage), **info,
                                                    "input": self._input_digest(stage), "artifact": artifact}
        self.folder.write_manifest(manifest, complete=False)

    def _timed(self, stage: str, seconds: float) -> None:
        """Record a stage's time in ``timings.json`` (kept apart from the manifest; skipped stages keep
        theirs)."""
        self.timings[stage] = seconds
        timings = {**self.folder.timings(), stage: round(seconds, 3)}
        write_json(self.folder.path(TIMINGS), timings)

    def _adopt_legacy_keys(self) -> None:
        """A manifest written with the earlier 16-character keys: each stage key that still holds in that
        format is rewritten in today's, with a message (one that does not hold is left as it is, so its
        stage is redone, or refused as another run's)."""
        manifest = self.folder.manifest()
        recorded = manifest.get("data_fingerprint")
        if not (isinstance(recorded, str) and keys.is_legacy_of(recorded, self.data_fingerprint)):
            return
        stages = {s: info for s, info in manifest.get("stages", {}).items() if s in STAGE_FILES}
        held = [s for s, info in stages.items() if keys.is_legacy_of(
            str(info.get("key")), stage_key(recorded, self.judge, s, self.config, former=True))]
        for stage in held:
            stages[stage]["key"] = self._stage_key(stage)
        manifest["data_fingerprint"] = self.data_fingerprint
        self.folder.write_manifest(manifest, complete=self.folder.complete())
        print(f"[toolex] {self.folder.folder}: data fingerprint and {len(held)} of {len(stages)} stage keys "
              f"rewritten in the {keys.KEY_LENGTH}-character format", file=sys.stderr)

    def _check_same_run(self) -> None:
        """Raise :class:`FolderHoldsAnotherRun` when the folder's manifest describes another run."""
        manifest = self.folder.manifest()
        recorded = manifest.get("data_fingerprint")
        if recorded is not None and recorded != self.data_fingerprint:
            differs = "queries or benchmark data"
        else:
            stages = [s for s, info in manifest.get("stages", {}).items()
                      if s in STAGE_FILES and info.get("key") != self._stage_key(s)]
            if not stages:
                return
            differs = f"settings of stage {stages[0]!r}"
        raise FolderHoldsAnotherRun(f"{self.folder.folder}: holds another annotation run (its {differs} "
                                    "differ); "
                                    "choose another --out, or --force to replace it")

    def _health_check(self) -> None:
        """Before any stage that still has work: fail fast when the judge's LLM endpoint cannot be reached."""
        clients = dict(getattr(self.judge, "clients", None) or {})
        single = getattr(self.judge, "client", None)
        checked: set[int] = set()
        for stage in [s for s, f in STAGE_FILES.items() if not self._done(s, f)]:
            client = clients.get(stage, single)
            if client is not None and id(client) not in checked and hasattr(client, "health_check"):
                checked.add(id(client))
                client.health_check()

    @property
    def retriever(self) -> Any:
        if self._retriever is None:
            self._retriever = build_retriever(self.config.retriever, progress=self.progress)
        return self._retriever

    # -- Stage 1 -----------------------------------------------------------------------------------------
    def decompose(self) -> list[Decomposition]:
        if self._done("decompose", SUBQUERIES):
            return self.folder.decompositions()
        start = time.perf_counter()
        items = [DecomposeItem(q, tuple(self.tools[t] for t in q.reference)) for q in self.queries]
        out = self.judge.decompose(items)
        write_jsonl(self.folder.path(SUBQUERIES), (d.to_json() for d in out))
        self._timed("decompose", time.perf_counter() - start)
        self._mark("decompose", failures=sum(not d.ok for d in out))
        return out

    # -- Stage 2 -----------------------------------------------------------------------------------------
    def retrieve_candidates(self, decompositions: Sequence[Decomposition]) -> dict[tuple[str, int],
                                                                                   list[tuple[str, float]]]:
        """Top-K tools of the pool for every sub-query (pools differ per benchmark unless ``pool=all``), then,
        with ``reference_k``, the reference tool's nearest tools that the sub-query did not retrieve
        (:func:`~toolex.annotate.verification.with_reference_neighbours`)."""
        by_pool: dict[int, list[tuple[str, int, str, str]]] = {}
        pool_of: dict[int, dict[str, Tool]] = {}
        for d in decompositions:
            if not d.ok:
                continue
            pool = self.pools[self.bench_of[d.query_id]]
            pool_of[id(pool)] = pool
            by_pool.setdefault(id(pool), []).extend((d.query_id, s.index, s.text, s.reference_tool)
                                                    for s in d.subqueries)
        hits: dict[tuple[str, int], list[tuple[str, float]]] = {}
        reference_k = self.config.reference_k
        for key, entries in by_pool.items():
            retriever = self.retriever
            retriever.index(pool_of[key])
            found = retriever.search([text for _, _, text, _ in entries], k=self.config.top_k)
            near: list[list[tuple[str, float]]] = [[] for _ in entries]
            if reference_k > 0:  # one more: the reference itself is usually its own nearest tool
                near = retriever.search([self.tools[ref].text for *_, ref in entries], k=reference_k + 1)
            for (qid, index, _, ref), ranking, neighbours in zip(entries, found, near):
                hits[(qid, index)] = with_reference_neighbours(ranking, neighbours, ref, reference_k)
        return hits

    def verify(self, decompositions: Sequence[Decomposition]) -> list[VerifiedSet]:
        if self._done("verify", VERIFIED):
            return self.folder.verified_sets()
        start = time.perf_counter()
        hits = self.retrieve_candidates(decompositions)
        items, slots = verification_items(decompositions, hits, self.tools, self.bench_of)
        out = verified_sets(decompositions, hits, slots, self.judge.verify(items))
        write_jsonl(self.folder.path(VERIFIED), (v.to_json() for v in out))
        self._timed("verify", time.perf_counter() - start)
        self._mark("verify", judged=len(items),
                   failures=sum(not c.verdict.ok for v in out for c in v.candidates))
        return out

    # -- Stage 3 -----------------------------------------------------------------------------------------
    def combine(self, decompositions: Sequence[Decomposition],
                verified: Sequence[VerifiedSet]) -> list[AuditedQuery]:
        if self._done("audit", COMBINATIONS):
            return self.folder.audited()
        start = time.perf_counter()
        out, audited = audit_combinations(self.queries, decompositions, verified, self.tools,
                                          self.judge.audit, self.config.max_combinations, self.config.rrf_k)
        write_jsonl(self.folder.path(COMBINATIONS), (a.to_json() for a in out))
        self._timed("audit", time.perf_counter() - start)
        self._mark("audit", audited=audited,
                   failures=sum(not c.verdict.ok for a in out for c in a.combinations))
        return out

    # -- export and manifest -----------------------------------------------------------------------------
    def export(self, audited: Sequence[AuditedQuery]) -> list[Annotation]:
        annotations = [Annotation(a.query_id, a.category, a.reference, tuple(a.valid)) for a in audited]
        write_annotations(annotations, self.folder.path(ANNOTATIONS))
        return annotations

    def run(self) -> list[Annotation]:
        """All stages under an exclusive lock of the folder; see :meth:`_done` for what a rerun skips."""
        if self.folder.folder.exists() and not self.folder.folder.is_dir():
            raise FolderHoldsAnotherRun(f"{self.folder.folder}: exists and is not a folder")
        with FolderLock(self.folder.folder):
            self._redo = False
            self._adopt_legacy_keys()
            if self.refuse_other:
                self._check_same_run()
            self._health_check()
            decompositions = self.decompose()
            verified = self.verify(decompositions)
            audited = self.combine(decompositions, verified)
            annotations = self.export(audited)
            manifest = self.write_manifest()
            manifest.setdefault("artifacts", {})[ANNOTATIONS] = file_digest(self.folder.path(ANNOTATIONS))
            self.folder.write_manifest(manifest, complete=True)
        return annotations

    def write_manifest(self) -> dict[str, Any]:
        manifest = self.folder.manifest()
        retriever = (self._retriever.settings() if self._retriever is not None
                     else {"spec": self.config.retriever})
        manifest.update({
            "toolex_version": __version__,
            "benchmarks": [{"name": b.name, "checksum": b.checksum, "queries": len(b.queries),
                            "tools": len(b.tools)} for b in self.benchmarks],
            "queries": len(self.queries),
            "data_fingerprint": self.data_fingerprint,
            "config": config_fields(self.config),
            "retriever": retriever,
            "judge": self.judge.describe(),
            "prompt_version": PROMPT_VERSION,
            "ledger": self.judge.usage(),
            "files": [SUBQUERIES, VERIFIED, COMBINATIONS, ANNOTATIONS],
            # what decides the folder's content: its data and each stage's key (judge settings, config
            # fields, code version), the manifest envelope's identity
            "identity": {"data": self.data_fingerprint,
                         "stages": {stage: self._stage_key(stage) for stage in STAGE_FILES}},
        })
        judge = manifest["judge"]  # an LLM judge: each stage's model and prompt, cuts made to fit its context
        manifest.update({k: judge[k] for k in ("models", "prompt_versions", "audit_dependency")
                         if k in judge})
        # a verification skipped in this run placed no threshold: keep where the run that made it placed them
        previous = self.folder.manifest().get("ledger", {})
        if "operating_point" in previous and "operating_point" not in manifest["ledger"]:
            manifest["ledger"]["operating_point"] = previous["operating_point"]
        # a stage skipped in this run rendered no prompt: keep its counts
        if "truncation" in manifest["ledger"]:
            manifest["truncation"] = {s: t if t["prompts"] or s not in manifest.get("truncation", {})
                                      else manifest["truncation"][s]
                                      for s, t in manifest["ledger"]["truncation"].items()}
        self.folder.write_manifest(manifest, complete=False)
        return manifest
