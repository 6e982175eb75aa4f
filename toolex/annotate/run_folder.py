"""The artifact folder of an annotation run: one JSON-lines file per stage, the export and a manifest.

| file                          | holds                                                             |
|-------------------------------|-------------------------------------------------------------------|
| ``subqueries.jsonl``          | Stage 1: one decomposition per query                              |
| ``verified.jsonl``            | Stage 2: one line per sub-query, candidates with verdicts         |
| ``query_combo_verified.jsonl``| Stage 3: the audited combinations of each query, with rationales  |
| ``annotations.jsonl``         | the export read by ``toolex evaluate``                            |
| ``manifest.json``             | benchmark checksum, retriever, judge, prompts, version, ledger,   |
|                               | and each stage artifact's line count and sha256                   |
| ``timings.json``              | seconds per stage (kept apart: they differ from run to run)       |

Files are written whole and atomically (a unique temporary file, fsync, then a rename), in benchmark order, so
that a rerun from the caches gives byte-identical files (every file but ``timings.json``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolex.annotate.judges.scoring import identity_label
from toolex.annotate.stage_records import AuditedQuery, Decomposition, VerifiedSet
from toolex.data.readers import iter_jsonl
from toolex.errors import InputError
from toolex.io import atomic
from toolex.io.artifact import read_manifest, write_manifest

SUBQUERIES = "subqueries.jsonl"
VERIFIED = "verified.jsonl"
COMBINATIONS = "query_combo_verified.jsonl"
ANNOTATIONS = "annotations.jsonl"
TIMINGS = "timings.json"


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    """JSON lines, written atomically (unique temporary file, fsync, rename)."""
    return atomic.write_jsonl(path, records)


def write_json(path: Path, record: dict[str, Any]) -> Path:
    """One indented JSON document, written atomically."""
    return atomic.write_json(path, record, indent=2)


class ArtifactFolder:
    """Reads and writes the artifacts of one annotation run."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self._warned = False

    def path(self, name: str) -> Path:
        return self.folder / name

    def manifest(self) -> dict[str, Any]:
        """The manifest (:func:`toolex.io.artifact.read_manifest`): ``{}`` when there is none yet, and when it
        is unreadable, said once on stderr: the stages it would vouch for are then redone (from the LLM
        cache), never trusted."""
        try:
            return read_manifest(self.folder)
        except InputError as exc:
            if not self._warned:
                self._warned = True
                print(f"[toolex] {exc}; its stages are checked again and redone", file=sys.stderr)
            return {}

    def complete(self) -> bool:
        """Whether the folder holds a finished run: its manifest lists its files and is not ``partial`` (one
        written before the status existed counts by its files), and the export exists."""
        manifest = self.manifest()
        return (bool(manifest.get("files")) and manifest.get("status", "complete") == "complete"
                and self.annotations_path().exists())

    def write_manifest(self, manifest: dict[str, Any], complete: bool) -> None:
        """Write the manifest atomically with the envelope of every artifact (kind ``annotations``; status
        ``partial`` while stages run, ``complete`` once the export is written)."""
        write_manifest(self.folder, "annotations", manifest, "complete" if complete else "partial")

    def judge(self) -> str:
        """The judge that made these annotations, as its manifest names it (with the key of its score model's
        identity and its threshold, for the offline judge), or ``"not recorded"``."""
        judge = self.manifest().get("judge")
        if not isinstance(judge, dict) or not judge.get("name"):
            return "not recorded"
        model = judge.get("score_model")
        return f"{judge['name']}, {identity_label(model)}" if isinstance(model, dict) else str(judge["name"])

    def timings(self) -> dict[str, float]:
        """Seconds per stage of the runs so far (``{}`` when missing or unreadable)."""
        try:
            data = json.loads(self.path(TIMINGS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def decompositions(self) -> list[Decomposition]:
        return [Decomposition.from_json(r) for r in iter_jsonl(self.path(SUBQUERIES))]

    def verified_sets(self) -> list[VerifiedSet]:
        return [VerifiedSet.from_json(r) for r in iter_jsonl(self.path(VERIFIED))]

    def audited(self) -> list[AuditedQuery]:
        return [AuditedQuery.from_json(r) for r in iter_jsonl(self.path(COMBINATIONS))]

    def annotations_path(self) -> Path:
        return self.path(ANNOTATIONS)
