"""``toolex calibrate``: fit the offline judge, or place its threshold for one benchmark from people's labels.

* ``--benchmark B --draw N --out to_label.jsonl``: N Stage-2 items of B for people to label (no judge score in
  the file), with the draw record beside it (``to_label.draw.json``).
* ``--benchmark B --labels labels.jsonl --out judge.json``: the default score with its threshold placed where
  the labelled, inclusion-weighted errors balance (:mod:`toolex.annotate.operating_point`); use it with
  ``toolex annotate --judge offline --judge-model judge.json``.
* ``--benchmark B [--gold G] --out model.json``: a whole new score model fitted on one labelled benchmark (the
  packaged default is chosen across sources instead: ``make calibrate``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

HELP = ("fit the offline judge on labelled data, or draw a benchmark's items for people to label and place "
        "the judge's threshold from their labels")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", default="sgd/calibration",
                        help="benchmark to draw from or to place the threshold for (--draw, --labels), or to "
                             "fit a whole model on (default sgd/calibration)")
    parser.add_argument("--draw", type=int, metavar="N",
                        help="write N Stage-2 items of the benchmark to label (--out: a JSON-lines file)")
    parser.add_argument("--labels", metavar="FILE",
                        help='people\'s labels, {"query_id", "reference", "candidate", "equivalent"} a line: '
                             "place the default judge's threshold for this benchmark (--out: the judge file)")
    parser.add_argument("--draw-record", metavar="FILE",
                        help="the draw record of the labelled items (default: <labels stem>.draw.json, which "
                             "is the record itself when people filled in the drawn file)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw (default 0)")
    parser.add_argument("--gold", help="gold JSON lines (default: the benchmark's own, for sgd*/*)")
    parser.add_argument("--encoder", default="dense:mpnet", help="the judge's encoder (default dense:mpnet)")
    parser.add_argument("--retriever", help="Stage-2 candidate retriever (default: the annotate default)")
    parser.add_argument("--top-k", type=int, default=20, help="candidates per sub-query (default 20)")
    parser.add_argument("--reference-k", type=int, default=0,
                        help="the reference tool's nearest tools added as candidates, as `toolex annotate "
                             "--reference-k` adds them (default 0)")
    parser.add_argument("--l2", type=float, default=1.0, help="L2 penalty of the weights (default 1)")
    parser.add_argument("--band-errors", type=float, default=0.9,
                        help="share of the calibration errors the unsure band holds (default 0.9)")
    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--out", help="where to write (required with --draw, --labels and for a new model)")


def _options(args: argparse.Namespace) -> Any:
    from toolex.experiments.calibrate import JudgeOptions

    return JudgeOptions(args.encoder, args.retriever, args.top_k, args.reference_k)


def run(args: argparse.Namespace) -> int:
    from toolex.errors import InputError

    if args.draw is not None and args.labels:
        raise InputError(None, "--draw and --labels are two steps: draw, let people label, then --labels")
    if (args.draw is not None or args.labels) and not args.out:
        raise InputError(None, "--out is required with --draw and --labels")
    if args.draw is not None:
        return draw_command(args)
    if args.labels:
        return labels_command(args)
    return fit_command(args)


def draw_command(args: argparse.Namespace) -> int:
    from toolex.experiments.calibrate import draw_items

    drawn = draw_items(args.benchmark, args.draw, args.out, _options(args), args.seed, args.data)
    if drawn.drawn < args.draw:
        print(f"note: {args.benchmark} has {drawn.total} Stage-2 items, fewer than the {args.draw} asked",
              file=sys.stderr)
    print(f"{drawn.drawn} items to label: {drawn.items_file} (set \"equivalent\" to true or false); draw "
          f"record: {drawn.record_file}")
    return 0


def labels_command(args: argparse.Namespace) -> int:
    from toolex.experiments.calibrate import place_threshold

    fitted, default = place_threshold(args.benchmark, args.labels, args.out, args.draw_record)
    print(json.dumps({"written": str(args.out), "threshold": fitted.threshold,
                      "default_threshold": default.threshold, **fitted.calibration["per_benchmark"]},
                     indent=1))
    return 0


def fit_command(args: argparse.Namespace) -> int:
    from toolex.errors import InputError
    from toolex.experiments.calibrate import fit_model

    if not args.out:
        raise InputError(None, "--out is required: the packaged default is chosen across sources "
                               "(make calibrate), not fitted on one benchmark")
    model = fit_model(args.benchmark, args.out, _options(args), args.gold, args.l2, args.band_errors,
                      args.data)
    print(json.dumps({"written": str(args.out), **model.identity(), "calibration": model.calibration},
                     indent=1))
    return 0
