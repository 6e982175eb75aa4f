"""The illusion share of the paper's Table 2 (expected 30% and 47%) and of our own configured pairs."""

from __future__ import annotations

import pandas as pd
import pytest

from toolex.paper import load_table2
from toolex.report.illusion import own_illusion, paper_illusion


def test_paper_illusion_shares_are_30_and_47_percent():
    gains = paper_illusion(load_table2()).set_index("size")
    assert round(gains.loc["0.6B", "illusion_share_pct"]) == 30
    assert round(gains.loc["4B", "illusion_share_pct"]) == 47
    assert gains.loc["0.6B", "tool_de_gain"] == pytest.approx(6.4, abs=0.05)
    assert gains.loc["4B", "tooleq_gain"] == pytest.approx(3.8, abs=0.05)
    assert (gains.source == "reported by the paper").all()


def test_own_illusion_from_the_avg_rows():
    results = pd.DataFrame([
        {"level": "query", "retriever": "base", "category": "Avg", "metric": "ndcg@10", "one_to_one": 40.0,
         "tooleq": 50.0},
        {"level": "query", "retriever": "tuned", "category": "Avg", "metric": "ndcg@10", "one_to_one": 50.0,
         "tooleq": 55.0},
    ])
    row = own_illusion(results, [("base", "tuned")]).iloc[0]
    assert row.tool_de_gain == 10.0 and row.tooleq_gain == 5.0 and row.illusion_share_pct == 50.0
    with pytest.raises(KeyError):
        own_illusion(results, [("base", "missing")])
