"""Writing a campaign out: the report's tables (CSV / Markdown / LaTeX + provenance) and figure, and the raw
decisions (current and history) as JSON lines. Every file is written atomically (temporary file in the same
folder, fsync, rename)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from toolex import paths
from toolex.errors import InputError
from toolex.io.atomic import write_jsonl, write_text
from toolex.report.export import export_table, save_figure
from toolex.report.provenance import footer, provenance
from toolex.review.campaign_report import CampaignReport, campaign_report, final_decisions, precision_figure
from toolex.review.database import Campaign
from toolex.review.items import labels_of

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


def export_labels(campaign: Campaign, path: str | Path) -> Path:
    """The final decisions on the campaign's candidate items as a labels file (one ``{"query_id",
    "reference", "candidate", "equivalent"}`` a line); an error when no candidate item is decided."""

    labels = labels_of(_records(final_decisions(campaign)), {it.item_id: it for it in campaign.items()})
    if not labels:
        raise InputError(campaign.path, "no decided candidate item to export as labels")
    return write_jsonl(path, labels)


def _records(frame: Any) -> list[dict[str, Any]]:
    """A data frame's rows as dicts, missing values as None."""
    return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)
