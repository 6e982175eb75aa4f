"""Re-derive the paper's headline claims from its tables and grade them OK / OKISH / FAIL.

The claims are rows of data (``checks.yaml`` beside this module): each names the stated value (a number of the
paper's ``claims.yaml`` or Table 1), a named operation of :mod:`toolex.paper.operations` that derives it from
Tables 1-3, and the tolerance. Grading (as Pyserini's two-click reproductions do): OK when the derived value
rounds to the stated one (within half a unit of the stated value's last digit), OKISH within the tolerance
(0.15 pp by default), FAIL beyond. Claims the paper itself gets wrong are listed in ``claims.yaml`` under
``known_inconsistencies_in_paper``; they are shown as KNOWN with both numbers, not hidden and not failed.
Claims that no table holds (figure-only numbers, downstream results) are shown as STATED.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from toolex.errors import InputError
from toolex.paper.operations import OPERATIONS, FineTuned, RowError, Tables, without_fine_tuned
from toolex.paper.tables import claims_file, load_claims, load_table1, load_table2, load_table3

STATUSES = ("OK", "OKISH", "FAIL", "KNOWN", "STATED")
STATED = "STATED"
ROW_FIELDS = ("id", "source", "stated", "op", "note", "known", "tolerance", "format")


@dataclass(frozen=True)
class Check:
    """One claim: the stated value, the value derived from the tables and the grade."""

    claim: str
    stated: float | str
    derived: float | None
    status: str
    note: str = ""

    def line(self) -> str:
        derived = "—" if self.derived is None else f"{self.derived:.3f}"
        return (
            f"{self.status:<7} {self.claim:<62} stated {self.stated!s:>8}  derived {derived:>8}  {self.note}"
        )


@dataclass(frozen=True)
class ClaimRow:
    """One row of ``checks.yaml``: how one claim is stated, derived and graded."""

    id: str
    source: str
    stated: Any
    op: str
    args: Mapping[str, Any]
    note: str = ""
    known: str | None = None
    tolerance: float | None = None
    format: str = "{}"


@dataclass(frozen=True)
class ClaimTable:
    """The parsed ``checks.yaml``: default tolerance, Table 2 defaults, fine-tuned pairs and the rows."""

    path: Path
    tolerance: float
    table2_defaults: Mapping[str, str]
    fine_tuned: Mapping[str, FineTuned]
    rows: Sequence[ClaimRow]


def grade(derived: float, stated: float, tolerance: float = 0.15) -> str:
    """OK within half a unit of the stated value's last digit, OKISH within ``tolerance``, else FAIL."""
    exponent = Decimal(repr(float(stated))).normalize().as_tuple().exponent
    half_unit = 0.5 * 10.0 ** min(0, int(exponent))
    difference = abs(derived - stated)
    if difference <= half_unit + 1e-9:
        return "OK"
    return "OKISH" if difference <= tolerance + 1e-9 else "FAIL"


def default_table_path() -> Path:
    """The claim table shipped with the package (``toolex/paper/checks.yaml``)."""
    return Path(str(resources.files("toolex.paper") / "checks.yaml"))


def _row(raw: Any, index: int, path: Path) -> ClaimRow:
    if not isinstance(raw, Mapping) or not raw.get("id") or not raw.get("op") or "stated" not in raw:
        raise InputError(path, "a claim row needs id, op and stated", index)
    op = str(raw["op"])
    if op != STATED and op not in OPERATIONS:
        raise InputError(
            path, f"unknown operation {op!r} (one of {', '.join(OPERATIONS)}, {STATED})", raw["id"]
        )
    args = {k: v for k, v in raw.items() if k not in ROW_FIELDS}
    if op == STATED and args:
        raise InputError(path, f"a {STATED} row takes no arguments ({', '.join(args)})", raw["id"])
    try:
        tolerance = None if raw.get("tolerance") is None else float(raw["tolerance"])
    except (TypeError, ValueError):
        raise InputError(path, f"tolerance {raw['tolerance']!r} is not a number", raw["id"]) from None
    return ClaimRow(
        str(raw["id"]),
        str(raw.get("source", "")),
        raw["stated"],
        op,
        args,
        str(raw.get("note", "")),
        None if raw.get("known") is None else str(raw["known"]),
        tolerance,
        str(raw.get("format", "{}")),
    )


def load_claim_table(path: str | Path | None = None) -> ClaimTable:
    """Read and check a claim table (default: the packaged ``checks.yaml``)."""
    path = Path(path) if path else default_table_path()
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except OSError as exc:
        raise InputError(path, f"claim table unreadable ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise InputError(path, f"unreadable YAML ({exc})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("claims"), list):
        raise InputError(path, "a claim table maps 'claims' to a list of rows")
    try:
        pairs = {
            str(size): FineTuned(str(p["base"]), str(p["tuned"])) for size, p in data["fine_tuned"].items()
        }
        tolerance = float(data.get("tolerance", 0.15))
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise InputError(
            path, f"fine_tuned maps a size to base and tuned; tolerance is a number ({exc})"
        ) from None
    rows = [_row(raw, i, path) for i, raw in enumerate(data["claims"])]
    duplicates = sorted({r.id for r in rows if sum(s.id == r.id for s in rows) > 1})
    if duplicates:
        raise InputError(path, f"claim id(s) given twice: {', '.join(duplicates)}")
    return ClaimTable(path, tolerance, dict(data.get("table2_defaults") or {}), pairs, rows)


@functools.lru_cache(maxsize=1)
def _packaged_pairs() -> Mapping[str, FineTuned]:
    return load_claim_table().fine_tuned


def fine_tuned_pairs() -> dict[str, tuple[str, str]]:
    """The paper's fine-tuned retrievers by size: ``{size: (base, fine_tuned)}`` (from ``checks.yaml``)."""
    return {size: (pair.base, pair.tuned) for size, pair in _packaged_pairs().items()}


#: The measure of the paper's claims (its Table 2 rows, its headline NDCG at cut-off 10).
PAPER_METRIC = "ndcg@10"


def category_means(table2: pd.DataFrame, level: str = "query", metric: str = PAPER_METRIC) -> pd.DataFrame:
    """Per model: Tool-DE and ToolEq averaged over Code / Web / Customized, and their difference."""
    rows = table2[(table2.level == level) & (table2.metric == metric)]
    means = rows.groupby("model")[["tool_de", "tooleq"]].mean()
    means["delta"] = means.tooleq - means.tool_de
    return means


def base_models(table2: pd.DataFrame) -> list[str]:
    """The base retrievers: every model but the fine-tuned ones of ``checks.yaml``."""
    return without_fine_tuned(table2, _packaged_pairs())


def illusion_share(tool_de_gain: float, tooleq_gain: float) -> float:
    """The share of a fine-tuning gain that is an evaluation artifact: ``1 - ToolEq gain / Tool-DE gain``."""
    return 1.0 - tooleq_gain / tool_de_gain


def finetuning_gains(
    table2: pd.DataFrame, level: str = "query", metric: str = PAPER_METRIC, category: str | None = None
) -> pd.DataFrame:
    """Gain of each fine-tuned model over its base on Tool-DE and ToolEq, and the illusion share (percent)."""
    rows = table2[(table2.level == level) & (table2.metric == metric)]
    if category is not None:
        rows = rows[rows.category == category]
    means = rows.groupby("model")[["tool_de", "tooleq"]].mean()
    out = []
    for size, (base, tuned) in fine_tuned_pairs().items():
        gain = means.loc[tuned] - means.loc[base]
        out.append(
            {
                "size": size,
                "base": base,
                "fine_tuned": tuned,
                "tool_de_gain": gain.tool_de,
                "tooleq_gain": gain.tooleq,
                "illusion_share_pct": 100 * illusion_share(gain.tool_de, gain.tooleq),
            }
        )
    return pd.DataFrame(out).set_index("size")


def _walk(data: Any, reference: str) -> Any:
    value = data
    for part in reference.split("/"):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise KeyError(reference)
    return value


@dataclass(frozen=True)
class _Sources:
    """What a row's references point into: the paper's claims.yaml and Table 1."""

    claims: Mapping[str, Any]
    claims_path: Path
    table1: pd.DataFrame

    def resolve(self, value: Any, row: str) -> Any:
        """``claims:a/b/0`` and ``table1:column/statistic`` replaced by the value they name, others kept."""
        if isinstance(value, Mapping):
            return {k: self.resolve(v, row) for k, v in value.items()}
        if not isinstance(value, str) or ":" not in value:
            return value
        scheme, _, reference = value.partition(":")
        if scheme == "claims":
            try:
                return _walk(self.claims, reference)
            except KeyError:
                raise InputError(
                    self.claims_path, f"no value at {reference} (claim table row {row})"
                ) from None
        if scheme == "table1":
            column, _, statistic = reference.partition("/")
            try:
                return float(self.table1.loc[statistic, column])
            except KeyError:
                raise InputError(
                    None, f"Table 1 has no {column}/{statistic} (claim table row {row})"
                ) from None
        return value


def _fill(template: str, values: Mapping[str, Any], what: str, *positional: Any) -> str:
    try:
        return template.format(*positional, **values)
    except (KeyError, IndexError, ValueError) as exc:
        raise RowError(f"{what} {template!r} cannot be filled ({exc!r})") from None


def evaluate_row(row: ClaimRow, tables: Tables, sources: _Sources, tolerance: float) -> Check:
    """Derive and grade one claim row (tolerance: the row's own, else ``tolerance``)."""
    stated = sources.resolve(row.stated, row.id)
    args = sources.resolve(row.args, row.id)
    claim = _fill(row.id, args, "id")
    if row.op == STATED:
        return Check(
            claim,
            stated if row.format == "{}" else _fill(row.format, {}, "format", stated),
            None,
            STATED,
            row.note,
        )
    if isinstance(stated, bool) or not isinstance(stated, (int, float)):
        raise RowError(f"stated value {stated!r} is not a number")
    derived = OPERATIONS[row.op](tables, args)
    note = _fill(row.note, {**args, **derived.extras}, "note")
    status = grade(derived.value, stated, row.tolerance if row.tolerance is not None else tolerance)
    if derived.failure:
        status, note = "FAIL", f"{note}, {derived.failure}" if note else derived.failure
    elif status != "OK" and row.known:
        known = sources.claims.get("known_inconsistencies_in_paper") or []
        if any(row.known in str(k) and str(stated) in str(k) for k in known):
            status = "KNOWN"
    return Check(claim, stated, derived.value, status, note)


def check_claims(
    folder: str | Path | None = None, tolerance: float | None = None, table: str | Path | None = None
) -> list[Check]:
    """Every row of the claim table (default: the packaged one) re-derived from Tables 1–3 and graded.

    ``tolerance`` replaces the table's default OKISH tolerance (a row's own tolerance still wins).
    """
    claim_table = load_claim_table(table)
    t1 = load_table1(folder)
    tables = Tables(
        t1, load_table2(folder), load_table3(folder), claim_table.fine_tuned, claim_table.table2_defaults
    )
    sources = _Sources(load_claims(folder), claims_file(folder), t1)
    default = claim_table.tolerance if tolerance is None else tolerance
    checks = []
    for row in claim_table.rows:
        try:
            checks.append(evaluate_row(row, tables, sources, default))
        except RowError as exc:
            raise InputError(claim_table.path, str(exc), row.id) from None
    return checks
