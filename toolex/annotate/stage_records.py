"""The records of a ToolEX annotation run, serialised as JSON lines (one artifact file per stage)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class SubQuery:
    """One atomic need of a query, mapped to the tool of C* that serves it (Stage 1)."""

    index: int
    text: str
    functionality: str
    entity: str
    reference_tool: str


@dataclass(frozen=True)
class Decomposition:
    """A query split into exactly |C*| sub-queries; ``ok`` is False when the judge failed (``error`` says
    why)."""

    query_id: str
    subqueries: tuple[SubQuery, ...]
    judge: str
    ok: bool = True
    error: str = ""
    raw: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "query_id": self.query_id,
            "ok": self.ok,
            "judge": self.judge,
            "subqueries": [asdict(s) for s in self.subqueries],
            **({"error": self.error, "raw": self.raw} if not self.ok else {}),
        }

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Decomposition:
        return cls(record["query_id"], tuple(SubQuery(**s) for s in record["subqueries"]), record["judge"],
                   record.get("ok", True), record.get("error", ""), record.get("raw", ""))


@dataclass(frozen=True)
class Verdict:
    """A judge's decision on one item; ``equivalent`` is None when the judge failed (never read as "no")."""

    equivalent: bool | None
    reason: str
    judge: str
    error: str = ""
    raw: str = ""

    @property
    def ok(self) -> bool:
        return self.equivalent is not None

    def to_json(self, decision: str) -> dict[str, Any]:
        """The verdict's fields of a stage record, its decision under the name ``decision``; the error and
        the raw answer only when the judge failed."""
        out = {decision: self.equivalent, "reason": self.reason, "judge": self.judge}
        if not self.ok:
            out.update(error=self.error, raw=self.raw)
        return out

    @classmethod
    def from_json(cls, record: dict[str, Any], decision: str) -> Verdict:
        return cls(record[decision], record["reason"], record["judge"], record.get("error", ""),
                   record.get("raw", ""))


@dataclass(frozen=True)
class Candidate:
    """A tool retrieved for a sub-query, with the judge's verdict (Stage 2)."""

    tool_id: str
    rank: int  # retrieval rank from 1; 0 marks the reference tool when it was not retrieved
    score: float
    verdict: Verdict

    def to_json(self) -> dict[str, Any]:
        return {"tool_id": self.tool_id, "rank": self.rank, "score": round(float(self.score), 6),
                **self.verdict.to_json("equivalent")}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Candidate:
        verdict = Verdict.from_json(record, "equivalent")
        return cls(record["tool_id"], record["rank"], record["score"], verdict)


@dataclass(frozen=True)
class VerifiedSet:
    """The candidates of one sub-query and the tools verified as equivalent to its reference tool."""

    query_id: str
    index: int
    subquery: str
    reference_tool: str
    candidates: tuple[Candidate, ...]

    @property
    def verified(self) -> list[str]:
        """Equivalent tools in rank order, the reference tool always first."""
        others = [c.tool_id for c in sorted(self.candidates, key=lambda c: c.rank)
                  if c.verdict.equivalent and c.tool_id != self.reference_tool]
        return [self.reference_tool, *others]

    def rank_of(self, tool_id: str) -> int:
        """Rank used by the fusion of Stage 3: the reference tool counts as rank 1."""
        if tool_id == self.reference_tool:
            return 1
        return next(c.rank for c in self.candidates if c.tool_id == tool_id)

    def to_json(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "index": self.index, "subquery": self.subquery,
                "reference_tool": self.reference_tool, "verified": self.verified,
                "candidates": [c.to_json() for c in self.candidates]}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> VerifiedSet:
        return cls(record["query_id"], record["index"], record["subquery"], record["reference_tool"],
                   tuple(Candidate.from_json(c) for c in record["candidates"]))


@dataclass(frozen=True)
class Combination:
    """One combination of verified tools (one per sub-query), its fusion score and audit verdict (Stage 3)."""

    tools: tuple[str, ...]
    rrf: float
    is_reference: bool
    verdict: Verdict

    @property
    def valid(self) -> bool:
        return self.is_reference or bool(self.verdict.equivalent)

    def to_json(self) -> dict[str, Any]:
        return {"tools": list(self.tools), "rrf": round(self.rrf, 8), "is_reference": self.is_reference,
                "valid": self.valid, **self.verdict.to_json("audit")}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Combination:
        verdict = Verdict.from_json(record, "audit")
        return cls(tuple(record["tools"]), record["rrf"], record["is_reference"], verdict)


@dataclass(frozen=True)
class AuditedQuery:
    """Every combination considered for one query (capped), with audit results; C* always valid."""

    query_id: str
    category: str
    reference: tuple[str, ...]
    combinations: tuple[Combination, ...]
    product_size: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def valid(self) -> list[tuple[str, ...]]:
        return [c.tools for c in self.combinations if c.valid]

    def to_json(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "category": self.category, "reference": list(self.reference),
                "product_size": self.product_size, "combinations": [c.to_json() for c in self.combinations]}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> AuditedQuery:
        return cls(record["query_id"], record["category"], tuple(record["reference"]),
                   tuple(Combination.from_json(c) for c in record["combinations"]),
                   record.get("product_size", 0))
