"""The report of a review campaign: precision with Wilson intervals, reviewer agreement, adjudication,
the failure taxonomy and, per judge, how the judge's verdicts compare with the human decisions.

An item's final decision: the two reviews when they agree; the adjudication when they disagree and someone
adjudicated; otherwise pending (a validity disagreement, left out of precision) or, for two rejections with
different buckets, invalid with the bucket ``unresolved``. Items with fewer than two reviews are incomplete
and left out.

>>> [round(x, 4) for x in wilson(8, 10)]
[0.4902, 0.9433]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from toolex.annotate.agreement import compare
from toolex.metrics.intervals import Z95, wilson
from toolex.review.database import ADJUDICATE, REVIEW, REVIEWERS_PER_ITEM, Campaign
from toolex.review.taxonomy import BUCKETS, UNRESOLVED


def final_decisions(campaign: Campaign) -> pd.DataFrame:
    """One row per item: stratum, the reviews (two, or one where the campaign asks for one), the
    adjudication and the final decision (status ``decided`` by one labeller, ``agreed``, ``adjudicated``,
    ``pending`` a disagreement, ``incomplete``)."""
    reviews: dict[str, list[dict[str, Any]]] = {}
    adjudications: dict[str, dict[str, Any]] = {}
    for d in campaign.decisions():
        if d["role"] == REVIEW:
            reviews.setdefault(d["item_id"], []).append(d)
        elif d["role"] == ADJUDICATE:
            adjudications[d["item_id"]] = d
    rows = []
    needed = campaign.reviewers_per_item
    for item in campaign.items():
        pair = sorted(reviews.get(item.item_id, []), key=lambda d: d["reviewer"])[:REVIEWERS_PER_ITEM]
        row: dict[str, Any] = {"item_id": item.item_id, "query_id": item.query_id, "category": item.category,
                               "complexity": item.complexity, "stratum": item.stratum, "reviews": len(pair),
                               "disagreement": "", "adjudicated": item.item_id in adjudications,
                               "status": "incomplete", "valid": None, "bucket": ""}
        for slot, d in zip("ab", pair):
            row.update({f"reviewer_{slot}": d["reviewer"], f"valid_{slot}": d["valid"],
                        f"bucket_{slot}": d["bucket"]})
        if needed == 1 and len(pair) == 1:  # one labeller decides
            row.update(status="decided", valid=pair[0]["valid"], bucket=pair[0]["bucket"])
        elif len(pair) == REVIEWERS_PER_ITEM:
            a, b = pair
            row["disagreement"] = ("validity" if a["valid"] != b["valid"] else
                                   "bucket" if not a["valid"] and a["bucket"] != b["bucket"] else "")
            if item.item_id in adjudications and row["disagreement"]:
                final = adjudications[item.item_id]
                row.update(status="adjudicated", valid=final["valid"], bucket=final["bucket"])
            elif row["disagreement"] == "validity":
                row["status"] = "pending"
            else:
                row.update(status="agreed", valid=a["valid"],
                           bucket=a["bucket"] if not row["disagreement"] else UNRESOLVED)
        rows.append(row)
    return pd.DataFrame(rows)


def _precision_row(label: dict[str, Any], part: pd.DataFrame) -> dict[str, Any]:
    decided = part[part.valid.notna()]
    valid = int(decided.valid.astype(bool).sum())
    low, high = wilson(valid, len(decided))
    precision = valid / len(decided) if len(decided) else float("nan")
    return {**label, "sampled": len(part), "decided": len(decided), "valid": valid,
            "precision": 100 * precision, "ci_low": 100 * low, "ci_high": 100 * high}


def precision_table(final: pd.DataFrame, population: dict[str, int] | None = None) -> pd.DataFrame:
    """Precision (%) with a 95 % Wilson interval per stratum, per category and overall. With ``population``
    (stratum -> accepted combinations in the run), one more row weights the strata by their size (the
    estimate for the whole run when the allocation was not proportional; normal-approximation interval over
    the strata with a decision)."""
    rows = []
    for (category, complexity), part in final.groupby(["category", "complexity"], sort=True):
        rows.append(_precision_row({"category": category, "complexity": str(complexity)}, part))
    if final.category.nunique() > 1:
        for category, part in final.groupby("category", sort=True):
            rows.append(_precision_row({"category": category, "complexity": "all"}, part))
    rows.append(_precision_row({"category": "all", "complexity": "all"}, final))
    if population:
        shares: dict[str, tuple[float, int]] = {}  # stratum -> (precision, decided items)
        for stratum, part in final.groupby("stratum"):
            decided = part[part.valid.notna()]
            if len(decided) and stratum in population:
                shares[stratum] = (float(decided.valid.astype(bool).mean()), len(decided))
        covered = sum(population[s] for s in shares)  # strata without a decision are left out, not zero
        if covered:
            estimate = sum(population[s] / covered * p for s, (p, _) in shares.items())
            half = Z95 * math.sqrt(sum((population[s] / covered) ** 2 * p * (1 - p) / n
                                       for s, (p, n) in shares.items()))
            # every stratum all valid or all invalid: the normal approximation has no width to give, and a
            # zero-width interval would read as certainty; none is stated
            low, high = ((max(0.0, estimate - half), min(1.0, estimate + half)) if half > 0
                         else (float("nan"), float("nan")))
            rows.append({"category": "weighted", "complexity": "all",
                         "sampled": len(final), "decided": int(final.valid.notna().sum()),
                         "valid": int(final.valid.dropna().astype(bool).sum()), "precision": 100 * estimate,
                         "ci_low": 100 * low, "ci_high": 100 * high})
    return pd.DataFrame(rows)


def agreement_table(final: pd.DataFrame) -> pd.DataFrame:
    """Cohen's kappa and raw agreement between the two reviews of each item, and the adjudication counts."""
    both = final[final.reviews == REVIEWERS_PER_ITEM]
    a = [bool(v) for v in both.get("valid_a", pd.Series(dtype=object))]
    b = [bool(v) for v in both.get("valid_b", pd.Series(dtype=object))]
    stats = compare(a, b)
    return pd.DataFrame([{
        "items with two reviews": stats.items, "raw agreement (%)": 100 * stats.agreement,
        "cohen kappa": stats.kappa, "both valid": stats.both_yes, "both invalid": stats.both_no,
        "valid only by reviewer a": stats.reference_yes_only,
        "valid only by reviewer b": stats.other_yes_only,
        "validity disagreements": int((both.disagreement == "validity").sum()),
        "bucket disagreements": int((both.disagreement == "bucket").sum()),
        "adjudicated": int((both.status == "adjudicated").sum()),
        "pending adjudication": int((both.status == "pending").sum()),
        "unresolved buckets": int((both.bucket == UNRESOLVED).sum()),
    }])


def taxonomy_table(final: pd.DataFrame, campaign_decisions: list[dict[str, Any]]) -> pd.DataFrame:
    """Final invalid items per failure bucket (count, share of the invalid ones) and the individual reviews
    that chose each bucket."""
    invalid = final[final.valid.map(lambda v: v is not None and not pd.isna(v) and not bool(v))]
    reviews = pd.Series([d["bucket"] for d in campaign_decisions if d["role"] == REVIEW and not d["valid"]],
                        dtype=object)
    rows = []
    for bucket, label in {**BUCKETS, UNRESOLVED: "unresolved (no adjudication)"}.items():
        count = int((invalid.bucket == bucket).sum())
        if bucket == UNRESOLVED and not count:
            continue
        rows.append({"bucket": bucket, "failure": label, "items": count,
                     "share of invalid (%)": 100 * count / len(invalid) if len(invalid) else float("nan"),
                     "reviews naming it": int((reviews == bucket).sum())})
    return pd.DataFrame(rows)


def judge_table(final: pd.DataFrame, verdicts: list[dict[str, Any]]) -> pd.DataFrame:
    """Per judge: its verdicts on the decided items beside the human decisions — human precision among the
    combinations the judge accepted (Wilson interval), the human valid rate among those it rejected, and the
    judge's raw agreement and kappa with the final human decision."""
    decided = final[final.valid.notna()].set_index("item_id")
    rows = []
    for judge in sorted({v["judge"] for v in verdicts}):
        pairs = [(bool(v["valid"]), bool(decided.at[v["item_id"], "valid"])) for v in verdicts
                 if v["judge"] == judge and v["item_id"] in decided.index]
        accepted = [human for judged, human in pairs if judged]
        rejected = [human for judged, human in pairs if not judged]
        low, high = wilson(sum(accepted), len(accepted))
        stats = compare([j for j, _ in pairs], [h for _, h in pairs])
        sources = sorted({v["source"] for v in verdicts if v["judge"] == judge})
        rows.append({"judge": judge, "source": ", ".join(sources), "items": len(pairs),
                     "judge valid": len(accepted),
                     "human precision of judge-valid (%)": 100 * sum(accepted) / len(accepted) if accepted
                     else float("nan"), "ci_low": 100 * low, "ci_high": 100 * high,
                     "judge invalid": len(rejected),
                     "human valid among judge-invalid (%)": 100 * sum(rejected) / len(rejected) if rejected
                     else float("nan"),
                     "agreement (%)": 100 * stats.agreement, "cohen kappa": stats.kappa})
    return pd.DataFrame(rows)


def reviewer_table(campaign: Campaign, final: pd.DataFrame) -> pd.DataFrame:
    """Per reviewer: reviews, adjudications, share judged valid and agreement with the final decision."""
    settled = final[final.valid.notna()].set_index("item_id")
    people: dict[str, dict[str, Any]] = {}
    for d in campaign.decisions():
        row = people.setdefault(d["reviewer"], {"reviewer": d["reviewer"], "reviews": 0, "adjudications": 0,
                                                "valid": 0, "agree": 0, "settled": 0})
        if d["role"] == ADJUDICATE:
            row["adjudications"] += 1
            continue
        row["reviews"] += 1
        row["valid"] += d["valid"]
        if d["item_id"] in settled.index:
            row["settled"] += 1
            row["agree"] += bool(settled.at[d["item_id"], "valid"]) == d["valid"]
    out = []
    for row in sorted(people.values(), key=lambda r: r["reviewer"]):
        out.append({"reviewer": row["reviewer"], "reviews": row["reviews"],
                    "adjudications": row["adjudications"],
                    "judged valid (%)": 100 * row["valid"] / row["reviews"] if row["reviews"]
                    else float("nan"),
                    "agrees with final (%)": 100 * row["agree"] / row["settled"] if row["settled"]
                    else float("nan")})
    return pd.DataFrame(out, columns=["reviewer", "reviews", "adjudications", "judged valid (%)",
                                      "agrees with final (%)"])


@dataclass
class CampaignReport:
    """Every table of a campaign's report, its per-item final decisions and a summary."""

    final: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        overall = self.tables["precision"].query("category == 'all' and complexity == 'all'").iloc[0]
        agreement = self.tables["agreement"].iloc[0]
        return {"campaign": self.meta.get("path"), "run": self.meta.get("run"),
                "judge": self.meta.get("judge"),
                "items": len(self.final), "decided": int(overall.decided), "valid": int(overall.valid),
                "precision": _num(overall.precision), "ci": [_num(overall.ci_low), _num(overall.ci_high)],
                "cohen_kappa": _num(agreement["cohen kappa"]),
                "raw_agreement": _num(agreement["raw agreement (%)"]),
                "adjudicated": int(agreement["adjudicated"]),
                "pending": int(agreement["pending adjudication"]),
                "incomplete": int((self.final.status == "incomplete").sum())}


def _num(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else round(value, 4)


def campaign_report(campaign: Campaign) -> CampaignReport:
    """The full report of ``campaign`` (read in one pass; decisions still being made are not waited for)."""
    final = final_decisions(campaign)
    meta = {**campaign.meta(), "path": str(campaign.path)}
    population = {s: int(v[0]) for s, v in (meta.get("plan") or {}).items()}
    tables = {
        "precision": precision_table(final, population),
        "agreement": agreement_table(final),
        "taxonomy": taxonomy_table(final, campaign.decisions()),
        "judges": judge_table(final, campaign.judge_verdicts()),
        "reviewers": reviewer_table(campaign, final),
    }
    return CampaignReport(final, tables, meta)


def precision_figure(report: CampaignReport) -> Any:
    """Precision per stratum and overall, with the 95 % Wilson interval as error bars; a stratum without a
    decision keeps its row, marked "no decision yet", and a dot at 0 or 100 % is drawn whole."""
    import matplotlib.pyplot as plt

    table = report.tables["precision"].reset_index(drop=True)
    labels = [f"{r.category} · {r.complexity}" if r.complexity != "all" else
              "all, weighted by stratum size" if r.category == "weighted" else f"{r.category} (all)"
              for r in table.itertuples()]
    fig, ax = plt.subplots(figsize=(6.0, 1.2 + 0.38 * max(1, len(table))))
    y = list(range(len(table)))[::-1]
    errors = [(table.precision - table.ci_low).to_numpy(), (table.ci_high - table.precision).to_numpy()]
    colours = ["tab:blue" if r.complexity != "all" else "tab:gray" for r in table.itertuples()]
    ax.errorbar(table.precision, y, xerr=errors, fmt="none", ecolor="0.3", capsize=3, lw=1)
    ax.scatter(table.precision, y, c=colours, zorder=3, clip_on=False)
    for yi, r in zip(y, table.itertuples()):
        note = f"{r.valid}/{r.decided}" if r.decided else "no decision yet"
        ax.annotate(note, (106, yi), va="center", fontsize=7, annotation_clip=False)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(-4, 104)
    ax.set_xticks([0, 20, 40, 60, 80, 100])
    ax.set_xlabel("human precision (%), 95 % Wilson interval")
    ax.set_title("Human validation of ToolEX combinations", fontsize=10)
    fig.tight_layout()
    return fig
