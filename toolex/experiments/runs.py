"""A retrieval run written as an artifact from the command line: the TREC file and, beside it, its manifest
with the identity that decides it (retriever settings, the benchmarks' checksums, the pool, the cut-off and
whether instructions were applied), so that another run is never overwritten unnoticed."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolex.data import tool_pools
from toolex.data.records import Benchmark
from toolex.errors import InputError, ToolexError
from toolex.experiments.finetune import open_retriever
from toolex.io.artifact import different_identity, manifest_path, read_manifest, write_manifest
from toolex.io.atomic import file_digest
from toolex.io.trec import Run, write_run
from toolex.retrieval import retrieve_over_pools


def refuse_other_run(path: Path, identity: dict[str, Any]) -> None:
    """An error when ``path`` holds a run of another identity (or one whose manifest is missing or no longer
    matches the file); nothing when it holds none or this very run."""
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


def retrieve_to_file(benchmarks: Sequence[Benchmark], spec: str, out: Path, *, pool: str = "all",
                     pool_benchmarks: Sequence[Benchmark] = (), k: int = 100, instructions: bool = True,
                     force: bool = False, tag: str = "", data: str | None = None, progress: bool = True,
                     **encoder: Any) -> tuple[Run, Path]:
    """Every query of ``benchmarks`` ranked by ``spec`` over its pool (``pool_benchmarks``' tools join it),
    written to ``out`` with its manifest; ``encoder``: options of a dense encoder (family, max_length,
    batch_size, device, cache). Returns the run and the file written."""
    pools = tool_pools([*benchmarks, *pool_benchmarks], pool)
    depth = min(k, max(len(pools[b.name]) for b in benchmarks))  # no pool ranks more tools than it holds
    retriever = open_retriever(spec, data, progress=progress, **encoder)
    identity = {"retriever": retriever.settings(),
                "benchmarks": {b.name: b.checksum for b in [*benchmarks, *pool_benchmarks]},
                "pool": pool, "k": k, "instruction": instructions}
    if not force:
        refuse_other_run(out, identity)
    started = time.perf_counter()
    run = retrieve_over_pools(retriever, [(pools[b.name], b.queries) for b in benchmarks], k=depth,
                              use_instruction=instructions, progress=progress)
    written = write_run(run, out, tag=tag)
    stats = getattr(retriever, "stats", None)
    write_manifest(written, "run", {
        "retriever": spec, "workspace": "+".join(b.name for b in benchmarks), "pool": pool,
        "level": f"query level, top {depth}", "queries": len(run),
        "seconds": round(time.perf_counter() - started, 3), "run_file": file_digest(written),
        **({"embedding_cache": stats.as_dict()} if stats is not None else {})}, identity=identity, indent=1)
    return run, written
