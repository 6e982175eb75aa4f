"""``toolex paper-check``: re-derive the paper's headline claims from its tables; exit 1 on a FAIL."""

from __future__ import annotations

import argparse
import collections
import json

from toolex.paper.claims import check_claims

HELP = "re-derive the paper's claims from its Tables 1-3 (OK / OKISH / FAIL; known inconsistencies shown)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--paper", help="folder of the paper's tables and claims.yaml (default: TOOLEX_PAPER)"
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=None,
        help="OKISH tolerance in pp (default: the claim table's, 0.15)",
    )
    parser.add_argument(
        "--table", help="claim table to check (default: the packaged toolex/paper/checks.yaml)"
    )
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args: argparse.Namespace) -> int:
    checks = check_claims(args.paper, args.tolerance, args.table)
    counts = collections.Counter(c.status for c in checks)
    if args.json:
        print(json.dumps({"checks": [c.__dict__ for c in checks], "counts": dict(counts)}, indent=1))
    else:
        for c in checks:
            print(c.line())
        print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 1 if counts.get("FAIL") else 0
