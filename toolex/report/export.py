"""Write tables (CSV, Markdown, LaTeX, provenance JSON) and figures (PNG, PDF with a provenance footer)."""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from toolex import paths
from toolex.report.layout import check_layout

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "Δ": r"$\Delta$"}


def _cell(value: Any, digits: int, whole: bool = False) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.0f}" if whole else f"{value:.{digits}f}"
    return "" if value is None or value is pd.NA else str(value)


#: A row whose label (first column) ends with one of these counts things: its whole numbers print as such
#: (tables with a row per statistic, such as Table 1, mix counts and averages in one column).
COUNT_LABELS = ("queries", "sub_queries", "items", "combinations", "tools", "documents", "skills", "count")


def _count_row(label: Any) -> bool:
    return isinstance(label, str) and not label.startswith("avg") and label.lower().endswith(COUNT_LABELS)


def _integral(value: Any) -> bool:
    return isinstance(value, float) and not math.isnan(value) and value.is_integer()


def _formatted_rows(table: pd.DataFrame, digits: int) -> Iterator[list[str]]:
    """Each row's cells as printed: ``digits`` decimals, whole numbers without them in a column of whole
    numbers only (counts stored as floats) and in a count row (see :data:`COUNT_LABELS`)."""
    whole = [pd.api.types.is_float_dtype(table[c]) and len(table[c].dropna()) > 0
             and all(_integral(v) for v in table[c].dropna()) for c in table.columns]
    for record in table.itertuples(index=False):
        count_row = _count_row(record[0]) if len(record) else False
        yield [_cell(v, digits, w or (count_row and _integral(v))) for v, w in zip(record, whole)]


def display_precision(digits: int = 2) -> None:
    """Notebook tables print ``digits`` decimals (pandas prints six by default)."""
    pd.set_option("display.precision", digits)


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_markdown(table: pd.DataFrame, caption: str = "", digits: int = 2) -> str:
    cols = [str(c) for c in table.columns]
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    lines = [f"**{caption}**", ""] if caption else []
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    for cells in _formatted_rows(table, digits):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def to_latex(table: pd.DataFrame, caption: str = "", label: str = "", digits: int = 2) -> str:
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [r"\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}", r"\toprule",
              " & ".join(latex_escape(str(c)) for c in table.columns) + r" \\", r"\midrule"]
    for cells in _formatted_rows(table, digits):
        lines.append(" & ".join(latex_escape(c) for c in cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def export_table(table: pd.DataFrame, stem: str, caption: str = "", provenance: dict[str, Any] | None = None,
                 folder: str | Path | None = None, digits: int = 2) -> dict[str, Path]:
    """``<stem>.csv``, ``<stem>.md``, ``<stem>.tex`` and, with ``provenance``, ``<stem>.json`` under the
    tables folder."""
    out = Path(folder) if folder else paths.tables_dir()
    out.mkdir(parents=True, exist_ok=True)
    written = {"csv": out / f"{stem}.csv", "md": out / f"{stem}.md", "tex": out / f"{stem}.tex"}
    table.to_csv(written["csv"], index=False)
    markdown = to_markdown(table, caption, digits)
    latex = to_latex(table, caption, f"tab:{stem}", digits)
    if provenance is not None:
        written["json"] = out / f"{stem}.json"
        written["json"].write_text(json.dumps(provenance, indent=1, default=str) + "\n", encoding="utf-8")
        note = (f"toolex {provenance.get('toolex')}, data sha256 "
                f"{str(provenance.get('data_checksum', ''))[:16]}, judge {provenance.get('judge')}, "
                f"retrievers {', '.join(provenance.get('retrievers', []))}, created "
                f"{provenance.get('created')}")
        markdown += f"\n_Provenance: {note} (full record: `{stem}.json`)._\n"
        latex += f"% provenance: {note}\n"
    written["md"].write_text(markdown, encoding="utf-8")
    written["tex"].write_text(latex, encoding="utf-8")
    return written


def read_table(stem: str, folder: str | Path | None = None) -> pd.DataFrame:
    """A table written by :func:`export_table`, read back from its CSV."""
    return pd.read_csv((Path(folder) if folder else paths.tables_dir()) / f"{stem}.csv")


def save_figure(fig: Any, stem: str, footer: str, folder: str | Path | None = None) -> dict[str, Path]:
    """Lay the figure out above a provenance footer, check that no text overlaps another or leaves the canvas
    (:mod:`toolex.report.layout`), and save it as PNG (150 dpi) and PDF under the figures folder."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    out = Path(folder) if folder else paths.figures_dir()
    out.mkdir(parents=True, exist_ok=True)
    width, height = fig.get_size_inches()
    wrapped = "\n".join(textwrap.wrap(footer, max(40, int(width * 18))))
    lines = wrapped.count("\n") + 1
    reserved = (lines * 8.5 + 8) / 72 / height  # the footer's lines and a gap, as a fraction of the height
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        engine.set(rect=(0, reserved, 1, 1 - reserved / 8))
    else:
        fig.tight_layout(rect=(0, reserved, 1, 1))
    fig.text(0.01, 0.01, wrapped, fontsize=6.5, color="0.35", ha="left", va="bottom")
    check_layout(fig, stem)
    written = {"png": out / f"{stem}.png", "pdf": out / f"{stem}.pdf"}
    fig.savefig(written["png"], dpi=150)
    fig.savefig(written["pdf"], metadata={"Subject": footer})
    return written
