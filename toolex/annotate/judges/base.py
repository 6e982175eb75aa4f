"""One interface for the three judges (LLM endpoint, local LLM, offline similarity).

A judge decomposes queries (Stage 1), verifies candidates against the reference tool (Stage 2) and audits
combinations (Stage 3). It works on batches and returns one result per item, in order; a failure is a result
with ``ok`` False and the reason, never a silent "no".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolex.annotate.stage_records import Decomposition, SubQuery, Verdict
from toolex.data.records import Query, Tool


@dataclass(frozen=True)
class DecomposeItem:
    query: Query
    tools: tuple[Tool, ...]  # the tools of C*, in order


@dataclass(frozen=True)
class VerifyItem:
    subquery: SubQuery
    reference: Tool
    candidate: Tool
    group: str = ""  # the benchmark of the item's query (an adapted threshold is placed per benchmark)
    query_id: str = ""  # with the sub-query's index and the reference, the candidate list the item is in
    rank: int = 0  # the candidate's retrieval rank for the sub-query (0: not recorded)

    @property
    def candidate_list(self) -> tuple[str, int, str, str]:
        """The candidate list this item belongs to (the other candidates of the same sub-query)."""
        return (self.query_id, self.subquery.index, self.subquery.text, self.reference.id)


@dataclass(frozen=True)
class AuditItem:
    query: Query
    subqueries: tuple[SubQuery, ...]
    tools: tuple[Tool, ...]  # one per sub-query
    references: tuple[Tool, ...]  # C*, aligned with the sub-queries


class Judge(ABC):
    """Decides the three ToolEX stages; ``name`` appears in every artifact and figure."""

    name: str = "judge"
    kind: str = "abstract"  # "llm" or "offline"

    @abstractmethod
    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]: ...

    @abstractmethod
    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]: ...

    @abstractmethod
    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]: ...

    def describe(self) -> dict[str, Any]:
        """Settings for the manifest (never a secret)."""
        return {"name": self.name, "kind": self.kind}

    def usage(self) -> dict[str, Any]:
        """Calls, tokens and cache hits so far (empty for judges that make no calls)."""
        return {}
