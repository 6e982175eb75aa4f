"""``toolex evaluate``: one-to-one (Tool-DE) and ToolEq scores of a TREC run against an annotations file."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

from toolex.errors import InputError, ToolexError
from toolex.io.annotations import read_annotations
from toolex.io.atomic import atomic_writer
from toolex.io.trec import read_run
from toolex.metrics import ONE_TO_ONE, TOOLEQ, Evaluation, RunArrays, evaluate, measures_at
from toolex.metrics.long import ALL
from toolex.metrics.measures import HEADLINE

HELP = "score a TREC run with one-to-one (Tool-DE) and ToolEq NDCG / Recall / Comp@K"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", required=True, help="TREC run file: qid Q0 docid rank score tag")
    parser.add_argument("--annotations", required=True, help="annotations JSON lines (see docs/evaluate.md)")
    parser.add_argument("--k", type=int, default=HEADLINE.k, help=f"cut-off K (default {HEADLINE.k})")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--per-query", metavar="OUT.csv", help="write per-query scores to a CSV file")
    parser.add_argument("--run-queries-only", action="store_true",
                        help="score only the annotated queries the run holds (a run over part of the "
                             "annotated benchmarks; default: an annotated query missing from the run "
                             "scores 0)")


def format_table(summary: dict) -> str:
    """The summary per category and overall: one-to-one, ToolEq and Δ of each measure, in percent."""
    measures = measures_at(summary["k"])
    header = f"{'':<20}" + "".join(f"{m.key:>27}" for m in measures)
    sub = f"{'category':<14}{'queries':>6}" + "".join(f"{'1:1':>9}{'ToolEq':>9}{'Δ':>9}" for _ in measures)
    lines = [header, sub]

    def row(name: str, block: dict, n: int) -> str:
        cells = ""
        for m in measures:
            one, eq = 100 * block[ONE_TO_ONE][m.name], 100 * block[TOOLEQ][m.name]
            cells += f"{one:9.2f}{eq:9.2f}{eq - one:+9.2f}"
        return f"{name[:13]:<14}{n:>6}" + cells

    for category, block in summary["by_category"].items():
        lines.append(row(category, block, block["queries"]))
    lines.append(row(ALL, summary, summary["queries"]))
    return "\n".join(lines)


def effective_k(k: int, run: RunArrays, annotations: list) -> int:
    """The cut-off to compute with: K, capped by the deepest ranking and the largest combination.

    Beyond both, a larger K changes no score (no tool ranks there, every ideal DCG is complete), so a huge
    ``--k`` costs no memory.
    """
    depth = int(np.bincount(run.rows).max()) if len(run.rows) else 0
    widest = max((len(c) for a in annotations for c in (a.reference, *a.combinations)), default=1)
    return max(1, min(k, max(depth, widest)))


def run(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise InputError(None, f"--k must be a positive cut-off, got {args.k}")
    if args.per_query:  # fail before the work, not after it
        folder = Path(args.per_query).parent
        if not folder.is_dir():
            raise InputError(args.per_query, f"--per-query: folder {str(folder)!r} does not exist")
    evaluation = scored(args)
    summary = evaluation.summary()
    if args.per_query:
        with atomic_writer(args.per_query, create_folder=False) as handle:
            evaluation.per_query.to_csv(handle, index=False)
    if args.json:
        keys = ("queries", "k", "one_to_one", "tooleq", "by_category", "delta", "category_mean",
                "missing_from_run", "not_annotated")
        try:
            print(json.dumps({key: summary[key] for key in keys}, indent=None, allow_nan=False))
        except ValueError:
            raise ToolexError(f"{args.run}: the scores are not finite numbers; nothing printed") from None
        return 0
    # warnings before the table, so that nobody reads the numbers without them
    if summary["missing_from_run"]:
        print(f"note: {summary['missing_from_run']} annotated queries are not in the run and score 0",
              file=sys.stderr, flush=True)
    if summary["not_annotated"]:
        print(f"note: {summary['not_annotated']} run queries have no annotation and are ignored",
              file=sys.stderr, flush=True)
    print(f"{summary['queries']} queries, K = {args.k}; scores in percent (1:1 = one-to-one / Tool-DE)")
    print(format_table(summary))
    return 0


def scored(args: argparse.Namespace) -> Evaluation:
    """The run of ``--run`` scored against ``--annotations`` at ``--k`` (only the run's queries with
    ``--run-queries-only``); an error naming both files when they share no query."""
    annotations = read_annotations(args.annotations)
    ranked = read_run(args.run)
    if annotations and ranked and not {a.query_id for a in annotations} & set(ranked):
        first_run, first_annotated = next(iter(ranked)), annotations[0].query_id
        raise InputError(None, f"the run {args.run} and the annotations {args.annotations} share no query "
                               f"id (run: {first_run!r}, ...; annotations: {first_annotated!r}, ...): "
                               "nothing to score")
    if args.run_queries_only:
        kept = [a for a in annotations if a.query_id in ranked]
        if len(kept) < len(annotations):
            print(f"note: --run-queries-only left out {len(annotations) - len(kept)} of {len(annotations)} "
                  "annotated queries that are not in the run", file=sys.stderr, flush=True)
        annotations = kept
    arrays = RunArrays.from_dict(ranked)
    evaluation = evaluate(arrays, annotations, k=effective_k(args.k, arrays, annotations))
    return dataclasses.replace(evaluation, k=args.k)
