"""Human one-to-many ground truth ("gold"): one JSON object a line.

``{"query_id": "q1", "acceptable": [["a", "b"], ["c", "b"]]}``

``acceptable`` lists every combination people accept for the query, C* among them. C* is the optional
``reference`` field when given (it must be among ``acceptable``); else it is the C* of the annotations being
validated when that is among ``acceptable``, and the first acceptable combination otherwise. An
optional ``category`` is kept; other fields are kept as ``extra``. Combinations are sets: a repeated tool
inside one is dropped, and a combination equal (as a set) to an earlier one is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolex.data.readers import is_id, read_keyed_jsonl, record_query_id
from toolex.data.records import Annotation, Benchmark
from toolex.data.registry import own_gold
from toolex.errors import InputError
from toolex.io.atomic import write_jsonl

_KNOWN = ("query_id", "acceptable", "reference", "category")


@dataclass(frozen=True)
class GoldRecord:
    """The combinations people accept for one query; ``reference`` is C* (also in ``acceptable``)."""

    query_id: str
    reference: tuple[str, ...]
    acceptable: tuple[tuple[str, ...], ...]
    category: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    reference_given: bool = field(default=True, compare=False)

    @property
    def alternatives(self) -> list[frozenset[str]]:
        """The acceptable combinations other than C*, as sets."""
        ref = frozenset(self.reference)
        return [frozenset(c) for c in self.acceptable if frozenset(c) != ref]

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"query_id": self.query_id}
        if self.category:
            record["category"] = self.category
        record["reference"] = list(self.reference)
        record["acceptable"] = [list(c) for c in self.acceptable]
        record.update(self.extra)
        return record

    def to_annotation(self, reference: tuple[str, ...] | None = None,
                      category: str | None = None) -> Annotation:
        """The gold combinations as ToolEq ground truth (``reference`` overrides C*'s tool order only)."""
        ref = self.reference if reference is None else reference
        if frozenset(ref) != frozenset(self.reference):
            raise ValueError(f"{self.query_id}: reference {list(ref)} is not the gold C* "
                             f"{list(self.reference)}")
        return Annotation(self.query_id, self.category if category is None else category, ref,
                          self.acceptable)


def _tool_list(value: Any) -> tuple[str, ...] | None:
    """A non-empty list of ids as a tuple without repeats; None when the type is wrong."""
    if not isinstance(value, list) or not value or not all(is_id(t) for t in value):
        return None
    return tuple(dict.fromkeys(value))


def parse_gold(record: dict[str, Any], path: Path, lineno: int) -> GoldRecord:
    """Validate one gold record strictly; errors name the file and the line."""
    qid = record_query_id(record, path, lineno, ("query_id", "acceptable"))
    where = f"{qid} (line {lineno})"
    raw = record["acceptable"]
    if not isinstance(raw, list) or not raw:
        raise InputError(path, "'acceptable' must be a non-empty list of combinations", record=where)
    acceptable: list[tuple[str, ...]] = []
    seen: set[frozenset[str]] = set()
    for j, combo in enumerate(raw):
        tools = _tool_list(combo)
        if tools is None:
            raise InputError(path, f"acceptable combination {j} must be a non-empty list of tool ids "
                                   "(strings without white space)", record=where)
        if frozenset(tools) not in seen:
            seen.add(frozenset(tools))
            acceptable.append(tools)
    if record.get("reference") is None:
        reference = acceptable[0]
    else:
        ref = _tool_list(record["reference"])
        if ref is None:
            raise InputError(path,
                             "'reference' must be a non-empty list of tool ids (strings without white space)",
                             record=where)
        if frozenset(ref) not in seen:
            raise InputError(path, "the reference combination C* is not among 'acceptable'", record=where)
        reference = ref
    category = record.get("category")
    if category is not None and not isinstance(category, str):
        raise InputError(path, "'category' must be a string", record=where)
    extra = {k: v for k, v in record.items() if k not in _KNOWN}
    given = record.get("reference") is not None
    return GoldRecord(qid, reference, tuple(acceptable), category or "", extra, reference_given=given)


def read_gold(path: str | Path) -> list[GoldRecord]:
    """Read and validate a gold file; an empty file or a repeated query id is an error."""
    return read_keyed_jsonl(path, "gold file", parse_gold, lambda g: g.query_id, "query {!r} listed twice",
                            "no gold queries (empty file)")


def write_gold(records: Iterable[GoldRecord], path: str | Path) -> Path:
    """Write a gold file atomically (temporary file in the same folder, fsync, rename)."""
    return write_jsonl(path, (record.to_json() for record in records))


def gold_annotations(records: Iterable[GoldRecord]) -> list[Annotation]:
    """Gold as annotations: ToolEq against them is ToolEq with the human-accepted combinations."""
    return [r.to_annotation() for r in records]


def benchmark_gold(benchmark: Benchmark, query_ids: Sequence[str] | None = None) -> list[GoldRecord]:
    """A benchmark's own human ground truth (``sgd/*`` carry one), for ``query_ids`` or all queries."""
    keep = None if query_ids is None else set(query_ids)
    category = {q.id: q.category for q in benchmark.queries}
    return [GoldRecord(qid, tuple(combos[0]), tuple(tuple(c) for c in combos), category[qid])
            for qid, combos in own_gold(benchmark).items() if keep is None or qid in keep]
