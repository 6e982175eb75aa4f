"""The artifact folder of an annotation run: one JSON-lines file per stage, the export and a manifest.

| file                          | holds                                                             |
|-------------------------------|-------------------------------------------------------------------|
| ``subqueries.jsonl``          | Stage 1: one decomposition per query                              |
| ``verified.jsonl``            | Stage 2: one line per sub-query, candidates with verdicts         |
| ``query_combo_verified.jsonl``| Stage 3: the audited combinations of each query, with rationales  |
| ``annotations.jsonl``         | the export read by ``toolex evaluate``                            |
| ``manifest.json``             | benchmark checksum, retriever, judge, prompts, version, ledger    |

Files are written whole and atomically (a temporary file, then a rename), in benchmark order, so that a rerun
from the caches gives byte-identical files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolex.annotate.records import AuditedQuery, Decomposition, VerifiedSet
from toolex.data.readers import iter_jsonl

SUBQUERIES = "subqueries.jsonl"
VERIFIED = "verified.jsonl"
COMBINATIONS = "query_combo_verified.jsonl"
ANNOTATIONS = "annotations.jsonl"
MANIFEST = "manifest.json"


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)
    return path


def write_json(path: Path, record: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


class ArtifactFolder:
    """Reads and writes the artifacts of one annotation run."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def path(self, name: str) -> Path:
        return self.folder / name

    def manifest(self) -> dict[str, Any]:
        path = self.path(MANIFEST)
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def decompositions(self) -> list[Decomposition]:
        return [Decomposition.from_json(r) for r in iter_jsonl(self.path(SUBQUERIES))]

    def verified_sets(self) -> list[VerifiedSet]:
        return [VerifiedSet.from_json(r) for r in iter_jsonl(self.path(VERIFIED))]

    def audited(self) -> list[AuditedQuery]:
        return [AuditedQuery.from_json(r) for r in iter_jsonl(self.path(COMBINATIONS))]

    def annotations_path(self) -> Path:
        return self.path(ANNOTATIONS)
