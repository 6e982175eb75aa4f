"""``toolex evaluate``: one-to-one (Tool-DE) and ToolEq scores of a TREC run against an annotations file."""

from __future__ import annotations

import argparse
import json
import sys

from toolex.io.annotations import read_annotations
from toolex.io.trec import read_run
from toolex.metrics import NAMES, evaluate

HELP = "score a TREC run with one-to-one (Tool-DE) and ToolEq NDCG / Recall / Comp@K"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", required=True, help="TREC run file: qid Q0 docid rank score tag")
    parser.add_argument("--annotations", required=True, help="annotations JSON lines (see README)")
    parser.add_argument("--k", type=int, default=10, help="cut-off K (default 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--per-query", metavar="OUT.csv", help="write per-query scores to a CSV file")


def format_table(summary: dict) -> str:
    k = summary["k"]
    header = f"{'':<14}" + "".join(f"{f'{m}@{k}':>27}" for m in NAMES)
    sub = f"{'':<14}" + "".join(f"{'1:1':>9}{'ToolEq':>9}{'Δ':>9}" for _ in NAMES)
    lines = [header, sub]

    def row(name: str, block: dict, n: int) -> str:
        cells = ""
        for m in NAMES:
            one, eq = 100 * block["one_to_one"][m], 100 * block["tooleq"][m]
            cells += f"{one:9.2f}{eq:9.2f}{eq - one:+9.2f}"
        return f"{name[:8]:<8}{n:>6}" + cells

    for category, block in summary["by_category"].items():
        lines.append(row(category, block, block["queries"]))
    lines.append(row("all", summary, summary["queries"]))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    annotations = read_annotations(args.annotations)
    evaluation = evaluate(read_run(args.run), annotations, k=args.k)
    summary = evaluation.summary()
    if args.per_query:
        evaluation.per_query.to_csv(args.per_query, index=False)
    if args.json:
        keys = ("queries", "k", "one_to_one", "tooleq", "by_category", "delta", "category_mean",
                "missing_from_run", "not_annotated")
        print(json.dumps({key: summary[key] for key in keys}, indent=None))
        return 0
    print(f"{summary['queries']} queries, K = {args.k}; scores in percent (1:1 = one-to-one / Tool-DE)")
    print(format_table(summary))
    if summary["missing_from_run"]:
        print(f"note: {summary['missing_from_run']} annotated queries are not in the run and score 0",
              file=sys.stderr)
    if summary["not_annotated"]:
        print(f"note: {summary['not_annotated']} run queries have no annotation and are ignored", file=sys.stderr)
    return 0
