"""The campaign store: revisions with history, two reviewers and an adjudicator, another run refused,
concurrent writers and a killed server."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace

import pytest

from tests.review.conftest import RUN, records, write_run
from toolex import paths
from toolex.review.database import ADJUDICATE, Campaign, CampaignError
from toolex.review.items import build_items

CHILD = [sys.executable, "-m", "tests.review.child"]


@pytest.fixture
def campaign(tmp_path, items):
    campaign = Campaign.create(tmp_path / "c.sqlite", items[0].run)
    campaign.add_items(items)
    yield campaign
    campaign.close()


def test_revisions_keep_history(campaign):
    assert campaign.decide("q1::t2", "ann", True) == 1
    assert campaign.decide("q1::t2", "ann", False, "near_synonym", "second look") == 2
    current = campaign.decision("q1::t2", "ann")
    assert (current["valid"], current["bucket"], current["revision"]) == (False, "near_synonym", 2)
    assert [(h["valid"], h["revision"]) for h in campaign.history("q1::t2")] == [(True, 1), (False, 2)]
    with pytest.raises(CampaignError, match="bucket"):
        campaign.decide("q1::t2", "ann", False)


def test_two_reviewers_then_an_adjudicator(campaign):
    campaign.decide("q2::t5", "ann", True)
    campaign.decide("q2::t5", "bob", False, "incomplete_coverage")
    with pytest.raises(CampaignError, match="already has 2 reviews"):
        campaign.decide("q2::t5", "cat", True)
    with pytest.raises(CampaignError, match="cannot adjudicate"):
        campaign.decide("q2::t5", "bob", True, role=ADJUDICATE)
    campaign.decide("q1::t2", "ann", True)
    campaign.decide("q1::t2", "bob", True)
    with pytest.raises(CampaignError, match="no disagreement"):
        campaign.decide("q1::t2", "cat", True, role=ADJUDICATE)
    campaign.decide("q2::t5", "cat", True, role=ADJUDICATE)
    assert [d["item_id"] for d in campaign.disagreements()] == ["q2::t5"]
    assert campaign.next_item("cat") is not None and campaign.next_item("cat") not in {"q2::t5", "q1::t2"}
    assert "q2::t5" not in {campaign.next_item("dan", after=i) for i in campaign.item_ids()}


def test_refuses_items_of_another_run(tmp_path, campaign):
    other = {**RUN, "q2": ("code", ["t1"], [(["t5"], True), (["t3"], True)])}
    run, foreign = build_items(write_run(tmp_path / "other", other), *records(other))
    assert run != campaign.run
    before = len(campaign)
    mixed = [*foreign[:1], replace(foreign[1], run=campaign.run)]
    with pytest.raises(CampaignError, match="refusing item"):
        campaign.add_items(mixed)
    assert len(campaign) == before  # nothing written
    with pytest.raises(CampaignError, match="refusing"):
        Campaign.create(campaign.path, run)


def test_two_processes_hammering_one_campaign_lose_nothing(campaign):
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    procs = [subprocess.Popen([*CHILD, "hammer", str(campaign.path), name, "6"], cwd=paths.ROOT, env=env)
             for name in ("ann", "bob")]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    items = len(campaign)
    assert len(campaign.decisions()) == 2 * items
    assert len(campaign.history()) == 2 * 6 * items  # every revision of every writer
    assert {d["revision"] for d in campaign.decisions()} == {6}
    assert {d["note"] for d in campaign.decisions()} == {"round 5"}


def test_a_killed_server_keeps_every_answered_item(campaign):
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    proc = subprocess.Popen([*CHILD, "app", str(campaign.path), "ann"], cwd=paths.ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)
    answered = [proc.stdout.readline().strip() for _ in range(4)]
    os.kill(proc.pid, signal.SIGKILL)  # mid-campaign: no clean shutdown, no checkpoint
    proc.wait(timeout=30)
    assert "done" not in answered
    with sqlite3.connect(campaign.path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Campaign(campaign.path) as reopened:
        saved = set(reopened.reviewed_by("ann"))
    assert set(answered) <= saved and len(saved) < len(campaign)
