"""The paper's Tables 1–3 and claims, read from the paper folder (:func:`toolex.paths.paper_dir`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from toolex import paths
from toolex.errors import InputError

TABLE2_COLUMNS = ("level", "model", "category", "metric", "tool_de", "tooleq")


def _folder(folder: str | Path | None) -> Path:
    return Path(folder) if folder else paths.paper_dir()


def _read_csv(path: Path, columns: tuple[str, ...]) -> pd.DataFrame:
    if not path.exists():
        raise InputError(path, "paper table not found; set TOOLEX_PAPER to the folder of the paper's tables")
    frame = pd.read_csv(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)}")
    return frame


def load_table1(folder: str | Path | None = None) -> pd.DataFrame:
    """Table 1: annotation statistics of ToolEq and SkillEq, indexed by statistic."""
    return _read_csv(_folder(folder) / "table1_annotation_stats.csv",
                     ("statistic", "tooleq", "skilleq")).set_index(
        "statistic"
    )


def load_table2(folder: str | Path | None = None) -> pd.DataFrame:
    """Table 2: every cell, one row per (level, model, category, metric), Tool-DE and ToolEq in percent."""
    return _read_csv(_folder(folder) / "table2_main_results.csv", TABLE2_COLUMNS)


def load_table3(folder: str | Path | None = None) -> pd.DataFrame:
    """Table 3: SkillRet (one-to-one) and SkillEq per model and metric, in percent."""
    return _read_csv(_folder(folder) / "table3_skill_results.csv", ("model", "metric", "skillret", "skilleq"))


def claims_file(folder: str | Path | None = None) -> Path:
    """The paper's ``claims.yaml`` (the headline numbers its text states)."""
    return _folder(folder) / "claims.yaml"


def load_claims(folder: str | Path | None = None) -> dict[str, Any]:
    """The paper's ``claims.yaml`` as a mapping."""
    path = claims_file(folder)
    if not path.exists():
        raise InputError(path, "claims file not found")
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except yaml.YAMLError as exc:
        raise InputError(path, f"unreadable YAML ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(path, "the claims file is not a mapping of claim names to values")
    return data
