"""``toolex cached``: what the artifacts folder holds (annotation folders, retriever runs, fine-tuned models,
skills benchmarks, downstream runs), each with the setting it was made with, read from its manifest."""

from __future__ import annotations

import argparse
import json

HELP = ("list the cached annotation folders, retriever runs, fine-tuned models, skills benchmarks and "
        "downstream runs with their settings")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from toolex.experiments.listing import KINDS

    parser.add_argument("--kind", choices=tuple(KINDS), help="only this kind")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace) -> int:
    from toolex import paths
    from toolex.experiments.listing import cached

    rows = cached(args.kind)
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    if not rows:
        print(f"nothing cached under {paths.artifacts_dir()}")
        return 0
    print(f"cached under {paths.artifacts_dir()}:")
    for kind in dict.fromkeys(r["kind"] for r in rows):
        print(f"\n{kind}")
        for row in (r for r in rows if r["kind"] == kind):
            state = "" if row["state"] == "complete" else f"  [{row['state']}]"
            print(f"  {row['name']}\n      {row['setting']}{state}")
    return 0
