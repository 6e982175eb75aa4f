"""Before / after a revision of the LLM judge's prompts, on the same queries: agreement with the embedding
judge and, where the benchmark has a human ground truth (``sgd/*``), agreement with people.

Each ``--run LABEL=FOLDER`` is a finished ToolEX folder of the LLM judge. Runs are restricted to the query ids
they all share, so every row counts the same queries. Per run: decomposition failures, the LLM's yes-rate
and its agreement (raw and Cohen's kappa) with the default offline judge on the same items (verification and
audit), and, on an ``sgd/*`` benchmark with ``--runs-dir`` holding ``bm25.trec`` / ``minilm.trec``, the
validation against the human alternatives (expansion recall and precision, recovered share, over- and
under-credit of NDCG@10). Usage::

    python bench/prompt_revisions.py --run "prompts v2=DIR" --run "prompts v3=DIR" [--runs-dir D] --out F
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolex.annotate.agreement import judge_agreement
from toolex.annotate.judges.factory import offline_judge
from toolex.annotate.run_folder import ArtifactFolder
from toolex.data import load_benchmark
from toolex.data.registry import own_gold_rule
from toolex.io.artifact import MANIFEST
from toolex.io.atomic import write_json

ARTIFACTS = ("subqueries.jsonl", "verified.jsonl", "query_combo_verified.jsonl", "annotations.jsonl")


def restricted(folder: Path, ids: set[str], into: Path) -> Path:
    """A copy of a ToolEX folder holding only the queries in ``ids``."""
    into.mkdir(parents=True, exist_ok=True)
    for name in ARTIFACTS:
        with open(folder / name, encoding="utf-8") as src, open(into / name, "w", encoding="utf-8") as dst:
            dst.writelines(line for line in src if json.loads(line)["query_id"] in ids)
    shutil.copy(folder / MANIFEST, into / MANIFEST)
    return into


def query_ids(folder: Path) -> set[str]:
    with open(folder / "subqueries.jsonl", encoding="utf-8") as handle:
        return {json.loads(line)["query_id"] for line in handle}


def summary(folder: Path, judge: Any, queries: dict, tools: dict) -> dict[str, Any]:
    report = judge_agreement(folder, judge, queries, tools)
    decompositions = ArtifactFolder(folder).decompositions()
    v, a = report["verification"], report["audit"]
    return {"queries": len(decompositions),
            "decomposition_failures": sum(not d.ok for d in decompositions),
            "verification_items": v["items"],
            "llm_yes_rate": (v["both_yes"] + v["reference_yes_only"]) / max(v["items"], 1),
            "offline_yes_rate": (v["both_yes"] + v["other_yes_only"]) / max(v["items"], 1),
            "verification_agreement": v["agreement"], "verification_kappa": v["cohen_kappa"],
            "audit_items": a["items"], "audit_llm_yes": a["both_yes"] + a["reference_yes_only"],
            "audit_agreement": a["agreement"], "audit_kappa": a["cohen_kappa"],
            "offline_judge": report["other_judge"]}


def verification_against(folder: Path, gold: Sequence[Any]) -> dict[str, Any]:
    """Stage 2 alone against people: a candidate (not C*'s own tool) is a gold positive when some acceptable
    combination holds it in the reference tool's position."""
    accepted = {g.query_id: g.acceptable for g in gold}
    counts = {"items": 0, "gold_yes": 0, "judge_yes": 0, "both_yes": 0}
    for vs in ArtifactFolder(folder).verified_sets():
        for cand in vs.candidates:
            if cand.tool_id == vs.reference_tool or cand.verdict.judge == "reference":
                continue
            truth = any(len(c) > vs.index and c[vs.index] == cand.tool_id
                        for c in accepted.get(vs.query_id, ()))
            said = bool(cand.verdict.equivalent)
            counts["items"] += 1
            counts["gold_yes"] += truth
            counts["judge_yes"] += said
            counts["both_yes"] += truth and said
    return {**counts, "recall": counts["both_yes"] / counts["gold_yes"] if counts["gold_yes"] else None,
            "precision": counts["both_yes"] / counts["judge_yes"] if counts["judge_yes"] else None}


def against_people(folder: Path, runs_dir: Path) -> dict[str, Any]:
    from toolex.report.validation import validate_folder

    runs = {name: runs_dir / f"{stem}.trec" for name, stem in (("bm25", "bm25"), ("dense:minilm", "minilm"))}
    done = validate_folder(folder, {n: p for n, p in runs.items() if p.exists()}, k=10, bootstrap=0)
    out: dict[str, Any] = {"gold": own_gold_rule(done.benchmark),
                           "verification": verification_against(folder, done.gold),
                           "expansion": done.result.summary()["expansion"]}
    table = done.result.table()
    for row in table[table.metric == "ndcg@10"].itertuples():
        out[str(row.retriever)] = {"recovered": row.recovered, "over_credit": row.over_credit,
                                   "under_credit": row.under_credit}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", required=True, metavar="LABEL=FOLDER")
    parser.add_argument("--runs-dir", type=Path, help="bm25.trec and minilm.trec of the benchmark (sgd/*)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    runs = {label: Path(folder) for label, _, folder in (r.partition("=") for r in args.run)}
    shared = set.intersection(*(query_ids(f) for f in runs.values()))
    manifest = ArtifactFolder(next(iter(runs.values()))).manifest()
    benches = [load_benchmark(b["name"]) for b in manifest["benchmarks"]]
    tools = {t.id: t for b in benches for t in b.tools.values()}
    queries = {q.id: q for b in benches for q in b.queries}
    judge = offline_judge()
    out: dict[str, Any] = {"benchmarks": [b.name for b in benches], "shared_queries": len(shared)}
    with tempfile.TemporaryDirectory() as tmp:
        for label, folder in runs.items():
            part = restricted(folder, shared, Path(tmp) / str(len(out)))
            record = summary(part, judge, queries, tools)
            judge_record = ArtifactFolder(folder).manifest().get("judge", {})
            record["prompts"] = judge_record.get("prompt_versions") or judge_record.get("prompt_version")
            if args.runs_dir and all(b.name.startswith("sgd/") for b in benches):
                record["against_people"] = against_people(part, args.runs_dir)
            out[label] = record
    write_json(args.out, json.loads(json.dumps(out, default=str)))
    print(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
