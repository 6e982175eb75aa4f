"""Does a verifier trained on the pooled labelled items transfer to a library it never saw?

A cross-encoder is fine-tuned from all-MiniLM-L6-v2 (the model on disk; a new one-logit head) on the
calibration parts' labelled Stage-2 items of the other libraries' sources, as the offline judge's recipes
are (:func:`toolex.experiments.transfer.fitting_sources`; each source weighing the same). A pair is the
reference's and the candidate's name and description
(:func:`~toolex.annotate.judges.features.name_and_description`), in both orders, labelled from the part's
gold; each distinct pair once, up to :data:`NEGATIVES_PER_POSITIVE` non-alternatives per alternative drawn at
random. It then scores the left-out library's calibration and report parts (the mean logit of both orders),
and the study reports, beside the default recipe fitted on the same sources (and the packaged default, which
saw every calibration part), how well each ranks alternatives above non-alternatives (ROC AUC) and what each
would reach with the best threshold for each report part (:func:`~toolex.experiments.bounds.best_threshold`,
chosen on that part's gold). A pair sees no sub-query: where one pair is an alternative for one query's need
and not for another's, it gets one score (``conflicting_pairs`` counts them).

Usage: ``python bench/verifier_transfer.py [--out data/validation/verifier_transfer.json] [--epochs 2]``.
Only ETOM's left-out row tests transfer to another library cleanly: SGD-X rewrites SGD's own APIs, so a model
fitted on one of them has read the other's pairs in other words.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from toolex.annotate.judges.features import name_and_description
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel, default_model
from toolex.annotate.pipeline import AnnotateConfig
from toolex.experiments import transfer
from toolex.io.atomic import write_json
from toolex.retrieval import build_retriever
from toolex.retrieval.encoders import minilm_path

NEGATIVES_PER_POSITIVE = 4
MAX_LENGTH = 128
BATCH = 16
LEARNING_RATE = 3e-5


def pairs(part: transfer.Part) -> dict[tuple[str, str], tuple[str, str, bool]]:
    """Each distinct (reference, candidate) of a part: the two texts and whether it is an alternative."""
    out: dict[tuple[str, str], tuple[str, str, bool]] = {}
    for item, label in zip(part.items.items, part.items.labels):
        key = (item.reference.id, item.candidate.id)
        before = out.get(key, ("", "", False))[2]
        out[key] = (name_and_description(item.reference), name_and_description(item.candidate),
                    bool(label) or before)
    return out


def training_pairs(parts: Sequence[transfer.Part], seed: int) -> list[tuple[str, str, float, float]]:
    """(first text, second text, label, weight): both orders of every positive pair and of the drawn
    negatives, each part weighing the same (mean weight 1)."""
    rng = random.Random(seed)
    rows: list[tuple[str, str, float, float]] = []
    for part in parts:
        found = list(pairs(part).values())
        positive = [(a, b, 1.0) for a, b, y in found if y]
        negative = [(a, b, 0.0) for a, b, y in found if not y]
        rng.shuffle(negative)
        chosen = positive + negative[:NEGATIVES_PER_POSITIVE * len(positive)]
        weight = 1.0 / len(chosen)
        rows += [(a, b, y, weight) for a, b, y in chosen] + [(b, a, y, weight) for a, b, y in chosen]
    mean = float(np.mean([r[3] for r in rows]))
    return [(a, b, y, w / mean) for a, b, y, w in rows]


def train(rows: list[tuple[str, str, float, float]], epochs: int, seed: int) -> tuple[Any, Any]:
    """A cross-encoder fine-tuned from all-MiniLM-L6-v2 with weighted binary cross-entropy."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()))
    model = AutoModelForSequenceClassification.from_pretrained(str(minilm_path()), num_labels=1)
    optimiser = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.01)
    steps = epochs * -(-len(rows) // BATCH)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda i: min(1.0, (i + 1) / warmup) * max(0.0, 1 - i / steps))
    model.train()
    for _ in range(epochs):
        rows = rows[:]
        rng.shuffle(rows)
        for start in range(0, len(rows), BATCH):
            chunk = rows[start:start + BATCH]
            batch = tokenizer([r[0] for r in chunk], [r[1] for r in chunk], truncation=True,
                              max_length=MAX_LENGTH, padding=True, return_tensors="pt")
            logits = model(**batch).logits.squeeze(-1)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                logits, torch.tensor([r[2] for r in chunk]), reduction="none")
            (loss * torch.tensor([r[3] for r in chunk])).mean().backward()
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
    model.eval()
    return tokenizer, model


def score(tokenizer: Any, model: Any, part: transfer.Part) -> np.ndarray:
    """The verifier's logit of every item of a part, the mean over both orders of the pair."""
    import torch

    found = pairs(part)
    keys = list(found)
    logits: dict[tuple[str, str], float] = {}
    with torch.no_grad():
        for start in range(0, len(keys), 64):
            chunk = keys[start:start + 64]
            total: Any = 0
            for first, second in ((0, 1), (1, 0)):
                batch = tokenizer([found[k][first] for k in chunk], [found[k][second] for k in chunk],
                                  truncation=True, max_length=MAX_LENGTH, padding=True, return_tensors="pt")
                total = total + model(**batch).logits.squeeze(-1)
            logits.update(zip(chunk, (total / 2).tolist()))
    return np.array([logits[(it.reference.id, it.candidate.id)] for it in part.items.items])


def conflicting(part: transfer.Part) -> tuple[int, int]:
    """Distinct (reference, candidate) pairs of a part, and how many of them are labelled both ways (an
    alternative for one sub-query, not for another)."""
    seen: dict[tuple[str, str], set[bool]] = {}
    for item, label in zip(part.items.items, part.items.labels):
        seen.setdefault((item.reference.id, item.candidate.id), set()).add(bool(label))
    return len(seen), sum(len(labels) == 2 for labels in seen.values())


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    keep = ["reported_on", "score", "retriever", "threshold", "quantile", "at_edge", "recovered",
            "over_credit", "under_credit", "goal_cells_failed", "goal_reachable", "credit_reachable"]
    return json.loads(frame[keep].to_json(orient="records", double_precision=6))


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="data/validation/verifier_transfer.json")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(2)
    start = time.perf_counter()
    encoder = build_retriever("dense:mpnet")
    judge = OfflineSimilarityJudge(encoder, ScoreModel.untrained("features only"))
    config = AnnotateConfig()
    calibration, report = transfer.load_parts(judge, config, encoder)
    default = default_model()
    recipe = transfer.Recipe(tuple(default.calibration["recipe"]["features"]),
                             float(default.calibration["recipe"]["l2"]),
                             str(default.calibration["recipe"]["threshold"]))
    left_out, bounds = [], []
    for library in dict.fromkeys(transfer.LIBRARY.values()):
        left = [s for s in transfer.SOURCES if transfer.LIBRARY[s] == library]
        fitted = transfer.fitting_sources(left[0], list(calibration))
        began = time.perf_counter()
        rows = training_pairs([calibration[s] for s in fitted], args.seed)
        tokenizer, model = train(rows, args.epochs, args.seed)
        trained = time.perf_counter() - began
        recipe_fit = transfer.fit(recipe, [calibration[s] for s in fitted], judge.encoder.short)
        for source in left:
            for name, part in (("calibration", calibration[source]), ("report", report[source])):
                verifier = score(tokenizer, model, part)
                ours = recipe_fit.probability(part.items.rows)
                pairs_seen, both_ways = conflicting(part)
                labels = part.items.labels
                left_out.append({"left_out": library, "fitted_on": " + ".join(fitted),
                                 "training_examples": len(rows), "training_seconds": round(trained, 1),
                                 "reported_on": source, "part": name, "pairs": pairs_seen,
                                 "conflicting_pairs": both_ways,
                                 "auc_verifier": bounds.area_under_curve(verifier, labels),
                                 "auc_default_recipe": bounds.area_under_curve(ours, labels),
                                 "auc_packaged_default": bounds.area_under_curve(
                                     default.probability(part.items.rows), labels)})
                if name == "report":
                    bounds += [bounds.best_threshold(verifier, part, config).assign(
                                   reported_on=source, score="verifier"),
                               bounds.best_threshold(ours, part, config).assign(
                                   reported_on=source, score="default recipe")]
    out = {"description": "a cross-encoder fine-tuned from all-MiniLM-L6-v2 on the other libraries' "
                          "labelled calibration items (training_examples: both orders of each pair), "
                          "against the default recipe fitted on the same sources (and the packaged default, "
                          "fitted on every calibration part), per left-out library: ROC AUC, and the best "
                          "threshold per report part (chosen on its gold); NDCG@10, over- and under-credit "
                          "per query as fractions",
           "settings": {"epochs": args.epochs, "seed": args.seed, "batch": BATCH,
                        "learning_rate": LEARNING_RATE, "max_length": MAX_LENGTH,
                        "negatives_per_positive": NEGATIVES_PER_POSITIVE, "default_score": default.label()},
           "left_out": left_out,
           "best_threshold_per_report_part": records(pd.concat(bounds, ignore_index=True)),
           "seconds": round(time.perf_counter() - start, 1)}
    write_json(args.out, out)
    print(json.dumps(left_out, indent=1))


if __name__ == "__main__":
    main()
