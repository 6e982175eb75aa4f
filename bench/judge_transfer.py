"""The offline judge chosen across sources (:mod:`toolex.experiments.transfer`): the leave-one-source-out
matrix of every recipe, the chosen recipe fitted on every calibration part and reported on every report part,
the former default's procedure (every feature, fitted on SGD alone) beside it, the per-benchmark label
workflow (50, 100, 150 labels, five draws each), what a perfect verifier would reach (Stage 2's top-20 and
Stage 3's combination cap are the limit then, at today's cap and at the former 20), what the chosen score
would reach with the best threshold for each report part (chosen on that part's own gold: whether the score's
ranking or only its threshold stands between the judge and the goals), the chosen judge at caps
from 20 to the default, and both again with the reference tool's 20 nearest tools added to Stage 2's
candidates (``--reference-k 20``: how far the paper's sub-query retrieval alone bounds what any verifier can
recover).

Usage: ``python bench/judge_transfer.py [--out data/validation/judge_transfer.json] [--write-default]``;
``--write-default`` also writes the chosen model as the packaged default score model.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import pandas as pd

from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import DEFAULT_MODEL_FILE, ScoreModel
from toolex.annotate.pipeline import MAX_COMBINATIONS, AnnotateConfig
from toolex.experiments import bounds, transfer
from toolex.io.atomic import write_json
from toolex.retrieval import build_retriever

COLUMNS = ("retriever", "one_to_one", "ours", "gold", "recovered", "over_credit", "under_credit",
           "expansion_recall", "expansion_precision")


def records(frame: pd.DataFrame, extra: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    keep = [c for c in (*extra, *COLUMNS) if c in frame.columns]
    return json.loads(frame[keep].to_json(orient="records", double_precision=6))


#: Audited combinations per query in the sweep of Stage 3's cap (the default audits every combination of a
#: two-tool query, :data:`~toolex.annotate.pipeline.MAX_COMBINATIONS`; 20 was the former default).
CAPS = (20, 50, 100, 200, MAX_COMBINATIONS)
FORMER_CAP = 20
#: The reference tool's nearest tools added to Stage 2's candidates in the candidate-ceiling rows.
REFERENCE_K = 20


def perfect_verifier(report: dict[str, transfer.Part], config: AnnotateConfig) -> pd.DataFrame:
    """Every report part annotated by a verifier that answers from the gold, under ``config``."""
    return pd.concat([transfer.credit(transfer.FixedVerdicts(p.items.labels), p, config)  # type: ignore[arg-type]
                      .assign(reported_on=s) for s, p in report.items()], ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--out", default="data/validation/judge_transfer.json")
    parser.add_argument("--write-default", action="store_true",
                        help="write the chosen model as the packaged default score model")
    args = parser.parse_args()
    start = time.perf_counter()
    encoder = build_retriever("dense:mpnet")
    judge = OfflineSimilarityJudge(encoder, ScoreModel.untrained("features only"))
    config = AnnotateConfig()
    calibration, report = transfer.load_parts(judge, config, encoder)
    matrix, chosen, model, final = transfer.transfer_study(calibration, report, judge.encoder.short, config)
    # the former default's recipe (raw similarities, adapted threshold) fitted on the SGD-family sources
    former = transfer.fit(transfer.FORMER_RECIPE, [calibration[s] for s in transfer.SGD_FAMILY],
                          judge.encoder.short)
    shares = transfer.share_estimates(calibration, report, chosen, judge.encoder.short)
    labels = transfer.label_study(calibration, report, chosen, judge.encoder.short, config)
    ceiling = perfect_verifier(report, config)
    ceiling_former = perfect_verifier(report, AnnotateConfig(max_combinations=FORMER_CAP))
    caps = pd.concat([transfer.credit(model, p, AnnotateConfig(max_combinations=cap))
                      .assign(reported_on=s, max_combinations=cap)
                      for cap in CAPS for s, p in report.items()], ignore_index=True)
    best = pd.concat([bounds.best_threshold(model.probability(p.items.rows), p, config)
                      .assign(reported_on=s) for s, p in report.items()], ignore_index=True)
    auc = {s: bounds.area_under_curve(model.probability(p.items.rows), p.items.labels)
           for s, p in report.items()}
    wider = AnnotateConfig(reference_k=REFERENCE_K)
    near = {source: transfer.load_part(source, report_part, judge, wider, candidates=encoder)
            for source, (_, report_part) in transfer.SOURCES.items()}
    near_ceiling = perfect_verifier(near, wider)
    near_default = pd.concat([transfer.credit(model, p, wider).assign(reported_on=s)
                              for s, p in near.items()], ignore_index=True)
    out = {
        "description": "offline judge chosen across sources by leave-one-source-out "
                       "(toolex.experiments.transfer); NDCG@10; recovered share, over- and under-credit "
                       "per query",
        "sources": {s: {"kind": transfer.SOURCE_KINDS[s],
                        "calibration": calibration[s].benchmark.name, "report": report[s].benchmark.name,
                        "pool_tools": len(report[s].benchmark.tools),
                        "calibration_items": int(len(calibration[s].items.labels)),
                        "calibration_equivalent_share": float(calibration[s].items.labels.mean()),
                        "report_queries": len(report[s].benchmark.queries),
                        "report_items": int(len(report[s].items.labels)),
                        "report_equivalent_share": float(report[s].items.labels.mean())}
                    for s in report},
        "goals": {"recovered": list(transfer.SHARE_GOAL), "credit": transfer.CREDIT_GOAL},
        "construction_features_excluded": list(transfer.CONSTRUCTION_FEATURES),
        "recipes": [r.name for r in transfer.RECIPES],
        "leave_one_out": records(matrix, ("recipe", "fitted_on", "reported_on", "part", "threshold")),
        "chosen": chosen.name,
        "model": model.to_json(),
        "default_on_report_parts": records(final, ("reported_on",)),
        "adapted_share_on_report_parts": shares,
        "former_recipe_sgd_family_on_report_parts": records(pd.concat(
            [transfer.credit(former, p, config).assign(reported_on=s) for s, p in report.items()],
            ignore_index=True), ("reported_on",)),
        "per_benchmark_labels": records(labels, ("reported_on", "labels", "seed", "threshold")),
        "perfect_verifier": records(ceiling, ("reported_on",)),
        f"perfect_verifier_{FORMER_CAP}_combinations": records(ceiling_former, ("reported_on",)),
        "combination_cap": records(caps, ("reported_on", "max_combinations")),
        f"reference_k_{REFERENCE_K}": {
            "items": {s: int(len(p.items.labels)) for s, p in near.items()},
            "perfect_verifier": records(near_ceiling, ("reported_on",)),
            "default_judge": records(near_default, ("reported_on",))},
        "score_auc_on_report_parts": auc,
        "best_threshold_per_report_part": records(
            best, ("reported_on", "threshold", "quantile", "at_edge", "goal_cells_failed", "goal_reachable",
                   "credit_reachable")),
        "annotate_config": {"retriever": config.retriever, "top_k": config.top_k,
                            "max_combinations": config.max_combinations},
        "seconds": round(time.perf_counter() - start, 1),
    }
    write_json(args.out, out)
    if args.write_default:
        record = {**model.calibration, "chosen_by": f"leave-one-source-out, see {args.out}",
                  "encoder_spec": "dense:mpnet", "candidates": out["annotate_config"]}
        fitted = ScoreModel(model.encoder, model.weights, model.bias, model.threshold, model.band,
                            model.features, record, model.threshold_rule, model.prior)
        fitted.save(DEFAULT_MODEL_FILE)
    print(json.dumps({"chosen": chosen.name, "default_on_report_parts": out["default_on_report_parts"],
                      "seconds": out["seconds"]}, indent=1))


if __name__ == "__main__":
    main()
