"""The annotations file of the expanded ground truth: one JSON object per query, per line.

``{"query_id": ..., "category": ..., "reference": [tool ids of C*], "combinations": [[tool ids], ...]}``

``combinations`` holds every valid combination, C* included. On load, C* must be among the combinations (as a
set), every combination must be a non-empty list of distinct tool ids, and — when a tool pool is given — every
id must be a tool of the pool. Types are checked, never coerced: ids are non-empty strings without white space
(they go into TREC files), ``category`` is a string; an empty file is an error.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from toolex.data.readers import is_id, read_keyed_jsonl, record_query_id
from toolex.data.records import Annotation
from toolex.errors import InputError
from toolex.io.atomic import write_jsonl


def _tool_ids(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(is_id(t) for t in value)


def _parse(record: dict[str, Any], path: Path, lineno: int, pool: Collection[str] | None) -> Annotation:
    qid = record_query_id(record, path, lineno, ("query_id", "reference", "combinations"))
    where = f"{qid} (line {lineno})"
    category = record.get("category")
    if category is not None and not isinstance(category, str):
        raise InputError(path, f"'category' must be a string, found {type(category).__name__}", record=where)
    reference = record["reference"]
    combos = record["combinations"]
    if not _tool_ids(reference):
        raise InputError(path,
                         "'reference' must be a non-empty list of tool ids (strings without white space)",
                         record=where)
    if len(set(reference)) != len(reference):
        raise InputError(path, f"'reference' lists a tool twice: {reference}", record=where)
    if not isinstance(combos, list) or not combos:
        raise InputError(path, "'combinations' must be a non-empty list of lists", record=where)
    parsed: list[tuple[str, ...]] = []
    seen: set[frozenset[str]] = set()
    for j, combo in enumerate(combos):
        if not _tool_ids(combo):
            raise InputError(path,
                             f"combination {j} must be a non-empty list of tool ids (strings without white "
                                   "space)", record=where)
        if len(set(combo)) != len(combo):
            raise InputError(path, f"combination {j} lists a tool twice: {combo}", record=where)
        as_set = frozenset(combo)
        if as_set in seen:
            continue  # the same combination in another order
        seen.add(as_set)
        parsed.append(tuple(combo))
    if frozenset(reference) not in seen:
        raise InputError(path, "the reference combination C* is not among 'combinations'", record=where)
    if pool is not None:
        unknown = sorted({t for combo in parsed for t in combo} - set(pool) | (set(reference) - set(pool)))
        if unknown:
            raise InputError(path, f"unknown tool id(s) {', '.join(unknown[:5])}", record=where)
    extra = {k: v for k, v in record.items()
             if k not in ("query_id", "category", "reference", "combinations")}
    return Annotation(qid, category or "", tuple(reference), tuple(parsed), extra)


def read_annotations(path: str | Path, pool: Collection[str] | None = None) -> list[Annotation]:
    """Read and validate an annotations file; a repeated query id or an empty file is an error."""
    def parse(record: dict[str, Any], where: Path, lineno: int) -> Annotation:
        return _parse(record, where, lineno, pool)

    return read_keyed_jsonl(path, "annotations file", parse, lambda a: a.query_id,
                            "query {!r} annotated twice", "no annotated query in this file (it is empty)")


def write_annotations(annotations: Iterable[Annotation], path: str | Path) -> Path:
    """Write annotations as JSON lines, atomically."""
    return write_jsonl(path, (a.to_json() for a in annotations))
