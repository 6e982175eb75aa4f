"""The kept cross-source judge study (``bench/judge_transfer.py``, :mod:`toolex.experiments.transfer`),
read back as tables for notebook 09 and docs/judge.md: the leave-one-source-out matrix, the chosen default,
the former recipe, the label workflow and a verifier right on every item."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from toolex import paths
from toolex.experiments.transfer import goals_met

KEPT = "judge_transfer.json"


def kept_study(path: str | Path | None = None) -> dict[str, Any]:
    """The kept study as data frames: ``leave_one_out`` (every recipe), ``chosen`` (its name), ``default``
    (the chosen model on every report part), ``former`` (the former default's recipe, SGD-family sources),
    ``labels`` (the per-benchmark workflow, mean and range over draws), ``ceiling`` (a verifier right on
    every item) and ``best_threshold`` (the chosen score with the best threshold for each report part, chosen
    on its gold; empty in a study kept before it)."""

    path = Path(path) if path else paths.validation_dir() / KEPT
    data = json.loads(path.read_text(encoding="utf-8"))
    labels = pd.DataFrame(data["per_benchmark_labels"])
    summary = (labels.groupby(["reported_on", "labels", "retriever"])[["recovered", "over_credit",
                                                                       "under_credit"]]
               .agg(["mean", "min", "max"]))
    summary.columns = [f"{measure} {stat}" for measure, stat in summary.columns]
    return {"leave_one_out": pd.DataFrame(data["leave_one_out"]), "chosen": data["chosen"],
            "default": pd.DataFrame(data["default_on_report_parts"]),
            "former": pd.DataFrame(data["former_recipe_sgd_family_on_report_parts"]),
            "labels": summary.reset_index(), "ceiling": pd.DataFrame(data["perfect_verifier"]),
            "best_threshold": pd.DataFrame(data.get("best_threshold_per_report_part", [])),
            "model": data["model"], "sources": data["sources"]}


def transfer_matrix(leave_one_out: pd.DataFrame, recipe: str) -> pd.DataFrame:
    """One recipe's leave-one-source-out rows on the left-out report parts: fitted on, reported on, retriever,
    recovered share, over- and under-credit, and how many of the three goals each meets."""
    rows = leave_one_out[(leave_one_out["recipe"] == recipe) & (leave_one_out["part"] == "report")]
    out = rows[["fitted_on", "reported_on", "retriever", "recovered", "over_credit", "under_credit"]].copy()
    out["goals met"] = goals_met(rows).to_numpy()
    return out.reset_index(drop=True)


def comparison(study: Mapping[str, Any]) -> pd.DataFrame:
    """The chosen model, the former recipe, the chosen score with the best threshold for each part (an oracle)
    and a verifier right on every item, on every report part."""
    frames = [study["default"].assign(judge="chosen across sources"),
              study["former"].assign(judge="former recipe, SGD-family sources"),
              study["best_threshold"].assign(judge="chosen score, best threshold for each part (its gold)"),
              study["ceiling"].assign(judge="verifier right on every item")]
    return pd.concat(frames, ignore_index=True)[["judge", "reported_on", "retriever", "recovered",
                                                 "over_credit", "under_credit", "expansion_recall"]]
