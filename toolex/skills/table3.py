"""Table 3 for skills: retrievers scored one-to-one (SkillRet-style C*) and against SkillEq, beside the
paper's reported rows."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from toolex.data.records import Benchmark
from toolex.experiments.baselines import DEFAULT_RETRIEVERS
from toolex.experiments.finetune import open_retriever
from toolex.io.annotations import read_annotations
from toolex.metrics import ONE_TO_ONE, TOOLEQ, evaluate, long
from toolex.metrics.measures import HEADLINE
from toolex.paper import load_table3
from toolex.retrieval import retrieve_over_pools

#: Display names of our retrievers, matching the paper's row names where the model is the same.
DISPLAY = {"bm25": "BM25 (bm25s)", "dense:minilm": "all-MiniLM-L6-v2"}
PAPER_LABEL = "reported by the paper (SkillRet / SkillEq)"


def score_retriever(benchmark: Benchmark, annotations: Sequence[Any], retriever: Any, k: int = HEADLINE.k,
                    name: str = "") -> pd.DataFrame:
    """One retriever's long-form scores (:mod:`toolex.metrics.long`) on the skill pool, as system ``name``."""

    run = retrieve_over_pools(retriever, [(benchmark.tools, benchmark.queries)], k=max(k, 100))
    return evaluate(run, annotations, k=k).long(name or getattr(retriever, "name", ""))


def table3(benchmark: Benchmark, skilleq: str | Path, retrievers: Sequence[str | Any] = DEFAULT_RETRIEVERS,
           k: int = HEADLINE.k, with_paper: bool = True, label: str | None = None) -> pd.DataFrame:
    """Rows ``model, metric, skillret, skilleq, delta, source`` (percent): ours first, then the paper's.

    ``skilleq``: the ToolEX folder of the benchmark (its ``annotations.jsonl``); ``retrievers``: specs or
    built retrievers.
    """

    annotations = read_annotations(Path(skilleq) / "annotations.jsonl")
    generator = benchmark.meta.get("generator", {}).get("generator", "?")
    source = label or (f"ours: {len(benchmark)} SkillRet-style queries ({generator}), "
                       f"{len(benchmark.tools)} skills")
    scores = []
    for spec in retrievers:
        retriever = open_retriever(spec) if isinstance(spec, str) else spec
        name = DISPLAY.get(str(spec), getattr(retriever, "name", str(spec)))
        scores.append(score_retriever(benchmark, annotations, retriever, k, name))
    table = long.means(long.concat(scores), by=["system", "measure"], categories=False, pooled=long.ALL,
                       scale=100.0)
    frame = pd.DataFrame({"model": table["system"], "metric": table["measure"], "skillret": table[ONE_TO_ONE],
                          "skilleq": table[TOOLEQ], "delta": table["delta"], "source": source})
    if with_paper:
        frame = pd.concat([frame, paper_rows()], ignore_index=True)
    return frame


def paper_rows() -> pd.DataFrame:
    """The paper's Table 3 (SkillRet, 4,997 queries over 17,810 skills), labelled as reported."""

    paper = load_table3().copy()
    paper["delta"] = paper["skilleq"] - paper["skillret"]
    paper["source"] = PAPER_LABEL
    return paper[["model", "metric", "skillret", "skilleq", "delta", "source"]]


def wide(frame: pd.DataFrame, metric: str = HEADLINE.key) -> pd.DataFrame:
    """One row per model for one metric (``skillret``, ``skilleq``, ``delta``), ours and the paper's."""
    part = frame[frame["metric"] == metric]
    return part.set_index(["source", "model"])[["skillret", "skilleq", "delta"]].round(1)
