"""Table 1 of the paper from an annotation run's artifacts, per subset and per category."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from toolex.annotate.artifacts import ArtifactFolder
from toolex.annotate.records import AuditedQuery, Decomposition, VerifiedSet

COLUMNS = ("queries", "sub_queries", "verified_items", "avg_items_per_sub_query", "valid_combinations",
           "avg_combinations_per_query", "sub_queries_with_extra_equivalent_pct",
           "queries_with_extra_combination_pct", "decomposition_failures", "verification_failures",
           "audit_failures")


def _row(decompositions: Sequence[Decomposition], verified: Sequence[VerifiedSet],
         audited: Sequence[AuditedQuery]) -> dict[str, float]:
    n_queries = len(audited)
    sub_queries = len(verified)
    items = sum(len(v.verified) for v in verified)
    valid = sum(len(a.valid) for a in audited)
    return {
        "queries": n_queries,
        "sub_queries": sub_queries,
        "verified_items": items,
        "avg_items_per_sub_query": items / sub_queries if sub_queries else 0.0,
        "valid_combinations": valid,
        "avg_combinations_per_query": valid / n_queries if n_queries else 0.0,
        "sub_queries_with_extra_equivalent_pct": 100 * sum(len(v.verified) > 1 for v in verified) / sub_queries
        if sub_queries else 0.0,
        "queries_with_extra_combination_pct": 100 * sum(len(a.valid) > 1 for a in audited) / n_queries
        if n_queries else 0.0,
        "decomposition_failures": sum(not d.ok for d in decompositions),
        "verification_failures": sum(not c.verdict.ok for v in verified for c in v.candidates),
        "audit_failures": sum(not c.verdict.ok for a in audited for c in a.combinations),
    }


def table1(folder: str | ArtifactFolder, group_of: Mapping[str, str] | None = None,
           judge: str | None = None) -> pd.DataFrame:
    """Annotation statistics: one row per group (``group_of`` maps query id to subset or category) and ``all``."""
    folder = folder if isinstance(folder, ArtifactFolder) else ArtifactFolder(folder)
    decompositions, verified, audited = folder.decompositions(), folder.verified_sets(), folder.audited()
    group_of = group_of or {a.query_id: a.category for a in audited}
    groups = sorted(set(group_of.values()))
    rows = []
    for group in [*groups, "all"]:
        keep = (lambda qid: True) if group == "all" else (lambda qid, g=group: group_of.get(qid) == g)
        rows.append({"group": group, **_row([d for d in decompositions if keep(d.query_id)],
                                            [v for v in verified if keep(v.query_id)],
                                            [a for a in audited if keep(a.query_id)])})
    frame = pd.DataFrame(rows).set_index("group")
    if judge is None:
        judge = folder.manifest().get("judge", {}).get("name", "")
    frame.insert(0, "judge", judge)
    return frame
