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
                             "combinations "
                        "go into the per-judge table (repeatable)")
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
    from toolex.annotate.run_folder import ArtifactFolder
    from toolex.review.database import REVIEWERS_PER_ITEM, REVIEWERS_SETTING, Campaign
    from toolex.review.gold import acceptable_sets, apply_gold, gold_items
    from toolex.review.items import CHECKSUM_KIND, RATIONALE_SETTING, load_items, run_checksum, run_verdicts
    from toolex.review.sample import draw
    from toolex.validate.gold import read_gold

    if args.items:
        given = [flag for flag, value in (("--size", args.size), ("--per-stratum", args.per_stratum),
                                          ("--gold", args.gold), ("--judge-run", args.judge_run)) if value]
        if given:
            raise InputError(None, f"{', '.join(given)} apply to a run's combinations, not to --items (every "
                                   "drawn item is reviewed; candidate items never show a rationale)")
        return _sample_items(args)
    run_id = run_checksum(args.run)
    if Path(args.campaign).exists():  # refuse another run before loading anything
        with Campaign(args.campaign) as existing:
            existing.check_run(run_id, f"run {args.run}")
            existing.check_reviewers(args.reviewers)
    gold = acceptable_sets(read_gold(args.gold)) if args.gold else None
    _, items = load_items(args.run, args.data)
    if gold is not None:
        items = gold_items(items, gold)
    try:
        sample = draw(items, args.size, args.per_stratum, args.allocation, args.seed)
    except ValueError as exc:
        raise InputError(None, str(exc)) from None
    manifest = ArtifactFolder(args.run).manifest()
    meta = {"run_folder": paths.portable(Path(args.run).resolve()), "checksum_kind": CHECKSUM_KIND,
            "judge": (manifest.get("judge") or {}).get("name") or (items[0].judge if items else ""),
            "retriever": (manifest.get("config") or {}).get("retriever", ""),
            "benchmarks": [b.get("name") for b in manifest.get("benchmarks", [])],
            "seed": args.seed, "allocation": sample.allocation, "plan": sample.plan,
            "source": "gold" if gold is not None else "sample",
            RATIONALE_SETTING: "hidden" if args.hide_rationale else "shown",
            REVIEWERS_SETTING: args.reviewers or REVIEWERS_PER_ITEM}
    with Campaign.create(args.campaign, run_id, meta) as campaign:
        if args.hide_rationale:
            campaign.set_meta(**{RATIONALE_SETTING: "hidden"})
        added = campaign.add_items(sample.items)
        for other in args.judge_run:
            verdicts = run_verdicts(other)
            campaign.add_judge_verdicts(((i, *verdicts[i]) for i in campaign.item_ids() if i in verdicts),
                                        paths.portable(Path(other).resolve()))
        counts = apply_gold(campaign, gold) if gold is not None else None
        total = len(campaign)
    print(f"{args.campaign}: {added} new items ({total} in all) from run {run_id[:16]}… "
          f"({len(items)} accepted combinations, allocation {sample.allocation}, seed {args.seed})")
    for stratum, (available, drawn) in sample.plan.items():
        print(f"  {stratum:<28} {drawn:>4} of {available}")
    if args.size and len(sample.items) < args.size:
        print(f"note: --size {args.size} asked for more than the run holds: all {len(sample.items)} accepted "
              "combinations were drawn", file=sys.stderr)
    if counts is not None:
        print(f"  gold decisions: {counts['valid']} valid, {counts['invalid']} invalid")
    return 0


def _sample_items(args: argparse.Namespace) -> int:
    from toolex.review.database import REVIEWERS_SETTING, Campaign
    from toolex.review.items import RATIONALE_SETTING, candidate_items

    run_id, items = candidate_items(args.items)
    meta = {"kind": "candidate items", "items_file": str(Path(args.items).resolve()),
            RATIONALE_SETTING: "hidden", REVIEWERS_SETTING: args.reviewers or 1}
    if Path(args.campaign).exists():
        with Campaign(args.campaign) as existing:
            existing.check_run(run_id, f"items {args.items}")
            existing.check_reviewers(args.reviewers)
    with Campaign.create(args.campaign, run_id, meta) as campaign:
        added = campaign.add_items(items)
        total = len(campaign)
    print(f"{args.campaign}: {added} new candidate items ({total} in all) from {args.items}")
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
