"""How far the offline judge can be trusted: its decisions against an LLM judge's on the same items.

The items are those of an LLM run (its sub-queries, candidates and combinations); the other judge decides the
very same items, so the comparison is item by item. Reported: counts, raw agreement, Cohen's kappa and the
confusion matrix, separately for verification and for the audit. Items the LLM failed on are left out and
counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolex.annotate.judges.base import AuditItem, Judge, VerifyItem
from toolex.annotate.run_folder import ArtifactFolder
from toolex.data.records import Query, Tool


@dataclass(frozen=True)
class Agreement:
    items: int
    both_yes: int
    both_no: int
    reference_yes_only: int  # the reference judge (LLM) says yes, the other no
    other_yes_only: int
    skipped_failures: int

    @property
    def agreement(self) -> float:
        return (self.both_yes + self.both_no) / self.items if self.items else float("nan")

    @property
    def kappa(self) -> float:
        n = self.items
        if not n:
            return float("nan")
        p_ref = (self.both_yes + self.reference_yes_only) / n
        p_other = (self.both_yes + self.other_yes_only) / n
        expected = p_ref * p_other + (1 - p_ref) * (1 - p_other)
        return (self.agreement - expected) / (1 - expected) if expected < 1 else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items, "agreement": self.agreement, "cohen_kappa": self.kappa,
                "both_yes": self.both_yes, "both_no": self.both_no,
                "reference_yes_only": self.reference_yes_only, "other_yes_only": self.other_yes_only,
                "skipped_failures": self.skipped_failures}


def compare(reference: Sequence[bool | None], other: Sequence[bool | None]) -> Agreement:
    pairs = [(a, b) for a, b in zip(reference, other) if a is not None and b is not None]
    return Agreement(
        items=len(pairs),
        both_yes=sum(a and b for a, b in pairs),
        both_no=sum(not a and not b for a, b in pairs),
        reference_yes_only=sum(a and not b for a, b in pairs),
        other_yes_only=sum(b and not a for a, b in pairs),
        skipped_failures=len(reference) - len(pairs),
    )


def judge_agreement(llm_folder: str | ArtifactFolder, other: Judge, queries: Mapping[str, Query],
                    tools: Mapping[str, Tool]) -> dict[str, Any]:
    """Re-judge the verification and audit items of an LLM run with ``other`` and compare."""
    folder = llm_folder if isinstance(llm_folder, ArtifactFolder) else ArtifactFolder(llm_folder)
    decompositions = {d.query_id: d for d in folder.decompositions() if d.ok}
    verify_items, verify_ref = [], []
    for v in folder.verified_sets():
        sub = decompositions[v.query_id].subqueries[v.index]
        for c in v.candidates:
            if c.verdict.judge == "reference":
                continue
            query = queries.get(v.query_id)  # grouped per benchmark, as the pipeline groups them
            group = (query.subset or query.category) if query is not None else ""
            verify_items.append(VerifyItem(sub, tools[v.reference_tool], tools[c.tool_id], group,
                                           v.query_id, c.rank))
            verify_ref.append(c.verdict.equivalent)
    audit_items, audit_ref = [], []
    for a in folder.audited():
        d = decompositions.get(a.query_id)
        if d is None:
            continue
        refs = tuple(tools[s.reference_tool] for s in d.subqueries)
        for combo in a.combinations:
            if combo.is_reference:
                continue
            chosen = tuple(tools[t] for t in combo.tools)
            audit_items.append(AuditItem(queries[a.query_id], d.subqueries, chosen, refs))
            audit_ref.append(combo.verdict.equivalent)
    verify_other = [v.equivalent for v in other.verify(verify_items)]
    audit_other = [v.equivalent for v in other.audit(audit_items)]
    return {
        "reference_judge": folder.manifest().get("judge", {}).get("name", "llm"),
        "other_judge": other.name,
        "verification": compare(verify_ref, verify_other).to_dict(),
        "audit": compare(audit_ref, audit_other).to_dict(),
    }
