"""The paper's Figure 6 as one experiment: an agent solves sampled StableToolBench queries with the tools of
each setting (C*, the retriever's top-|C*|, a ToolEX-expanded combination) against a virtual API server, and
an LLM evaluator gives the pass rate; every finished (setting, query) is recorded in the run folder as it
ends, so a killed run resumes where it stopped (:class:`~toolex.downstream.run.RunFolder`).

``toolex downstream`` parses its options into :class:`DownstreamOptions` and calls :func:`estimate` or
:func:`run_experiment`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from toolex.annotate.pipeline import AnnotateConfig
from toolex.annotate.run_folder import ArtifactFolder
from toolex.data import load_benchmark
from toolex.data.records import Benchmark, Query
from toolex.data.stabletoolbench import GROUPS
from toolex.downstream.agent import MAX_STEPS, Agent
from toolex.downstream.evaluator import PassRateEvaluator
from toolex.downstream.run import (
    PROMPT_VERSIONS,
    SETTINGS,
    RunFolder,
    pass_rates,
    results_frame,
    run_setting,
    sample_queries,
    tool_choices,
)
from toolex.downstream.simulator import ApiSimulator, HttpApi, SimulatorServer
from toolex.errors import InputError
from toolex.experiments.finetune import open_retriever
from toolex.experiments.workspace import ensure_toolex
from toolex.io.annotations import read_annotations
from toolex.llm.client import LLMClient
from toolex.llm.settings import LLMSettings
from toolex.retrieval import retrieve_over_pools

#: The LLM roles of a run, each with its own client (``TOOLEX_LLM_<ROLE>_*`` settings).
ROLES = ("agent", "simulator", "evaluator")
#: Tools the retrieved setting's retriever ranks per query before the top-|C*| are offered.
RETRIEVED_DEPTH = 20


@dataclass(frozen=True)
class DownstreamOptions:
    """What a run samples and asks: groups and settings (all by default), queries, seed, LLM endpoint
    (``local`` or ``api``), the retrieved setting's retriever, the expanded setting's annotations (default:
    an offline ToolEX run over the sample), agent steps and the run folder."""

    out: str
    groups: tuple[str, ...] = GROUPS
    settings: tuple[str, ...] = SETTINGS
    sample: int = 24
    seed: int = 0
    llm: str = "local"
    retriever: str = "bm25"
    annotations: str | None = None
    max_steps: int = MAX_STEPS
    data: str | None = None

    def __post_init__(self) -> None:
        if self.sample < 1 or self.max_steps < 1:
            raise InputError(None, f"--sample and --max-steps must be positive, got {self.sample}, "
                                   f"{self.max_steps}")

    def sampled(self) -> tuple[Benchmark, list[Query]]:
        """The benchmark of the groups and the queries drawn from it."""
        name = "stabletoolbench" if self.groups == GROUPS else "stabletoolbench/" + ",".join(self.groups)
        benchmark = load_benchmark(name, self.data)
        return benchmark, sample_queries(benchmark, self.sample, self.seed)


def estimate(options: DownstreamOptions) -> dict[str, Any]:
    """The most LLM calls the run can make, before any call."""
    _, queries = options.sampled()
    calls = len(queries) * len(options.settings) * (2 * options.max_steps + 1)
    return {"queries": len(queries), "settings": list(options.settings), "max_steps": options.max_steps,
            "most_llm_calls": calls,
            "per_query_and_setting": "max_steps agent + max_steps simulator + 1 evaluator"}


def run_experiment(options: DownstreamOptions, progress: Callable[[str], None] = lambda line: None
                   ) -> tuple[pd.DataFrame, list[str]]:
    """Every (setting, query) of the run not recorded yet, then the pass-rate table of the run folder and the
    (setting, query) runs that failed (not recorded; a later run retries them)."""
    benchmark, queries = options.sampled()
    base = LLMSettings.local_from_env() if options.llm == "local" else LLMSettings.from_env()
    clients = {role: LLMClient(base.for_stage(role)) for role in ROLES}
    for client in {c.settings.base_url: c for c in clients.values()}.values():
        client.health_check()  # an unreachable endpoint fails here, named
    identity = {"benchmark": benchmark.name, "data": benchmark.checksum, "queries": [q.id for q in queries],
                "settings": list(options.settings), "retriever": options.retriever,
                "max_steps": options.max_steps, "annotations": options.annotations,
                "prompts": PROMPT_VERSIONS, "models": {role: c.settings.model for role, c in clients.items()}}
    folder = RunFolder(options.out, identity)
    choices, expansion = setting_choices(options, benchmark, queries)
    if expansion:
        folder.record_expansion(*expansion)
    failed: list[str] = []
    simulator = ApiSimulator(benchmark.tools, clients["simulator"])
    with SimulatorServer(simulator) as server:
        solver = Agent(clients["agent"], HttpApi(server.url), options.max_steps)
        judge = PassRateEvaluator(clients["evaluator"])
        for setting in options.settings:
            failed += run_setting(folder, setting, queries, choices[setting], benchmark.tools, solver, judge,
                                  progress=progress)
    return pass_rates(results_frame(folder.folder)), failed


def setting_choices(options: DownstreamOptions, benchmark: Benchmark, queries: list[Query]
                    ) -> tuple[dict[str, Any], tuple[str, str] | None]:
    """The tools each setting offers each query: C*; the retriever's top-|C*| over the query's group pool; an
    audited equivalent combination from the options' annotations or an offline ToolEX run over the sample.
    With the expanded setting, also the judge of its annotations and where they came from."""
    choices: dict[str, Any] = {}
    expansion = None
    if "oracle" in options.settings:
        choices["oracle"] = tool_choices("oracle", queries)
    if "retrieved" in options.settings:
        groups = sorted({q.subset for q in queries})
        run_of = retrieve_over_pools(open_retriever(options.retriever, options.data), [
            (load_benchmark(f"stabletoolbench/{group}", options.data).tools,
             [q for q in queries if q.subset == group]) for group in groups], k=RETRIEVED_DEPTH)
        choices["retrieved"] = tool_choices("retrieved", queries, run=run_of)
    if "expanded" in options.settings:
        if options.annotations:
            annotations = {a.query_id: a for a in read_annotations(options.annotations, benchmark.tools)}
            expansion = (ArtifactFolder(Path(options.annotations).parent).judge(), str(options.annotations))
        else:
            made = ensure_toolex("downstream-offline", [benchmark.checksum, [q.id for q in queries]],
                                 [benchmark], queries, AnnotateConfig(), "offline", progress=True)
            annotations = {a.query_id: a for a in read_annotations(made.annotations_path())}
            expansion = (made.judge(), str(made.folder))
        choices["expanded"] = tool_choices("expanded", queries, annotations=annotations)
    return choices, expansion
