"""Properties of ToolEq: never below one-to-one, equal to it with C* alone, blind to combination order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from toolex.data.records import Annotation
from toolex.metrics import NAMES, evaluate

TOOLS = [f"t{i}" for i in range(25)]
combo = st.lists(st.sampled_from(TOOLS), min_size=1, max_size=5, unique=True).map(tuple)


@st.composite
def cases(draw):
    n = draw(st.integers(1, 12))
    annotations, run = [], {}
    for q in range(n):
        ref = draw(combo)
        extra = draw(st.lists(combo, max_size=6))
        annotations.append(Annotation(f"q{q}", draw(st.sampled_from(["code", "web"])), ref, (ref, *extra)))
        docs = draw(st.lists(st.sampled_from(TOOLS), max_size=20, unique=True))
        if docs:
            run[f"q{q}"] = {d: draw(st.floats(-5, 5, allow_nan=False)) for d in docs}
    return run, annotations, draw(st.integers(1, 15))


@settings(max_examples=150, deadline=None)
@given(cases())
def test_tooleq_never_below_one_to_one(case):
    run, annotations, k = case
    frame = evaluate(run, annotations, k=k).per_query
    for m in NAMES:
        assert (frame[f"tooleq_{m}"] >= frame[f"one_to_one_{m}"] - 1e-12).all()
        assert ((frame[f"tooleq_{m}"] >= 0) & (frame[f"tooleq_{m}"] <= 1 + 1e-12)).all()


@settings(max_examples=100, deadline=None)
@given(cases())
def test_equal_when_only_the_reference(case):
    run, annotations, k = case
    alone = [Annotation(a.query_id, a.category, a.reference, (a.reference,)) for a in annotations]
    frame = evaluate(run, alone, k=k).per_query
    for m in NAMES:
        np.testing.assert_array_equal(frame[f"tooleq_{m}"], frame[f"one_to_one_{m}"])


@settings(max_examples=100, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_independent_of_combination_order(case, rnd):
    run, annotations, k = case
    shuffled = []
    for a in annotations:
        combos = list(a.combinations)
        rnd.shuffle(combos)
        shuffled.append(Annotation(a.query_id, a.category, a.reference, tuple(combos)))
    a = evaluate(run, annotations, k=k).per_query
    b = evaluate(run, shuffled, k=k).per_query
    for m in NAMES:
        np.testing.assert_array_equal(a[f"tooleq_{m}"], b[f"tooleq_{m}"])


def test_comp_requires_every_tool_and_is_zero_beyond_k():
    ann = [Annotation("q", "web", ("a", "b", "c"), (("a", "b", "c"), ("d",)))]
    run = {"q": {"a": 3.0, "b": 2.0, "x": 1.5, "c": 1.0}}
    ev = evaluate(run, ann, k=3).per_query.iloc[0]
    assert ev.one_to_one_comp == 0.0 and ev.one_to_one_recall == 2 / 3
    assert evaluate(run, ann, k=4).per_query.iloc[0].one_to_one_comp == 1.0
    assert evaluate(run, ann, k=2).per_query.iloc[0].one_to_one_comp == 0.0


def test_missing_queries_score_zero_and_are_counted():
    ann = [Annotation("q1", "web", ("a",), (("a",),)), Annotation("q2", "code", ("b",), (("b",),))]
    ev = evaluate({"q1": {"a": 1.0}, "q3": {"a": 1.0}}, ann, k=10)
    summary = ev.summary()
    assert summary["missing_from_run"] == 1 and summary["not_annotated"] == 1
    assert summary["one_to_one"]["ndcg"] == 0.5
    assert summary["by_category"]["code"]["tooleq"]["recall"] == 0.0


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([f"q{i}" for i in range(6)]),
                       st.dictionaries(st.sampled_from(TOOLS), st.sampled_from([0.0, 0.5, 1.0, -2.0, 3.25]),
                                       min_size=0, max_size=25), max_size=6),
       st.integers(1, 12))
def test_top_k_is_trec_eval_order(run, k):
    """Heavy ties: the partition + tie repair gives exactly the sorted order of trec_eval."""
    from toolex.io.trec import ranked
    from toolex.metrics import RunArrays

    arrays = RunArrays.from_dict(run)
    topk = arrays.top_k(k)
    for row, qid in enumerate(arrays.query_ids):
        expected = [tool for tool, _ in ranked(run[qid], k)]
        got = [arrays.tool_ids[c] for c in topk[row] if c >= 0]
        assert got == expected


def test_run_arrays_from_trec_file_matches_dict(tmp_path):
    from toolex.io.trec import write_run
    from toolex.metrics import RunArrays

    run = {"q2": {"b": 1.0, "a": 1.0, "c": 0.5}, "q1": {"z": 2.0}}
    path = write_run(run, tmp_path / "r.trec")
    a, b = RunArrays.from_trec(path), RunArrays.from_dict(run)
    np.testing.assert_array_equal(a.top_k(3), b.top_k(3))
    assert a.query_ids == b.query_ids and list(a.tool_ids) == list(b.tool_ids)
