"""Our annotations aligned with the gold queries: the queries validated are those in gold.

A gold query we did not annotate counts as C* only (one-to-one); our queries that gold does not list are
ignored. Both are counted. Our C* must be one of the gold combinations of the query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolex.data.records import Annotation
from toolex.errors import InputError
from toolex.validate.gold import GoldRecord


@dataclass(frozen=True)
class Paired:
    """Gold records and our annotations of the same queries, in gold order."""

    gold: tuple[GoldRecord, ...]
    ours: tuple[Annotation, ...]
    missing: tuple[str, ...]  # gold queries without an annotation of ours (scored as C* only)
    ignored: int  # annotated queries that gold does not list

    def __len__(self) -> int:
        return len(self.gold)

    @property
    def gold_truth(self) -> list[Annotation]:
        """Gold as ToolEq ground truth, with C* in the tool order of our annotations."""
        return [g.to_annotation(a.reference, a.category) for g, a in zip(self.gold, self.ours, strict=True)]


def pair(
    gold: Sequence[GoldRecord],
    ours: Sequence[Annotation],
    gold_path: str | Path | None = None,
    ours_path: str | Path | None = None,
) -> Paired:
    """Align ``ours`` to ``gold``; errors name the annotations file and the query."""
    if not gold:
        raise InputError(gold_path, "no gold queries")
    if not ours:
        raise InputError(ours_path, "no annotations")
    by_id = {a.query_id: a for a in ours}
    if not any(g.query_id in by_id for g in gold):
        raise InputError(ours_path, f"none of the {len(gold)} gold queries is annotated here "
                                    f"(unknown query ids, e.g. {gold[0].query_id!r})")
    aligned_gold: list[GoldRecord] = []
    aligned_ours: list[Annotation] = []
    missing: list[str] = []
    for record in gold:
        ann = by_id.get(record.query_id)
        if ann is None:
            missing.append(record.query_id)
            aligned_gold.append(record)
            aligned_ours.append(Annotation(record.query_id, record.category, record.reference,
                                           (record.reference,)))
            continue
        ref = frozenset(ann.reference)
        if ref != frozenset(record.reference):
            matching = [c for c in record.acceptable if frozenset(c) == ref]
            if record.reference_given or not matching:
                raise InputError(ours_path, f"C* {list(ann.reference)} differs from the gold C* "
                                            f"{list(record.reference)}", record=record.query_id)
            record = replace(record, reference=matching[0])
        aligned_gold.append(record)
        aligned_ours.append(ann)
    gold_ids = {g.query_id for g in gold}
    ignored = sum(1 for a in ours if a.query_id not in gold_ids)
    return Paired(tuple(aligned_gold), tuple(aligned_ours), tuple(missing), ignored)
