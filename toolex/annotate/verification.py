"""Stage 2's bookkeeping: the verification items of every sub-query's top-K candidates, and the verified sets
their verdicts make (shared by the pipeline, calibration and the transfer study)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolex.annotate.judges.base import VerifyItem
from toolex.annotate.stage_records import Candidate, Decomposition, Verdict, VerifiedSet
from toolex.data.records import Tool

Hits = Mapping[tuple[str, int], Sequence[tuple[str, float]]]


@dataclass(frozen=True)
class Slot:
    """Where a verification item sits: its query, sub-query, candidate, retrieval rank and score."""

    query_id: str
    index: int
    tool_id: str
    rank: int
    score: float


def with_reference_neighbours(ranking: Sequence[tuple[str, float]], neighbours: Sequence[tuple[str, float]],
                              reference: str, reference_k: int) -> list[tuple[str, float]]:
    """A sub-query's candidates: its ``ranking`` (ranks 1..K), then those of the reference tool's
    ``neighbours`` (the tools nearest its documentation, with their similarity to it; the pipeline asks for
    ``reference_k`` + 1, the reference itself usually first) that are neither the reference nor in
    ``ranking``, at most ``reference_k``, ranked after it (K+1, ...). A neighbour the sub-query found already
    is not replaced by a farther one."""
    seen = {tool for tool, _ in ranking} | {reference}
    extra = [(tool, score) for tool, score in neighbours if tool not in seen][:max(reference_k, 0)]
    return [*ranking, *extra]


def verification_items(decompositions: Sequence[Decomposition], hits: Hits, tools: Mapping[str, Tool],
                       group_of: Mapping[str, str] | None = None) -> tuple[list[VerifyItem], list[Slot]]:
    """One item per retrieved candidate of every sub-query, the reference tool itself left out; each item's
    group is its query's benchmark (``group_of``: query id → benchmark name)."""
    items: list[VerifyItem] = []
    slots: list[Slot] = []
    for d in decompositions:
        for s in d.subqueries:
            for rank, (tool_id, score) in enumerate(hits.get((d.query_id, s.index), []), 1):
                if tool_id == s.reference_tool:
                    continue
                group = group_of.get(d.query_id, "") if group_of else ""
                items.append(VerifyItem(s, tools[s.reference_tool], tools[tool_id], group, d.query_id, rank))
                slots.append(Slot(d.query_id, s.index, tool_id, rank, score))
    return items, slots


def verified_sets(decompositions: Sequence[Decomposition], hits: Hits, slots: Sequence[Slot],
                  verdicts: Sequence[Verdict]) -> list[VerifiedSet]:
    """Every sub-query's candidates with their verdicts (``verdicts`` aligned with ``slots``), the reference
    tool among them as always equivalent."""
    by_sub: dict[tuple[str, int], list[Candidate]] = {}
    for slot, verdict in zip(slots, verdicts, strict=True):
        by_sub.setdefault((slot.query_id, slot.index), []).append(
            Candidate(slot.tool_id, slot.rank, slot.score, verdict))
    out = []
    for d in decompositions:
        for s in d.subqueries:
            ranking = hits.get((d.query_id, s.index), [])
            ref_rank = next((r for r, (t, _) in enumerate(ranking, 1) if t == s.reference_tool), 0)
            ref_score = next((sc for t, sc in ranking if t == s.reference_tool), 0.0)
            reference = Candidate(s.reference_tool, ref_rank, ref_score,
                                  Verdict(True, "the ground-truth reference tool", "reference"))
            candidates = sorted([reference, *by_sub.get((d.query_id, s.index), [])],
                                key=lambda c: (c.rank if c.rank else 0))
            out.append(VerifiedSet(d.query_id, s.index, s.text, s.reference_tool, tuple(candidates)))
    return out
