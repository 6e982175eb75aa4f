"""System comparisons under one-to-one and ToolEq: Holm's correction, pairwise tests, order flips."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolex.report.compare import compare, holm, rankings, verdicts


def test_holm_matches_the_step_down_by_hand():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def _long(values: dict[tuple[str, str], np.ndarray]) -> pd.DataFrame:
    rows = []
    for (system, kind), scores in values.items():
        for i, value in enumerate(scores):
            rows.append({"query_id": f"q{i}", "benchmark": "b", "category": "Code", "level": "query",
                         "system": system, "measure": "ndcg@10", "kind": kind, "value": float(value)})
    return pd.DataFrame(rows)


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.6, 60)
    return _long({
        ("bm25", "one_to_one"): base, ("bm25", "tooleq"): base + 0.30,   # gains most from equivalents
        ("dense", "one_to_one"): base + 0.10, ("dense", "tooleq"): base + 0.12,
        ("twin", "one_to_one"): base, ("twin", "tooleq"): base + 0.30,   # the same as bm25
    })


def test_pairs_are_tested_per_kind_with_holm(scores):
    pairs = compare(scores, resamples=2000)
    assert len(pairs) == 3 * 2  # three pairs, two kinds
    row = pairs[(pairs.a == "bm25") & (pairs.b == "dense") & (pairs.kind == "one_to_one")].iloc[0]
    assert row.difference == pytest.approx(10.0) and row.significant
    assert row.p_value == pytest.approx(1 / 2001) and row.p_holm == pytest.approx(3 / 2001)  # 3 pairs
    same = pairs[(pairs.a == "bm25") & (pairs.b == "twin")]
    assert (same.difference.abs() < 1e-9).all() and not same.significant.any()
    assert (pairs.p_holm >= pairs.p_value - 1e-12).all()


def test_an_order_that_flips_between_the_kinds_is_reported(scores):
    table = verdicts(compare(scores, resamples=2000))
    flip = table[(table.a == "bm25") & (table.b == "dense")].iloc[0]
    assert flip.order_flips and flip.one_to_one_difference > 0 > flip.tooleq_difference
    ranks = rankings(scores).iloc[0]
    assert ranks.one_to_one_ranking.startswith("dense") and ranks.tooleq_ranking.startswith("bm25")
    assert ranks.ranking_changes
