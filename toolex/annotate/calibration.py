"""Calibrating the offline judge's thresholds against an LLM judge's verdicts on the same items.

For every verification item of an LLM run, the offline judge's two similarities are computed once; a grid over
``ref_threshold`` and ``subquery_margin`` then picks the pair with the highest Cohen's kappa against the LLM's
verdicts. A second, label-free reference point is reported too: the similarity between reference tools and
random tools of the pool (a null distribution), whose upper quantiles bound the false-positive rate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from toolex.annotate.agreement import compare
from toolex.annotate.artifacts import ArtifactFolder
from toolex.annotate.judges.offline import OfflineSimilarityJudge, Thresholds
from toolex.data.records import Tool


def item_similarities(folder: ArtifactFolder, judge: OfflineSimilarityJudge,
                      tools: Mapping[str, Tool]) -> dict[str, np.ndarray]:
    """cos(candidate, reference), cos(candidate, sub-query), cos(reference, sub-query) and the LLM verdict."""
    subqueries = {d.query_id: d.subqueries for d in folder.decompositions() if d.ok}
    cands, refs, texts, labels = [], [], [], []
    for v in folder.verified_sets():
        for c in v.candidates:
            if c.verdict.judge == "reference" or c.verdict.equivalent is None:
                continue
            cands.append(tools[c.tool_id])
            refs.append(tools[v.reference_tool])
            texts.append(subqueries[v.query_id][v.index].text)
            labels.append(bool(c.verdict.equivalent))
    cand, ref, sub = judge._tools(cands), judge._tools(refs), judge._texts(texts)
    return {"to_ref": np.sum(cand * ref, 1), "cand_sub": np.sum(cand * sub, 1), "ref_sub": np.sum(ref * sub, 1),
            "llm": np.asarray(labels, dtype=bool)}


def calibrate(sims: Mapping[str, np.ndarray], ref_grid: np.ndarray | None = None,
              margin_grid: np.ndarray | None = None) -> dict[str, Any]:
    """The thresholds with the best kappa against the LLM verdicts, and the grid's best rows."""
    ref_grid = np.round(np.arange(0.50, 0.96, 0.02), 2) if ref_grid is None else ref_grid
    margin_grid = np.round(np.array([0.0, 0.02, 0.05, 0.1, 0.2, 1.0]), 2) if margin_grid is None else margin_grid
    rows = []
    for t in ref_grid:
        for m in margin_grid:
            offline = (sims["to_ref"] >= t) & (sims["cand_sub"] >= sims["ref_sub"] - m)
            a = compare(sims["llm"].tolist(), offline.tolist())
            rows.append({"ref_threshold": float(t), "subquery_margin": float(m), "kappa": a.kappa,
                         "agreement": a.agreement, "offline_yes_rate": float(offline.mean())})
    rows.sort(key=lambda r: (-(r["kappa"] if r["kappa"] == r["kappa"] else -1), -r["agreement"]))
    best = rows[0]
    return {"best": Thresholds(best["ref_threshold"], best["subquery_margin"]), "best_row": best,
            "items": int(len(sims["llm"])), "llm_yes_rate": float(sims["llm"].mean()) if len(sims["llm"]) else 0.0,
            "top": rows[:10]}


def null_similarity_quantiles(judge: OfflineSimilarityJudge, references: list[Tool], pool: list[Tool],
                              seed: int = 0, pairs: int = 5000,
                              quantiles: tuple[float, ...] = (0.9, 0.99, 0.999)) -> dict[str, float]:
    """Quantiles of cos(reference tool, random pool tool): how similar unrelated tools get by chance."""
    rng = np.random.default_rng(seed)
    a = [references[i] for i in rng.integers(0, len(references), pairs)]
    b = [pool[i] for i in rng.integers(0, len(pool), pairs)]
    keep = [i for i in range(pairs) if a[i].id != b[i].id]
    sims = np.sum(judge._tools([a[i] for i in keep]) * judge._tools([b[i] for i in keep]), 1)
    return {f"q{q}": float(np.quantile(sims, q)) for q in quantiles}
