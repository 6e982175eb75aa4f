"""``toolex skills``: build the SkillRet-style benchmark and SkillEq, print Table 1 and Table 3.

Writes ``summary-<judge>.json`` next to the benchmark folder; ``--smoke 1`` runs the small CI setting.
``python -m toolex.skills`` is the same command.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

HELP = "build the SkillRet-style benchmark and SkillEq (ToolEX on skills), print Table 1 and Table 3"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from toolex.annotate.judges.factory import JUDGES
    from toolex.experiments.settings import env_judge, env_smoke
    from toolex.skills.workspace import GENERATORS

    parser.add_argument("--smoke", type=int, default=int(env_smoke()),
                        help="1: the CI setting (300 skills, 16 queries); default: the SMOKE variable")
    parser.add_argument("--generator", choices=GENERATORS, default="auto", help="query writer (default auto)")
    parser.add_argument("--judge", choices=JUDGES, default=env_judge(),
                        help="ToolEX judge (default: the JUDGE variable, else offline)")
    parser.add_argument("--n-queries", type=int, default=None, help="kept queries (default: the setting's)")
    parser.add_argument("--pool-size", type=int, default=None,
                        help="skills in the pool; 0 for the whole corpus")
    parser.add_argument("--no-table3", action="store_true", help="skip scoring the retrievers")
    parser.add_argument("--record", action="store_true",
                        help="copy the built benchmark to data/skills (LLM-written benchmarks worth "
                             "committing)")


def settings_of(args: argparse.Namespace) -> Any:
    """The :class:`~toolex.skills.workspace.SkillSettings` the options ask for."""
    from toolex.skills.workspace import SkillSettings

    settings = SkillSettings.for_smoke() if args.smoke else SkillSettings()
    changes: dict[str, Any] = {}
    if args.n_queries is not None:
        changes["n_queries"] = args.n_queries
    if args.pool_size is not None:
        changes["pool_size"] = args.pool_size or None
    return replace(settings, **changes) if changes else settings


def run(args: argparse.Namespace) -> int:
    from toolex.annotate.stats import table1
    from toolex.io import atomic
    from toolex.skills.workspace import (
        benchmark_folder,
        ensure_skill_benchmark,
        ensure_skilleq,
        record_benchmark,
        work_folder,
    )

    benchmark = ensure_skill_benchmark(settings_of(args), generator=args.generator)
    counts = benchmark.meta.get("counts", {})
    print(json.dumps({"benchmark": str(benchmark_folder(benchmark)), "queries": len(benchmark),
                      "skills": len(benchmark.tools), "generator": benchmark.meta["generator"]["generator"],
                      "counts": counts}, indent=1))
    if args.record:
        print(f"recorded in {record_benchmark(benchmark)}")
    folder = ensure_skilleq(benchmark, judge=args.judge)
    stats = table1(folder)
    print(stats.T.to_string())
    summary: dict[str, Any] = {"benchmark": benchmark.meta.get("counts"), "skilleq": str(folder),
                               "table1": json.loads(stats.to_json(orient="index"))}
    if not args.no_table3:
        from toolex.skills.table3 import table3, wide

        frame = table3(benchmark, folder, with_paper=False)
        print(wide(frame).to_string())
        summary["table3"] = frame.to_dict(orient="records")
    out = atomic.write_text(work_folder(benchmark) / f"summary-{args.judge}.json",
                            json.dumps(summary, indent=1, default=str))
    print(f"wrote {out}")
    return 0
