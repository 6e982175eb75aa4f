"""The claim table as data: its rows, named operations, references, tolerances and errors."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from toolex.cli import main
from toolex.errors import InputError
from toolex.paper import check_claims
from toolex.paper.claims import fine_tuned_pairs, load_claim_table
from toolex.paper.operations import OPERATIONS, FineTuned, RowError, Tables

EXPECTED = Path(__file__).with_name("expected_paper_check.txt")

# a tiny paper: two base models (A, B), one fine-tuned (FT, from A); two categories, two metrics, two levels
TABLE2 = [
    # level, model, category, metric, tool_de, tooleq
    ("query", "A", "Code", "ndcg@10", 40.0, 44.0),
    ("query", "A", "Web", "ndcg@10", 30.0, 38.0),
    ("query", "B", "Code", "ndcg@10", 50.0, 52.0),
    ("query", "B", "Web", "ndcg@10", 20.0, 22.0),
    ("query", "FT", "Code", "ndcg@10", 50.0, 50.0),
    ("query", "FT", "Web", "ndcg@10", 40.0, 46.0),
    ("query", "A", "Code", "recall@10", 60.0, 70.0),
    ("query", "A", "Web", "recall@10", 10.0, 11.0),
    ("query", "B", "Code", "recall@10", 1.0, 2.0),
    ("query", "B", "Web", "recall@10", 1.0, 2.0),
    ("query", "FT", "Code", "recall@10", 1.0, 2.0),
    ("query", "FT", "Web", "recall@10", 1.0, 2.0),
    ("subquery_oracle", "A", "Code", "ndcg@10", 45.0, 54.0),
    ("subquery_oracle", "A", "Web", "ndcg@10", 35.0, 48.0),
]
CLAIMS = {
    "gap": {"min": {"model": "B", "pp": 2.0}, "max": {"model": "B", "pp": 5.0}},
    "cells": [40.0, 44.0],
    "gains": {"de": 10.0, "eq": 7.0, "share": 30},
    "figure_only": 12.5,
    "known_inconsistencies_in_paper": ["Model A Web: the text says 9.9, the cells give 8.0"],
}


def _paper(folder: Path) -> Path:
    pd.DataFrame(TABLE2, columns=["level", "model", "category", "metric", "tool_de", "tooleq"]).to_csv(
        folder / "table2_main_results.csv", index=False
    )
    pd.DataFrame(
        {"statistic": ["queries", "items", "avg_items"], "tooleq": [4, 10, 2.5], "skilleq": [1, 2, 2.0]}
    ).to_csv(folder / "table1_annotation_stats.csv", index=False)
    pd.DataFrame({"model": ["S"], "metric": ["ndcg@10"], "skillret": [50.0], "skilleq": [60.0]}).to_csv(
        folder / "table3_skill_results.csv", index=False
    )
    (folder / "claims.yaml").write_text(yaml.safe_dump(CLAIMS), encoding="utf-8")
    return folder


def _table(folder: Path, rows: list[dict], tolerance: float = 0.15) -> Path:
    path = folder / "table.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "tolerance": tolerance,
                "table2_defaults": {"level": "query", "metric": "ndcg@10"},
                "fine_tuned": {"s": {"base": "A", "tuned": "FT"}},
                "claims": rows,
            }
        ),
        encoding="utf-8",
    )
    return path


def _check(tmp_path: Path, *rows: dict, tolerance: float | None = None, default: float = 0.15) -> dict:
    folder = _paper(tmp_path)
    checks = check_claims(folder, tolerance, _table(folder, list(rows), default))
    return {c.claim: c for c in checks}


def test_paper_check_output_is_unchanged(capsys):
    assert main(["paper-check"]) == 0
    assert capsys.readouterr().out == EXPECTED.read_text(encoding="utf-8")


def test_packaged_table_rows_are_unique_and_known():
    table = load_claim_table()
    assert len(table.rows) == 37 and len({r.id for r in table.rows}) == 37
    assert {r.op for r in table.rows} <= set(OPERATIONS) | {"STATED"}
    assert fine_tuned_pairs() == {
        "0.6B": ("Qwen3-Embedding-0.6B", "Tool-Embed-0.6B"),
        "4B": ("Qwen3-Embedding-4B", "Tool-Embed-4B"),
    }


def test_named_operations_on_a_tiny_paper(tmp_path):
    checks = _check(
        tmp_path,
        {
            "id": "ratio",
            "stated": "table1:tooleq/avg_items",
            "op": "ratio",
            "column": "tooleq",
            "numerator": "items",
            "denominator": "queries",
        },
        {
            "id": "cell",
            "stated": "claims:cells/1",
            "op": "mean",
            "model": "A",
            "category": "Code",
            "side": "tooleq",
        },
        {
            "id": "all_metrics",
            "stated": 7.0,
            "op": "mean",
            "model": "A",
            "category": "Code",
            "metric": "*",
            "side": "delta",
        },
        {
            "id": "subquery",
            "stated": 10.0,
            "op": "gain",
            "model": "A",
            "level": "subquery_oracle",
            "baseline": {"level": "query"},
            "side": "tooleq",
        },
        {"id": "ft", "stated": "claims:gains/de", "op": "finetuning_gain", "pair": "s", "side": "tool_de"},
        {
            "id": "ft_code",
            "stated": 6.0,
            "op": "finetuning_gain",
            "pair": "s",
            "category": "Code",
            "side": "tooleq",
        },
        {
            "id": "share",
            "stated": "claims:gains/share",
            "op": "illusion_share",
            "pair": "s",
            "decimals": 1,
            "note": "{unrounded:.1f}",
        },
        {
            "id": "gap.{end}.{model}",
            "stated": "claims:gap/min/pp",
            "op": "extreme",
            "end": "min",
            "model": "claims:gap/min/model",
            "side": "delta",
            "note": "{end} of {n} is {pick}",
        },
        {"id": "mean_gap", "stated": 4.0, "op": "base_mean", "side": "delta", "note": "{n} models"},
        {
            "id": "skill",
            "stated": 60.0,
            "op": "table3",
            "model": "S",
            "metric": "ndcg@10",
            "column": "skilleq",
        },
        {"id": "figure", "stated": "claims:figure_only", "op": "STATED", "format": "{} %", "note": "figure"},
    )
    derived = {k: c.derived for k, c in checks.items()}
    assert derived["ratio"] == 2.5 and derived["cell"] == 44.0
    assert derived["all_metrics"] == pytest.approx(7.0)  # (4 + 10) / 2: both metrics of A Code
    assert derived["subquery"] == pytest.approx(51.0 - 41.0)  # ToolEq sub-query oracle minus query level
    assert derived["ft"] == pytest.approx(45.0 - 35.0)  # FT minus A on Tool-DE, mean over Code and Web
    assert derived["ft_code"] == pytest.approx(50.0 - 44.0)
    assert derived["share"] == pytest.approx(100 * (1 - 7.0 / 10.0))  # ToolEq gain 48 - 41 = 7
    assert derived["gap.min.B"] == pytest.approx(2.0) and derived["mean_gap"] == pytest.approx(4.0)
    assert derived["skill"] == 60.0 and derived["figure"] is None
    assert checks["gap.min.B"].note == "min of 2 is B" and checks["mean_gap"].note == "2 models"
    assert checks["share"].note == "30.0"
    assert checks["figure"].stated == "12.5 %" and checks["figure"].status == "STATED"
    assert {c.status for k, c in checks.items() if k != "figure"} == {"OK"}


def test_stated_model_that_is_not_the_extreme_fails(tmp_path):
    checks = _check(
        tmp_path,
        {
            "id": "gap.max",
            "stated": "claims:gap/max/pp",
            "op": "extreme",
            "end": "max",
            "model": "claims:gap/max/model",
            "side": "delta",
            "note": "{end} is {pick}",
        },
    )
    # B's gap is 2.0, A's 6.0: the value is B's, the grade FAIL (stated 5.0, and B is not the max)
    assert checks["gap.max"].status == "FAIL" and checks["gap.max"].note == "max is A, stated B"


def test_tolerance_grades_and_overrides(tmp_path):
    rows = [
        {"id": "near", "stated": 44.1, "op": "mean", "model": "A", "category": "Code", "side": "tooleq"},
        {
            "id": "own",
            "stated": 44.1,
            "op": "mean",
            "model": "A",
            "category": "Code",
            "side": "tooleq",
            "tolerance": 0.5,
        },
        {"id": "far", "stated": 44.3, "op": "mean", "model": "A", "category": "Code", "side": "tooleq"},
    ]
    checks = _check(tmp_path, *rows)
    assert [checks[k].status for k in ("near", "own", "far")] == ["OKISH", "OKISH", "FAIL"]
    strict = _check(tmp_path, *rows, tolerance=0.05)  # replaces the table's default, not a row's own
    assert [strict[k].status for k in ("near", "own", "far")] == ["FAIL", "OKISH", "FAIL"]
    loose = _check(tmp_path, *rows, default=0.5)
    assert loose["far"].status == "OKISH"


def test_known_inconsistency_needs_the_entry_and_the_stated_value(tmp_path):
    row = {"op": "mean", "model": "A", "category": "Web", "side": "delta", "known": "Model A Web"}
    checks = _check(
        tmp_path,
        {**row, "id": "listed", "stated": 9.9},
        {**row, "id": "other", "stated": 9.7},
        {**row, "id": "right", "stated": 8.0},
    )
    assert [checks[k].status for k in ("listed", "other", "right")] == ["KNOWN", "FAIL", "OK"]


@pytest.mark.parametrize(
    "row, message",
    [
        ({"id": "x", "stated": 1.0, "op": "median", "side": "tooleq"}, "unknown operation 'median'"),
        (
            {"id": "x", "stated": 1.0, "op": "mean", "side": "tooleq", "model": "A", "colour": "red"},
            "unknown argument(s) colour",
        ),
        ({"id": "x", "stated": 1.0, "op": "mean", "model": "A"}, "missing argument(s) side"),
        ({"id": "x", "stated": 1.0, "op": "mean", "model": "Z", "side": "tooleq"}, "no Table 2 row matches"),
        ({"id": "x", "stated": 1.0, "op": "mean", "model": "A", "side": "both"}, "side 'both'"),
        ({"id": "x", "stated": 1.0, "op": "finetuning_gain", "pair": "9B", "side": "tooleq"}, "pair '9B'"),
        (
            {"id": "x", "stated": "claims:gap/median/pp", "op": "base_mean", "side": "delta"},
            "no value at gap/median/pp",
        ),
        (
            {"id": "x", "stated": 1.0, "op": "base_mean", "side": "delta", "note": "{missing}"},
            "note '{missing}'",
        ),
        ({"id": "x", "stated": 1.0, "op": "STATED", "side": "delta"}, "takes no arguments"),
        (
            {"id": "x", "stated": 1.0, "op": "mean", "model": "A", "side": "tooleq", "tolerance": "wide"},
            "tolerance 'wide'",
        ),
        ({"stated": 1.0, "op": "mean"}, "needs id, op and stated"),
    ],
)
def test_bad_rows_name_the_file_and_the_row(tmp_path, row, message):
    with pytest.raises(InputError, match="x|record 0") as info:
        _check(tmp_path, row)
    assert message in str(info.value)
    assert ("claims.yaml" if message.startswith("no value") else "table.yaml") in str(info.value)


def test_bad_table_exits_2(tmp_path, capsys):
    folder = _paper(tmp_path)
    table = _table(folder, [{"id": "a", "stated": 1.0, "op": "mean", "side": "tooleq"}] * 2)
    assert main(["paper-check", "--paper", str(folder), "--table", str(table)]) == 2
    assert "claim id(s) given twice: a" in capsys.readouterr().err


def test_operations_reject_undefined_illusion_share():
    t2 = pd.DataFrame(
        TABLE2[:2]
        + [("query", "FT", "Code", "ndcg@10", 40.0, 45.0), ("query", "FT", "Web", "ndcg@10", 30.0, 40.0)],
        columns=["level", "model", "category", "metric", "tool_de", "tooleq"],
    )
    tables = Tables(pd.DataFrame(), t2, pd.DataFrame(), {"s": FineTuned("A", "FT")}, {"level": "query"})
    with pytest.raises(RowError, match="zero"):
        OPERATIONS["illusion_share"](tables, {"pair": "s"})
    assert tables.base_models() == ["A"]
