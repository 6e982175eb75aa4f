"""ToolEq evaluation speed: toolex (vectorised) vs pytrec_eval doing the same work, in the same run.

Paper-sized workload: 7,360 queries x 100 ranked tools x ~5.3 valid combinations, NDCG / Recall / Comp@10.
pytrec_eval does what the reference scripts would: each combination expanded into its own qrels, evaluated,
then the maximum per query.

Two measurements, both in this run:
- ``evaluation``: the annotations are prepared once (toolex ``GroundTruth``; pytrec_eval's
  ``RelevanceEvaluator`` over the expanded qrels), as when several runs are scored against one annotation
  file; each side then scores the run in its own input form (toolex ``RunArrays``, as read from a TREC file;
  pytrec_eval a dict, expanded per combination). This is the speed-up goal (>= 20x).
- ``end_to_end``: both start from the same Python dicts (run and annotations) and do everything.
Prints one JSON object with the times, the speed-ups and the largest score difference.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

from toolex.data.records import Annotation
from toolex.metrics import NAMES, GroundTruth, RunArrays, evaluate
from toolex.metrics.trec_eval_reference import PytrecEvalToolEq, pytrec_eval_scores


def _pick(rng: np.random.Generator, ranking: np.ndarray, tools: np.ndarray, m: int) -> tuple[str, ...]:
    """A combination of ``m`` tools, drawn half the time from the ranking (as real verified tools are)."""
    source = ranking if rng.random() < 0.5 else rng.choice(len(tools), size=50, replace=False)
    return tuple(tools[rng.choice(source, size=m, replace=False)].tolist())


def workload(n_queries: int, depth: int, combos_per_query: float, n_tools: int, seed: int):
    rng = np.random.default_rng(seed)
    tools = np.array([f"tool_{i}" for i in range(n_tools)], dtype=object)
    run, annotations = {}, []
    for q in range(n_queries):
        size = int(rng.choice([1, 2, 3, 4], p=[0.45, 0.35, 0.15, 0.05]))
        ranking = rng.choice(n_tools, size=depth, replace=False)
        scores = np.sort(rng.random(depth))[::-1]
        run[f"q{q}"] = dict(zip(tools[ranking].tolist(), scores.tolist()))
        # equivalents are drawn half from the ranking, half from the pool, as real verified tools are
        reference = _pick(rng, ranking, tools, size)
        extra = [_pick(rng, ranking, tools, size) for _ in range(max(0, rng.poisson(combos_per_query - 1)))]
        annotations.append(Annotation(f"q{q}", ("code", "web", "customized")[q % 3], reference,
                                      (reference, *extra)))
    return run, annotations


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--queries", type=int, default=7360)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--combinations", type=float, default=5.3)
    parser.add_argument("--tools", type=int, default=43000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    run, annotations = workload(args.queries, args.depth, args.combinations, args.tools, seed=0)
    # evaluation against prepared annotations
    truth, reference = GroundTruth(annotations), PytrecEvalToolEq(annotations, args.k)
    arrays = RunArrays.from_dict(run)
    eval_s, ours = best_of(lambda: truth.evaluate(arrays, k=args.k), args.repeat)
    ref_eval_s, ref = best_of(lambda: reference.evaluate(run), args.repeat)
    # end to end from Python dicts
    e2e_s, _ = best_of(lambda: evaluate(run, annotations, k=args.k), args.repeat)
    ref_e2e_s, _ = best_of(lambda: pytrec_eval_scores(run, annotations, k=args.k), args.repeat)
    frame = ours.per_query.set_index("query_id")
    diff = max(
        float(np.abs(frame[f"{side}_{m}"].to_numpy() - np.array([ref[side][q][m]
                                                                 for q in frame.index])).max())
        for side in ("one_to_one", "tooleq") for m in NAMES
    )
    print(json.dumps({
        "bench": "tooleq_metrics",
        "queries": args.queries,
        "ranked_tools_per_query": args.depth,
        "combinations": int(sum(len(a.combinations) for a in annotations)),
        "combinations_per_query": round(sum(len(a.combinations) for a in annotations) / args.queries, 2),
        "k": args.k,
        "evaluation": {"toolex_s": round(eval_s, 4), "pytrec_eval_s": round(ref_eval_s, 4),
                       "speedup": round(ref_eval_s / eval_s, 1), "goal_speedup": 20,
                       "meets_goal": ref_eval_s / eval_s >= 20},
        "end_to_end": {"toolex_s": round(e2e_s, 4), "pytrec_eval_s": round(ref_e2e_s, 4),
                       "speedup": round(ref_e2e_s / e2e_s, 1)},
        "max_abs_difference": diff,
        "machine": f"{platform.machine()} python {platform.python_version()}",
    }))


if __name__ == "__main__":
    main()
