"""Expansion quality: how many of the gold alternatives our annotations found, and how much of what we added
gold lists. Combinations are compared as sets; C* is left out on both sides.

Combination level: recall = matched / gold alternatives, precision = matched / our added combinations, where
a gold alternative is matched when it equals (as a set) one of our combinations. Tool level: the tools of the
gold alternatives that are not in C*, against the tools of our added combinations that are not in C*. Counts
are pooled over the gold queries (micro averages). Precision is a lower bound: people miss alternatives too.
"""

from __future__ import annotations

import math

import pandas as pd

from toolex.validate.pairing import Paired

COLUMNS = ("query_id", "category", "annotated", "gold_alternatives", "added", "matched", "gold_tools",
           "added_tools", "matched_tools", "missed", "unlisted")


def _sorted_combos(combos: set[frozenset[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted(tuple(sorted(c)) for c in combos))


def expansion_frame(paired: Paired) -> pd.DataFrame:
    """One row per gold query: counts, and the missed gold alternatives / our unlisted additions as tuples."""
    missing = set(paired.missing)
    rows = []
    for gold, ours in zip(paired.gold, paired.ours, strict=True):
        ref = frozenset(gold.reference)
        alternatives = set(gold.alternatives)
        added = {frozenset(c) for c in ours.combinations} - {ref}
        gold_tools = set().union(*alternatives) - ref
        added_tools = set().union(*added) - ref
        rows.append({
            "query_id": gold.query_id,
            "category": ours.category or gold.category,
            "annotated": gold.query_id not in missing,
            "gold_alternatives": len(alternatives),
            "added": len(added),
            "matched": len(alternatives & added),
            "gold_tools": len(gold_tools),
            "added_tools": len(added_tools),
            "matched_tools": len(gold_tools & added_tools),
            "missed": _sorted_combos(alternatives - added),
            "unlisted": _sorted_combos(added - alternatives),
        })
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _share(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def expansion_summary(frame: pd.DataFrame) -> dict:
    """Pooled recall and precision at combination and tool level, with their counts."""
    total = {c: int(frame[c].sum()) for c in ("gold_alternatives", "added", "matched", "gold_tools",
                                               "added_tools", "matched_tools")}
    notes = []
    if not total["gold_alternatives"]:
        notes.append("recall undefined: gold lists no alternative to C*")
    if not total["added"]:
        notes.append("precision undefined: the annotations add no combination to C*")
    return {
        "queries": len(frame),
        "queries_with_gold_alternatives": int((frame["gold_alternatives"] > 0).sum()),
        "queries_with_additions": int((frame["added"] > 0).sum()),
        "combination": _level(total, "matched", "gold_alternatives", "added"),
        "tool": _level(total, "matched_tools", "gold_tools", "added_tools"),
        "notes": notes,
    }


def _level(total: dict[str, int], matched: str, gold: str, added: str) -> dict[str, float | int | None]:
    """Recall and precision at one level (combinations or tools) with the counts behind them."""
    return {
        "recall": _share(total[matched], total[gold]),
        "precision": _share(total[matched], total[added]),
        gold: total[gold],
        added: total[added],
        matched: total[matched],
    }
