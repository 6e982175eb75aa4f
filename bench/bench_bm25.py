"""BM25 throughput: the toolex retriever against raw bm25s on the same data, in the same run.

Both sides index the four ToolRet subsets (pool = all) and retrieve the top 100 for every query, the raw side
with the bare bm25s calls of the protocol (batched tokenisation, one ``retrieve`` call), the toolex side
through :class:`toolex.retrieval.bm25.BM25Retriever` and :func:`toolex.retrieval.retrieve_queries` (a TREC run
dict). The per-query loop of the reference script is timed too. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time

import bm25s

from toolex.data import load_benchmarks, tool_pools
from toolex.retrieval import retrieve_queries
from toolex.retrieval.bm25 import BM25Retriever

SUBSETS = ["toolret/apibank", "toolret/apigen", "toolret/gorilla-huggingface", "toolret/toolink"]


def raw_bm25s(pool, queries, k):
    """The bare bm25s calls on the same loaded records (strings built from them inside the timing)."""
    t0 = time.perf_counter()
    doc_texts, doc_ids = [t.text for t in pool.values()], [t.id for t in pool.values()]
    model = bm25s.BM25()
    model.index(bm25s.tokenize(doc_texts, stopwords="en", show_progress=False), show_progress=False)
    t1 = time.perf_counter()
    query_texts = [f"{q.instruction} {q.text}" if q.instruction else q.text for q in queries]
    tokens = bm25s.tokenize(query_texts, show_progress=False)
    docs, scores = model.retrieve(tokens, corpus=doc_ids, k=k, show_progress=False)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def toolex_bm25(pool, queries, k):
    t0 = time.perf_counter()
    retriever = BM25Retriever()
    retriever.index(pool)
    t1 = time.perf_counter()
    run = retrieve_queries(retriever, queries, k=k, batch_size=len(queries))
    t2 = time.perf_counter()
    assert len(run) == len(queries)
    return t1 - t0, t2 - t1


def protocol_loop(doc_texts, doc_ids, query_texts, k):
    model = bm25s.BM25()
    model.index(bm25s.tokenize(doc_texts, stopwords="en", show_progress=False), show_progress=False)
    t0 = time.perf_counter()
    for text in query_texts:
        tokens = bm25s.tokenize(text, show_progress=False)
        if len(tokens.vocab) == 0:
            tokens = bm25s.tokenize("NONE", stopwords=[], show_progress=False)
        model.retrieve(tokens, corpus=doc_ids, k=k, show_progress=False)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions of each side (best is kept)")
    parser.add_argument("--k", type=int, default=100)
    args = parser.parse_args()

    benchmarks = load_benchmarks(SUBSETS)
    pool = tool_pools(benchmarks, "all")[benchmarks[0].name]
    queries = [q for b in benchmarks for q in b.queries]
    doc_texts, doc_ids = [t.text for t in pool.values()], [t.id for t in pool.values()]
    query_texts = [f"{q.instruction} {q.text}" if q.instruction else q.text for q in queries]
    k = min(args.k, len(pool))

    raw, ours = [], []
    toolex_bm25(pool, queries, k)  # warm-up (imports, allocator)
    for _ in range(args.repeat):  # interleaved, so that both sides see the same machine state
        raw.append(raw_bm25s(pool, queries, k))
        ours.append(toolex_bm25(pool, queries, k))
    raw_index, raw_search = min(r[0] for r in raw), min(r[1] for r in raw)
    our_index, our_search = min(r[0] for r in ours), min(r[1] for r in ours)
    loop = protocol_loop(doc_texts, doc_ids, query_texts, k)
    print(json.dumps({
        "bench": "bm25",
        "tools": len(pool),
        "queries": len(queries),
        "k": k,
        "repeat": args.repeat,
        "raw_index_s": round(raw_index, 4),
        "raw_search_s": round(raw_search, 4),
        "toolex_index_s": round(our_index, 4),
        "toolex_search_s": round(our_search, 4),
        "raw_queries_per_s": round(len(queries) / raw_search, 1),
        "toolex_queries_per_s": round(len(queries) / our_search, 1),
        "search_overhead": round(our_search / raw_search - 1, 4),
        "total_overhead": round((our_index + our_search) / (raw_index + raw_search) - 1, 4),
        "protocol_loop_s": round(loop, 4),
        "bm25s": bm25s.__version__,
    }))


if __name__ == "__main__":
    main()
