"""What the widgets show, gathered once: queries, Stage 1–3 records, runs and their scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from toolex.annotate.stage_records import AuditedQuery, Decomposition, VerifiedSet
from toolex.data.records import Annotation, Query, Tool
from toolex.io.trec import Run, ranked
from toolex.metrics import Evaluation, GroundTruth
from toolex.metrics.measures import HEADLINE

if TYPE_CHECKING:
    from toolex.experiments.workspace import Annotated, Workspace

GROUND_TRUTH = "ground truth"
EQUIVALENT = "verified equivalent"


@dataclass(frozen=True)
class RankedTool:
    """One row of a retriever's ranked list, marked when it is in C* or a verified equivalent."""

    rank: int
    tool_id: str
    name: str
    score: float
    mark: str = ""


@dataclass(frozen=True)
class ToolRanks:
    """Where one C* tool or verified equivalent falls in each retriever's run."""

    tool_id: str
    role: str
    ranks: dict[str, int | None]


@dataclass
class InspectorData:
    """Everything the explorer and the inspector read; ``label`` names the data, judge and retrievers."""

    queries: dict[str, Query]
    tools: Mapping[str, Tool]
    annotations: list[Annotation]
    runs: dict[str, Run]
    decompositions: dict[str, Decomposition] = field(default_factory=dict)
    verified: dict[str, list[VerifiedSet]] = field(default_factory=dict)
    audited: dict[str, AuditedQuery] = field(default_factory=dict)
    label: str = ""
    _truth: GroundTruth | None = field(default=None, init=False, repr=False)
    _evaluations: dict[tuple[str, int], Evaluation] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def build(cls, queries: Sequence[Query], tools: Mapping[str, Tool], annotations: Sequence[Annotation],
              runs: Mapping[str, Run], decompositions: Sequence[Decomposition] = (),
              verified: Sequence[VerifiedSet] = (), audited: Sequence[AuditedQuery] = (),
              label: str = "") -> InspectorData:
        by_query: dict[str, list[VerifiedSet]] = {}
        for v in verified:
            by_query.setdefault(v.query_id, []).append(v)
        return cls({q.id: q for q in queries}, tools, list(annotations), dict(runs),
                   {d.query_id: d for d in decompositions}, by_query, {a.query_id: a for a in audited}, label)

    @classmethod
    def from_report(cls, workspace: Workspace, annotated: Annotated,
                    runs: Mapping[str, Run]) -> InspectorData:
        """From a :class:`~toolex.experiments.workspace.Workspace` and its
        :class:`~toolex.experiments.workspace.Annotated`."""
        label = (f"Data: {workspace.describe()} · Judge: {annotated.judge_name} · "
                 f"Retrievers: {', '.join(runs)}")
        return cls.build(workspace.queries, workspace.tools, annotated.annotations, runs,
                         annotated.decompositions, annotated.verified_sets, annotated.audited, label)

    # -- scores ----------------------------------------------------------------------------------------------
    @property
    def truth(self) -> GroundTruth:
        if self._truth is None:
            self._truth = GroundTruth(self.annotations)
        return self._truth

    def evaluation(self, retriever: str, k: int = HEADLINE.k) -> Evaluation:
        key = (retriever, k)
        if key not in self._evaluations:
            self._evaluations[key] = self.truth.evaluate(self.runs[retriever], k)
        return self._evaluations[key]

    def per_query(self, retriever: str, k: int = HEADLINE.k) -> pd.DataFrame:
        return self.evaluation(retriever, k).per_query.set_index("query_id")

    def categories(self) -> list[str]:
        return sorted({a.category for a in self.annotations})

    def query_ids(self) -> list[str]:
        """Annotated queries in benchmark order."""
        return [a.query_id for a in self.annotations if a.query_id in self.queries]

    # -- one query ---------------------------------------------------------------------------------------
    def annotation(self, query_id: str) -> Annotation:
        return self.annotations[self.truth.row[query_id]]

    def equivalents(self, query_id: str) -> set[str]:
        """Verified equivalents of the query's sub-queries (reference tools excluded)."""
        reference = set(self.queries[query_id].reference)
        return {t for v in self.verified.get(query_id, []) for t in v.verified} - reference

    def ranking(self, retriever: str, query_id: str, k: int = HEADLINE.k) -> list[RankedTool]:
        """The retriever's top ``k`` for the query, each tool marked."""
        reference = set(self.queries[query_id].reference)
        equivalents = self.equivalents(query_id)
        rows = []
        for rank, (tool_id, score) in enumerate(ranked(self.runs[retriever].get(query_id, {}), k), 1):
            mark = GROUND_TRUTH if tool_id in reference else EQUIVALENT if tool_id in equivalents else ""
            tool = self.tools.get(tool_id)
            rows.append(RankedTool(rank, tool_id, tool.name if tool else tool_id, score, mark))
        return rows

    def ranks(self, query_id: str) -> list[ToolRanks]:
        """Every C* tool and verified equivalent of the query with its rank in each retriever's whole run
        (None: not retrieved at all)."""
        roles: dict[str, str] = {t: "C*" for t in self.queries[query_id].reference}
        for v in sorted(self.verified.get(query_id, []), key=lambda v: v.index):
            for t in v.verified:
                roles.setdefault(t, f"equivalent of sub-query {v.index + 1}")
        positions = {name: {tool_id: rank
                            for rank, (tool_id, _) in enumerate(ranked(run.get(query_id, {})), 1)}
                     for name, run in self.runs.items()}
        return [ToolRanks(t, role, {name: positions[name].get(t) for name in self.runs})
                for t, role in roles.items()]

    def scores(self, retriever: str, query_id: str, k: int = HEADLINE.k) -> dict[str, float]:
        """The query's one-to-one and ToolEq NDCG / Recall / Comp at ``k``."""
        row = self.per_query(retriever, k).loc[query_id]
        return {c: float(row[c]) for c in row.index if c.startswith(("one_to_one_", "tooleq_"))}
