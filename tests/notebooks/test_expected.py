"""The smoke run's expected numbers: collected from a tables folder, checked with their tolerance,
judge-dependent values checked only against the annotation folder they were made with."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from toolex.report import expected

ANNOTATION = "offline-0123456789ab"


def write_tables(folder, bm25_one=40.0, dense_eq=60.0, annotation=ANNOTATION, gt=80.0):
    folder.mkdir(exist_ok=True)
    rows = [{"source": "ours", "level": level, "retriever": r, "category": "Code", "metric": "ndcg@10",
             "queries": 25, "one_to_one": bm25_one if r == "bm25" else 50.0,
             "tooleq": dense_eq if r == "dense:minilm" else 45.0, "delta": 0.0}
            for level in ("query", "subquery_oracle") for r in ("bm25", "dense:minilm")]
    pd.DataFrame(rows).to_csv(folder / f"{expected.TABLE2}.csv", index=False)
    shares = pd.DataFrame({"source": ["ours (dense:minilm)", "reported by the paper (Qwen3-Embedding-4B)"],
                           "queries": [50, None], "gt_in_top10_pct": [gt, 70.0]})
    shares.to_csv(folder / f"{expected.SHARES}.csv", index=False)
    for table in (expected.TABLE2, expected.SHARES):
        record = {"judge": "offline", "annotation_folder": f"/somewhere/annotations/{annotation}"}
        (folder / f"{table}.json").write_text(json.dumps(record))
    return folder


@pytest.fixture
def kept(tmp_path):
    out = expected.write(write_tables(tmp_path / "t0"), tmp_path / "expected.csv")
    return pd.read_csv(out, dtype={"annotation": str})


def test_collected_rows_and_keys(kept):
    assert set(kept.table) == {expected.TABLE2, expected.SHARES}
    one = kept[(kept.column == "one_to_one") & kept.row.str.contains("level=query;retriever=bm25")].iloc[0]
    assert one.value == 40.0 and one.tolerance == expected.EXACT and pd.isna(one.annotation)
    eq = kept[(kept.column == "tooleq")]
    assert (eq.annotation == ANNOTATION).all()  # ToolEq depends on the judge
    sub = kept[(kept.column == "one_to_one") & kept.row.str.contains("subquery_oracle")]
    assert (sub.annotation == ANNOTATION).all()  # the sub-query run follows the judge's Stage 1


def test_same_numbers_pass(kept, tmp_path):
    assert expected.check(kept, write_tables(tmp_path / "t1")) == ([], 0)


def test_a_changed_judge_free_number_fails(kept, tmp_path):
    failures, _ = expected.check(kept, write_tables(tmp_path / "t1", bm25_one=40.02))
    assert len(failures) == 1 and "one_to_one" in failures[0] and "bm25" in failures[0]


def test_judge_dependent_numbers_follow_the_annotation_folder(kept, tmp_path):
    failures, skipped = expected.check(kept, write_tables(tmp_path / "t1", dense_eq=61.0, gt=90.0))
    assert len(failures) == 3  # dense ToolEq at both levels, the share
    failures, skipped = expected.check(kept,
                                       write_tables(tmp_path / "t2", dense_eq=61.0, annotation="offline-x"))
    assert failures == [] and skipped == len(kept[kept.annotation.notna()])


def test_a_table_not_written_fails_a_whole_run_and_is_skipped_by_a_partial_one(kept, tmp_path):
    tables = write_tables(tmp_path / "t1")
    for suffix in ("csv", "json"):
        (tables / f"{expected.SHARES}.{suffix}").unlink()  # `--only 04`: notebook 06 did not run
    failures, _ = expected.check(kept, tables)
    assert failures == [f"{expected.SHARES}: not written by this run"]
    failures, skipped = expected.check(kept, tables, partial=True)
    assert failures == [] and skipped == len(kept[kept.table == expected.SHARES])
    assert expected.check(kept, write_tables(tmp_path / "t2"), partial=True) == ([], 0)


def test_a_missing_row_fails(kept, tmp_path):
    tables = write_tables(tmp_path / "t1")
    frame = pd.read_csv(tables / f"{expected.TABLE2}.csv")
    frame[frame.retriever != "bm25"].to_csv(tables / f"{expected.TABLE2}.csv", index=False)
    failures, _ = expected.check(kept, tables)
    assert failures and all("no single row" in f for f in failures)


def test_the_kept_file_is_well_formed():
    kept = expected.load()
    assert list(kept.columns) == list(expected.COLUMNS) and len(kept) > 0
    assert (kept.tolerance >= 0).all()
    free = kept[kept.annotation.isna()]
    assert set(free.column) <= {"queries", "one_to_one", "ours (dense:minilm)"}
    assert not free.row.str.contains("subquery_oracle").any()
