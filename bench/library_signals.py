"""Signals that stand within the whole library, measured before they enter the judge.

The packaged judge's relative signals stand within the sub-query's candidate list. This study asks whether
signals that stand within the **library** transfer better across libraries than the cosines do:

* ``*_rank``: log of the candidate's rank among the reference's nearest tools of the pool (1: nearest), by
  documentation and by name-and-description cosine; ``*_reverse_rank``: the reference's rank among the
  candidate's (mutual nearest neighbours). A tool has a few alternatives whatever the library's size or
  documentation style, so a rank carries no library's cosine scale.
* ``*_library_z``: the cosine standardised over the reference's cosines to every tool of the pool.

Each feature set is fitted here the same way (standardised features, L2 logistic regression with every source
weighing the same, the median over fitting parts of each part's balanced threshold in logit; no sign
constraint, unlike :func:`toolex.annotate.calibration.calibrate`), left out by library as the judge study does
(:func:`toolex.experiments.transfer.fitting_sources`) and, stricter, with the SGD family (one set of APIs in
three wordings) and ETOM as the only two libraries. Scored like the judge study: NDCG@10 recovered share,
over- and under-credit per query, BM25 and MiniLM, on the left-out calibration and report parts.

Usage: ``python bench/library_signals.py [--out data/validation/library_signals.json]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from toolex.annotate.calibration import balanced_threshold, fit_logistic
from toolex.annotate.judges.features import FEATURES, name_and_description
from toolex.annotate.judges.offline import OfflineSimilarityJudge, RetrieverEncoder
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.pipeline import AnnotateConfig
from toolex.experiments import transfer
from toolex.io.atomic import write_json
from toolex.retrieval import build_retriever
from toolex.validate.goals import GOALS

LIBRARY_FEATURES = ("documentation_rank", "documentation_reverse_rank", "documentation_library_z",
                    "description_rank", "description_reverse_rank", "description_library_z")
ALL = (*FEATURES, *LIBRARY_FEATURES)
RANKS = ("documentation_rank", "documentation_reverse_rank", "description_rank", "description_reverse_rank")
SETS: Mapping[str, tuple[str, ...]] = {
    "raw + relative (the packaged recipe's features)": (*transfer.RAW, *transfer.RELATIVE),
    "relative": transfer.RELATIVE,
    "library ranks": RANKS,
    "library ranks + subquery fit": (*RANKS, "subquery_fit"),
    "library ranks + subquery fit + operation": (*RANKS, "subquery_fit", "operation_match"),
    "library ranks + relative": (*RANKS, *transfer.RELATIVE),
    "library ranks + raw + relative": (*RANKS, *transfer.RAW, *transfer.RELATIVE),
    "library z": ("documentation_library_z", "description_library_z"),
    "library ranks + library z": (*RANKS, "documentation_library_z", "description_library_z"),
}
#: The two ways of leaving a library out: the judge study's, and the SGD family against ETOM alone.
GROUPINGS: Mapping[str, Callable[[str, Sequence[str]], list[str]]] = {
    "library (as the judge study)": transfer.fitting_sources,
    "SGD family | ETOM": lambda left, sources: [s for s in sources if (s == "etom") != (left == "etom")],
}


def library_features(part: transfer.Part, encoder: RetrieverEncoder) -> np.ndarray:
    """The :data:`LIBRARY_FEATURES` of every item of ``part``, against the part's whole pool."""
    tools = list(part.benchmark.tools.values())
    at = {t.id: i for i, t in enumerate(tools)}
    c = np.array([at[it.candidate.id] for it in part.items.items])
    r = np.array([at[it.reference.id] for it in part.items.items])
    columns = []
    for texts in ([t.text for t in tools], [name_and_description(t) for t in tools]):
        vectors = encoder.documents(texts)
        similarity = vectors @ vectors.T
        np.fill_diagonal(similarity, -np.inf)
        pair = similarity[r, c]
        rank = 1 + (similarity[r] > pair[:, None]).sum(axis=1)
        reverse = 1 + (similarity[c] > pair[:, None]).sum(axis=1)
        finite = np.where(np.isinf(similarity), np.nan, similarity)
        z = (pair - np.nanmean(finite, axis=1)[r]) / np.nanstd(finite, axis=1)[r]
        columns += [-np.log(rank), -np.log(reverse), z]
    return np.column_stack(columns)


def fitted(parts: Sequence[tuple[np.ndarray, np.ndarray]], columns: list[int]
           ) -> tuple[Callable[[np.ndarray], np.ndarray], float]:
    """A standardised L2 logistic score over ``columns`` fitted on ``parts`` (rows, labels; each weighing
    the same) and the median over parts of each part's balanced threshold."""
    rows = np.vstack([x[:, columns] for x, _ in parts])
    labels = np.concatenate([y for _, y in parts])
    weights = np.concatenate([np.full(len(y), len(labels) / (len(parts) * len(y))) for _, y in parts])
    mean, spread = rows.mean(axis=0), rows.std(axis=0) + 1e-9
    coefficients, bias = fit_logistic((rows - mean) / spread, labels, 1.0, weights=weights)

    def score(x: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-(bias + ((x[:, columns] - mean) / spread) @ coefficients)))

    logits = []
    for x, y in parts:
        t = min(max(balanced_threshold(score(x), y), 1e-9), 1 - 1e-9)
        logits.append(np.log(t / (1 - t)))
    return score, float(1 / (1 + np.exp(-np.median(logits))))


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--out", default="data/validation/library_signals.json")
    args = parser.parse_args()
    start = time.perf_counter()
    retriever = build_retriever("dense:mpnet")
    judge = OfflineSimilarityJudge(retriever, ScoreModel.untrained("features only"))
    config = AnnotateConfig()
    calibration, report = transfer.load_parts(judge, config, retriever)
    parts = {"calibration": calibration, "report": report}
    rows = {(kind, source): np.hstack([part.items.rows, library_features(part, judge.encoder)])
            for kind, held in parts.items() for source, part in held.items()}
    sources = list(transfer.SOURCES)
    records = []
    for grouping, fitting in GROUPINGS.items():
        for name, features in SETS.items():
            columns = [ALL.index(f) for f in features]
            for left in sources:
                used = fitting(left, sources)
                score, threshold = fitted([(rows["calibration", s], parts["calibration"][s].items.labels)
                                           for s in used], columns)
                for kind in parts:
                    said = score(rows[kind, left]) >= threshold
                    table = transfer.credit(transfer.FixedVerdicts(said), parts[kind][left], config)  # type: ignore[arg-type]
                    for row in table.itertuples():
                        records.append({"grouping": grouping, "features": name, "fitted_on": " + ".join(used),
                                        "reported_on": left, "part": kind, "retriever": row.retriever,
                                        "recovered": round(float(row.recovered), 6),
                                        "over_credit": round(float(row.over_credit), 6),
                                        "under_credit": round(float(row.under_credit), 6)})
    frame = pd.DataFrame(records)
    frame["goal_failures"] = (len(GOALS) - transfer.goals_met(frame)).to_numpy()
    summary = (frame.assign(error=frame["over_credit"] + frame["under_credit"])
               .groupby(["grouping", "features", "part"])[["goal_failures", "error"]].sum().round(4)
               .reset_index())
    out = {"description": __doc__.split("\n\n")[0],
           "features": {"library": list(LIBRARY_FEATURES), "sets": {k: list(v) for k, v in SETS.items()}},
           "goals": {"recovered": list(transfer.SHARE_GOAL), "credit": transfer.CREDIT_GOAL},
           "summary": json.loads(summary.to_json(orient="records")),
           "rows": records, "seconds": round(time.perf_counter() - start, 1)}
    write_json(args.out, out)
    print(summary.to_string())


if __name__ == "__main__":
    main()
