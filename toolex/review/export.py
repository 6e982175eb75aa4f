"""Writing a campaign out: the report's tables (CSV / Markdown / LaTeX + provenance) and figure, and the raw
decisions (current and history) as JSON lines. Every file is written atomically (temporary file in the same
folder, fsync, rename)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolex import paths
from toolex.annotate.operating_point import draw_record_path
from toolex.errors import InputError
from toolex.io.atomic import write_jsonl, write_text
from toolex.report.export import export_table, save_figure
from toolex.report.provenance import footer, provenance
from toolex.review.campaign_report import CampaignReport, campaign_report, final_decisions, precision_figure
from toolex.review.database import Campaign
from toolex.review.items import CANDIDATE, labels_of

CAPTIONS = {
    "precision": "Human precision of ToolEX's accepted combinations per stratum, 95 % Wilson interval",
    "agreement": "Agreement of the two reviewers (Cohen's kappa, raw agreement) and adjudication",
    "taxonomy": "Failure taxonomy of the combinations judged invalid",
    "judges": "Per judge: its verdicts beside the human decisions",
    "reviewers": "Reviewers: decisions made and agreement with the final decision",
}


def _move_in(written: dict[str, Path], folder: Path) -> dict[str, Path]:
    out = {}
    for kind, path in written.items():
        with open(path, "rb") as handle:
            os.fsync(handle.fileno())
        target = folder / path.name
        os.replace(path, target)
        out[kind] = target
    return out


def report_provenance(report: CampaignReport) -> dict[str, Any]:
    meta = report.meta
    return provenance(f"review campaign {Path(str(meta.get('path'))).name}", str(meta.get("run", "")),
                      {"seed": meta.get("seed"), "allocation": meta.get("allocation"),
                       "plan": meta.get("plan"),
                       "run_checksum": meta.get("checksum_kind")},
                      judge=meta.get("judge"),
                      retrievers=[meta["retriever"]] if meta.get("retriever") else [],
                      annotation_run=meta.get("run_folder"), benchmarks=meta.get("benchmarks"))


def export_report(report: CampaignReport, stem: str = "10_review", tables: str | Path | None = None,
                  figures: str | Path | None = None) -> dict[str, dict[str, Path]]:
    """``<stem>_<table>.{csv,md,tex,json}`` for every table and ``<stem>_precision.{png,pdf}``."""
    table_dir = Path(tables) if tables else paths.tables_dir()
    figure_dir = Path(figures) if figures else paths.figures_dir()
    table_dir.mkdir(parents=True, exist_ok=True)
    figure_dir.mkdir(parents=True, exist_ok=True)
    record = report_provenance(report)
    written: dict[str, dict[str, Path]] = {}
    for name, table in report.tables.items():
        with tempfile.TemporaryDirectory(dir=table_dir, prefix=".export-") as tmp:
            parts = export_table(table, f"{stem}_{name}", CAPTIONS.get(name, name), record, tmp, digits=1)
            written[name] = _move_in(parts, table_dir)
    import matplotlib.pyplot as plt

    fig = precision_figure(report)
    note = (f"Review campaign {Path(str(report.meta.get('path'))).name}, "
            f"run {str(report.meta.get('run'))[:12]}")
    with tempfile.TemporaryDirectory(dir=figure_dir, prefix=".export-") as tmp:
        parts = save_figure(fig, f"{stem}_precision", footer(note, judge=report.meta.get("judge")), tmp)
        written["figure"] = _move_in(parts, figure_dir)
    plt.close(fig)
    return written


def export_decisions(campaign: Campaign, folder: str | Path,
                     report: CampaignReport | None = None) -> list[Path]:
    """``decisions.jsonl`` (current), ``history.jsonl`` (every revision), ``final.jsonl`` (per item) and
    ``campaign.json`` (the campaign's metadata) under ``folder``."""

    folder = Path(folder)
    report = report or campaign_report(campaign)
    final = _records(report.final)
    files = {
        "decisions.jsonl": campaign.decisions(),
        "history.jsonl": campaign.history(),
        "final.jsonl": final,
    }
    out = [write_text(folder / name, "".join(json.dumps(r, ensure_ascii=False, default=_plain) + "\n"
                                               for r in rows)) for name, rows in files.items()]
    out.append(write_text(folder / "campaign.json",
                            json.dumps({**campaign.meta(), "summary": report.summary()}, indent=1) + "\n"))
    return out


#: Why a candidate item's final decision is not a label, by the status :func:`final_decisions` gives it.
LEFT_OUT = {"incomplete": "not reviewed yet (or fewer reviews than the campaign asks for)",
            "pending": "the reviewers disagree and nobody adjudicated"}


@dataclass(frozen=True)
class LabelExport:
    """The labels of a campaign's candidate items: the records, how many items were left out and why, and
    the draw record of the items (``toolex calibrate --draw`` wrote it beside the items file)."""

    labels: list[dict[str, Any]]
    left_out: dict[str, int]
    draw_record: Path | None

    def write(self, path: str | Path) -> list[Path]:
        """The labels file and, beside it, a copy of the draw record (``<stem>.draw.json``, where
        ``toolex calibrate --labels`` looks for it)."""
        out = [write_jsonl(path, self.labels)]
        if self.draw_record is not None:
            out.append(write_text(draw_record_path(path), self.draw_record.read_text(encoding="utf-8")))
        return out


def campaign_labels(campaign: Campaign) -> LabelExport:
    """The final decisions on the campaign's candidate items as labels (one ``{"query_id", "reference",
    "candidate", "equivalent"}`` each), with the count left out per reason; an error, naming the reasons,
    when no candidate item is decided."""
    final = final_decisions(campaign)
    if final.empty:
        raise InputError(campaign.path, "no decided candidate item to export as labels (the campaign holds "
                                        "no item)")
    items = {it.item_id: it for it in campaign.items()}
    labels = labels_of(_records(final), items)
    candidates = final[[items[i].payload.get("kind") == CANDIDATE for i in final.item_id]]
    left = candidates[candidates.valid.isna()]
    left_out = {LEFT_OUT.get(status, status): int(n) for status, n in left.status.value_counts().items()}
    others = len(final) - len(candidates)
    if others:
        left_out["not a candidate item (a combination of a run)"] = others
    if not labels:
        reasons = "; ".join(f"{n} {why}" for why, n in left_out.items())
        raise InputError(campaign.path, f"no decided candidate item to export as labels ({reasons}; the "
                                        f"campaign asks for {campaign.reviewers_per_item} review(s) per "
                                        "item)")
    items_file = campaign.meta().get("items_file")
    record = draw_record_path(items_file) if items_file else None
    return LabelExport(labels, left_out, record if record is not None and record.is_file() else None)


def export_labels(campaign: Campaign, path: str | Path) -> Path:
    """:func:`campaign_labels` written to ``path`` (and the draw record beside it)."""
    return campaign_labels(campaign).write(path)[0]


def _records(frame: Any) -> list[dict[str, Any]]:
    """A data frame's rows as dicts, missing values as None."""
    return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)
