"""What Stage 3 and Table 1 count: admissible combinations only, combinations as sets, failed decompositions
kept in every denominator and flagged, and failed queries left out of the sub-query run (scored as
missing)."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolex.annotate.combine import admissible, best_combinations
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.annotate.run_folder import COMBINATIONS, SUBQUERIES, ArtifactFolder, write_jsonl
from toolex.annotate.stage_records import AuditedQuery, Combination, Verdict
from toolex.annotate.stats import _row, table1
from toolex.metrics import GroundTruth

from .fakes import BagOfWords, RuleJudge, tiny_benchmark

# -- Stage 3 enumeration -------------------------------------------------------------------------------------


def test_admissible_reuses_a_tool_only_where_c_star_does():
    assert admissible(("x", "y"), ("a", "b"))
    assert not admissible(("x", "x"), ("a", "b"))
    assert admissible(("x", "x"), ("a", "a"))  # C* itself uses one tool for both
    assert not admissible(("x", "y", "y"), ("a", "a", "b"))
    assert admissible(("x", "x", "y"), ("a", "a", "b"))


def _brute(sets, limit, reference):
    """Every combination, best RRF first (ties: lexicographic positions), filtered and deduplicated by set."""
    rows = []
    for position in itertools.product(*(range(len(s)) for s in sets)):
        ordered = [sorted(s, key=lambda item: (item[1], item[0])) for s in sets]
        tools = tuple(o[i][0] for o, i in zip(ordered, position))
        rows.append((-sum(1 / (60 + o[i][1]) for o, i in zip(ordered, position)), position, tools))
    out, seen = [], set()
    for neg, _, tools in sorted(rows):
        if admissible(tools, reference) and frozenset(tools) not in seen:
            seen.add(frozenset(tools))
            out.append((tools, -neg))
    return out[:limit]


sets_strategy = st.integers(1, 4).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(1, 6)), min_size=1, max_size=4,
                      unique_by=lambda x: x[0]), min_size=n, max_size=n),
    st.lists(st.sampled_from("pqr"), min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None)
@given(sets_strategy, st.integers(1, 12))
def test_heap_with_reference_matches_filtered_brute_force(case, limit):
    sets, reference = case
    got = best_combinations(sets, limit, reference=tuple(reference))
    want = _brute(sets, limit, tuple(reference))
    assert [t for t, _ in got] == [t for t, _ in want]
    assert [round(s, 12) for _, s in got] == [round(s, 12) for _, s in want]
    assert len({frozenset(t) for t, _ in got}) == len(got)


def test_limit_counts_distinct_admissible_combinations():
    shared = [("a", 1), ("b", 1), ("c", 2), ("d", 3)]
    got = best_combinations([shared, shared], 5, reference=("a", "b"))
    assert len(got) == 5
    assert all(len(set(t)) == 2 for t, _ in got)
    assert len({frozenset(t) for t, _ in got}) == 5
    assert got == best_combinations([shared, shared], 5, reference=("a", "b"))  # deterministic


# -- the pipeline on a tiny benchmark ------------------------------------------------------------------------


@pytest.fixture()
def bench():
    return tiny_benchmark()


def _run(bench, out, fail=(), max_combinations=20):
    bow = BagOfWords()
    ToolEX([bench], RuleJudge(fail=fail), out, AnnotateConfig(retriever="bow", top_k=10,
                                                               max_combinations=max_combinations),
           retriever=bow, progress=False).run()
    return ArtifactFolder(out)


def test_stage3_emits_distinct_admissible_sets_with_c_star_once(tmp_path, bench):
    folder = _run(bench, tmp_path / "run")
    audited = {a.query_id: a for a in folder.audited()}
    q1 = audited["q1"]  # C* = (get_weather, get_email): every get_* tool is verified for both sub-queries
    tools = [c.tools for c in q1.combinations]
    assert all(len(set(t)) == len(t) for t in tools)  # no tool serves two operations
    assert len({frozenset(t) for t in tools}) == len(tools)  # (b, a) is C*, not another combination
    assert [c.tools for c in q1.combinations if c.is_reference] == [("a", "b")]
    assert len(tools) == 6  # C(4, 2) sets of two distinct get_* tools
    q3 = audited["q3"]  # C* = (get_news, get_stock, send_mail): two get_* positions, one send_* position
    assert all(len(set(c.tools)) == 3 for c in q3.combinations)
    assert len({frozenset(c.tools) for c in q3.combinations}) == len(q3.combinations) == 6 * 2
    stats = table1(folder)
    assert stats.loc["all", "valid_combinations"] == sum(len(a.combinations) for a in audited.values())


def test_max_combinations_still_yields_distinct_combinations(tmp_path, bench):
    folder = _run(bench, tmp_path / "run", max_combinations=3)
    q1 = next(a for a in folder.audited() if a.query_id == "q1")
    assert len(q1.combinations) == 3 and len({frozenset(c.tools) for c in q1.combinations}) == 3
    again = _run(bench, tmp_path / "again", max_combinations=3)
    assert again.path(COMBINATIONS).read_bytes() == folder.path(COMBINATIONS).read_bytes()


# -- Table 1 -------------------------------------------------------------------------------------------------

YES = Verdict(True, "ok", "j")


def test_table1_counts_combinations_as_sets():
    a = AuditedQuery("q", "web", ("a", "b"), (
        Combination(("a", "b"), 0.03, True, Verdict(True, "C*", "reference")),
        Combination(("b", "a"), 0.03, True, Verdict(True, "C*", "reference")),  # a permutation of C*
        Combination(("x", "y"), 0.02, False, YES),
        Combination(("y", "x"), 0.02, False, YES)), 4)
    row = _row([], [], [a])
    assert row["valid_combinations"] == 2
    only_c_star = AuditedQuery("r", "web", ("a", "b"), (
        Combination(("a", "b"), 0.03, True, Verdict(True, "C*", "reference")),
        Combination(("b", "a"), 0.03, True, Verdict(True, "C*", "reference"))), 1)
    row = _row([], [], [only_c_star])
    assert row["valid_combinations"] == 1 and row["queries_with_extra_combination_pct"] == 0.0


def test_a_failed_decomposition_stays_in_every_denominator_and_is_flagged(tmp_path, bench):
    folder = _run(bench, tmp_path / "run", fail=("q2",))
    stats = table1(folder)
    all_ = stats.loc["all"]
    assert all_["queries"] == 3 and all_["decomposition_failures"] == 1 and all_["flagged_queries"] == 1
    assert all_["missing_sub_queries"] == 2
    assert all_["sub_queries"] == 2 + 3  # q1 and q3 decomposed; q2's two sub-queries are missing
    verified = folder.verified_sets()
    assert all_["verified_items"] == sum(len(v.verified) for v in verified)
    assert all_["sub_queries_with_extra_equivalent_pct"] == pytest.approx(
        100 * sum(len(v.verified) > 1 for v in verified) / (5 + 2))
    assert all_["avg_items_per_sub_query"] == pytest.approx((all_["verified_items"] + 2) / 7)
    q2 = next(a for a in folder.audited() if a.query_id == "q2")
    assert q2.valid == [("n", "t")]  # C* only
    # a folder whose Stage 3 lost the query still counts it (the old count read Stage 3 alone)
    kept = [a for a in folder.audited() if a.query_id != "q2"]
    write_jsonl(folder.path(COMBINATIONS), (a.to_json() for a in kept))
    again = table1(folder, group_of={"q1": "web", "q2": "web", "q3": "code"}).loc["all"]
    assert again["queries"] == 3 and again["valid_combinations"] == all_["valid_combinations"]
    assert again["flagged_queries"] == 1


def test_failed_decomposition_is_missing_from_the_subquery_run(tmp_path, bench, monkeypatch):
    from toolex.experiments import workspace as artifacts
    from toolex.experiments.settings import ReportSettings

    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "artifacts"))
    folder = _run(bench, tmp_path / "run", fail=("q2",))
    assert not json.loads(folder.path(SUBQUERIES).read_text().splitlines()[1])["ok"]
    monkeypatch.setitem(artifacts._RETRIEVERS, "bow", BagOfWords())
    workspace = artifacts.Workspace(ReportSettings(benchmarks=("tiny",)), [bench], list(bench.queries))
    annotated = artifacts.Annotated(folder, "rule")
    for _ in range(2):  # computed, then read back from its file
        run = artifacts.ensure_subquery_run("bow", workspace, annotated, k=5)
        assert set(run) == {"q1", "q3"}
        evaluation = GroundTruth(annotated.annotations).evaluate(run, 5)
        assert evaluation.missing_from_run == 1
        row = evaluation.per_query.set_index("query_id").loc["q2"]
        assert not row["in_run"] and row["tooleq_ndcg"] == 0.0 and row["one_to_one_ndcg"] == 0.0
