"""``toolex annotate``: run ToolEX (decompose, retrieve & verify, combine & audit) into an artifact folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolex.annotate.judges import JUDGES
from toolex.annotate.pipeline import MAX_COMBINATIONS
from toolex.data import DEFAULT_BENCHMARKS, POOLS, load_benchmark
from toolex.errors import InputError

HELP = "expand one-to-one ground truth with ToolEX; resumable (artifacts + LLM response cache)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--benchmark", action="append", dest="benchmarks",
                        help=f"benchmark name, repeatable (default: {' '.join(DEFAULT_BENCHMARKS)})")
    parser.add_argument("--judge", choices=JUDGES, default="offline",
                        help="offline similarity (default), the local LLM server, an API LLM (TOOLEX_LLM_*), "
                             "or the cascade (offline, asking an LLM where it is unsure)")
    parser.add_argument("--judge-model", metavar="FILE",
                        help="the offline judge's score model (default: the packaged one; `toolex calibrate "
                             "--labels` writes one for a benchmark)")
    parser.add_argument("--mode", choices=("per-candidate", "batched"), default="per-candidate",
                        help="LLM verification: one call per candidate (the paper's) or per sub-query")
    parser.add_argument("--retriever", default="dense:mpnet",
                        help="Stage 2 retriever spec (default dense:mpnet, a model none of the scored "
                             "retrievers uses; openvino:mpnet runs it in bfloat16 on the CPU, about twice "
                             "as fast, under its own keys)")
    parser.add_argument("--pool", choices=POOLS, default="all", help="candidate pool (default: all)")
    parser.add_argument("--top-k", type=int, default=20, help="candidates per sub-query (default 20)")
    parser.add_argument("--reference-k", type=int, default=0,
                        help="also verify the reference tool's N nearest tools by its own documentation "
                             "that a sub-query did not retrieve (default 0: the paper's Stage 2; see the "
                             "candidate ceiling of docs/judge.md)")
    parser.add_argument("--max-combinations", type=int, default=MAX_COMBINATIONS,
                        help=f"audited combinations per query (default {MAX_COMBINATIONS}: every combination "
                             "of a two-tool query)")
    parser.add_argument("--sample", type=int,
                        help="annotate a reproducible sample of N queries per benchmark")
    parser.add_argument("--seed", type=int, default=0, help="sample seed")
    parser.add_argument("--out", required=True,
                        help="artifact folder (resumes the same run; refuses another run's folder without "
                             "--force)")
    parser.add_argument("--force", action="store_true",
                        help="replace the artifacts of another sample or settings in --out")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    _llm_arguments(parser)


def _llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the LLM judges: the cascade's budget and the estimate of calls and cost."""
    parser.add_argument("--llm-budget", type=int, default=None,
                        help="cascade judge: at most this many verdicts asked of the LLM (default: every "
                             "unsure item); the LLM is TOOLEX_CASCADE_LLM=local|api")
    parser.add_argument("--estimate", action="store_true",
                        help="LLM judges: print calls, tokens (and cost) per "
                        "stage, write <out>/estimate.json and stop before any call")
    parser.add_argument("--prices",
                        help="price table per model, per 1M prompt/completion tokens (JSON or YAML)")


def check(args: argparse.Namespace) -> None:
    """An error naming the option at fault, before any work."""
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(out, "--out names a file; it must be a folder (new or of this run)")
    if args.top_k < 1 or args.max_combinations < 1:
        raise InputError(None, f"--top-k and --max-combinations must be positive, got {args.top_k} and "
                               f"{args.max_combinations}")
    if args.reference_k < 0:
        raise InputError(None, f"--reference-k must be 0 or more, got {args.reference_k}")
    if args.sample is not None and args.sample < 1:
        raise InputError(None, f"--sample must be positive, got {args.sample}")


def run(args: argparse.Namespace) -> int:
    from toolex.annotate.judges import build_judge
    from toolex.annotate.pipeline import AnnotateConfig, ToolEX
    from toolex.annotate.stats import table1
    from toolex.experiments.finetune import open_retriever

    check(args)
    names = args.benchmarks or list(DEFAULT_BENCHMARKS)
    benchmarks = [load_benchmark(n, args.data) for n in names]
    skipped = sum(b.skipped for b in benchmarks)
    if skipped:
        print(f"note: {skipped} queries without a relevant tool (all labels of relevance 0) left out",
              file=sys.stderr)
    queries = [q for b in benchmarks for q in b.sample(args.sample, args.seed).queries]
    if args.estimate:
        from toolex.annotate.estimate import estimate_command

        return estimate_command(args, benchmarks, queries)
    retriever = open_retriever(args.retriever, args.data, progress=not args.no_progress)
    # used when it is the judge's encoder
    embedder = retriever if args.retriever.startswith(("dense:", "openvino:")) else None
    judge = build_judge(args.judge, embedder=embedder, mode=args.mode, progress=not args.no_progress,
                        budget=args.llm_budget, model_file=args.judge_model)
    config = AnnotateConfig(retriever=args.retriever, pool=args.pool, top_k=args.top_k,
                            max_combinations=args.max_combinations, reference_k=args.reference_k)
    pipeline = ToolEX(benchmarks, judge, args.out, config, retriever=retriever, progress=not args.no_progress,
                      queries=queries, refuse_other=not args.force)
    pipeline.run()
    stats = table1(args.out, {q.id: q.subset for q in queries})
    print(f"judge: {judge.name}; artifacts: {args.out}")
    print(stats.drop(columns="judge").round(2).to_string())
    ledger = pipeline.judge.usage()
    if ledger:
        print("ledger:", json.dumps(ledger.get("total", ledger)))
        from toolex.annotate.estimate import print_comparison

        print_comparison(args.out, ledger, args.prices)
    return 0
