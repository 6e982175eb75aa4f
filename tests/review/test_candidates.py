"""A campaign of candidate items: people label the items `toolex calibrate --draw` wrote, in the review app,
and `review export --labels` writes the labels file `toolex calibrate --labels` reads."""

from __future__ import annotations

import json
from pathlib import Path

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


def _two_reviewers(tmp_path) -> Path:
    """A campaign of three drawn candidate items, two reviews each."""
    drawn = _drawn(tmp_path / "to_label.jsonl")
    campaign_file = tmp_path / "c.sqlite"
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(campaign_file),
                 "--reviewers", "2"]) == 0
    return campaign_file


def _exported(tmp_path, decisions: list[tuple[int, str, bool, str]]) -> list:
    """The labels ``review export`` writes after ``decisions`` (item index, reviewer, valid, role) on a
    campaign of three candidate items with two reviews each."""
    campaign_file = _two_reviewers(tmp_path)
    with Campaign(campaign_file) as campaign:
        ids = campaign.item_ids()
        for index, reviewer, valid, role in decisions:
            campaign.decide(ids[index], reviewer, valid, None if valid else "near_synonym", role=role)
    labels = tmp_path / "labels.jsonl"
    assert main(["review", "export", "--campaign", str(campaign_file), "--out", str(tmp_path / "out"),
                 "--labels", str(labels)]) == 0
    return read_labels(labels)


def test_review_to_labels_round_trip(tmp_path, capsys):
    decisions = [(0, "ann", True, "review"), (0, "bob", True, "review"), (1, "ann", False, "review"),
                 (1, "bob", False, "review"), (2, "ann", True, "review"), (2, "bob", False, "review"),
                 (2, "cat", False, "adjudicate")]
    assert [(x.candidate, x.equivalent) for x in _exported(tmp_path, decisions)] == [
        ("c0.Find", True), ("c1.Find", False), ("c2.Find", False)]


def test_a_disagreement_nobody_adjudicated_is_counted_as_left_out(tmp_path, capsys):
    decisions = [(0, "ann", True, "review"), (0, "bob", True, "review"), (1, "ann", True, "review"),
                 (1, "bob", False, "review")]
    capsys.readouterr()
    labels = _exported(tmp_path, decisions)
    said = capsys.readouterr()
    assert [x.candidate for x in labels] == ["c0.Find"]
    assert "1 label" in said.out + said.err
    assert "1 the reviewers disagree and nobody adjudicated" in said.out + said.err
    assert "1 not reviewed yet" in said.out + said.err


def test_export_without_decided_candidates_says_so(tmp_path):
    from toolex.review.export import export_labels

    run, items = candidate_items(_drawn(tmp_path / "to_label.jsonl"))
    with Campaign.create(tmp_path / "c.sqlite", run) as campaign:
        campaign.add_items(items)
        with pytest.raises(InputError, match="no decided candidate item.*3 not reviewed yet"):
            export_labels(campaign, tmp_path / "labels.jsonl")
    (tmp_path / "bad.jsonl").write_text(json.dumps({"query_id": "q"}) + "\n")
    with pytest.raises(InputError, match="line 1"):
        candidate_items(tmp_path / "bad.jsonl")


def test_items_refuse_the_options_of_a_run(tmp_path, capsys):
    drawn = _drawn(tmp_path / "to_label.jsonl")
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(tmp_path / "c.sqlite"),
                 "--size", "2"]) != 0
    assert "--size apply to a run's combinations, not to --items" in capsys.readouterr().err


def test_one_labeller_closes_the_loop(tmp_path, capsys):
    """A campaign of drawn items needs one labeller; export counts the labels it wrote and those it left out,
    keeps each item's category and carries the draw record to where `toolex calibrate --labels` looks."""
    drawn = _drawn(tmp_path / "to_label.jsonl")
    rows = [json.loads(line) for line in drawn.read_text().splitlines()]
    drawn.write_text("".join(json.dumps({**r, "category": "web"}) + "\n" for r in rows))
    (tmp_path / "to_label.draw.json").write_text(json.dumps({"version": 1, "benchmark": "tiny"}))
    campaign_file = tmp_path / "c.sqlite"
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(campaign_file)]) == 0
    again = ["review", "sample", "--items", str(drawn), "--campaign", str(campaign_file)]
    assert main([*again, "--reviewers", "2"]) == 2  # a campaign keeps the rule it was started with
    assert "asks for 1 review(s) per item, refusing --reviewers 2" in capsys.readouterr().err
    assert main([*again, "--reviewers", "1"]) == 0 and main(again) == 0
    with Campaign(campaign_file) as campaign:
        assert campaign.reviewers_per_item == 1
        ids = campaign.item_ids()
        campaign.decide(ids[0], "ann", True)
        campaign.decide(ids[1], "ann", False, "near_synonym")
        with pytest.raises(Exception, match="already has 1 review"):
            campaign.decide(ids[0], "bob", False, "near_synonym")
        assert {it.category for it in campaign.items()} == {"web"}
    labels, out = tmp_path / "labels.jsonl", tmp_path / "out"
    assert main(["review", "export", "--campaign", str(campaign_file), "--out", str(out),
                 "--labels", str(labels)]) == 0
    said = capsys.readouterr().out
    assert "2 labels written" in said and "left out: 1 not reviewed yet" in said
    assert len(read_labels(labels)) == 2
    assert json.loads((tmp_path / "labels.draw.json").read_text())["benchmark"] == "tiny"


def test_a_failed_export_writes_nothing(tmp_path, capsys):
    drawn = _drawn(tmp_path / "to_label.jsonl")
    campaign_file = tmp_path / "c.sqlite"
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(campaign_file)]) == 0
    out = tmp_path / "out"
    assert main(["review", "export", "--campaign", str(campaign_file), "--out", str(out),
                 "--labels", str(tmp_path / "labels.jsonl")]) != 0
    assert "3 not reviewed yet" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "labels.jsonl").exists()


def test_a_code_tools_signature_is_its_parameter_table():
    from toolex.data.records import Tool
    from toolex.review.items import tool_doc

    code = "```python\ndef multiply_fractions(fraction_1, fraction_2=(1, 1)):\n    ...\n```"
    doc = tool_doc(Tool("t", "multiply_fractions", {"name": "multiply_fractions", "description": "multiply",
                                                    "func_description": code}))
    assert [(p["name"], p["required"]) for p in doc["parameters"]] == [("fraction_1", "yes"),
                                                                       ("fraction_2", "")]


def test_gold_decides_with_as_many_reviewers_as_the_campaign_asks(tmp_path):
    from toolex.review.gold import apply_gold

    run, items = candidate_items(_drawn(tmp_path / "to_label.jsonl"))
    with Campaign.create(tmp_path / "c.sqlite", run, {"reviewers_per_item": 1}) as campaign:
        campaign.add_items(items)
        counts = apply_gold(campaign, {"q0": {frozenset({"c0.Find"})}})
        assert counts == {"items": 1, "valid": 1, "invalid": 0}
        assert len(campaign.reviews(campaign.item_ids()[0])) == 1
