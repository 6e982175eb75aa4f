"""Our own one-to-one baseline numbers, kept as data (data/expected) and checked with their tolerance."""

from __future__ import annotations

import pandas as pd
import pytest

from toolex import paths
from toolex.experiments.baselines import run_baselines

EXPECTED = pd.read_csv(paths.expected_dir() / "baselines_one_to_one.csv")


@pytest.mark.parametrize("retriever, pool", sorted({(r.retriever, r.pool) for r in EXPECTED.itertuples()}))
def test_baselines_match_expected(retriever, pool, tmp_path):
    expected = EXPECTED[(EXPECTED.retriever == retriever) & (EXPECTED.pool == pool)]
    benchmarks = list(expected[expected.level == "subset"].name)
    table = run_baselines(retrievers=[retriever], benchmarks=benchmarks, pool=pool, out_dir=tmp_path,
                          progress=False).set_index(["level", "name"])
    for row in expected.itertuples():
        got = table.loc[(row.level, row.name)]
        assert got.queries == row.queries
        for metric in ("ndcg@10", "recall@10", "comp@10"):
            want = expected.loc[row.Index, metric]
            assert got[metric] == pytest.approx(want, abs=row.tolerance_pp + 0.005), f"{row.name} {metric}"
