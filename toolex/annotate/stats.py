"""Table 1 of the paper from an annotation run's artifacts, per subset and per category.

Combinations are counted as sets of tools: a permutation of C*, or two combinations equal as sets, is one
combination. A query whose decomposition failed (or that has no record of Stage 1 or Stage 3) stays in every
denominator: it counts in ``queries`` with C* as its only combination, and its |C*| sub-queries are
``missing_sub_queries``. ``sub_queries`` and ``verified_items`` count what Stages 1 and 2 produced; the two
sub-query ratios are over every sub-query of every query, a missing one holding its reference tool only (so
no extra equivalent). ``flagged_queries`` counts the queries with any failed judgement (decomposition, a
verification of one of their candidates, an audit of one of their combinations) or a missing record: their
expansion may be incomplete.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from toolex.annotate.run_folder import ArtifactFolder
from toolex.annotate.stage_records import AuditedQuery, Decomposition, VerifiedSet

COLUMNS = ("queries", "sub_queries", "verified_items", "avg_items_per_sub_query", "valid_combinations",
           "avg_combinations_per_query", "sub_queries_with_extra_equivalent_pct",
           "queries_with_extra_combination_pct", "decomposition_failures", "verification_failures",
           "audit_failures", "flagged_queries", "missing_sub_queries")


def distinct_valid(audited: AuditedQuery) -> int:
    """The valid combinations of a query counted as sets of tools (C* counts once, however ordered)."""
    return len({frozenset(c) for c in audited.valid} | {frozenset(audited.reference)})


def flagged(decompositions: Sequence[Decomposition], verified: Sequence[VerifiedSet],
            audited: Sequence[AuditedQuery]) -> set[str]:
    """Query ids whose annotation may be incomplete: a failed or missing decomposition, a failed verification
    or audit, or no Stage 3 record."""
    ids = {d.query_id for d in decompositions} | {a.query_id for a in audited}
    decomposed = {d.query_id for d in decompositions if d.ok}
    audited_ids = {a.query_id for a in audited}
    out = {q for q in ids if q not in decomposed or q not in audited_ids}
    out |= {v.query_id for v in verified if any(not c.verdict.ok for c in v.candidates)}
    out |= {a.query_id for a in audited if any(not c.verdict.ok for c in a.combinations)}
    return out


def _row(decompositions: Sequence[Decomposition], verified: Sequence[VerifiedSet],
         audited: Sequence[AuditedQuery]) -> dict[str, float]:
    ids = {d.query_id for d in decompositions} | {a.query_id for a in audited}
    n_queries = len(ids)
    decomposed = {d.query_id for d in decompositions if d.ok}
    reference = {a.query_id: a.reference for a in audited}
    missing = sum(len(reference.get(q, ())) for q in ids - decomposed)
    sub_queries = len(verified)
    items = sum(len(v.verified) for v in verified)
    every = sub_queries + missing  # a missing sub-query keeps its reference tool only
    valid_by_query = {a.query_id: distinct_valid(a) for a in audited}
    valid = sum(valid_by_query.get(q, 1) for q in ids)
    return {
        "queries": n_queries,
        "sub_queries": sub_queries,
        "verified_items": items,
        "avg_items_per_sub_query": (items + missing) / every if every else 0.0,
        "valid_combinations": valid,
        "avg_combinations_per_query": valid / n_queries if n_queries else 0.0,
        "sub_queries_with_extra_equivalent_pct": 100 * sum(len(v.verified) > 1 for v in verified) / every
        if every else 0.0,
        "queries_with_extra_combination_pct": 100 * sum(n > 1 for n in valid_by_query.values()) / n_queries
        if n_queries else 0.0,
        "decomposition_failures": sum(not d.ok for d in decompositions),
        "verification_failures": sum(not c.verdict.ok for v in verified for c in v.candidates),
        "audit_failures": sum(not c.verdict.ok for a in audited for c in a.combinations),
        "flagged_queries": len(flagged(decompositions, verified, audited)),
        "missing_sub_queries": missing,
    }


def table1(folder: str | Path | ArtifactFolder, group_of: Mapping[str, str] | None = None,
           judge: str | None = None) -> pd.DataFrame:
    """Annotation statistics: one row per group (``group_of`` maps query id to subset or category) and
    ``all``."""
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
