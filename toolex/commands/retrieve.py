"""``toolex retrieve``: rank a benchmark's tool pool for its queries and write a TREC run."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.data import POOLS, load_benchmarks, tool_pools
from toolex.errors import InputError, ToolexError, refuse_folder
from toolex.io.artifact import different_identity, manifest_path, read_manifest, write_manifest
from toolex.io.atomic import file_digest

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


def refuse_other_run(path: Path, identity: dict[str, Any]) -> None:
    """Raise unless ``path`` is absent or holds this same run (same identity, run file as its description
    records): writing it again is then a repeat, not an overwrite. A description written before the
    manifest envelope holds the identity's fields at its top level."""
    if not path.exists():
        return
    try:
        meta = read_manifest(path)
    except InputError:
        meta = {}
    held = meta["identity"] if "identity" in meta else {k: meta.get(k) for k in identity}
    if not meta or different_identity(held, identity) or meta.get("run_file") != file_digest(path):
        raise ToolexError(f"{path}: holds a different run (or one without its {manifest_path(path).name}); "
                          "choose another --out or pass --force to overwrite it")


def run(args: argparse.Namespace) -> int:
    from toolex.experiments.finetune import open_retriever
    from toolex.io.trec import write_run
    from toolex.retrieval import retrieve_over_pools

    if args.k < 1:
        raise InputError(None, f"--k must be positive, got {args.k}")
    out_path = Path(args.out)
    refuse_folder(out_path, "run file")
    if not out_path.parent.is_dir():
        raise InputError(out_path, f"--out: folder {str(out_path.parent)!r} does not exist")
    benchmarks = load_benchmarks(list(args.benchmark), args.data)
    extra = load_benchmarks(list(args.pool_benchmarks), args.data) if args.pool_benchmarks else []
    skipped = sum(b.skipped for b in benchmarks)
    if skipped:
        print(f"note: {skipped} queries without a relevant tool (all labels of relevance 0) left out",
              file=sys.stderr)
    pools = tool_pools(benchmarks + extra, args.pool)
    k = min(args.k, max(len(pools[b.name]) for b in benchmarks))  # no pool ranks more tools than it holds
    retriever = open_retriever(args.retriever, args.data, family=args.family,
                                max_length=args.max_length, batch_size=args.batch_size, device=args.device,
                                cache=not args.no_cache, progress=not args.quiet)
    identity = {
        "retriever": retriever.settings(),
        "benchmarks": {b.name: b.checksum for b in benchmarks + extra},
        "pool": args.pool,
        "k": args.k,
        "instruction": not args.no_instruction,
    }
    if not args.force:
        refuse_other_run(out_path, identity)
    started = time.perf_counter()
    run_ = retrieve_over_pools(retriever, [(pools[b.name], b.queries) for b in benchmarks], k=k,
                               use_instruction=not args.no_instruction, progress=not args.quiet)
    out = write_run(run_, out_path, tag=args.tag or keys.slug(args.retriever))
    stats = getattr(retriever, "stats", None)
    write_manifest(out, "run", {
        "retriever": args.retriever, "workspace": "+".join(b.name for b in benchmarks),
        "pool": args.pool, "level": f"query level, top {k}", "queries": len(run_),
        "seconds": round(time.perf_counter() - started, 3), "run_file": file_digest(out),
        **({"embedding_cache": stats.as_dict()} if stats is not None else {})}, identity=identity, indent=1)
    print(f"wrote {len(run_)} queries to {out}", file=sys.stderr)
    return 0
