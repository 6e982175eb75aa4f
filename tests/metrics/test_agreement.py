"""ToolEq metrics agree with pytrec_eval (the ToolRet / Tool-DE reference) to 1e-9."""

from __future__ import annotations

import random

import numpy as np
import pytest

from toolex.data.records import Annotation, one_to_one
from toolex.metrics import NAMES, evaluate
from toolex.metrics.trec_eval_reference import pytrec_eval_scores

pytest.importorskip("pytrec_eval")


def assert_agree(run, annotations, k):
    ours = evaluate(run, annotations, k=k).per_query.set_index("query_id")
    ref = pytrec_eval_scores(run, annotations, k=k)
    for side in ("one_to_one", "tooleq"):
        for m in NAMES:
            expected = np.array([ref[side][q][m] for q in ours.index])
            np.testing.assert_allclose(ours[f"{side}_{m}"].to_numpy(), expected, rtol=0, atol=1e-9,
                                       err_msg=f"{side} {m}@{k}")


def random_case(seed, n_queries=300, n_tools=200, tied=True):
    rng = random.Random(seed)
    tools = [f"tool_{i:04d}" if i % 3 else f"T{i}" for i in range(n_tools)]
    annotations, run = [], {}
    for q in range(n_queries):
        size = rng.randint(1, 5)
        ref = tuple(rng.sample(tools, size))
        combos = [ref] + [tuple(rng.sample(tools, rng.randint(1, 5))) for _ in range(rng.randint(0, 8))]
        annotations.append(Annotation(f"q{q}", rng.choice(["code", "web", "customized"]), ref, tuple(combos)))
        if q % 11:  # some queries are missing from the run
            n = rng.randint(1, 120)
            run[f"q{q}"] = {t: float(rng.randint(0, 9)) if tied else rng.random()
                            for t in rng.sample(tools, n)}
    return run, annotations


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 3, 10, 100])
def test_random_runs_agree(seed, k):
    run, annotations = random_case(seed, tied=seed % 2 == 0)
    assert_agree(run, annotations, k)


def test_ties_broken_by_tool_id_descending():
    ann = [Annotation("q", "web", ("a",), (("a",),))]
    # equal scores: trec_eval ranks "b" before "a"
    ev = evaluate({"q": {"a": 1.0, "b": 1.0}}, ann, k=1)
    assert ev.per_query.one_to_one_ndcg.iloc[0] == 0.0
    assert_agree({"q": {"a": 1.0, "b": 1.0}}, ann, 1)


def _bm25_run(benchmark, k=100):
    import bm25s

    ids = list(benchmark.tools)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([benchmark.tools[i].text for i in ids], stopwords="en",
                                   show_progress=False),
                    show_progress=False)
    tokens = bm25s.tokenize([q.with_instruction for q in benchmark.queries], stopwords="en",
                            show_progress=False)
    docs, scores = retriever.retrieve(tokens, k=min(k, len(ids)), show_progress=False, n_threads=1)
    return {q.id: {ids[d]: float(s) for d, s in zip(docs[i], scores[i])}
            for i, q in enumerate(benchmark.queries)}


def _same_name_combinations(benchmark):
    """Real multi-reference ground truth: each C* tool may be swapped for a pool tool of the same name."""
    by_name: dict[str, list[str]] = {}
    for tool in benchmark.tools.values():
        by_name.setdefault(tool.name.lower(), []).append(tool.id)
    out = []
    for q in benchmark.queries:
        combos = [q.reference]
        for i, tool in enumerate(q.reference):
            for twin in by_name[benchmark.tools[tool].name.lower()][:4]:
                if twin not in q.reference:
                    combos.append(q.reference[:i] + (twin,) + q.reference[i + 1:])
        out.append(Annotation(q.id, q.category, q.reference, tuple(combos)))
    return out


@pytest.mark.parametrize("k", [5, 10, 20])
def test_real_bm25_run_single_reference(apigen, k):
    assert_agree(_bm25_run(apigen), one_to_one(apigen), k)


@pytest.fixture(scope="module")
def stabletoolbench(data_dir):
    from toolex.data import load_benchmark

    return load_benchmark("stabletoolbench", data_dir)


@pytest.mark.parametrize("k", [5, 10, 20])
def test_real_bm25_run_multi_reference(stabletoolbench, k):
    run = _bm25_run(stabletoolbench)
    expanded = _same_name_combinations(stabletoolbench)
    assert sum(len(a.combinations) > 1 for a in expanded) > 50
    assert_agree(run, one_to_one(stabletoolbench), k)
    assert_agree(run, expanded, k)
