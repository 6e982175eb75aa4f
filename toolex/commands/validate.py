"""``toolex validate``: expanded annotations scored against a human one-to-many ground truth (gold)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from toolex.errors import ToolexError
from toolex.metrics.measures import HEADLINE

HELP = "score annotations against human one-to-many labels: expansion recall / precision, recovered share"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--annotations", required=True,
                        help="our annotations, JSON lines (see docs/evaluate.md)")
    parser.add_argument("--gold", required=True,
                        help='gold JSON lines: {"query_id": ..., "acceptable": [[tool ids], ...]} (C* among '
                             'them)')
    parser.add_argument("--run", action="append", default=[], metavar="[NAME=]R.trec",
                        help="TREC run to score (repeatable); named by its file stem unless NAME= is given")
    parser.add_argument("--k", type=int, default=HEADLINE.k, help=f"cut-off K (default {HEADLINE.k})")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--bootstrap", type=int, default=1000,
                        help="bootstrap resamples (default 1000; 0: none)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")


def run_names(specs: list[str]) -> dict[str, str]:
    """``NAME=path`` or ``path`` (named by its stem) → ``{name: path}``; a repeated name is an error."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or "/" in name or Path(spec).exists():
            name, path = Path(spec).stem or spec, spec
        if not path:
            raise ToolexError(f"--run {spec!r}: no file given")
        if name in out:
            raise ToolexError(f"two runs named {name!r}; name them with NAME=path")
        out[name] = path
    return out


def _pct(value: float | None) -> str:
    return "     n/a" if value is None or not math.isfinite(value) else f"{100 * value:8.2f}"


def _share(value: float | None) -> str:
    return "   n/a" if value is None or not math.isfinite(value) else f"{value:6.2f}"


def format_report(summary: dict) -> str:
    """Human-readable tables: expansion quality, then one row per retriever and metric."""
    lines = [f"{summary['queries']} gold queries, K = {summary['k']}; "
             f"{summary['missing_annotations']} not annotated (scored as C* only), "
             f"{summary['ignored_annotations']} annotated queries not in gold (ignored)", "",
             "Expansion (combinations as sets, C* left out; precision is a lower bound)",
             f"{'level':<12}{'recall %':>9}{'precision %':>12}{'gold':>8}{'added':>8}{'matched':>8}"]
    exp = summary["expansion"]
    for level, gold_key, added_key, matched_key in (("combination", "gold_alternatives", "added", "matched"),
                                                     ("tool", "gold_tools", "added_tools", "matched_tools")):
        block = exp[level]
        lines.append(f"{level:<12}{_pct(block['recall']):>9}{_pct(block['precision']):>12}"
                     f"{block[gold_key]:>8}{block[added_key]:>8}{block[matched_key]:>8}")
    lines.extend(f"note: {note}" for note in exp["notes"])
    if summary["runs"]:
        boot = summary["settings"]
        lines += ["", f"Runs (scores in percent; recovered share = (ours − 1:1) / (gold − 1:1), "
                      f"{100 * boot['level']:.0f} % bootstrap interval over {boot['bootstrap']} resamples, "
                      f"seed {boot['seed']}; over / under: mean per-query credit in points)",
                  f"{'retriever':<16}{'metric':<11}{'1:1':>8}{'ours':>8}{'gold':>8}"
                  f"{'recovered':>11}{'interval':>17}{'over':>8}{'under':>8}"]
        notes = []
        for name, metrics in summary["runs"].items():
            for metric, row in metrics.items():
                low, high = row["recovered_interval"]
                interval = f"[{_share(low)}, {_share(high)}]"
                lines.append(f"{name[:15]:<16}{metric:<11}{_pct(row['one_to_one'])}{_pct(row['ours'])}"
                             f"{_pct(row['gold'])}{_share(row['recovered']):>11}{interval:>17}"
                             f"{_pct(row['over_credit'])}{_pct(row['under_credit'])}")
                if row.get("note") and row["note"] != "no bootstrap":
                    notes.append(f"note: {name} {metric}: recovered share undefined ({row['note']})")
            missing = next(iter(metrics.values()))["missing_from_run"]
            if missing:
                notes.append(f"note: {name}: {missing} gold queries are not in the run and score 0")
        lines += notes
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from toolex.validate import validate

    if args.k < 1:
        raise ToolexError(f"--k must be positive, got {args.k}")
    runs = run_names(args.run)
    result = validate(args.gold, args.annotations, runs, k=args.k, bootstrap=args.bootstrap, seed=args.seed)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary, allow_nan=False))
        return 0
    print(format_report(summary))
    if summary["missing_annotations"]:
        print(f"note: {summary['missing_annotations']} gold queries have no annotation and count as C* only",
              file=sys.stderr)
    return 0
