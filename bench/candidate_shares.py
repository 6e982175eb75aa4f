"""How many of Stage 2's candidates are alternatives, per benchmark of the released annotations: what the
default judge accepts (an estimate), and where the benchmark carries a human one-to-many ground truth (the
``sgd-report`` part), what people list, so that the estimate can be read against the truth.

The share is over the verification items (every candidate of every sub-query but the reference itself): the
judge's accepted share, and for a benchmark with its own gold the share that the gold lists as an alternative
of the reference (a candidate equivalent when it stands in the reference's place in some accepted
combination, :func:`toolex.annotate.calibration.accepted_at`, as the judge's labelled items are). The study
of the judge (``data/validation/judge_transfer.json``) gives the true share of every public source; this file
adds the default benchmarks, where no truth exists, and ``sgd/report`` to read the estimate against one.

Usage: ``python bench/candidate_shares.py [--parts tooleq skilleq sgd-report] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from toolex import paths
from toolex.annotate.calibration import accepted_at
from toolex.data.readers import iter_jsonl
from toolex.data.registry import load_benchmark, own_gold
from toolex.errors import InputError
from toolex.experiments import release
from toolex.io.atomic import write_json


def verification_items(part: Path) -> list[dict[str, Any]]:
    """The released verified sets of one part (``verified.jsonl.gz``)."""
    path = part / "verified.jsonl.gz"
    if not path.exists():
        raise InputError(path, "no verified sets in this release part; build it with `make release`")
    return list(iter_jsonl(path))


def part_shares(name: str) -> dict[str, Any]:
    """Per benchmark of a release part: items, accepted share and, where a gold exists, the listed share."""
    folder = paths.release_dir() / name
    about = release.read(folder)
    sets = verification_items(folder)
    out: dict[str, Any] = {}
    names = about["settings"].get("benchmarks") or [None]  # SkillEq: one benchmark of its own
    for benchmark_name in names:
        gold: dict[str, list[list[str]]] | None = None
        if benchmark_name is None:
            benchmark_name, ids = name, {r["query_id"] for r in sets}
        else:
            benchmark = load_benchmark(benchmark_name)
            ids = {q.id for q in benchmark.queries}
            try:
                gold = own_gold(benchmark)
            except InputError:
                gold = None
        counts: dict[str, int] = defaultdict(int)
        for record in sets:
            if record["query_id"] not in ids:
                continue
            combos = gold.get(record["query_id"], []) if gold is not None else []
            star = combos[0] if combos else []
            slot = star.index(record["reference_tool"]) if record["reference_tool"] in star else None
            for candidate in record["candidates"]:
                if candidate["tool_id"] == record["reference_tool"]:
                    continue
                counts["items"] += 1
                counts["accepted"] += bool(candidate["equivalent"])
                counts["listed"] += slot is not None and accepted_at(combos, len(star), slot,
                                                                     candidate["tool_id"])
        if not counts["items"]:
            continue
        row: dict[str, Any] = {"items": counts["items"],
                               "accepted_share": round(counts["accepted"] / counts["items"], 6)}
        if gold is not None:
            row["gold_share"] = round(counts["listed"] / counts["items"], 6)
        out[benchmark_name] = row
    return {"release": about["folder"], "judge_key": about["key_parts"]["judge"], "benchmarks": out}


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--parts", nargs="+", default=["tooleq", "skilleq", "sgd-report"])
    parser.add_argument("--out", default="data/validation/candidate_shares.json")
    args = parser.parse_args()
    out = {"description": "share of Stage 2's candidates (verification items, the reference left out) that "
                          "the default judge accepts, and, where the benchmark has a human gold, that people "
                          "list (bench/candidate_shares.py)",
           "parts": {name: part_shares(name) for name in args.parts}}
    write_json(args.out, out)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
