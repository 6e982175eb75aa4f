"""``toolex gold``: the gold file of a benchmark that carries a human one-to-many ground truth (``sgd/*``,
``sgd-x/*``, ``sgd-pairs/*``), as ``toolex validate --gold`` reads it."""

from __future__ import annotations

import argparse

HELP = "write the human gold file of a labelled benchmark (sgd*, sgd-x*, sgd-pairs*) for toolex validate"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", required=True, help="a benchmark with its own gold, e.g. sgd-x/report")
    parser.add_argument("--out", required=True, help="gold JSON lines to write")
    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")


def run(args: argparse.Namespace) -> int:
    from toolex.data import load_benchmark
    from toolex.data.registry import own_gold_rule
    from toolex.validate.gold import benchmark_gold, write_gold

    benchmark = load_benchmark(args.benchmark, args.data)
    records = benchmark_gold(benchmark)
    write_gold(records, args.out)
    alternatives = sum(len(r.acceptable) - 1 for r in records)
    print(f"{args.out}: {len(records)} queries, {alternatives} accepted combinations beyond C* "
          f"({own_gold_rule(benchmark)})")
    return 0
