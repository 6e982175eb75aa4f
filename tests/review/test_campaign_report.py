"""Two simulated reviewers with known decisions and one adjudicator: precision, kappa, taxonomy by hand."""

from __future__ import annotations

import math

import pytest

from toolex.review.campaign_report import campaign_report, wilson
from toolex.review.database import ADJUDICATE, Campaign

V = (True, None)
NEAR, INCOMPLETE, CROSS = (False, "near_synonym"), (False, "incomplete_coverage"), (False,
                                                                                    "cross_platform_mismatch")
DECOMP, OTHER = (False, "decomposition_ambiguity"), (False, "other")

# item: (ann, bob) — "ann" is reviewer a, "bob" reviewer b
DECISIONS = {
    "q1::t2": (V, V), "q1::t3": (V, V), "q2::t5": (NEAR, NEAR),          # stratum code · 1 tool: 2 / 3
    "q3::t1+t7": (V, V), "q3::t2+t6": (V, INCOMPLETE), "q3::t2+t7": (CROSS, CROSS),  # code · 2: adjudicated
    "q4::w2": (V, V), "q4::w3": (V, V), "q4::w4": (NEAR, V), "q4::w5": (DECOMP, OTHER),  # web · 1
}


@pytest.fixture
def campaign(tmp_path, items):
    campaign = Campaign.create(tmp_path / "c.sqlite", items[0].run,
                               {"plan": {"code · 1 tool": [3, 3], "code · 2 tools": [3, 3],
                                         "web · 1 tool": [4, 4]}})
    campaign.add_items(items)
    for item_id, (a, b) in DECISIONS.items():
        campaign.decide(item_id, "ann", *a, note="ann's reason")
        campaign.decide(item_id, "bob", *b)
    campaign.decide("q3::t2+t6", "cat", False, "incomplete_coverage", "misses the second need",
                    role=ADJUDICATE)
    llm_valid = {"q1::t2", "q1::t3", "q2::t5", "q4::w2", "q4::w4"}
    campaign.add_judge_verdicts([(i, "llm", i in llm_valid) for i in DECISIONS], "other run")
    yield campaign
    campaign.close()


def test_wilson_closed_forms():
    z2 = 1.959963984540054 ** 2
    assert wilson(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    assert wilson(10, 10) == pytest.approx((10 / (10 + z2), 1.0))
    low, high = wilson(5, 9)
    assert low < 5 / 9 < high and math.isnan(wilson(0, 0)[0])


def test_precision_per_stratum_and_overall(campaign):
    table = campaign_report(campaign).tables["precision"].set_index(["category", "complexity"])
    assert table.loc[("code", "1"), ["sampled", "decided", "valid"]].tolist() == [3, 3, 2]
    assert table.loc[("code", "2"), ["decided", "valid"]].tolist() == [3, 1]  # the adjudication says invalid
    assert table.loc[("web", "1"), ["sampled", "decided", "valid"]].tolist() == [4, 3, 2]  # one pending
    overall = table.loc[("all", "all")]
    assert (overall.decided, overall.valid) == (9, 5)
    assert overall.precision == pytest.approx(100 * 5 / 9)
    assert (overall.ci_low, overall.ci_high) == pytest.approx(tuple(100 * x for x in wilson(5, 9)))
    weighted = table.loc[("weighted", "all")]  # strata weighted 3 : 3 : 4
    assert weighted.precision == pytest.approx(100 * (0.3 * 2 / 3 + 0.3 * 1 / 3 + 0.4 * 2 / 3))


def test_kappa_agreement_and_adjudication(campaign):
    row = campaign_report(campaign).tables["agreement"].iloc[0]
    # both valid 5, both invalid 3, valid only by ann 1, only by bob 1; each marks 6 of 10 valid
    assert (row["both valid"], row["both invalid"], row["valid only by reviewer a"],
            row["valid only by reviewer b"]) == (5, 3, 1, 1)
    assert row["raw agreement (%)"] == pytest.approx(80.0)
    assert row["cohen kappa"] == pytest.approx((0.8 - 0.52) / (1 - 0.52))
    assert (row["validity disagreements"], row["bucket disagreements"], row["adjudicated"],
            row["pending adjudication"], row["unresolved buckets"]) == (2, 1, 1, 1, 1)


def test_failure_taxonomy(campaign):
    table = campaign_report(campaign).tables["taxonomy"].set_index("bucket")
    assert table["items"].to_dict() == {"decomposition_ambiguity": 0, "near_synonym": 1,
                                        "incomplete_coverage": 1,
                                        "cross_platform_mismatch": 1, "other": 0, "unresolved": 1}
    assert table.loc["near_synonym", "share of invalid (%)"] == pytest.approx(25.0)
    assert table["reviews naming it"].to_dict() == {"decomposition_ambiguity": 1, "near_synonym": 3,
                                                    "incomplete_coverage": 1, "cross_platform_mismatch": 2,
                                                    "other": 1, "unresolved": 0}


def test_per_judge_comparison(campaign):
    table = campaign_report(campaign).tables["judges"].set_index("judge")
    ours = table.loc["offline-similarity(minilm)"]  # the sampled run's judge accepted every item
    assert (ours["items"], ours["judge valid"], ours["judge invalid"]) == (9, 9, 0)
    assert ours["human precision of judge-valid (%)"] == pytest.approx(100 * 5 / 9)
    llm = table.loc["llm"]  # accepts 4 decided items (3 humanly valid), rejects 5 (2 humanly valid)
    assert (llm["items"], llm["judge valid"], llm["judge invalid"]) == (9, 4, 5)
    assert llm["human precision of judge-valid (%)"] == pytest.approx(75.0)
    assert llm["human valid among judge-invalid (%)"] == pytest.approx(40.0)
    assert llm["cohen kappa"] == pytest.approx(14 / 41)


def test_summary_and_reviewers(campaign):
    report = campaign_report(campaign)
    summary = report.summary()
    assert (summary["decided"], summary["valid"], summary["adjudicated"], summary["pending"]) == (9, 5, 1, 1)
    reviewers = report.tables["reviewers"].set_index("reviewer")
    assert reviewers.loc["cat", "adjudications"] == 1 and reviewers.loc["ann", "reviews"] == 10
    # ann differs from the final decision on q3::t2+t6 only (q4::w4 is pending, so not counted)
    assert reviewers.loc["ann", "agrees with final (%)"] == pytest.approx(100 * 8 / 9)


def test_a_weighted_estimate_without_variation_states_no_interval():
    import pandas as pd

    from toolex.review.campaign_report import precision_table

    final = pd.DataFrame({"category": ["code", "code", "web"], "complexity": [1, 1, 1],
                          "stratum": ["code · 1 tool", "code · 1 tool", "web · 1 tool"],
                          "valid": [True, True, False], "reviews": [2, 2, 2]})
    weighted = precision_table(final, {"code · 1 tool": 10, "web · 1 tool": 30}).set_index("category")
    assert weighted.loc["weighted", "precision"] == 25.0
    assert math.isnan(weighted.loc["weighted", "ci_low"]) and math.isnan(weighted.loc["weighted", "ci_high"])
