"""BM25 through toolex gives the numbers of the ToolRet / Tool-DE protocol run by hand (eval-BM25.py)."""

from __future__ import annotations

import bm25s
import pytest
import pytrec_eval

from toolex.retrieval import retrieve_queries
from toolex.retrieval.bm25 import BM25Retriever


def protocol_run(tools, queries, rk_num=100):
    """The reference loop: one query at a time, exactly as Tool-REX example/eval-BM25.py does it."""
    doc_texts = [t.text for t in tools.values()]
    doc_ids = [t.id for t in tools.values()]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(doc_texts, stopwords="en", show_progress=False), show_progress=False)
    run = {}
    for q in queries:
        qtext = f"{q.instruction} {q.text}" if q.instruction else q.text
        q_tokens = bm25s.tokenize(qtext, show_progress=False)
        if len(q_tokens.vocab) == 0:
            q_tokens = bm25s.tokenize("NONE", stopwords=[], show_progress=False)
        hits, scores = retriever.retrieve(q_tokens, corpus=doc_ids, k=min(rk_num, len(doc_ids)),
                                          show_progress=False)
        run[q.id] = {str(hits[0, i]): float(scores[0, i]) for i in range(hits.shape[1])}
    return run


def trec_means(qrels, run, k=10):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}", f"recall.{k}"})
    scores = evaluator.evaluate(run)
    n = len(scores)
    return {
        "ndcg": sum(s[f"ndcg_cut_{k}"] for s in scores.values()) / n,
        "recall": sum(s[f"recall_{k}"] for s in scores.values()) / n,
        "comp": sum(s[f"recall_{k}"] == 1 for s in scores.values()) / n,
    }


def test_bm25_matches_protocol_on_toolret(toolret_parts, toolret_pool, bm25_all):
    from toolex.data.records import one_to_one
    from toolex.metrics import evaluate

    queries = [q for bench in toolret_parts for q in bench.queries]
    ours = retrieve_queries(bm25_all, queries, k=100)
    reference = protocol_run(toolret_pool, queries)
    assert ours.keys() == reference.keys()
    for qid, scores in reference.items():
        assert ours[qid].keys() == scores.keys(), qid
        for tool, score in scores.items():
            assert ours[qid][tool] == pytest.approx(score, rel=1e-6, abs=1e-6)
    for bench in toolret_parts:
        part_ours = {q.id: ours[q.id] for q in bench.queries}
        part_ref = {q.id: reference[q.id] for q in bench.queries}
        expected = trec_means(bench.qrels(), part_ref)
        assert trec_means(bench.qrels(), part_ours) == pytest.approx(expected, abs=1e-12)
        got = evaluate(part_ours, one_to_one(bench), k=10).summary()["one_to_one"]
        for m in ("ndcg", "recall", "comp"):
            assert got[m] == pytest.approx(expected[m], abs=1e-9), (bench.name, m)


def test_bm25_settings_are_the_protocol_defaults(bm25_all):
    settings = bm25_all.settings()
    assert (settings["method"], settings["k1"], settings["b"]) == ("lucene", 1.5, 0.75)
    assert settings["corpus_stopwords"] == "en"
    assert bm25_all._model.method == "lucene" and bm25_all._model.k1 == 1.5 and bm25_all._model.b == 0.75


def test_instruction_prefix_and_empty_query(bm25_all):
    tokens = bm25_all.tokenize_queries(["find the weather", "!!", "", "to the"],
                                       instructions=["Given a task,", "", "", ""])
    assert tokens[0] == ["given", "task", "find", "weather"]  # stopwords and one-letter words dropped
    assert tokens[1] == tokens[2] == tokens[3] == ["none"]
    hits = bm25_all.search(["!!"], k=5)
    assert len(hits[0]) == 5


def test_k_is_capped_by_pool_size(toolret_parts):
    bench = toolret_parts[0]
    retriever = BM25Retriever()
    retriever.index(bench.tools)
    hits = retriever.search([bench.queries[0].text], k=100_000)
    assert len(hits[0]) == len(bench.tools)
    scores = [s for _, s in hits[0]]
    assert scores == sorted(scores, reverse=True)


def test_search_before_index_fails():
    with pytest.raises(RuntimeError):
        BM25Retriever().search(["x"])
