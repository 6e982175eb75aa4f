"""The reference computation with pytrec_eval: each combination expanded into its own qrels, then the max.

This is what ToolRet / Tool-DE do for one reference; it serves the agreement tests and the speed bench.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolex.data.records import Annotation
from toolex.metrics.measures import HEADLINE

Scores = dict[str, dict[str, dict[str, float]]]


class PytrecEvalToolEq:
    """pytrec_eval's evaluator over the expanded qrels (one qrels entry per combination), built once."""

    def __init__(self, annotations: Sequence[Annotation], k: int = HEADLINE.k) -> None:
        import pytrec_eval

        self.k = k
        self.annotations = list(annotations)
        qrels: dict[str, dict[str, int]] = {}
        self.owner: dict[str, tuple[str, bool]] = {}
        for a in self.annotations:
            combos = [a.reference, *(c for c in a.combinations if set(c) != set(a.reference))]
            for j, combo in enumerate(combos):
                key = f"{a.query_id}\t{j}"
                qrels[key] = {t: 1 for t in combo}
                self.owner[key] = (a.query_id, j == 0)
        self.evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}", f"recall.{k}"})

    def evaluate(self, run: Mapping[str, Mapping[str, float]]) -> Scores:
        """``{"one_to_one" | "tooleq": {query_id: {"ndcg", "recall", "comp"}}}``; absent queries score 0."""
        k = self.k
        expanded_run = {key: run[qid] for key, (qid, _) in self.owner.items() if run.get(qid)}
        results = self.evaluator.evaluate(expanded_run)
        zero = {"ndcg": 0.0, "recall": 0.0, "comp": 0.0}
        out: Scores = {"one_to_one": {}, "tooleq": {}}
        for a in self.annotations:
            out["one_to_one"][a.query_id] = dict(zero)
            out["tooleq"][a.query_id] = dict(zero)
        for key, values in results.items():
            qid, is_reference = self.owner[key]
            recall = values[f"recall_{k}"]
            scores = {"ndcg": values[f"ndcg_cut_{k}"], "recall": recall, "comp": float(recall == 1.0)}
            best = out["tooleq"][qid]
            for m, v in scores.items():
                if v > best[m]:
                    best[m] = v
            if is_reference:
                out["one_to_one"][qid] = scores
        return out


def pytrec_eval_scores(
    run: Mapping[str, Mapping[str, float]], annotations: Sequence[Annotation], k: int = HEADLINE.k
) -> Scores:
    """One-to-one and ToolEq per-query scores computed by pytrec_eval."""
    return PytrecEvalToolEq(annotations, k).evaluate(run)
