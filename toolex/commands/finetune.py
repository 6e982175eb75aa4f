"""``toolex finetune``: fine-tune MiniLM on one-to-one labels (the base / fine-tuned pair of Figure 3), or on
the ToolEq labels of an annotations file."""

from __future__ import annotations

import argparse
import json

HELP = ("fine-tune a dense retriever on one-to-one labels of the training queries (disjoint from every "
        "evaluated query); the model is kept under the artifacts folder, keyed by its settings")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", action="append", dest="benchmarks",
                        help="benchmark to train on (repeatable; default: the default set)")
    parser.add_argument("--base", help="base model alias or folder (default minilm)")
    parser.add_argument("--train-fraction", type=float,
                        help="share of a benchmark's queries that train, where it has no training split of "
                             "its own (default 0.5)")
    parser.add_argument("--own-train", type=int, help="queries drawn from a benchmark's own training split "
                                                       "(default 1000)")
    parser.add_argument("--epochs", type=int, help="passes over the triples (default 1)")
    parser.add_argument("--batch-size", type=int, help="triples per batch (default 32)")
    parser.add_argument("--learning-rate", type=float, help="AdamW learning rate (default 2e-5)")
    parser.add_argument("--seed", type=int, help="seed of the split, the draw and the shuffles (default 0)")
    parser.add_argument("--labels", help="annotations.jsonl of a ToolEX run over the training queries: train "
                                         "on its valid combinations (ToolEq labels) instead of C* alone")
    parser.add_argument("--force", action="store_true", help="train again even when the model exists")
    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from toolex.experiments.finetune import FinetuneSettings, ensure_finetuned, with_overrides
    from toolex.io.artifact import read_manifest

    settings = with_overrides(FinetuneSettings(), base=args.base,
                              benchmarks=tuple(args.benchmarks) if args.benchmarks else None,
                              train_fraction=args.train_fraction, own_train=args.own_train,
                              epochs=args.epochs, batch_size=args.batch_size,
                              learning_rate=args.learning_rate, seed=args.seed, labels=args.labels)
    folder = ensure_finetuned(settings, args.data, progress=not args.no_progress, force=args.force)
    manifest = read_manifest(folder, required=True)
    print(json.dumps({"model": str(folder), "retriever": f"dense:{folder}", "training": manifest["training"],
                      "losses": manifest["losses"], "seconds": manifest["seconds"]}, indent=1))
    return 0
