"""The illusion share of the paper's Table 2 (expected 30% and 47%) and of our own configured pairs."""

from __future__ import annotations

import pandas as pd
import pytest

from toolex.metrics.long import AVG, QUERY_LEVEL
from toolex.paper import load_table2
from toolex.paper.claims import illusion_share
from toolex.report.illusion import paper_illusion


def own_illusion(results: pd.DataFrame, pairs, metric: str = "ndcg@10", level: str = QUERY_LEVEL):
    """An independent reference: gains and illusion share of (base, fine-tuned) pairs from the ``Avg`` rows of
    a main-results table."""
    rows = results[(results.level == level) & (results.category == AVG) & (results.metric == metric)]
    means = rows.set_index("retriever")[["one_to_one", "tooleq"]]
    out = []
    for base, tuned in pairs:
        if base not in means.index or tuned not in means.index:
            raise KeyError(f"pair ({base}, {tuned}): both retrievers must be in the results table")
        gain = means.loc[tuned] - means.loc[base]
        share = illusion_share(gain.one_to_one, gain.tooleq) if gain.one_to_one else float("nan")
        out.append({"fine_tuned": tuned, "tool_de_gain": gain.one_to_one, "tooleq_gain": gain.tooleq,
                    "illusion_share_pct": 100 * share})
    return pd.DataFrame(out)


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


def _long_scores(seed: int = 0, n: int = 60) -> pd.DataFrame:
    """Per-query scores of a base and a tuned system in two categories: the tuned one gains on one-to-one,
    about half of which ToolEq confirms."""
    import numpy as np

    from toolex.data.records import Annotation
    from toolex.metrics import GroundTruth
    from toolex.metrics.long import concat

    rng = np.random.default_rng(seed)
    ann, base, tuned = [], {}, {}
    for i in range(n):
        qid, cat = f"q{i}", ("code", "web")[i % 2]
        ann.append(Annotation(qid, cat, ("a",), (("a",), ("b",))))
        # base: C* at a random rank or only its equivalent; tuned: C* a little more often at the top
        base[qid] = {"a": 1.0, "z": 2.0} if rng.random() < 0.5 else {"b": 2.0, "z": 1.0}
        tuned[qid] = {"a": 2.0, "z": 1.0} if rng.random() < 0.7 else {"b": 2.0, "z": 1.0}
    truth = GroundTruth(ann)
    return concat([truth.evaluate(base, 10).long("base"), truth.evaluate(tuned, 10).long("tuned")])


def test_illusion_interval_agrees_with_the_table_and_holds_its_point():
    from toolex.report import table2
    from toolex.report.illusion import illusion_interval, illusion_table

    scores = _long_scores()
    got = illusion_interval(scores, "base", "tuned", resamples=300)
    table = table2.main_results(scores)
    expected = own_illusion(table, [("base", "tuned")]).iloc[0]
    assert got["tool_de_gain"] == pytest.approx(expected.tool_de_gain, abs=1e-9)
    assert got["tooleq_gain"] == pytest.approx(expected.tooleq_gain, abs=1e-9)
    assert got["illusion_share_pct"] == pytest.approx(expected.illusion_share_pct, abs=1e-9)
    for point, bounds in (("tool_de_gain", "tool_de_gain_interval"), ("tooleq_gain", "tooleq_gain_interval"),
                          ("illusion_share_pct", "illusion_share_interval_pct")):
        low, high = got[bounds]
        assert low <= got[point] <= high and low < high
    assert got["queries"] == 60 and got["categories"] == 2
    assert got == illusion_interval(scores, "base", "tuned", resamples=300)  # seeded
    shown = illusion_table([got])
    assert list(shown["illusion share 95% CI"]) == [
        f"[{got['illusion_share_interval_pct'][0]:.1f}, {got['illusion_share_interval_pct'][1]:.1f}]"]


def test_illusion_interval_names_a_missing_system():
    from toolex.report.illusion import illusion_interval

    with pytest.raises(KeyError, match="other"):
        illusion_interval(_long_scores(), "base", "other", resamples=10)


def test_figure_shows_intervals_only_where_a_pair_has_them():
    import matplotlib

    matplotlib.use("Agg")
    from toolex.report import figures

    gains = pd.DataFrame([
        {"size": "0.6B", "base": "b", "fine_tuned": "t", "tool_de_gain": 6.4, "tooleq_gain": 4.5,
         "illusion_share_pct": 30.0, "source": "paper"},
        {"size": "MiniLM", "base": "m", "fine_tuned": "m-ft", "tool_de_gain": 24.8, "tooleq_gain": 25.2,
         "illusion_share_pct": -1.8, "source": "ours", "tool_de_gain_interval": [22.8, 26.7],
         "tooleq_gain_interval": [23.3, 27.2], "illusion_share_interval_pct": [-3.5, -0.2]}])
    fig = figures.illusion_bars(gains, "pairs")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["illusion 30%", "illusion -1.8%\n[-3.5, -0.2]"]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0].endswith("(paper)") and labels[1].endswith("(ours)")
    bars = [c for c in ax.containers if hasattr(c, "errorbar") and c.errorbar is not None]
    segments = [seg for c in bars for seg in c.errorbar.lines[2][0].get_segments() if len(seg)]
    assert sorted(tuple(seg[:, 1]) for seg in segments) == [(22.8, 26.7), (23.3, 27.2)]  # ours only


def test_an_interval_without_variation_is_not_stated_as_certain():
    from toolex.report.illusion import interval_text

    assert interval_text(1.0, 2.5) == "[1.0, 2.5]"
    assert interval_text(0.0, 0.0) == "n/a (every resample 0.0)"
    assert interval_text(float("nan"), 1.0) == "n/a"
