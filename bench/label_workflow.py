"""The per-benchmark calibration workflow run end to end with the commands of docs/calibrate.md on a benchmark
that has a human gold: draw items to label, label them from the gold (standing for people), place the
threshold, annotate with and without it, validate both against the gold.

Usage: ``python bench/label_workflow.py [--benchmark sgd-x/report] [--draw 150]
[--out data/validation/sgd-x_report_cli_labels150.json]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from toolex.io.artifact import read_manifest
from toolex.io.atomic import write_json

TOOLEX = [str(Path(sys.executable).with_name("toolex"))]
RETRIEVERS = {"bm25": "bm25", "minilm": "dense:minilm"}


def toolex(*args: str) -> str:
    """Run one ``toolex`` command; its standard output (a failed command stops the script)."""
    done = subprocess.run([*TOOLEX, *args], check=True, capture_output=True, text=True)
    return done.stdout


def label_from_gold(items: Path, gold: Path, out: Path) -> int:
    """Each drawn item labelled as people listed it: equivalent when a combination they accept is C* with the
    reference replaced by the candidate. Returns how many are equivalent."""
    acceptable: dict[str, list[frozenset[str]]] = {}
    for line in gold.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        acceptable[record["query_id"]] = [frozenset(c) for c in record["acceptable"]]
    labelled, equivalent = [], 0
    for line in items.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        combos = acceptable.get(record["query_id"], [])
        reference = next((c for c in combos if record["reference"] in c), frozenset({record["reference"]}))
        swapped = (reference - {record["reference"]}) | {record["candidate"]}
        record["equivalent"] = swapped in combos
        equivalent += record["equivalent"]
        labelled.append(json.dumps(record))
    out.write_text("\n".join(labelled) + "\n", encoding="utf-8")
    return equivalent


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--benchmark", default="sgd-x/report")
    parser.add_argument("--draw", type=int, default=150)
    parser.add_argument("--out", default="data/validation/sgd-x_report_cli_labels150.json")
    args = parser.parse_args()
    b = args.benchmark
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        items, labels = work / "to_label.jsonl", work / "labels.jsonl"
        commands = [f"toolex calibrate --benchmark {b} --draw {args.draw} --out to_label.jsonl"]
        toolex("calibrate", "--benchmark", b, "--draw", str(args.draw), "--out", str(items))
        toolex("gold", "--benchmark", b, "--out", str(work / "gold.jsonl"))
        equivalent = label_from_gold(items, work / "gold.jsonl", labels)
        commands += ["(labels from the gold into labels.jsonl)",
                     f"toolex calibrate --benchmark {b} --labels labels.jsonl "
                     "--draw-record to_label.draw.json --out judge.json"]
        toolex("calibrate", "--benchmark", b, "--labels", str(labels), "--draw-record",
               str(work / "to_label.draw.json"), "--out", str(work / "judge.json"))
        runs = []
        for name, spec in RETRIEVERS.items():
            toolex("retrieve", "--benchmark", b, "--retriever", spec, "--out", str(work / f"{name}.trec"),
                   "--quiet")
            runs += ["--run", f"{name}={work / f'{name}.trec'}"]
        commands.append(f"toolex retrieve --benchmark {b} --retriever bm25 | dense:minilm --out R.trec")
        results: dict[str, Any] = {}
        settings = {"default_judge": [], "with_labels": ["--judge-model", str(work / "judge.json")]}
        for setting, extra in settings.items():
            annotated = work / setting
            toolex("annotate", "--benchmark", b, "--judge", "offline", *extra, "--out", str(annotated))
            results[setting] = json.loads(toolex(
                "validate", "--annotations", str(annotated / "annotations.jsonl"),
                "--gold", str(work / "gold.jsonl"), *runs, "--json"))
            manifest = read_manifest(annotated, required=True)
            results[setting]["operating_point"] = manifest.get("ledger", {}).get("operating_point")
        commands += [f"toolex annotate --benchmark {b} --judge offline [--judge-model judge.json] --out DIR",
                     "toolex validate --annotations DIR/annotations.jsonl --gold gold.jsonl --run bm25=... "
                     "--run minilm=... --json"]
        draw = json.loads((work / "to_label.draw.json").read_text(encoding="utf-8"))
        judge = json.loads((work / "judge.json").read_text(encoding="utf-8"))
    out = {"description": "the per-benchmark workflow run end to end with the commands of the README on "
                          f"{b}; the {args.draw} drawn items labelled from the benchmark's own gold "
                          "(standing for people)",
           "commands": commands,
           "draw": {k: v for k, v in draw.items() if k != "items"},
           "labels": {"items": args.draw, "equivalent": equivalent},
           "threshold": {"from_labels": judge["threshold"],
                         "per_benchmark": judge["calibration"].get("per_benchmark")},
           **results}
    write_json(args.out, out)
    summary = {s: {r: results[s]["runs"][r]["ndcg@10"]["recovered"] for r in RETRIEVERS} for s in results}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
