"""The review app without a browser: two reviewer sessions, hidden decisions, revisions, adjudication."""

from __future__ import annotations

import pytest

from toolex.review.database import Campaign
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


def _scored_item(items):
    """An item whose verdict reasons are an offline judge's score and signals, as older campaigns hold."""
    import dataclasses

    item = items[0]
    payload = {**item.payload, "rationale": {
        "audit": "score 0.912 >= 0.506 (description_cosine 0.81, documentation_cosine 0.77)",
        "substitutions": [{"index": 0, "reference_tool": item.payload["reference"][0],
                           "tool": item.payload["tools"][0],
                           "reason": "score 0.488 >= 0.451 (description_cosine 0.78, subquery_fit -0.02)"}]}}
    return dataclasses.replace(item, payload=payload)


def test_the_review_screen_shows_no_judge_score_feature_or_confidence(items):
    from toolex.annotate.judges.features import FEATURES
    from toolex.widgets.review import item_html

    html = item_html(_scored_item(items))
    assert "0.488" not in html and "0.912" not in html and not any(f in html for f in FEATURES)
    assert "Model's rationale" in html  # words would be shown; a score never
    worded = item_html(items[0])
    assert "does what" in worded


def test_a_campaign_can_hide_the_rationale_too(tmp_path, items):
    from toolex.review.items import RATIONALE_SETTING

    campaign = Campaign.create(tmp_path / "c.sqlite", items[0].run, {RATIONALE_SETTING: "hidden"})
    campaign.add_items(items)
    app = ReviewApp(campaign.path, "ann")
    assert "Candidate combination" in app.item.value
    assert "Model's rationale" not in app.item.value and "does what" not in app.item.value
    shown = Campaign.create(tmp_path / "d.sqlite", items[0].run)
    shown.add_items(items)
    assert "does what" in ReviewApp(shown.path, "ann").item.value


def test_build_items_drops_score_reasons(tmp_path):
    import json

    from tests.review.conftest import records, write_run
    from toolex.review.items import build_items

    folder = write_run(tmp_path / "run")
    verified = folder / "verified.jsonl"
    lines = [json.loads(line) for line in verified.read_text().splitlines()]
    for line in lines:
        for candidate in line["candidates"]:
            candidate["reason"] = "score 0.5 >= 0.4 (name_overlap 1.00)"
    verified.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _, built = build_items(folder, *records())
    reasons = [s["reason"] for it in built for s in it.payload["rationale"]["substitutions"]]
    assert reasons and all(r == "" for r in reasons)


def test_blind_keeps_an_llm_rationale_and_drops_scores():
    from toolex.review.items import blind

    assert blind("embedding score 0.412 in the unsure band; Both look up buses.") == "Both look up buses."
    assert blind("score 0.49 >= 0.45 (description_cosine 0.81)") == ""
    assert blind("Both look up buses.") == "Both look up buses." and blind(None) == ""
