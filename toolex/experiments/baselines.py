"""One-to-one baseline table: BM25 and MiniLM on the default benchmarks (ToolRet subsets, ToolLens test,
Customized).

``python -m toolex.experiments.baselines`` (``make baselines``) retrieves with pool ``all`` (the Tool-DE
default: the union of every loaded tool pool), scores NDCG / Recall / Comp@10 against C*, per subset, per
category and overall, and writes ``results/baselines.{csv,md,json}`` under :func:`toolex.paths.artifacts_dir`
together with the runs (``runs/baselines/<retriever>.trec``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from toolex import __version__, keys, paths
from toolex.data import DEFAULT_BENCHMARKS, load_benchmarks, tool_pools
from toolex.data.checksum import combine_checksums
from toolex.data.records import one_to_one
from toolex.experiments.finetune import open_retriever
from toolex.experiments.listing import describe_run
from toolex.io.trec import write_run
from toolex.metrics import evaluate
from toolex.metrics.long import ALL, means
from toolex.metrics.measures import HEADLINE
from toolex.retrieval.base import DEFAULT_K, retrieve_over_pools

#: The retrievers of the embedded default (no network, no GPU); the report layer's default too.
DEFAULT_RETRIEVERS = ("bm25", "dense:minilm")


def _rows(table: pd.DataFrame, spec: str, levels: Mapping[str, tuple[str, str, str]]) -> list[dict]:
    """One row per group of a :func:`toolex.metrics.long.means` table, its one-to-one measures side by side
    (percent, 2 decimals), in the order of ``levels``: the group's ``(level, name, category)`` columns."""
    rows: dict[str, dict[str, Any]] = {}
    for r in table.itertuples():
        level, name, category = levels[r.category]
        row = rows.setdefault(r.category,
                              {"retriever": spec, "level": level, "name": name, "category": category,
                                           "queries": int(r.queries)})
        row[r.measure] = round(float(r.one_to_one), 2)
    return [rows[group] for group in levels if group in rows]


def run_baselines(retrievers: Sequence[str] = DEFAULT_RETRIEVERS,
                  benchmarks: Sequence[str] = DEFAULT_BENCHMARKS, pool: str = "all", k: int = HEADLINE.k,
                  depth: int = DEFAULT_K, data_dir: str | Path | None = None,
                  out_dir: str | Path | None = None,
                  progress: bool = True, cache: bool | str | Path = True) -> pd.DataFrame:
    """Retrieve, score one-to-one and write the table (CSV, Markdown) and its provenance (JSON)."""

    out = Path(out_dir) if out_dir else paths.artifacts_dir()
    loaded = load_benchmarks(list(benchmarks), data_dir)
    pools = tool_pools(loaded, pool)
    rows, settings, timings = [], {}, {}
    annotations = [a for bench in loaded for a in one_to_one(bench)]
    benchmark_of = {q.id: bench.name for bench in loaded for q in bench.queries}
    subsets = {bench.name: ("subset", bench.name, ",".join(bench.categories)) for bench in loaded}
    for spec in retrievers:
        retriever = open_retriever(spec, data_dir, progress=progress, cache=cache)
        started = time.perf_counter()
        run = retrieve_over_pools(retriever, [(pools[bench.name], bench.queries) for bench in loaded],
                                  k=depth, progress=progress)
        timings[spec] = round(time.perf_counter() - started, 2)
        settings[spec] = retriever.settings()
        stats = getattr(retriever, "stats", None)
        if stats is not None:
            settings[spec]["embedding_cache"] = stats.as_dict()
        scores = evaluate(run, annotations, k=k).long(spec, benchmarks=benchmark_of)
        rows += _rows(means(scores.assign(category=scores.benchmark), scale=100.0), spec, subsets)
        categories = sorted(set(scores.category))
        rows += _rows(means(scores, pooled=ALL, scale=100.0), spec,
                      {**{c: ("category", c, c) for c in categories}, ALL: (ALL, ALL, "")})
        slug = keys.slug(spec)
        path = write_run(run, out / "runs" / "baselines" / f"{slug}.{pool}.trec", tag=slug)
        describe_run(path, {"retriever": spec, "workspace": "+".join(b.name for b in loaded), "pool": pool,
                            "level": f"query level, top {depth} (the one-to-one baselines)"})
    table = pd.DataFrame(rows)
    provenance = {
        "toolex": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "data_checksum": combine_checksums(b.checksum for b in loaded),
        "benchmarks": {b.name: {"checksum": b.checksum, "queries": len(b), "tools": len(b.tools)}
                       for b in loaded},
        "pool": pool,
        "pool_sizes": {name: len(p) for name, p in pools.items()},
        "k": k,
        "depth": depth,
        "ground_truth": "one-to-one (C*)",
        "retrievers": settings,
        "seconds": timings,
        "python": platform.python_version(),
    }
    write_table(table, provenance, out / "results")
    return table


def write_table(table: pd.DataFrame, provenance: dict[str, Any], folder: Path,
                stem: str = "baselines") -> Path:
    """``<stem>.csv``, ``<stem>.md`` (table and provenance) and ``<stem>.json`` (provenance)."""
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / f"{stem}.csv", index=False)
    (folder / f"{stem}.json").write_text(json.dumps(provenance, indent=1, default=str), encoding="utf-8")
    cols = list(table.columns)
    lines = [
        f"# One-to-one baselines (K = {provenance['k']}, pool = {provenance['pool']}, scores in percent)",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(table[c]) else "---" for c in cols) + "|",
    ]
    for record in table.itertuples(index=False):
        lines.append("| " + " | ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in record) + " |")
    lines += ["", "## Provenance", "", f"- toolex {provenance['toolex']}, created {provenance['created']}",
              f"- data checksum `{provenance['data_checksum']}`"]
    for name, info in provenance["benchmarks"].items():
        lines.append(f"- {name}: {info['queries']} queries, {info['tools']} tools, checksum "
                     f"`{info['checksum'][:16]}…`")
    for spec, conf in provenance["retrievers"].items():
        lines.append(f"- {spec}: `{json.dumps(conf, default=str)}`")
    (folder / f"{stem}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / f"{stem}.csv"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--retrievers", nargs="+", default=list(DEFAULT_RETRIEVERS))
    parser.add_argument("--benchmarks", nargs="+", default=list(DEFAULT_BENCHMARKS))
    parser.add_argument("--pool", default="all")
    parser.add_argument("--k", type=int, default=HEADLINE.k)
    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--out", help="artifacts folder (default: TOOLEX_ARTIFACTS)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    table = run_baselines(args.retrievers, args.benchmarks, args.pool, args.k, data_dir=args.data,
                          out_dir=args.out, progress=not args.quiet)
    print(table.to_string(index=False), file=sys.stdout)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
