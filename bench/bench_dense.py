"""Dense encoding throughput (texts/s) with a cold embedding cache, then a warm re-run that must encode
nothing.

Encodes the tools and queries of a benchmark with the embedded MiniLM (or ``--retriever dense:<model>``) into
a fresh cache folder, then indexes and searches again with a new retriever on the same cache. Prints one JSON
object.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from toolex.data import load_benchmark
from toolex.retrieval import build_retriever, retrieve_queries


def one_pass(spec, cache, tools, queries, batch_size):
    t0 = time.perf_counter()
    retriever = build_retriever(spec, cache=cache, batch_size=batch_size)
    t1 = time.perf_counter()
    retriever.index(tools)
    retrieve_queries(retriever, queries, k=100)
    t2 = time.perf_counter()
    return retriever.stats.as_dict(), t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--retriever", default="dense:minilm")
    parser.add_argument("--benchmark", default="toolret/apibank")
    parser.add_argument("--limit", type=int, default=None, help="at most this many tools (and queries)")
    parser.add_argument("--batch-size", type=int, default=None, help="default: the encoder's own")
    args = parser.parse_args()

    bench = load_benchmark(args.benchmark)
    tools = list(bench.tools.values())[: args.limit]
    queries = bench.queries[: args.limit]
    with tempfile.TemporaryDirectory(prefix="toolex-bench-") as cache:
        cold, cold_load, cold_s = one_pass(args.retriever, cache, tools, queries, args.batch_size)
        warm, warm_load, warm_s = one_pass(args.retriever, cache, tools, queries, args.batch_size)
    texts = len(tools) + len(queries)
    print(json.dumps({
        "bench": "dense",
        "retriever": args.retriever,
        "benchmark": args.benchmark,
        "texts": texts,
        "model_load_s": round(cold_load, 3),
        "cold_s": round(cold_s, 3),
        "cold_texts_per_s": round(cold["encoded"] / cold_s, 1),
        "cold_cache": cold,
        "warm_s": round(warm_s, 3),
        "warm_texts_per_s": round(texts / warm_s, 1),
        "warm_cache": warm,
        "warm_encoded_nothing": warm["encoded"] == 0,
    }))


if __name__ == "__main__":
    main()
