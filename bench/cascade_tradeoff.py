"""The cascade's trade-off on the recorded local-LLM sample: share of verdicts sent to the LLM vs agreement
with the LLM-only verdicts.

The verification items of ``data/annotations/local-llm-sample/`` (its sub-queries, candidates and the local
1.5B judge's verdicts) are replayed: the cascade scores every item with the calibrated embedding judge and
asks the recorded LLM verdict for the items it routes (no LLM call is made). For each budget (a share of the
items, most unsure first) it reports the share sent and the agreement and Cohen's kappa with the LLM-only
verdicts; ``band`` is the budget the score model's unsure band alone gives. Goal of the validation issue: at
most 20 % sent for at least 95 % agreement. Usage: ``python bench/cascade_tradeoff.py [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from toolex import paths
from toolex.annotate.agreement import compare
from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.judges.cascade import CascadeJudge
from toolex.annotate.judges.factory import offline_judge
from toolex.annotate.run_folder import ArtifactFolder
from toolex.annotate.stage_records import Decomposition, Verdict
from toolex.data import load_benchmark
from toolex.io.atomic import write_json

SAMPLE = paths.recorded_dir() / "annotations" / "local-llm-sample"


class RecordedVerifier(Judge):
    """Answers verification items with the verdicts an LLM run recorded (keyed by sub-query and candidate)."""

    kind = "recorded"

    def __init__(self, verdicts: dict[tuple[str, str, str], Verdict], name: str) -> None:
        self.verdicts, self.name, self.calls = verdicts, name, 0

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        self.calls += len(items)
        return [self.verdicts[(it.subquery.text, it.reference.id, it.candidate.id)] for it in items]

    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        raise NotImplementedError

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        raise NotImplementedError


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__)
    parser.add_argument("--sample", default=str(SAMPLE), help="artifact folder of an LLM-judged ToolEX run")
    parser.add_argument("--out", help="also write the report here (JSON)")
    args = parser.parse_args()

    folder = ArtifactFolder(args.sample)
    manifest = folder.manifest()
    loaded = [load_benchmark(b["name"]) for b in manifest["benchmarks"]]
    tools = {t.id: t for b in loaded for t in b.tools.values()}
    bench_of = {q.id: b.name for b in loaded for q in b.queries}  # the pipeline decides per benchmark
    subqueries = {d.query_id: d.subqueries for d in folder.decompositions() if d.ok}
    items, recorded = [], {}
    for v in folder.verified_sets():
        sub = subqueries[v.query_id][v.index]
        for c in v.candidates:  # a failed LLM verdict has nothing to compare: its item leaves the list
            if c.verdict.judge == "reference" or not c.verdict.ok:
                continue
            items.append(VerifyItem(sub, tools[v.reference_tool], tools[c.tool_id], bench_of[v.query_id],
                                    v.query_id, c.rank))
            recorded[(sub.text, v.reference_tool, c.tool_id)] = c.verdict
    llm_only = [recorded[(it.subquery.text, it.reference.id, it.candidate.id)].equivalent for it in items]
    offline = offline_judge()
    replay = RecordedVerifier(recorded, manifest["judge"]["name"])
    rows = []
    scores = offline.scores(items)
    band = len(offline.model.decide(scores, [it.group for it in items]).uncertainty_order(scores))
    budgets = sorted({round(len(items) * share) for share in [i / 20 for i in range(21)]} | {band})
    for budget in budgets:
        in_band = budget == band  # the band alone, or a budget over every item, most unsure first
        cascade = CascadeJudge(offline, replay, budget=None if in_band else budget, within_band=in_band)
        a = compare(llm_only, [v.equivalent for v in cascade.verify(items)])
        rows.append({"budget": budget, "share_sent": budget / len(items), "agreement": a.agreement,
                     "cohen_kappa": a.kappa, "rule": "unsure band" if in_band else "most unsure first"})
    embedding = compare(llm_only, [v.equivalent for v in offline.verify(items)])
    goal = [r for r in rows if r["share_sent"] <= 0.20 + 1e-9]
    report = {"sample": str(Path(args.sample).name), "llm_judge": manifest["judge"]["name"],
              "embedding_judge": f"{offline.name}, {offline.model.label()}",
              "score_model": offline.model.calibration.get("data"),
              "items": len(items), "llm_yes_rate": sum(map(bool, llm_only)) / len(items),
              "embedding_only": embedding.to_dict(), "band_items": band, "curve": rows,
              "best_within_20pct": max(goal, key=lambda r: r["agreement"]),
              "goal_met": any(r["agreement"] >= 0.95 for r in goal)}
    if args.out:
        write_json(args.out, report)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
