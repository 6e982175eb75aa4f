"""The review app without a browser: two reviewer sessions, hidden decisions, revisions, adjudication."""

from __future__ import annotations

import pytest

from toolex.review.store import Campaign
from toolex.widgets.review import ReviewApp, parse_quick


def test_quick_entry():
    assert parse_quick("v") == (True, None, "")
    assert parse_quick("i2 both search, one books") == (False, "near_synonym", "both search, one books")
    with pytest.raises(ValueError):
        parse_quick("maybe")


def test_two_sessions_and_an_adjudication(tmp_path, items):
    campaign = Campaign.create(tmp_path / "c.sqlite", items[0].run)
    campaign.add_items(items)
    ann, bob = ReviewApp(campaign.path, "ann"), ReviewApp(campaign.path, "bob")
    first = ann.current
    assert first == bob.current and "Candidate combination" in ann.item.value and "name_" in ann.item.value
    assert "score" not in ann.item.value.lower() and "rrf" not in ann.item.value.lower()
    ann.quick.value = "i4 different platforms"
    assert "ann" not in bob.item.value and "different platforms" not in bob.item.value  # never shown
    while ann.current:
        ann.quick.value = "v"
    while bob.current:
        bob.quick.value = "v"
    assert campaign.progress()["complete"] == len(items)
    ann.mine.value = items[-1].item_id  # revise one decision: now a second disagreement
    ann.verdict.value, ann.bucket.value = False, "near_synonym"
    ann.submit()
    assert len(campaign.history(items[-1].item_id)) == 3 and "revision 2" in ann.status.value
    judge = ReviewApp(campaign.path, "cat")
    judge.mode.value = "adjudicate"
    assert {v for _, v in judge.disputes.options} == {first, items[-1].item_id}
    assert "different platforms" in judge.others.value
    judge.quick.value = "i4 agreed with ann"
    judge.quick.value = "v"
    assert campaign.progress()["adjudicated"] == 2
    ann.mode.value = "adjudicate"  # a reviewer is not offered the items she reviewed
    assert ann.disputes.options == ()
