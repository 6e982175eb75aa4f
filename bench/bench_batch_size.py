"""How many texts one forward pass of a sentence-transformers encoder should hold on the CPU.

For each embedded model (MiniLM, mpnet) and each source of documents (the tools of every default benchmark,
and the skills), seeded windows of 32 documents neighbouring in length are encoded with each batch size, as
the embedding cache and sentence-transformers feed an encoder (texts sorted by length, so that a batch of 32
holds texts of alike length; a random sample would pad batches of 32 more than a run does). Every size is
timed twice, in one order and then in reverse, and the faster pass kept, as a ratio against batch size 32 in
the same run; the vectors are compared with those of batch size 32 (a batch's padding moves float32 vectors
in the 7th decimal).

The choice: the batch size with the highest geometric mean of the ratio over every (model, source) cell.
Each source is also left out in turn: the size chosen on the other sources and its ratio on the one left out
are reported, so the choice is judged on data it did not see. Prints one JSON object (``--out`` writes it).

Usage: ``python bench/bench_batch_size.py [--sizes 4 8 16 32] [--minilm 4] [--mpnet 2] [--out PATH]``
(``--minilm`` / ``--mpnet``: windows per source).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch

from toolex.data import load_benchmark
from toolex.data.registry import DEFAULT_BENCHMARKS
from toolex.io.atomic import write_json
from toolex.retrieval.encoders import load_encoder
from toolex.skills.loader import load_skills

BASELINE = 32


def windows(documents: list[str], count: int, seed: int, width: int = BASELINE) -> list[str]:
    """``count`` seeded windows of ``width`` documents, each a run of neighbours in length order."""
    ordered = sorted(documents, key=len, reverse=True)
    if len(ordered) <= width:
        return ordered
    starts = random.Random(seed).sample(range(len(ordered) // width), min(count, len(ordered) // width))
    return [text for start in sorted(starts) for text in ordered[start * width:(start + 1) * width]]


def sources() -> dict[str, list[str]]:
    """Every source's documents as the retrievers index them."""
    out = {name: [tool.text for tool in load_benchmark(name).tools.values()] for name in DEFAULT_BENCHMARKS}
    out["skills"] = [tool.text for tool in load_skills().values()]
    return out


def timed(encoder, texts: list[str], size: int) -> tuple[float, np.ndarray]:
    encoder._batch_size = size
    start = time.perf_counter()
    vectors = encoder.encode(texts)
    return time.perf_counter() - start, vectors


def cell(encoder, texts: list[str], sizes: list[int]) -> dict[str, dict[str, float]]:
    """Seconds, texts per second, ratio to :data:`BASELINE` and largest vector change of each batch size."""
    best: dict[int, float] = {}
    vectors: dict[int, np.ndarray] = {}
    for order in (sizes, sizes[::-1]):  # the second pass in reverse, so that no size is always timed last
        for size in order:
            seconds, vectors[size] = timed(encoder, texts, size)
            best[size] = min(best.get(size, math.inf), seconds)
    return {str(size): {"seconds": round(best[size], 3), "texts_per_s": round(len(texts) / best[size], 2),
                        "ratio": round(best[BASELINE] / best[size], 4),
                        "max_abs_change": float(np.abs(vectors[size] - vectors[BASELINE]).max())}
            for size in sizes}


def choose(cells: dict[str, dict[str, dict[str, dict[str, float]]]], sizes: list[int],
           leave_out: str | None = None) -> int:
    """The size with the highest geometric mean ratio over every cell (``leave_out``: without that source)."""
    def score(size: int) -> float:
        ratios = [by_source[source][str(size)]["ratio"] for by_source in cells.values()
                  for source in by_source if source != leave_out]
        return float(np.exp(np.mean(np.log(ratios))))
    return max(sizes, key=score)


def summary(cells: dict[str, dict[str, dict[str, dict[str, float]]]]) -> dict[str, dict[str, float]]:
    """Each model's geometric mean ratio over the sources, by batch size."""
    def mean(by_source: dict[str, dict[str, dict[str, float]]], size: str) -> float:
        return round(float(np.exp(np.mean([np.log(row[size]["ratio"]) for row in by_source.values()]))), 4)
    return {model: {size: mean(by_source, size) for size in next(iter(by_source.values()))}
            for model, by_source in cells.items()}


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 16, 32])
    parser.add_argument("--minilm", type=int, default=4, help="windows of 32 documents per source, MiniLM")
    parser.add_argument("--mpnet", type=int, default=2, help="windows of 32 documents per source, mpnet")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    sizes = sorted(set(args.sizes) | {BASELINE})

    texts = sources()
    cells: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for model, n in (("minilm", args.minilm), ("mpnet", args.mpnet)):
        encoder = load_encoder(model)
        cells[model] = {}
        for source, documents in texts.items():
            sample = windows(documents, n, args.seed)
            cells[model][source] = cell(encoder, sample, sizes)
            print(f"[bench] {model} {source}: "
                  + ", ".join(f"{s}: {v['ratio']:.2f}x" for s, v in cells[model][source].items()), flush=True)
    chosen = choose(cells, sizes)
    held_out = {}
    for source in texts:
        size = choose(cells, sizes, leave_out=source)
        held_out[source] = {"chosen_without_it": size,
                            **{model: cells[model][source][str(size)]["ratio"] for model in cells}}
    result = {"description": __doc__.splitlines()[0], "threads": torch.get_num_threads(),
              "baseline_batch_size": BASELINE, "sizes": sizes,
              "windows_of_32_per_source": {"minilm": args.minilm, "mpnet": args.mpnet}, "seed": args.seed,
              "rule": "highest geometric mean of the ratio to batch size 32 over every (model, source) cell",
              "chosen": chosen, "geometric_mean_ratio": summary(cells), "held_out": held_out,
              "cells": cells}
    print(json.dumps(result, indent=1))
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
