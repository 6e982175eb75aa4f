"""The named operations a claim row (``checks.yaml``) uses to derive its value from the paper's tables.

Each operation takes the tables and the row's arguments and returns a :class:`Derived`: the value, extras
the row's note may quote, and, when the tables contradict the claim beyond its number, why it fails. An
argument an operation does not know, or a selection that matches no row of a table, raises :class:`RowError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

SIDES = ("tool_de", "tooleq", "delta")
TABLE2_FILTERS = ("level", "model", "category", "metric")
ALL = "*"


class RowError(ValueError):
    """A claim row that cannot be evaluated (unknown argument, empty selection, bad value)."""


@dataclass(frozen=True)
class FineTuned:
    """A fine-tuned retriever and the base model it was trained from."""

    base: str
    tuned: str


@dataclass(frozen=True)
class Tables:
    """The paper's Tables 1-3, the Table 2 defaults and the fine-tuned pairs, as the operations see them."""

    table1: pd.DataFrame
    table2: pd.DataFrame
    table3: pd.DataFrame
    fine_tuned: Mapping[str, FineTuned]
    table2_defaults: Mapping[str, str] = field(default_factory=dict)

    def base_models(self) -> list[str]:
        """Every model of Table 2 but the fine-tuned ones, sorted."""
        return without_fine_tuned(self.table2, self.fine_tuned)


@dataclass(frozen=True)
class Derived:
    """An operation's result: the value, extras a note may quote and a contradiction (a FAIL) if any."""

    value: float
    extras: Mapping[str, Any] = field(default_factory=dict)
    failure: str | None = None


def without_fine_tuned(table2: pd.DataFrame, fine_tuned: Mapping[str, FineTuned]) -> list[str]:
    """The models of Table 2 that are none of the fine-tuned ones, sorted."""
    tuned = {pair.tuned for pair in fine_tuned.values()}
    return sorted(str(m) for m in table2.model.unique() if m not in tuned)


Operation = Callable[[Tables, Mapping[str, Any]], Derived]


def _args(args: Mapping[str, Any], required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    unknown = sorted(set(args) - set(required) - set(optional))
    missing = [a for a in required if a not in args]
    if unknown:
        raise RowError(f"unknown argument(s) {', '.join(unknown)}")
    if missing:
        raise RowError(f"missing argument(s) {', '.join(missing)}")


def _side(args: Mapping[str, Any]) -> str:
    side = str(args["side"])
    if side not in SIDES:
        raise RowError(f"side {side!r} is not one of {', '.join(SIDES)}")
    return side


def select(tables: Tables, filters: Mapping[str, Any]) -> pd.DataFrame:
    """The Table 2 rows matching ``filters`` (level and metric default to the table's; ``*`` is all)."""
    merged = {**tables.table2_defaults, **{k: v for k, v in filters.items() if k in TABLE2_FILTERS}}
    rows = tables.table2
    for column, value in merged.items():
        if value is not None and value != ALL:
            rows = rows[rows[column] == value]
    if rows.empty:
        raise RowError(f"no Table 2 row matches {merged}")
    return rows


def side_means(rows: pd.DataFrame, by: str) -> pd.Series:
    """Per value of ``by``: Tool-DE, ToolEq and their difference (ToolEq - Tool-DE) of the mean row."""
    means = rows.groupby(by)[["tool_de", "tooleq"]].mean()
    means["delta"] = means.tooleq - means.tool_de
    return means


def _mean(tables: Tables, filters: Mapping[str, Any], side: str) -> float:
    """``side`` of the mean selected row; a model's mean is taken among every model's, as Table 2 is read."""
    model = filters.get("model")
    if model is None or model == ALL:
        return float(side_means(select(tables, filters).assign(selection=0), "selection")[side].iloc[0])
    select(tables, filters)  # the model has rows
    means = side_means(select(tables, {k: v for k, v in filters.items() if k != "model"}), "model")
    return float(means.loc[model, side])


def _model_means(tables: Tables, args: Mapping[str, Any], side: str) -> pd.Series:
    """Per base model: ``side`` of its mean over the selected rows (every category unless one is given)."""
    rows = select(tables, {k: v for k, v in args.items() if k != "model"})
    return side_means(rows, "model")[side][tables.base_models()]


def _pair(tables: Tables, args: Mapping[str, Any]) -> FineTuned:
    size = str(args["pair"])
    if size not in tables.fine_tuned:
        raise RowError(f"pair {size!r} is not one of {', '.join(tables.fine_tuned)}")
    return tables.fine_tuned[size]


def ratio(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 1: ``numerator / denominator`` of one column (an average from its counts)."""
    _args(args, ("column", "numerator", "denominator"))
    try:
        stats = tables.table1[args["column"]]
        return Derived(float(stats[args["numerator"]] / stats[args["denominator"]]))
    except KeyError as exc:
        raise RowError(f"Table 1 has no {exc}") from None


def mean(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 2: ``side`` averaged over the selected rows (one cell when every filter is given)."""
    _args(args, ("side",), TABLE2_FILTERS)
    return Derived(_mean(tables, args, _side(args)))


def gain(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 2: the mean of the selection minus that of the ``baseline`` selection (the filters it
    changes)."""
    _args(args, ("side", "baseline"), TABLE2_FILTERS)
    baseline = args["baseline"]
    if not isinstance(baseline, Mapping) or set(baseline) - set(TABLE2_FILTERS):
        raise RowError(f"baseline must map some of {', '.join(TABLE2_FILTERS)} to values")
    side = _side(args)
    return Derived(_mean(tables, args, side) - _mean(tables, {**args, **baseline}, side))


def _finetuning(tables: Tables, args: Mapping[str, Any], side: str) -> float:
    pair = _pair(tables, args)
    filters = {k: v for k, v in args.items() if k in TABLE2_FILTERS}
    return _mean(tables, {**filters, "model": pair.tuned}, side) - _mean(
        tables, {**filters, "model": pair.base}, side
    )


def finetuning_gain(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 2: a fine-tuned model minus its base (``pair`` names them) on ``side``."""
    _args(args, ("pair", "side"), ("level", "category", "metric"))
    return Derived(_finetuning(tables, args, _side(args)))


def illusion_share(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 2: ``100 * (1 - ToolEq gain / Tool-DE gain)`` of a fine-tuned pair, from the gains rounded to
    ``decimals`` as printed (extra ``unrounded``: the same share from the unrounded gains)."""
    _args(args, ("pair",), ("level", "category", "metric", "decimals"))
    de, eq = _finetuning(tables, args, "tool_de"), _finetuning(tables, args, "tooleq")
    decimals = args.get("decimals")
    printed = (de, eq) if decimals is None else (round(de, int(decimals)), round(eq, int(decimals)))
    if not printed[0]:
        raise RowError("the Tool-DE gain is zero; the share is undefined")
    return Derived(100 * (1.0 - printed[1] / printed[0]), {"unrounded": 100 * (1.0 - eq / de)})


def extreme(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 2: the stated ``model``'s mean ``side`` over the base models; fails unless it is their ``end``
    (min or max). Extras: ``pick`` (the model that is) and ``n`` (how many base models)."""
    _args(args, ("end", "model", "side"), ("level", "category", "metric"))
    end, model = str(args["end"]), str(args["model"])
    if end not in ("min", "max"):
        raise RowError(f"end {end!r} is neither min nor max")
    means = _model_means(tables, args, _side(args))
    if model not in means.index:
        raise RowError(f"{model} is not a base model of Table 2")
    pick = str(means.idxmin() if end == "min" else means.idxmax())
    return Derived(
        float(means[model]), {"pick": pick, "n": len(means)}, None if pick == model else f"stated {model}"
    )


def base_mean(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 2: the mean over the base models of each one's mean ``side``. Extra ``n``: how many."""
    _args(args, ("side",), ("level", "category", "metric"))
    means = _model_means(tables, args, _side(args))
    return Derived(float(means.mean()), {"n": len(means)})


def table3(tables: Tables, args: Mapping[str, Any]) -> Derived:
    """Table 3: one cell (``model``, ``metric``, ``column`` skillret or skilleq)."""
    _args(args, ("model", "metric", "column"))
    t3 = tables.table3
    rows = t3[(t3.model == args["model"]) & (t3.metric == args["metric"])]
    if rows.empty or args["column"] not in ("skillret", "skilleq"):
        raise RowError(f"Table 3 has no cell {args['model']} {args['metric']} {args['column']}")
    return Derived(float(rows[args["column"]].iloc[0]))


OPERATIONS: dict[str, Operation] = {
    "ratio": ratio,
    "mean": mean,
    "gain": gain,
    "finetuning_gain": finetuning_gain,
    "illusion_share": illusion_share,
    "extreme": extreme,
    "base_mean": base_mean,
    "table3": table3,
}
