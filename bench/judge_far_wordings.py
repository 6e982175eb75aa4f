"""Does the choice of the default judge rest on SGD-X calibration wordings close to SGD's own?

SGD-X's variants drift from the original wording (v1 closest, v5 furthest: the share of name-and-description
words a variant shares with the original falls from about a third to a tenth), and its calibration part draws
each service's wording from v1-v3, so a left-out SGD-X calibration part is closer to the SGD source it is
fitted on than its report part (v4-v5) is. This study redraws the SGD-X and two-tool calibration parts from
the far wordings (v3-v5; the report parts, other domains, are unchanged) and reruns the leave-one-source-out
choice of :mod:`toolex.experiments.transfer`: which recipe wins, and how every recipe fares, with the word
overlap of each variant with the original beside it.

Usage: ``python bench/judge_far_wordings.py [--variants v3,v4,v5]
[--out data/validation/judge_far_wordings.json]``
"""

from __future__ import annotations

import argparse
import json
import re
import time
from typing import Any

import pandas as pd

import toolex.data.sgdx as sgdx
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.pipeline import AnnotateConfig
from toolex.data.readers import read_json
from toolex.data.sgd import SPLITS
from toolex.experiments import transfer
from toolex.io.atomic import write_json
from toolex.paths import data_dir
from toolex.retrieval import build_retriever

WORDS = re.compile(r"[a-z]+")


def intents(folder: Any) -> list[set[str]]:
    """Each intent's name-and-description words, in file order (variant files follow the original's order)."""
    return [set(WORDS.findall(f"{intent['name']} {intent['description']}".lower()))
            for split in SPLITS for service in read_json(folder / f"schema_{split}.json")
            for intent in service["intents"]]


def word_overlap() -> dict[str, float]:
    """Per SGD-X variant, the mean Jaccard overlap of its intents' words with the original intents'."""
    root = data_dir() / "sgd"
    original = intents(root)
    out = {}
    for variant in sgdx.VARIANTS:
        pairs = list(zip(original, intents(root / "sgd_x" / variant)))
        out[variant] = round(sum(len(a & b) / max(1, len(a | b)) for a, b in pairs) / len(pairs), 4)
    return out


def summary(matrix: pd.DataFrame) -> list[dict[str, Any]]:
    """Per recipe: goal cells failed on the left-out calibration parts (the choice) and report parts."""
    rows = []
    for name, table in matrix.groupby("recipe", sort=False):
        rows.append({"recipe": name, **{f"failed_{part}": transfer.goal_failures(table[table["part"] == part])
                                        for part in ("calibration", "report")}})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--variants", default="v3,v4,v5", help="the SGD-X wordings calibration draws from")
    parser.add_argument("--out", default="data/validation/judge_far_wordings.json")
    args = parser.parse_args()
    start = time.perf_counter()
    kept = sgdx.FIT_VARIANTS
    sgdx.FIT_VARIANTS = tuple(args.variants.split(","))  # the parts this study redraws; read when loaded
    encoder = build_retriever("dense:mpnet")
    judge = OfflineSimilarityJudge(encoder, ScoreModel.untrained("features only"))
    config = AnnotateConfig()
    calibration, report = transfer.load_parts(judge, config, encoder)
    matrix, chosen, _, final = transfer.transfer_study(calibration, report, judge.encoder.short, config)
    columns = ["reported_on", "retriever", "recovered", "over_credit", "under_credit"]
    out = {
        "description": "the leave-one-source-out choice of the default judge with the SGD-X and two-tool "
                       "calibration parts drawn from other wordings (report parts unchanged); NDCG@10",
        "calibration_variants": {"packaged": list(kept), "this_study": list(sgdx.FIT_VARIANTS)},
        "word_overlap_with_original": word_overlap(),
        "calibration_equivalent_share": {s: round(float(p.items.labels.mean()), 4)
                                         for s, p in calibration.items()},
        "recipes": summary(matrix),
        "chosen": chosen.name,
        "chosen_on_report_parts": json.loads(final[columns].to_json(orient="records", double_precision=6)),
        "seconds": round(time.perf_counter() - start, 1),
    }
    write_json(args.out, out)
    print(json.dumps({"chosen": chosen.name, "seconds": out["seconds"]}, indent=1))


if __name__ == "__main__":
    main()
