"""One unit per measure: scores and their differences in points, the share a ratio; readable headers."""

from __future__ import annotations

import pandas as pd
import pytest

from toolex.report.units import for_reading, in_points, readable, score_columns


def credit_rows() -> pd.DataFrame:
    return pd.DataFrame({"retriever": ["bm25"], "one_to_one": [0.524], "ours": [0.64], "gold": [0.662],
                         "recovered": [0.835], "over_credit": [0.021], "under_credit": [0.044],
                         "over_credit mean": [0.03]})


def test_scores_and_credit_go_to_points_the_share_stays_a_ratio():
    out = in_points(credit_rows())
    assert out.loc[0, "one_to_one"] == pytest.approx(52.4) and out.loc[0, "over_credit"] == pytest.approx(2.1)
    assert out.loc[0, "over_credit mean"] == pytest.approx(3.0)  # a summary column of a score is a score
    assert out.loc[0, "recovered"] == 0.835 and out.loc[0, "retriever"] == "bm25"
    assert credit_rows().loc[0, "ours"] == 0.64  # a copy: the kept fractions are untouched


def test_headers_are_named_for_a_reader():
    out = for_reading(credit_rows())
    assert list(out.columns) == ["retriever", "one-to-one", "ToolEq (ours)", "ToolEq (people)",
                                 "recovered share", "over-credit", "under-credit", "over-credit mean"]
    assert list(readable(pd.DataFrame(columns=["p_value", "p", "p_holm"])).columns) == [
        "p (raw)", "p (as printed)", "p (Holm)"]
    assert score_columns(["recovered", "one_to_one", "under", 3]) == ["one_to_one", "under"]
