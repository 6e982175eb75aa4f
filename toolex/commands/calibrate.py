"""``toolex calibrate``: fit the offline judge's score model on labelled calibration data."""

from __future__ import annotations

import argparse
import json

HELP = ("fit the offline judge's weights, threshold and unsure band on a benchmark with human one-to-many "
        "labels")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", default="sgd/calibration",
                        help="calibration benchmark (default sgd/calibration; never the data you report on)")
    parser.add_argument("--gold", help="gold JSON lines (default: the benchmark's own, for sgd/*)")
    parser.add_argument("--encoder", default="dense:mpnet", help="the judge's encoder (default dense:mpnet)")
    parser.add_argument("--retriever", help="Stage-2 candidate retriever (default: the annotate default)")
    parser.add_argument("--top-k", type=int, default=20, help="candidates per sub-query (default 20)")
    parser.add_argument("--l2", type=float, default=1.0, help="L2 penalty of the weights (default 1)")
    parser.add_argument("--band-errors", type=float, default=0.9,
                        help="share of the calibration errors the unsure band holds (default 0.9)")
    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--out", help="write the score model here (default: the packaged default model)")


def acceptable_for(benchmark, gold_path: str | None) -> dict[str, list[list[str]]]:
    """Query id → accepted combinations, from ``gold_path`` or the benchmark's own ground truth (SGD)."""
    if gold_path:
        from toolex.validate.gold import read_gold

        return {g.query_id: [list(c) for c in g.acceptable] for g in read_gold(gold_path)}
    from toolex.data.registry import own_gold

    return own_gold(benchmark)


def run(args: argparse.Namespace) -> int:
    from toolex.annotate.calibration import calibrate, labelled_items
    from toolex.annotate.judges import OfflineSimilarityJudge
    from toolex.annotate.judges.scoring import DEFAULT_MODEL_FILE, ScoreModel
    from toolex.annotate.pipeline import AnnotateConfig
    from toolex.data import load_benchmark
    from toolex.errors import InputError
    from toolex.retrieval import build_retriever
    from toolex.retrieval.base import Embedder

    benchmark = load_benchmark(args.benchmark, args.data)
    acceptable = acceptable_for(benchmark, args.gold)
    config = AnnotateConfig(top_k=args.top_k, **({"retriever": args.retriever} if args.retriever else {}))
    encoder = build_retriever(args.encoder)
    if not isinstance(encoder, Embedder):
        raise InputError(None, f"--encoder {args.encoder!r} is not a dense encoder (dense:<model>)")
    judge = OfflineSimilarityJudge(encoder, ScoreModel.untrained("features only"))
    candidates = encoder if config.retriever == args.encoder else None
    data = labelled_items([benchmark], acceptable, judge, config, retriever=candidates)
    record = {"data": f"{benchmark.name} (data sha256 {benchmark.checksum[:12]})",
              "gold": args.gold or "the benchmark's own",
              "encoder_spec": args.encoder,
              "candidates": {"retriever": config.retriever, "top_k": config.top_k}}
    model = calibrate(data, judge.encoder.short, args.l2, args.band_errors, record)
    out = args.out or DEFAULT_MODEL_FILE
    model.save(out)
    print(json.dumps({"written": str(out), **model.identity(), "calibration": model.calibration}, indent=1))
    return 0
