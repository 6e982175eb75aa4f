"""Per-stage views of a ToolEX artifact folder as tables: decomposition, verification, audit."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pandas as pd

from toolex.annotate.stage_records import AuditedQuery, Decomposition, VerifiedSet


def decomposition_frame(decompositions: Sequence[Decomposition], group_of: Mapping[str, str]) -> pd.DataFrame:
    """One row per query: its group, whether Stage 1 succeeded, the number of sub-queries, the error."""
    return pd.DataFrame([{"query_id": d.query_id, "group": group_of.get(d.query_id, ""), "ok": d.ok,
                          "sub_queries": len(d.subqueries), "error": d.error} for d in decompositions])


def decomposition_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per group of a :func:`decomposition_frame` and for ``all``: queries, failures, sub-queries and their
    mean per query."""
    counts = frame.groupby("group").agg(queries=("query_id", "size"),
                                        failures=("ok", lambda s: int((~s).sum())),
                                        sub_queries=("sub_queries", "sum"),
                                        mean_sub_queries=("sub_queries", "mean"))
    counts.loc["all"] = [len(frame), int((~frame.ok).sum()), frame.sub_queries.sum(),
                         frame.sub_queries.mean()]
    return counts.reset_index()


def subquery_examples(decompositions: Sequence[Decomposition], queries: Mapping[str, str], n: int = 5,
                      min_parts: int = 2) -> pd.DataFrame:
    """The first ``n`` queries with at least ``min_parts`` sub-queries, one row per sub-query."""
    rows = []
    picked = [d for d in decompositions if d.ok and len(d.subqueries) >= min_parts][:n]
    for d in picked:
        for s in d.subqueries:
            rows.append({"query_id": d.query_id, "query": queries.get(d.query_id, ""), "index": s.index,
                         "sub_query": s.text, "reference_tool": s.reference_tool})
    return pd.DataFrame(rows)


def candidate_frame(verified: Sequence[VerifiedSet], group_of: Mapping[str, str]) -> pd.DataFrame:
    """One row per judged candidate (the reference tool excluded): rank, verdict and reason."""
    rows = []
    for v in verified:
        for c in v.candidates:
            if c.tool_id == v.reference_tool:
                continue
            verdict = "judge failed" if c.verdict.equivalent is None else (
                "equivalent" if c.verdict.equivalent else "not equivalent")
            rows.append({"query_id": v.query_id, "group": group_of.get(v.query_id, ""), "index": v.index,
                         "tool_id": c.tool_id, "rank": c.rank, "verdict": verdict,
                         "reason": c.verdict.reason})
    return pd.DataFrame(rows, columns=["query_id", "group", "index", "tool_id", "rank", "verdict", "reason"])


def verification_summary(verified: Sequence[VerifiedSet], group_of: Mapping[str, str]) -> pd.DataFrame:
    """Per group: sub-queries, candidates per sub-query, verdict rates and the share with an extra
    equivalent."""
    cands = candidate_frame(verified, group_of)
    subs = pd.DataFrame([{"group": group_of.get(v.query_id, ""), "extra": len(v.verified) - 1}
                         for v in verified])
    rows = []
    for group in [*sorted(subs.group.unique()), "all"]:
        s = subs if group == "all" else subs[subs.group == group]
        c = cands if group == "all" else cands[cands.group == group]
        n = max(len(c), 1)
        rows.append({"group": group, "sub_queries": len(s),
                     "candidates_per_sub_query": len(c) / max(len(s), 1),
                     "equivalent_pct": 100 * (c.verdict == "equivalent").sum() / n,
                     "not_equivalent_pct": 100 * (c.verdict == "not equivalent").sum() / n,
                     "failed_pct": 100 * (c.verdict == "judge failed").sum() / n,
                     "sub_queries_with_extra_equivalent_pct": 100 * (s.extra > 0).mean() if len(s) else 0.0})
    return pd.DataFrame(rows)


def audit_frame(audited: Sequence[AuditedQuery], group_of: Mapping[str, str]) -> pd.DataFrame:
    """Per query: combinations considered (candidates of Stage 3), valid after the audit, product size."""
    return pd.DataFrame([{"query_id": a.query_id, "group": group_of.get(a.query_id, ""),
                          "product_size": a.product_size, "before_audit": len(a.combinations),
                          "after_audit": len(a.valid)} for a in audited])


def combinations_before_after(audit: pd.DataFrame) -> pd.DataFrame:
    """Mean combinations per query before and after the audit, per group of an :func:`audit_frame` and for
    ``all``."""
    before_after = audit.groupby("group")[["before_audit", "after_audit"]].mean()
    before_after.loc["all"] = audit[["before_audit", "after_audit"]].mean()
    return before_after.reset_index()


def _reason_kind(reason: str) -> str:
    """A reason with its numbers and quoted names removed, so equal reasons group together."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "…", reason)
    text = re.sub(r"\d+(\.\d+)?", "#", text)
    return text.split(":")[0].strip()[:90] or "(no reason)"


def rejection_reasons(audited: Sequence[AuditedQuery], top: int = 10) -> pd.DataFrame:
    """The most frequent reasons of rejected combinations (``audit`` false or failed)."""
    reasons = [("judge failed: " + c.verdict.error[:60]) if c.verdict.equivalent is None else
               _reason_kind(c.verdict.reason)
               for a in audited for c in a.combinations if not c.valid]
    if not reasons:
        return pd.DataFrame(columns=["reason", "combinations", "share_pct"])
    counts = pd.Series(reasons).value_counts().head(top)
    return pd.DataFrame({"reason": counts.index, "combinations": counts.to_numpy(),
                         "share_pct": 100 * counts.to_numpy() / len(reasons)})


def table1_beside_paper(ours: pd.DataFrame, paper: pd.DataFrame, group: str = "all",
                        claims: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Our Table 1 column (one group) beside the paper's ToolEq column, one row per statistic; the two
    per-item shares the paper states in its text come from ``claims`` when given."""
    stats = [s for s in paper.index if s in ours.columns]
    extra = [c for c in ("sub_queries_with_extra_equivalent_pct", "queries_with_extra_combination_pct")
             if c in ours.columns and c not in stats]
    rows = [{"statistic": s, "ours": float(ours.loc[group, s]),
             "reported by the paper": float(paper.loc[s, "tooleq"])} for s in stats]
    claims = claims or {}
    rows += [{"statistic": s, "ours": float(ours.loc[group, s]),
              "reported by the paper": float(claims.get(s, float("nan")))} for s in extra]
    return pd.DataFrame(rows)
