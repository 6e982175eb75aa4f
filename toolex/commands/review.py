"""``toolex review``: human validation of an annotation run (sample, serve the review app, report, export)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from toolex import paths
from toolex.errors import InputError

HELP = "human validation: sample accepted combinations, serve the review app, report and export a campaign"
APP = "review_app.ipynb"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sample = sub.add_parser("sample", help="draw a stratified sample of a run's accepted combinations into a "
                            "campaign file (created, or topped up when it samples the same run)")
    source = sample.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", help="artifact folder of a ToolEX annotation run")
    source.add_argument("--items", help="items drawn by `toolex calibrate --draw`: a campaign of candidate "
                                        "items whose labels `review export --labels` writes")
    sample.add_argument("--campaign", required=True, help="campaign file (SQLite) to create or extend")
    size = sample.add_mutually_exclusive_group()
    size.add_argument("--size", type=int, help="items in all (default: every accepted combination)")
    size.add_argument("--per-stratum", type=int, help="items per stratum (category x complexity)")
    sample.add_argument("--allocation", choices=("proportional", "equal"), default="proportional",
                        help="how --size is split over the strata (default proportional)")
    sample.add_argument("--seed", type=int, default=0)
    sample.add_argument("--reviewers", type=int, choices=(1, 2),
                        help="independent reviews per item (default: 1 for --items, one labeller is "
                             "enough; 2 for a run's combinations, the paper's protocol with adjudication)")
    sample.add_argument("--hide-rationale", action="store_true",
                        help="reviewers see no model rationale either (never a score: the screen is blind)")
    sample.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    sample.add_argument("--gold",
                        help="human gold JSON lines {query_id, acceptable}: sample the gold's queries "
                        "and record the gold decisions as a finished review")
    sample.add_argument("--judge-run", action="append", default=[],
                        help="another run over the same queries: its judge's verdicts on the sampled "
                             "combinations go into the per-judge table (repeatable)")
    _other_actions(sub)


def _other_actions(sub: argparse._SubParsersAction) -> None:
    """The options of ``serve``, ``report`` and ``export``."""
    serve = sub.add_parser("serve", help="serve the review app with Voila on 127.0.0.1")
    serve.add_argument("--campaign", required=True)
    serve.add_argument("--port", type=int, default=8867)
    report = sub.add_parser("report", help="precision, kappa, adjudication, taxonomy and per-judge tables")
    report.add_argument("--campaign", required=True)
    report.add_argument("--tables", help="folder for CSV / Markdown / LaTeX (default: TOOLEX_TABLES)")
    report.add_argument("--figures", help="folder for the figure (default: TOOLEX_FIGURES)")
    report.add_argument("--stem", default="10_review", help="file name prefix (default 10_review)")
    report.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    export = sub.add_parser("export", help="decisions, history and final decisions as JSON lines")
    export.add_argument("--campaign", required=True)
    export.add_argument("--out", required=True, help="folder to write into")
    export.add_argument("--labels", help="also write the final decisions on candidate items as a labels file "
                                         "for `toolex calibrate --labels`")


def run(args: argparse.Namespace) -> int:
    return {"sample": _sample, "serve": _serve, "report": _report, "export": _export}[args.action](args)


def _sample(args: argparse.Namespace) -> int:
    from toolex.review.setup import sample_items, sample_run

    if args.items:
        given = [flag for flag, value in (("--size", args.size), ("--per-stratum", args.per_stratum),
                                          ("--gold", args.gold), ("--judge-run", args.judge_run)) if value]
        if given:
            raise InputError(None, f"{', '.join(given)} apply to a run's combinations, not to --items (every "
                                   "drawn item is reviewed; candidate items never show a rationale)")
        added, total = sample_items(args.items, args.campaign, args.reviewers)
        print(f"{args.campaign}: {added} new candidate items ({total} in all) from {args.items}")
        return 0
    done = sample_run(args.run, args.campaign, data=args.data, size=args.size, per_stratum=args.per_stratum,
                      allocation=args.allocation, seed=args.seed, gold=args.gold, judge_runs=args.judge_run,
                      hide_rationale=args.hide_rationale, reviewers=args.reviewers)
    sample = done.sample
    print(f"{args.campaign}: {done.added} new items ({done.total} in all) from run {done.run_id[:16]}… "
          f"({done.available} accepted combinations, allocation {sample.allocation}, seed {args.seed})")
    for stratum, (available, drawn) in sample.plan.items():
        print(f"  {stratum:<28} {drawn:>4} of {available}")
    if args.size and len(sample.items) < args.size:
        print(f"note: --size {args.size} asked for more than the run holds: all {len(sample.items)} accepted "
              "combinations were drawn", file=sys.stderr)
    if done.gold_counts is not None:
        print(f"  gold decisions: {done.gold_counts['valid']} valid, {done.gold_counts['invalid']} invalid")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from toolex.review.database import Campaign

    campaign = Path(args.campaign).resolve()
    Campaign(campaign).close()  # a clear error now rather than in the browser
    notebooks = paths.ROOT / "notebooks"
    env = {**os.environ, "TOOLEX_REVIEW_CAMPAIGN": str(campaign)}
    from toolex.widgets.serve import voila_command

    command = voila_command(notebooks / APP, args.port)  # local only, idle kernels culled
    print(f"review app for {campaign} on http://127.0.0.1:{args.port}/", flush=True)
    return subprocess.call(command, cwd=notebooks, env=env)


def _report(args: argparse.Namespace) -> int:
    from toolex.report.export import to_markdown
    from toolex.review.campaign_report import campaign_report
    from toolex.review.database import Campaign
    from toolex.review.export import CAPTIONS, export_report

    with Campaign(args.campaign) as campaign:
        report = campaign_report(campaign)
    written = export_report(report, args.stem, args.tables, args.figures)
    if args.json:
        print(json.dumps(report.summary()))
        return 0
    for name, table in report.tables.items():
        print(to_markdown(table, CAPTIONS.get(name, name), digits=1))
    print("written:", ", ".join(str(p) for parts in written.values() for p in parts.values()))
    return 0


def _export(args: argparse.Namespace) -> int:
    from toolex.review.database import Campaign
    from toolex.review.export import campaign_labels, export_decisions

    with Campaign(args.campaign) as campaign:
        labels = campaign_labels(campaign) if args.labels else None  # refuses before anything is written
        written = export_decisions(campaign, args.out)
    if labels is not None:
        written += labels.write(args.labels)
        left = "; ".join(f"{n} {why}" for why, n in labels.left_out.items())
        print(f"{len(labels.labels)} labels written to {args.labels}"
              + (f"; left out: {left}" if left else "")
              + ("" if labels.draw_record else "; no draw record found beside the items file (pass "
                                               "`toolex calibrate --draw-record`)"))
    print("written:", ", ".join(str(p) for p in written))
    return 0
