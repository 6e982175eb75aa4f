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
from pathlib import Path
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


def acceptable_for(benchmark, gold_path: str | None) -> dict[str, list[list[str]]]:
    """Query id → accepted combinations, from ``gold_path`` or the benchmark's own ground truth (SGD)."""
    if gold_path:
        from toolex.validate.gold import read_gold

        return {g.query_id: [list(c) for c in g.acceptable] for g in read_gold(gold_path)}
    from toolex.data.registry import own_gold

    return own_gold(benchmark)


def _judge_and_config(args: argparse.Namespace, model: Any) -> tuple[Any, Any, Any]:
    from toolex.annotate.judges import OfflineSimilarityJudge
    from toolex.annotate.pipeline import AnnotateConfig
    from toolex.errors import InputError
    from toolex.experiments.finetune import open_retriever
    from toolex.retrieval.base import Embedder

    config = AnnotateConfig(top_k=args.top_k, reference_k=args.reference_k,
                            **({"retriever": args.retriever} if args.retriever else {}))
    encoder = open_retriever(args.encoder)
    if not isinstance(encoder, Embedder):
        raise InputError(None, f"--encoder {args.encoder!r} is not a dense encoder (dense:<model>)")
    candidates = encoder if config.retriever == args.encoder else None
    return OfflineSimilarityJudge(encoder, model), config, candidates


def draw_command(args: argparse.Namespace) -> int:
    from toolex.annotate.calibration import stage_two
    from toolex.annotate.judges.scoring import default_model
    from toolex.annotate.operating_point import draw, item_key, to_label, write_draw
    from toolex.data import load_benchmark

    benchmark = load_benchmark(args.benchmark, args.data)
    model = default_model()
    judge, config, candidates = _judge_and_config(args, model)
    done = stage_two([benchmark], judge, config, candidates)
    # one item per (query, reference, candidate): a label file names items by these three
    first: dict[str, int] = {}
    for i, (item, slot) in enumerate(zip(done.items, done.slots)):
        first.setdefault(item_key(slot.query_id, item.reference.id, slot.tool_id), i)
    unique = list(first.values())
    every = judge.scores(done.items)
    decider = model.decision_model(every)  # the threshold the benchmark's annotation would use (all items)
    probabilities = every[unique]
    drawn = draw(probabilities, decider, args.draw, args.seed)
    query = {q.id: q.text for q in benchmark.queries}
    picked = [unique[i] for i in drawn.indices]
    records = [to_label(done.items[i], done.slots[i].query_id, query[done.slots[i].query_id]) for i in picked]
    keys = [item_key(r["query_id"], r["reference"], r["candidate"]) for r in records]
    record = {"benchmark": benchmark.name, "data_sha256": benchmark.checksum, "seed": args.seed,
              "judge": judge.name, "score_model": model.identity(), "items_total": len(unique),
              "decision_threshold": decider.threshold, "decision_band": list(decider.band),
              "strata": drawn.sizes,
              "procedure": "stratified by the default score: the unsure band and equal-count bins below and "
                           "above it; uniform within a stratum (toolex.annotate.operating_point)",
              "items": {k: {"score": float(probabilities[i]), "inclusion": float(q), "stratum": s}
                        for k, i, q, s in zip(keys, drawn.indices, drawn.inclusion, drawn.strata)}}
    sidecar = write_draw(args.out, records, record)
    if len(records) < args.draw:
        print(f"note: {benchmark.name} has {len(records)} Stage-2 items, fewer than the {args.draw} asked",
              file=sys.stderr)
    print(f"{len(records)} items to label: {args.out} (set \"equivalent\" to true or false); draw record: "
          f"{sidecar}")
    return 0


def labels_command(args: argparse.Namespace) -> int:
    from toolex.annotate.judges.scoring import default_model
    from toolex.annotate.operating_point import draw_record_path, fit_threshold, read_draw_record, read_labels
    from toolex.errors import InputError

    labels = read_labels(args.labels)
    record_path = Path(args.draw_record) if args.draw_record else draw_record_path(args.labels)
    record = read_draw_record(record_path)
    if record.get("benchmark") != args.benchmark:
        raise InputError(record_path, f"the items were drawn from {record.get('benchmark')!r}, not from "
                                      f"--benchmark {args.benchmark!r}")
    model = default_model()
    if record.get("score_model") != model.identity():
        raise InputError(record_path, "the items were drawn with another default score model; draw again")
    fitted = fit_threshold(model, labels, record, str(args.labels))
    fitted.save(args.out)
    info = fitted.calibration["per_benchmark"]
    print(json.dumps({"written": str(args.out), "threshold": fitted.threshold,
                      "default_threshold": model.threshold, **info}, indent=1))
    return 0


def run(args: argparse.Namespace) -> int:
    from toolex.errors import InputError

    if args.draw is not None and args.labels:
        raise InputError(None, "--draw and --labels are two steps: draw, let people label, then --labels")
    if args.reference_k < 0:
        raise InputError(None, f"--reference-k must be 0 or more, got {args.reference_k}")
    if (args.draw is not None or args.labels) and not args.out:
        raise InputError(None, "--out is required with --draw and --labels")
    if args.draw is not None:
        return draw_command(args)
    if args.labels:
        return labels_command(args)
    return fit_command(args)


def fit_command(args: argparse.Namespace) -> int:
    from toolex.annotate.calibration import calibrate, labelled_items
    from toolex.annotate.judges.scoring import ScoreModel
    from toolex.data import load_benchmark
    from toolex.errors import InputError

    if not args.out:
        raise InputError(None, "--out is required: the packaged default is chosen across sources "
                               "(make calibrate), not fitted on one benchmark")
    benchmark = load_benchmark(args.benchmark, args.data)
    acceptable = acceptable_for(benchmark, args.gold)
    judge, config, candidates = _judge_and_config(args, ScoreModel.untrained("features only"))
    data = labelled_items([benchmark], acceptable, judge, config, retriever=candidates)
    record = {"data": f"{benchmark.name} (data sha256 {benchmark.checksum[:12]})",
              "gold": args.gold or "the benchmark's own",
              "encoder_spec": args.encoder,
              "candidates": {"retriever": config.retriever, "top_k": config.top_k,
                             **({"reference_k": config.reference_k} if config.reference_k else {})}}
    model = calibrate(data, judge.encoder.short, args.l2, args.band_errors, record)
    model.save(args.out)
    print(json.dumps({"written": str(args.out), **model.identity(), "calibration": model.calibration},
                     indent=1))
    return 0
