"""Setting up a review campaign: a stratified sample of a run's accepted combinations (or the candidate items
``toolex calibrate --draw`` wrote) put into a campaign file with how it was drawn, refusing a campaign of
another run or another number of reviewers before anything is loaded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolex import paths
from toolex.annotate.run_folder import ArtifactFolder
from toolex.errors import InputError
from toolex.review.database import REVIEWERS_PER_ITEM, REVIEWERS_SETTING, Campaign
from toolex.review.gold import acceptable_sets, apply_gold, gold_items
from toolex.review.items import (
    CHECKSUM_KIND,
    RATIONALE_SETTING,
    candidate_items,
    load_items,
    run_checksum,
    run_verdicts,
)
from toolex.review.sample import Sample, draw
from toolex.validate.gold import read_gold


@dataclass(frozen=True)
class Sampled:
    """What :func:`sample_run` put into the campaign: items added and in all, the run's checksum, how many
    accepted combinations it held, the sample drawn and, with gold, its decisions' counts."""

    added: int
    total: int
    run_id: str
    available: int
    sample: Sample
    gold_counts: dict[str, int] | None


def refuse_other_campaign(campaign: str | Path, run_id: str, what: str, reviewers: int | None) -> None:
    """An error when ``campaign`` exists and holds another run's items or another number of reviewers."""
    if Path(campaign).exists():
        with Campaign(campaign) as existing:
            existing.check_run(run_id, what)
            existing.check_reviewers(reviewers)


def sample_run(run: str | Path, campaign: str | Path, *, data: str | None = None, size: int | None = None,
               per_stratum: int | None = None, allocation: str = "proportional", seed: int = 0,
               gold: str | Path | None = None, judge_runs: Sequence[str | Path] = (),
               hide_rationale: bool = False, reviewers: int | None = None) -> Sampled:
    """Draw the run's accepted combinations into ``campaign`` (only the gold's queries, decided as gold
    says, with ``gold``; other judges' verdicts on the drawn items from ``judge_runs``)."""
    run_id = run_checksum(run)
    refuse_other_campaign(campaign, run_id, f"run {run}", reviewers)  # before loading anything
    acceptable = acceptable_sets(read_gold(gold)) if gold else None
    _, items = load_items(run, data)
    if acceptable is not None:
        items = gold_items(items, acceptable)
    try:
        sample = draw(items, size, per_stratum, allocation, seed)
    except ValueError as exc:
        raise InputError(None, str(exc)) from None
    manifest = ArtifactFolder(run).manifest()
    meta: dict[str, Any] = {
        "run_folder": paths.portable(Path(run).resolve()), "checksum_kind": CHECKSUM_KIND,
        "judge": (manifest.get("judge") or {}).get("name") or (items[0].judge if items else ""),
        "retriever": (manifest.get("config") or {}).get("retriever", ""),
        "benchmarks": [b.get("name") for b in manifest.get("benchmarks", [])],
        "seed": seed, "allocation": sample.allocation, "plan": sample.plan,
        "source": "gold" if acceptable is not None else "sample",
        RATIONALE_SETTING: "hidden" if hide_rationale else "shown",
        REVIEWERS_SETTING: reviewers or REVIEWERS_PER_ITEM}
    with Campaign.create(campaign, run_id, meta) as opened:
        if hide_rationale:
            opened.set_meta(**{RATIONALE_SETTING: "hidden"})
        added = opened.add_items(sample.items)
        for other in judge_runs:
            verdicts = run_verdicts(other)
            opened.add_judge_verdicts(((i, *verdicts[i]) for i in opened.item_ids() if i in verdicts),
                                      paths.portable(Path(other).resolve()))
        counts = apply_gold(opened, acceptable) if acceptable is not None else None
        total = len(opened)
    return Sampled(added, total, run_id, len(items), sample, counts)


def sample_items(items_file: str | Path, campaign: str | Path,
                 reviewers: int | None = None) -> tuple[int, int]:
    """Every candidate item of ``items_file`` into ``campaign`` (one labeller each unless ``reviewers``
    says otherwise; no rationale is ever shown); the items added and in all."""
    run_id, items = candidate_items(items_file)
    refuse_other_campaign(campaign, run_id, f"items {items_file}", reviewers)
    meta = {"kind": "candidate items", "items_file": str(Path(items_file).resolve()),
            RATIONALE_SETTING: "hidden", REVIEWERS_SETTING: reviewers or 1}
    with Campaign.create(campaign, run_id, meta) as opened:
        added = opened.add_items(items)
        return added, len(opened)
