"""LLM cost of Stage 2: the paper's per-candidate verification vs a batched mode (one call per sub-query).

Runs both modes with the local LLM server (``make llm-up``) on real snapshot queries, each with a cold
response cache, and prints one JSON object: LLM calls and prompt tokens per query for each mode, their ratio,
and the verdict agreement between the two modes on the same candidates. The per-candidate mode stays the
reference. Usage: ``python bench/llm_verification_modes.py --queries 5 --top-k 10``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from toolex.annotate.agreement import compare
from toolex.annotate.judges.llm import LLMJudge
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.data import load_benchmark
from toolex.llm import LLMClient, LLMSettings, ResponseCache
from toolex.retrieval import build_retriever


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--benchmark", default="toolret/apigen")
    parser.add_argument("--queries", type=int, default=5)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    bench = load_benchmark(args.benchmark)
    queries = bench.sample(args.queries, seed=args.seed).queries
    retriever = build_retriever("dense:minilm")
    settings = LLMSettings.local()
    work = Path(tempfile.mkdtemp(prefix="toolex-bench-"))
    verdicts, report = {}, {}
    decompositions = None
    for mode in ("per-candidate", "batched"):
        judge = LLMJudge(client=LLMClient(settings, cache=ResponseCache(work / f"cache-{mode}")), mode=mode,
                         progress=False)
        pipeline = ToolEX([bench], judge, work / mode, AnnotateConfig(top_k=args.top_k), retriever=retriever,
                          queries=queries)
        if decompositions is None:  # both modes judge the same sub-queries and candidates
            decompositions = pipeline.decompose()
        start = time.perf_counter()
        verified = pipeline.verify(decompositions)
        seconds = time.perf_counter() - start
        stage = judge.usage()["stages"]["verify" if mode == "per-candidate" else "verify-batched"]
        verdicts[mode] = {(v.query_id, v.index, c.tool_id): c.verdict.equivalent
                          for v in verified for c in v.candidates if c.verdict.judge != "reference"}
        report[mode] = {"calls_per_query": stage["api_calls"] / len(queries),
                        "prompt_tokens_per_query": stage["prompt_tokens"] / len(queries),
                        "completion_tokens_per_query": stage["completion_tokens"] / len(queries),
                        "failures": stage.get("failures", 0), "seconds": round(seconds, 1)}
    keys = sorted(verdicts["per-candidate"])
    agreement = compare([verdicts["per-candidate"][k] for k in keys],
                        [verdicts["batched"].get(k) for k in keys])
    print(json.dumps({
        "bench": "llm_verification_modes", "benchmark": args.benchmark, "queries": len(queries),
        "candidates_per_subquery": args.top_k, "model": settings.model,
        "per_candidate": report["per-candidate"], "batched": report["batched"],
        "prompt_token_ratio_batched_over_per_candidate": round(
            report["batched"]["prompt_tokens_per_query"] / report["per-candidate"]["prompt_tokens_per_query"],
            3),
        "verdict_agreement": agreement.to_dict(),
    }))


if __name__ == "__main__":
    main()
