"""``toolex downstream``: the paper's Figure 6 — an agent solves StableToolBench queries with the annotated,
retrieved or ToolEX-expanded tools against a virtual API server; an LLM evaluator gives the pass rate."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from toolex.errors import InputError

HELP = "agent pass rates on StableToolBench with oracle, retrieved and ToolEX-expanded tools (Figure 6)"
ROLES = ("agent", "simulator", "evaluator")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from toolex.data.stabletoolbench import GROUPS
    from toolex.downstream.agent import MAX_STEPS
    from toolex.downstream.run import SETTINGS

    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--group", action="append", choices=GROUPS,
                        help="StableToolBench group, repeatable (default: all six)")
    parser.add_argument("--setting", action="append", choices=SETTINGS,
                        help="tools offered, repeatable (default: all three, on the same queries)")
    parser.add_argument("--sample", type=int, default=24,
                        help="queries, spread evenly over the groups (default 24)")
    parser.add_argument("--seed", type=int, default=0, help="sample seed")
    parser.add_argument("--llm", choices=("local", "api"), default="local",
                        help="the local llama.cpp server (default) or TOOLEX_LLM_* (per role: "
                             "TOOLEX_LLM_AGENT_*, TOOLEX_LLM_SIMULATOR_*, TOOLEX_LLM_EVALUATOR_*)")
    parser.add_argument("--retriever", default="bm25",
                        help="the retrieved setting's retriever (default bm25)")
    parser.add_argument("--annotations",
                        help="ToolEX annotations of the queries for the expanded setting (default: an "
                             "offline ToolEX run over the sample, cached)")
    parser.add_argument("--max-steps", type=int, default=MAX_STEPS, help=f"agent steps (default {MAX_STEPS})")
    parser.add_argument("--out", required=True, help="run folder (resumes the same run)")
    parser.add_argument("--estimate", action="store_true",
                        help="print the most LLM calls the run can make and stop before any call")


def run(args: argparse.Namespace) -> int:
    from toolex.data import load_benchmark
    from toolex.data.stabletoolbench import GROUPS
    from toolex.downstream.agent import Agent
    from toolex.downstream.evaluator import PassRateEvaluator
    from toolex.downstream.run import (
        PROMPT_VERSIONS,
        SETTINGS,
        RunFolder,
        pass_rates,
        results_frame,
        run_setting,
        sample_queries,
    )
    from toolex.downstream.simulator import ApiSimulator, HttpApi, SimulatorServer
    from toolex.llm.client import LLMClient
    from toolex.llm.settings import LLMSettings

    if args.sample < 1 or args.max_steps < 1:
        raise InputError(None, f"--sample and --max-steps must be positive, got {args.sample}, "
                               f"{args.max_steps}")
    groups = tuple(args.group or GROUPS)
    settings = list(dict.fromkeys(args.setting or SETTINGS))
    name = "stabletoolbench" if groups == GROUPS else "stabletoolbench/" + ",".join(groups)
    benchmark = load_benchmark(name, args.data)
    queries = sample_queries(benchmark, args.sample, args.seed)
    calls = len(queries) * len(settings) * (2 * args.max_steps + 1)
    if args.estimate:
        print(json.dumps({"queries": len(queries), "settings": settings, "max_steps": args.max_steps,
                          "most_llm_calls": calls, "per_query_and_setting": "max_steps agent + max_steps "
                          "simulator + 1 evaluator"}, indent=1))
        return 0
    base = LLMSettings.local_from_env() if args.llm == "local" else LLMSettings.from_env()
    clients = {role: LLMClient(base.for_stage(role)) for role in ROLES}
    for client in {c.settings.base_url: c for c in clients.values()}.values():
        client.health_check()  # an unreachable endpoint fails here, named
    identity = {"benchmark": benchmark.name, "data": benchmark.checksum, "queries": [q.id for q in queries],
                "settings": settings, "retriever": args.retriever, "max_steps": args.max_steps,
                "annotations": args.annotations, "prompts": PROMPT_VERSIONS,
                "models": {role: c.settings.model for role, c in clients.items()}}
    folder = RunFolder(args.out, identity)
    choices, expansion = _choices(args, benchmark, queries, settings)
    if expansion:
        folder.record_expansion(*expansion)
    failed: list[str] = []
    simulator = ApiSimulator(benchmark.tools, clients["simulator"])
    with SimulatorServer(simulator) as server:
        solver = Agent(clients["agent"], HttpApi(server.url), args.max_steps)
        judge = PassRateEvaluator(clients["evaluator"])
        for setting in settings:
            failed += run_setting(folder, setting, queries, choices[setting], benchmark.tools, solver, judge,
                                  progress=lambda line: print(line, file=sys.stderr, flush=True))
    table = pass_rates(results_frame(folder.folder))
    print(table.round(1).to_string(index=False))
    if failed:
        print(f"{len(failed)} (setting, query) runs failed and were not recorded; run again to retry them",
              file=sys.stderr)
        return 1
    return 0


def _choices(args: argparse.Namespace, benchmark: Any, queries: list[Any],
             settings: list[str]) -> tuple[dict[str, Any], tuple[str, str] | None]:
    """The tools each setting offers each query: C*; the retriever's top-|C*| over the query's group pool; an
    audited equivalent combination from ``--annotations`` or an offline ToolEX run over the sample. With the
    expanded setting, also the judge of its annotations and where they came from."""
    from toolex.annotate.pipeline import AnnotateConfig
    from toolex.annotate.run_folder import ArtifactFolder
    from toolex.data import load_benchmark
    from toolex.downstream.run import tool_choices
    from toolex.experiments.finetune import open_retriever
    from toolex.experiments.workspace import ensure_toolex
    from toolex.io.annotations import read_annotations
    from toolex.retrieval import retrieve_over_pools

    choices, expansion = {}, None
    if "oracle" in settings:
        choices["oracle"] = tool_choices("oracle", queries)
    if "retrieved" in settings:
        groups = sorted({q.subset for q in queries})
        run_of = retrieve_over_pools(open_retriever(args.retriever, args.data), [
            (load_benchmark(f"stabletoolbench/{group}", args.data).tools,
             [q for q in queries if q.subset == group]) for group in groups], k=20)
        choices["retrieved"] = tool_choices("retrieved", queries, run=run_of)
    if "expanded" in settings:
        if args.annotations:
            annotations = {a.query_id: a for a in read_annotations(args.annotations, benchmark.tools)}
            expansion = (ArtifactFolder(Path(args.annotations).parent).judge(), str(args.annotations))
        else:
            made = ensure_toolex("downstream-offline", [benchmark.checksum, [q.id for q in queries]],
                                 [benchmark], queries, AnnotateConfig(), "offline", progress=True)
            annotations = {a.query_id: a for a in read_annotations(made.annotations_path())}
            expansion = (made.judge(), str(made.folder))
        choices["expanded"] = tool_choices("expanded", queries, annotations=annotations)
    return choices, expansion
