"""How far the cascade could take the annotations on a benchmark with a human ground truth: the embedding
judge alone, a verifier on the items of its unsure band (the cascade's own routing) that answers right 70, 80,
90 or 100 % of the time, and a perfect verifier on every item (what Stage 2's top-20 candidates and Stage 3's
audit then allow).

The verifier answers from the gold itself: a candidate is equivalent when the gold lists it at the reference's
position in some acceptable combination of any query (pooled over queries, which is exact where the gold is
defined per tool, as SGD's is); below 100 % a seeded share of its answers is flipped. No LLM is called: the
rows show what an LLM of a given accuracy on the band's items could add with this score model and band. Each
row validates the resulting annotations like ``toolex validate`` (recovered share, over- and under-credit per
query, BM25 and MiniLM, NDCG@10).

Usage: ``python bench/cascade_ceiling.py [--benchmark sgd/report] [--sample N] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.judges.cascade import CascadeJudge
from toolex.annotate.judges.factory import offline_judge
from toolex.annotate.pipeline import AnnotateConfig
from toolex.annotate.stage_records import Decomposition, Verdict
from toolex.data.registry import own_gold_rule
from toolex.experiments.workspace import ensure_runs, ensure_toolex
from toolex.io.atomic import write_json
from toolex.report.context import open_analysis
from toolex.report.validation import VALIDATION_BENCHMARK, goal_check, validate_folder, validation_settings
from toolex.validate.gold import GoldRecord, benchmark_gold

#: Accuracies of the stand-in verifier on the band's items (1.0: perfect).
ACCURACIES = (0.7, 0.8, 0.9, 1.0)


def gold_pairs(records: Iterable[GoldRecord]) -> set[tuple[str, str]]:
    """(reference tool, tool people accept in its place) over every acceptable combination, position by
    position."""
    return {(ref, alt) for r in records for combo in r.acceptable for ref, alt in zip(r.reference, combo)}


class GoldVerifier(Judge):
    """Verification answered by the gold's (reference, substitute) pairs; with ``accuracy`` < 1 a seeded
    share of the answers is flipped (a hash of the item decides which), standing for an imperfect LLM."""

    kind = "gold"

    def __init__(self, pairs: set[tuple[str, str]], rule: str, accuracy: float = 1.0, seed: int = 0) -> None:
        self.pairs, self.accuracy, self.seed, self.calls = pairs, accuracy, seed, 0
        self.name = f"gold-verifier({rule}, accuracy {accuracy:g})"

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "pairs": len(self.pairs), "accuracy": self.accuracy,
                "seed": self.seed}

    def wrong(self, item: VerifyItem) -> bool:
        text = f"{self.seed}|{item.subquery.text}|{item.reference.id}|{item.candidate.id}".encode()
        return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") / 2**64 >= self.accuracy

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        self.calls += len(items)
        out = []
        for it in items:
            listed = it.candidate.id == it.reference.id or (it.reference.id, it.candidate.id) in self.pairs
            answer = listed != self.wrong(it)
            reason = ("listed by the gold" if listed else "not listed by the gold") + (
                " (answer flipped)" if answer != listed else "")
            out.append(Verdict(answer, reason, self.name))
        return out

    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        raise NotImplementedError

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        raise NotImplementedError


def row(label: str, folder: Path, runs: Mapping[str, Any], routing: dict | None = None) -> dict:
    """One variant's validation against people: expansion quality and NDCG@10 credit per retriever."""
    result = validate_folder(folder, runs).result
    credit = result.table()
    ndcg = credit[credit.metric == "ndcg@10"].set_index("retriever")
    return {"variant": label, "folder": folder.name, "routing": routing,
            "expansion": {k: result.expansion_summary["combination"][k] for k in ("recall", "precision")},
            "ndcg@10": {r: {k: float(ndcg.loc[r, k]) for k in ("one_to_one", "ours", "gold", "recovered",
                                                                 "over_credit", "under_credit")}
                        for r in ndcg.index},
            "goals": goal_check(result).to_dict(orient="records")}


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--benchmark", default=VALIDATION_BENCHMARK)
    parser.add_argument("--sample", type=int, default=None, help="queries (default: all)")
    parser.add_argument("--out", help="also write the report here (JSON)")
    args = parser.parse_args()

    analysis = open_analysis(validation_settings("offline", args.sample, benchmark=args.benchmark))
    ws = analysis.workspace
    runs = ensure_runs(analysis.settings.retrievers, ws)
    rule = own_gold_rule(ws.benchmarks[0])
    pairs = gold_pairs(benchmark_gold(ws.benchmarks[0], [q.id for q in ws.queries]))
    offline = offline_judge()
    rows = [row("embedding judge alone", analysis.annotated.folder.folder, runs)]
    variants = [(f"verifier {accuracy:.0%} right in the unsure band", True, accuracy)
                for accuracy in ACCURACIES] + [("perfect verifier on every item", False, 1.0)]
    for label, within_band, accuracy in variants:
        verifier = GoldVerifier(pairs, rule, accuracy)
        judge = CascadeJudge(offline, verifier, budget=None, within_band=within_band)
        folder = ensure_toolex(f"ceiling-{keys.slug(label)}", ws.key, ws.benchmarks, ws.queries,
                               AnnotateConfig(pool=analysis.settings.pool), "cascade", judge=judge)
        rows.append(row(label, folder.folder, runs, folder.manifest().get("ledger", {}).get("routing")))
    out = {"benchmark": ws.describe(), "gold": rule, "embedding_judge": offline.name,
           "band": list(offline.model.band), "score_model": offline.model.calibration.get("data"),
           "retrievers": list(analysis.settings.retrievers), "rows": rows}
    if args.out:
        write_json(args.out, out)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
