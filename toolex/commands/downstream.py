"""``toolex downstream``: the paper's Figure 6 — an agent solves StableToolBench queries with the annotated,
retrieved or ToolEX-expanded tools against a virtual API server; an LLM evaluator gives the pass rate."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "agent pass rates on StableToolBench with oracle, retrieved and ToolEX-expanded tools (Figure 6)"


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
    from toolex.data.stabletoolbench import GROUPS
    from toolex.downstream.experiment import DownstreamOptions, estimate, run_experiment
    from toolex.downstream.run import SETTINGS

    settings = tuple(dict.fromkeys(args.setting or SETTINGS))
    options = DownstreamOptions(args.out, tuple(args.group or GROUPS), settings, args.sample, args.seed,
                                args.llm, args.retriever, args.annotations, args.max_steps, args.data)
    if args.estimate:
        print(json.dumps(estimate(options), indent=1))
        return 0
    table, failed = run_experiment(options, progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(table.round(1).to_string(index=False))
    if failed:
        print(f"{len(failed)} (setting, query) runs failed and were not recorded; run again to retry them",
              file=sys.stderr)
        return 1
    return 0
