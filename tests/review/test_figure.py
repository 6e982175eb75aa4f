"""The review report's figure: every stratum keeps its row, and no dot is clipped at 0 or 100 %."""

from __future__ import annotations

import math

import pandas as pd

from toolex.review.campaign_report import CampaignReport, precision_figure


def _row(category, complexity, decided, valid):
    precision = 100 * valid / decided if decided else math.nan
    return {"category": category, "complexity": complexity, "sampled": 4, "decided": decided, "valid": valid,
            "precision": precision, "ci_low": math.nan if not decided else max(precision - 20, 0),
            "ci_high": math.nan if not decided else min(precision + 20, 100)}


def test_a_stratum_without_decisions_keeps_its_row_and_dots_at_the_limits_are_whole():
    table = pd.DataFrame([_row("Web", "1", 4, 4), _row("Code", "2", 4, 0), _row("Customized", "1", 0, 0),
                          _row("all", "all", 8, 4)])
    fig = precision_figure(CampaignReport(pd.DataFrame(), {"precision": table}))
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert any(label.startswith("Customized") for label in labels)
    assert any(t.get_text() == "no decision yet" for t in ax.texts)
    low, high = ax.get_xlim()
    assert low < 0 and high > 100  # a dot at 0 or 100 % is drawn whole
