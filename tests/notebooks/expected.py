"""Expected numbers of the notebooks' smoke run, kept as data (``data/expected/notebooks_smoke.csv``).

Each expected value names its table (a CSV the smoke run writes), its row (key columns), its column, a
tolerance (percentage points) and, for a number that depends on the annotation judge, the annotation folder it
was made with (the folder's name covers the judge, its settings and the stages' code). Judge-independent
numbers (one-to-one at query level, query counts) are always checked; judge-dependent ones only against the
same annotation folder.

Regenerate after a deliberate change, from a smoke run's tables folder::

    python -m tests.notebooks.expected TABLES_FOLDER
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from toolex import paths
from toolex.io.atomic import atomic_writer

FILE = "notebooks_smoke.csv"
COLUMNS = ("table", "row", "column", "value", "tolerance", "annotation")
TABLE2 = "04_table2_ours_long"
SHARES = "06_rank_cdf_shares"
#: One-to-one scores of BM25 are exact; a dense encoder's float noise on CPUs may move a near-tie.
EXACT, NOISY = 0.01, 0.5


@dataclass(frozen=True)
class Expected:
    table: str
    row: str  # key columns as ``column=value;column=value``
    column: str
    value: float
    tolerance: float
    annotation: str = ""  # empty: the number does not depend on the judge


def annotation_of(tables: Path, table: str = TABLE2) -> str:
    """The annotation folder (its name) a table's provenance records."""
    record = json.loads((tables / f"{table}.json").read_text(encoding="utf-8"))
    return Path(record.get("annotation_folder") or "").name


def row_key(values: dict[str, object]) -> str:
    return ";".join(f"{k}={v}" for k, v in values.items())


def select(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """The rows of ``frame`` whose key columns hold the values of ``key``."""
    mask = pd.Series(True, index=frame.index)
    for part in key.split(";"):
        column, value = part.split("=", 1)
        mask &= frame[column].astype(str) == value
    return frame[mask]


def collect(tables: Path) -> Iterator[Expected]:
    """The expected values of a smoke run's tables folder."""
    annotation = annotation_of(tables)
    table2 = pd.read_csv(tables / f"{TABLE2}.csv")
    for r in table2.itertuples(index=False):
        key = row_key({"level": r.level, "retriever": r.retriever, "category": r.category,
                       "metric": r.metric})
        free = r.level == "query"  # the sub-query level's run follows Stage 1 of the judge
        tolerance = EXACT if r.retriever == "bm25" and free else NOISY
        yield Expected(TABLE2, key, "queries", float(r.queries), 0.0, "" if free else annotation)
        yield Expected(TABLE2, key, "one_to_one", float(r.one_to_one), tolerance, "" if free else annotation)
        yield Expected(TABLE2, key, "tooleq", float(r.tooleq), max(tolerance, NOISY), annotation)
    shares = pd.read_csv(tables / f"{SHARES}.csv")  # a row per source, a column per statistic
    for row in shares[shares["source"].str.startswith("ours")].to_dict(orient="records"):
        for statistic, value in row.items():
            if statistic == "source":
                continue
            free = statistic == "queries"
            yield Expected(SHARES, row_key({"source": row["source"]}), statistic, float(value),
                           0.0 if free else NOISY, "" if free else annotation_of(tables, SHARES))


def check(expected: pd.DataFrame, tables: Path) -> tuple[list[str], int]:
    """Differences beyond tolerance (one line each) and the number of judge-dependent values not checked
    because the run used another annotation folder."""
    annotation = {t: annotation_of(tables, t) for t in expected.table.unique()}
    frames = {t: pd.read_csv(tables / f"{t}.csv") for t in expected.table.unique()}
    failures, skipped = [], 0
    for e in expected.fillna({"annotation": ""}).itertuples(index=False):
        if e.annotation and e.annotation != annotation[e.table]:
            skipped += 1
            continue
        rows = select(frames[e.table], e.row)
        if len(rows) != 1 or e.column not in rows.columns:
            failures.append(f"{e.table}: no single row {e.row} with column {e.column!r}")
            continue
        got = float(rows[e.column].iloc[0])
        if not abs(got - e.value) <= e.tolerance + 1e-9:
            failures.append(f"{e.table} {e.row} {e.column}: got {got:.4f}, expected {e.value:.4f} ± "
                            f"{e.tolerance}")
    return failures, skipped


def load() -> pd.DataFrame:
    return pd.read_csv(paths.expected_dir() / FILE, dtype={"annotation": str})


def write(tables: Path, out: Path | None = None) -> Path:
    target = out or paths.expected_dir() / FILE
    frame = pd.DataFrame([e.__dict__ for e in collect(tables)], columns=list(COLUMNS))
    with atomic_writer(target) as handle:
        frame.to_csv(handle, index=False, float_format="%.4f")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m tests.notebooks.expected TABLES_FOLDER", file=sys.stderr)
        return 2
    print(write(Path(args[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
