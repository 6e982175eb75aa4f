"""``toolex retrieve``: rank a benchmark's tool pool for its queries and write a TREC run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolex import keys
from toolex.data import POOLS, load_benchmarks
from toolex.errors import InputError, refuse_folder

HELP = ("rank the tool pool of a benchmark with BM25, a dense encoder or an embeddings endpoint; write a "
        "TREC run")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--benchmark", required=True, nargs="+", metavar="NAME",
                        help="benchmark name(s), e.g. toolret/apibank toollens; queries of all go into the "
                             "run")
    parser.add_argument("--retriever", default="bm25", metavar="SPEC",
                        help="bm25 | dense:minilm | dense:<hub id or path> | openvino:<model> | "
                             "openai:<model>@<base_url>")
    parser.add_argument("--pool", choices=POOLS, default="all",
                        help="tool pool: the benchmark's own tools, its category, all loaded (default), or "
                             "the smoke setting's cut of all")
    parser.add_argument("--pool-benchmarks", nargs="*", default=(), metavar="NAME",
                        help="further benchmarks whose tools join the pool (their queries are not run)")
    parser.add_argument("--out", required=True, metavar="RUN",
                        help="TREC run file to write (with its description RUN.json beside it); another run "
                             "there is kept unless --force")
    parser.add_argument("--force", action="store_true", help="overwrite a different run already at --out")
    parser.add_argument("--k", type=int, default=100, help="tools kept per query (default 100)")
    parser.add_argument("--no-instruction", action="store_true", help="ignore the queries' instructions")
    parser.add_argument("--family", choices=("qwen3", "e5", "plain"),
                        help="prompt family of a dense model (default: from its name)")
    parser.add_argument("--max-length", type=int, help="maximum tokens per text (dense)")
    parser.add_argument("--batch-size", type=int, default=None,
                        help="texts per forward pass of a dense encoder (default: 8 for a "
                             "sentence-transformers model on the CPU, else 32)")
    parser.add_argument("--device", help="torch device (default: cuda when available, else cpu)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")
    parser.add_argument("--tag", help="run tag (default: the retriever spec)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    from toolex.experiments.runs import retrieve_to_file

    if args.k < 1:
        raise InputError(None, f"--k must be positive, got {args.k}")
    out = Path(args.out)
    refuse_folder(out, "run file")
    if not out.parent.is_dir():
        raise InputError(out, f"--out: folder {str(out.parent)!r} does not exist")
    benchmarks = load_benchmarks(list(args.benchmark), args.data)
    extra = load_benchmarks(list(args.pool_benchmarks), args.data) if args.pool_benchmarks else []
    skipped = sum(b.skipped for b in benchmarks)
    if skipped:
        print(f"note: {skipped} queries without a relevant tool (all labels of relevance 0) left out",
              file=sys.stderr)
    run_, written = retrieve_to_file(
        benchmarks, args.retriever, out, pool=args.pool, pool_benchmarks=extra, k=args.k,
        instructions=not args.no_instruction, force=args.force, tag=args.tag or keys.slug(args.retriever),
        data=args.data, progress=not args.quiet, family=args.family, max_length=args.max_length,
        batch_size=args.batch_size, device=args.device, cache=not args.no_cache)
    print(f"wrote {len(run_)} queries to {written}", file=sys.stderr)
    return 0
