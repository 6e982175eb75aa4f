"""A human gold file imported as a finished review, so that the same report runs on it.

Gold format: that of :mod:`toolex.validate.gold` (one JSON object a line, ``{"query_id": str,
"acceptable": [[tool ids], ...]}``). An item (an
accepted combination of ours) is valid iff its tool set is one of the query's acceptable sets; both reviewers
(:data:`GOLD_REVIEWERS`) record that decision, with bucket ``other`` and the note ``from gold`` when invalid.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolex.review.database import Campaign
from toolex.review.items import ReviewItem
from toolex.review.taxonomy import OTHER
from toolex.validate.gold import GoldRecord

GOLD_REVIEWERS = ("gold-a", "gold-b")
NOTE = "from gold"


def acceptable_sets(records: Iterable[GoldRecord]) -> dict[str, set[frozenset[str]]]:
    """query id -> its acceptable tool sets, from a gold file read by
    :func:`toolex.validate.gold.read_gold` (the one reader and validator of gold files)."""
    return {g.query_id: {frozenset(c) for c in g.acceptable} for g in records}


def gold_items(items: Iterable[ReviewItem], gold: dict[str, set[frozenset[str]]]) -> list[ReviewItem]:
    """The items whose query the gold file covers."""
    return [i for i in items if i.query_id in gold]


def apply_gold(campaign: Campaign, gold: dict[str, set[frozenset[str]]]) -> dict[str, int]:
    """The gold reviewers (as many as the campaign asks reviews per item) decide every campaign item whose
    query is in ``gold``; returns counts."""
    counts = {"items": 0, "valid": 0, "invalid": 0}
    for item in campaign.items():
        acceptable = gold.get(item.query_id)
        if acceptable is None:
            continue
        valid = frozenset(item.tools) in acceptable
        for reviewer in GOLD_REVIEWERS[:campaign.reviewers_per_item]:
            campaign.decide(item.item_id, reviewer, valid, None if valid else OTHER, "" if valid else NOTE)
        counts["items"] += 1
        counts["valid" if valid else "invalid"] += 1
    return counts
