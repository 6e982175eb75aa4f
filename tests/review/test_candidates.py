"""A campaign of candidate items: people label the items `toolex calibrate --draw` wrote, in the review app,
and `review export --labels` writes the labels file `toolex calibrate --labels` reads."""

from __future__ import annotations

import json

import pytest

from toolex.annotate.operating_point import read_labels
from toolex.cli import main
from toolex.errors import InputError
from toolex.review.database import Campaign
from toolex.review.items import candidate_items
from toolex.widgets.review import ReviewApp


def _drawn(path):
    reference = {"name": "Find", "description": "find a thing",
                 "parameters": {"required": [{"name": "city", "description": "where"}]}}
    rows = [{"query_id": f"q{i}", "query": f"query {i}", "subquery": f"find thing {i}",
             "reference": "ref.Find",
             "candidate": f"c{i}.Find", "reference_documentation": reference,
             "candidate_documentation": {"name": f"Look{i}", "description": "look a thing up"},
             "equivalent": None} for i in range(3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_candidate_items_show_both_tools_and_no_judge(tmp_path):
    run, items = candidate_items(_drawn(tmp_path / "to_label.jsonl"))
    assert len(items) == 3 and items[0].item_id == "q0::ref.Find=>c0.Find" and items[0].run == run
    campaign = Campaign.create(tmp_path / "c.sqlite", run, {"rationale": "hidden"})
    campaign.add_items(items)
    html = ReviewApp(campaign.path, "ann").item.value
    assert "Can the candidate tool replace the reference tool" in html
    assert "find thing 0" in html and "Look0" in html and "city" in html
    assert "score" not in html.lower() and "rationale" not in html.lower()


def test_review_to_labels_round_trip(tmp_path, capsys):
    drawn = _drawn(tmp_path / "to_label.jsonl")
    campaign_file = tmp_path / "c.sqlite"
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(campaign_file)]) == 0
    with Campaign(campaign_file) as campaign:
        ids = campaign.item_ids()
        for reviewer in ("ann", "bob"):
            campaign.decide(ids[0], reviewer, True)
            campaign.decide(ids[1], reviewer, False, "near_synonym")
        campaign.decide(ids[2], "ann", True)
        campaign.decide(ids[2], "bob", False, "near_synonym")
        campaign.decide(ids[2], "cat", False, "near_synonym", role="adjudicate")
    labels = tmp_path / "labels.jsonl"
    assert main(["review", "export", "--campaign", str(campaign_file), "--out", str(tmp_path / "out"),
                 "--labels", str(labels)]) == 0
    assert [(x.candidate, x.equivalent) for x in read_labels(labels)] == [
        ("c0.Find", True), ("c1.Find", False), ("c2.Find", False)]


def test_export_without_decided_candidates_says_so(tmp_path):
    from toolex.review.export import export_labels

    run, items = candidate_items(_drawn(tmp_path / "to_label.jsonl"))
    with Campaign.create(tmp_path / "c.sqlite", run) as campaign:
        campaign.add_items(items)
        with pytest.raises(InputError, match="no decided candidate item"):
            export_labels(campaign, tmp_path / "labels.jsonl")
    (tmp_path / "bad.jsonl").write_text(json.dumps({"query_id": "q"}) + "\n")
    with pytest.raises(InputError, match="line 1"):
        candidate_items(tmp_path / "bad.jsonl")


def test_items_refuse_the_options_of_a_run(tmp_path, capsys):
    drawn = _drawn(tmp_path / "to_label.jsonl")
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(tmp_path / "c.sqlite"),
                 "--size", "2"]) != 0
    assert "--size apply to a run's combinations, not to --items" in capsys.readouterr().err
