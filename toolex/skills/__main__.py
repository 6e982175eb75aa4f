"""``python -m toolex.skills``: build the SkillRet-style benchmark and SkillEq, print Table 1 and Table 3.

Writes ``summary.json`` next to the benchmark folder; ``--smoke`` runs the small CI setting.
"""

from __future__ import annotations

import argparse
import json
import os

from toolex.skills.artifacts import (
    GENERATORS,
    SkillSettings,
    benchmark_folder,
    ensure_skill_benchmark,
    ensure_skilleq,
    record_benchmark,
    work_folder,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolex.skills", description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", type=int, default=int(os.environ.get("SMOKE", "0") or 0))
    parser.add_argument("--generator", choices=GENERATORS, default="auto")
    parser.add_argument("--judge", default=os.environ.get("JUDGE", "offline"))
    parser.add_argument("--n-queries", type=int, default=None)
    parser.add_argument("--pool-size", type=int, default=None, help="skills in the pool; 0 for the whole corpus")
    parser.add_argument("--no-table3", action="store_true", help="skip scoring the retrievers")
    parser.add_argument("--record", action="store_true",
                        help="copy the built benchmark to data/skills (LLM-written benchmarks worth committing)")
    args = parser.parse_args(argv)
    settings = SkillSettings.for_smoke() if args.smoke else SkillSettings()
    changes = {}
    if args.n_queries is not None:
        changes["n_queries"] = args.n_queries
    if args.pool_size is not None:
        changes["pool_size"] = args.pool_size or None
    if changes:
        from dataclasses import replace

        settings = replace(settings, **changes)
    benchmark = ensure_skill_benchmark(settings, generator=args.generator)
    counts = benchmark.meta.get("counts", {})
    print(json.dumps({"benchmark": str(benchmark_folder(benchmark)), "queries": len(benchmark),
                      "skills": len(benchmark.tools), "generator": benchmark.meta["generator"]["generator"],
                      "counts": counts}, indent=1))
    if args.record:
        print(f"recorded in {record_benchmark(benchmark)}")
    folder = ensure_skilleq(benchmark, judge=args.judge)
    from toolex.annotate.stats import table1

    stats = table1(folder)
    print(stats.T.to_string())
    summary = {"benchmark": benchmark.meta.get("counts"), "table1": json.loads(stats.to_json(orient="index"))}
    if not args.no_table3:
        from toolex.skills.results import table3, wide

        frame = table3(benchmark, folder, with_paper=False)
        print(wide(frame).to_string())
        summary["table3"] = frame.to_dict(orient="records")
    out = work_folder(benchmark) / f"summary-{args.judge}.json"
    out.write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
