"""Expected numbers of ``make paper``, kept as data beside the command that made them
(``data/expected/notebooks_smoke.csv`` for ``make paper SMOKE=1``, ``data/expected/paper_default.csv`` for
``make paper``).

Each expected value names its table (a CSV the run writes), its row (key columns), its column, a tolerance
(percentage points) and, for a number that depends on the annotation judge, the annotation folder it was made
with (the folder's name covers the judge, its settings and the stages' code). Judge-independent numbers
(one-to-one at query level, query counts) are always checked; judge-dependent ones only against the same
annotation folder. ``make paper`` grades every number as ``paper-check`` does (OK within the tolerance,
OKISH within twice it, FAIL beyond; SKIPPED when the run used another annotation folder).

Regenerate after a deliberate change, from a run's tables folder::

    python -m toolex.report.expected smoke|default TABLES_FOLDER
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

FILES = {"smoke": "notebooks_smoke.csv", "default": "paper_default.csv"}
FILE = FILES["smoke"]
#: The command that makes each setting's numbers (kept in every row).
COMMANDS = {"smoke": "make paper SMOKE=1", "default": "make paper"}
COLUMNS = ("table", "row", "column", "value", "tolerance", "annotation")
TABLE2 = "04_table2_ours_long"
SHARES = "06_rank_cdf_shares"
TABLE1 = "03_table1_ours_by_category"
ILLUSION = "05_illusion_ours"
TABLE3 = "07_table3"
HELDOUT = "04_table2_heldout_long"
TABLE1_COLUMNS = ("queries", "sub_queries", "avg_items_per_sub_query", "avg_combinations_per_query",
                  "sub_queries_with_extra_equivalent_pct", "queries_with_extra_combination_pct")
ILLUSION_COLUMNS = ("gain one-to-one (Tool-DE), points", "gain ToolEq, points", "illusion share, %",
                    "held-out queries")
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


def collect(tables: Path, setting: str = "smoke") -> Iterator[Expected]:
    """The expected values of a run's tables folder (``default`` also keeps Table 1, Figure 3's pairs and
    Table 3)."""
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
        if setting == "default" and hasattr(r, "delta"):
            yield Expected(TABLE2, key, "delta", float(r.delta), NOISY, annotation)
    shares = pd.read_csv(tables / f"{SHARES}.csv")  # a row per source, a column per statistic
    for row in shares[shares["source"].str.startswith("ours")].to_dict(orient="records"):
        for statistic, value in row.items():
            if statistic == "source":
                continue
            free = statistic == "queries"
            yield Expected(SHARES, row_key({"source": row["source"]}), statistic, float(value),
                           0.0 if free else NOISY, "" if free else annotation_of(tables, SHARES))
    if setting == "default":
        yield from _more(tables)


def _more(tables: Path) -> Iterator[Expected]:
    """Table 1 per category, Figure 3's pairs and Table 3, where the run wrote them."""
    if (tables / f"{TABLE1}.csv").exists():
        annotation = annotation_of(tables, TABLE1)
        for row in pd.read_csv(tables / f"{TABLE1}.csv").to_dict(orient="records"):
            for column in TABLE1_COLUMNS:
                free = column in ("queries", "sub_queries")
                yield Expected(TABLE1, row_key({"group": row["group"]}), column, float(row[column]),
                               0.0 if free else EXACT, "" if free else annotation)
    if (tables / f"{HELDOUT}.csv").exists():
        annotation = annotation_of(tables, HELDOUT)
        for r in pd.read_csv(tables / f"{HELDOUT}.csv").itertuples(index=False):
            key = row_key({"level": r.level, "retriever": r.retriever, "category": r.category,
                           "metric": r.metric})
            for column in ("queries", "one_to_one", "tooleq", "delta"):
                yield Expected(HELDOUT, key, column, float(getattr(r, column)), 0.0 if column == "queries"
                               else NOISY, annotation)
    if (tables / f"{ILLUSION}.csv").exists():
        annotation = annotation_of(tables, ILLUSION)
        for row in pd.read_csv(tables / f"{ILLUSION}.csv").to_dict(orient="records"):
            key = row_key({"pair": row["pair"]})
            for column, value in row.items():
                if column in ILLUSION_COLUMNS and pd.notna(value):
                    yield Expected(ILLUSION, key, column, float(value),
                                   0.0 if column == "held-out queries" else NOISY, annotation)
                elif isinstance(value, str) and column.endswith("CI"):  # "[low, high]" or "n/a ..."
                    bounds = [float(b) for b in value.strip("[]").split(",")] if value.startswith("[") else []
                    for end, bound in zip(("low", "high"), bounds):
                        yield Expected(ILLUSION, key, f"{column} {end}", bound, NOISY, annotation)
    if (tables / f"{TABLE3}.csv").exists():
        frame = pd.read_csv(tables / f"{TABLE3}.csv")
        keys = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        for row in frame.to_dict(orient="records"):
            for column, value in row.items():
                if column not in keys and pd.notna(value):
                    yield Expected(TABLE3, row_key({k: row[k] for k in keys}), column, float(value), NOISY,
                                   annotation_of(tables, TABLE3))


def check(expected: pd.DataFrame, tables: Path, partial: bool = False) -> tuple[list[str], int]:
    """Differences beyond tolerance (one line each) and the number of values not checked: judge-dependent
    ones of a run on another annotation folder and, with ``partial`` (only some notebooks ran), those of a
    table the run did not write; without it such a table is a failure."""
    written = [t for t in expected.table.unique() if (tables / f"{t}.csv").exists()]
    annotation = {t: annotation_of(tables, t) for t in written}
    frames = {t: pd.read_csv(tables / f"{t}.csv") for t in written}
    failures, skipped = [], 0
    for table in (t for t in expected.table.unique() if t not in written and not partial):
        failures.append(f"{table}: not written by this run")
    for e in expected.fillna({"annotation": ""}).itertuples(index=False):
        if e.table not in written:
            skipped += partial
            continue
        if e.annotation and e.annotation != annotation[e.table]:
            skipped += 1
            continue
        rows = select(frames[e.table], e.row)
        got = _value(rows, e.column)
        if got is None:
            failures.append(f"{e.table}: no single row {e.row} with column {e.column!r}")
            continue
        if not abs(got - e.value) <= e.tolerance + 1e-9:
            failures.append(f"{e.table} {e.row} {e.column}: got {got:.4f}, expected {e.value:.4f} ± "
                            f"{e.tolerance}")
    return failures, skipped


def _value(rows: pd.DataFrame, column: str) -> float | None:
    """The number in ``column`` of a single row; ``<interval column> low|high`` reads a bound of a
    ``[low, high]`` cell."""
    if len(rows) != 1:
        return None
    if column in rows.columns:
        return float(rows[column].iloc[0])
    name, _, end = column.rpartition(" ")
    cell = rows[name].iloc[0] if name in rows.columns and end in ("low", "high") else None
    if not isinstance(cell, str) or not cell.startswith("["):
        return None
    low, high = (float(b) for b in cell.strip("[]").split(","))
    return low if end == "low" else high


def load(setting: str = "smoke") -> pd.DataFrame:
    return pd.read_csv(paths.expected_dir() / FILES[setting], dtype={"annotation": str})


def write(tables: Path, out: Path | None = None, setting: str = "smoke") -> Path:
    target = out or paths.expected_dir() / FILES[setting]
    frame = pd.DataFrame([e.__dict__ for e in collect(tables, setting)], columns=list(COLUMNS))
    if setting != "smoke":  # the smoke file keeps its columns; the others name the command beside each number
        frame["command"] = COMMANDS[setting]
    with atomic_writer(target) as handle:
        frame.to_csv(handle, index=False, float_format="%.4f")
    return target


def grade(setting: str, tables: Path, partial: bool = False) -> dict[str, int | list[str]]:
    """Every kept number of ``setting`` against a run's tables: counts of OK, OKISH (within twice the
    tolerance), FAIL and SKIPPED (judge-dependent, another annotation folder), and the lines that are not
    OK."""
    kept = load(setting)
    strict, skipped = check(kept, tables, partial)
    loose, _ = check(kept.assign(tolerance=2 * kept["tolerance"] + 1e-9), tables, partial)
    judged = len(kept) - skipped
    return {"OK": judged - len(strict), "OKISH": len(strict) - len(loose), "FAIL": len(loose),
            "SKIPPED": skipped, "not OK": strict}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] not in FILES:
        print("usage: python -m toolex.report.expected smoke|default TABLES_FOLDER", file=sys.stderr)
        return 2
    print(write(Path(args[1]), setting=args[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
