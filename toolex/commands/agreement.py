"""``toolex agreement``: how far the offline judge agrees with an LLM judge on the LLM run's own items."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HELP = "offline-judge vs LLM-judge agreement on the LLM run's own items (verification and audit)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--llm-run", required=True, help="artifact folder of an LLM-judged ToolEX run")
    parser.add_argument("--data", help="benchmark snapshots folder (default: TOOLEX_DATA)")
    parser.add_argument("--out", help="write the report as JSON here (default: <llm-run>/agreement.json)")


def run(args: argparse.Namespace) -> int:
    from toolex.annotate.agreement import judge_agreement
    from toolex.annotate.judges.factory import offline_judge
    from toolex.annotate.run_folder import ArtifactFolder
    from toolex.data import load_benchmark

    folder = ArtifactFolder(args.llm_run)
    manifest = folder.manifest()
    benchmarks = [load_benchmark(b["name"], args.data) for b in manifest["benchmarks"]]
    tools = {t.id: t for b in benchmarks for t in b.tools.values()}
    queries = {q.id: q for b in benchmarks for q in b.queries}
    report = judge_agreement(folder, offline_judge(), queries, tools)
    out = Path(args.out) if args.out else folder.path("agreement.json")
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("reference_judge", "other_judge", "verification", "audit")},
                     indent=1))
    return 0
