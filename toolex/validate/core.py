"""One call from files or records to a :class:`~toolex.validate.result.ValidationResult`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from toolex.data.records import Annotation
from toolex.errors import InputError, ToolexError
from toolex.io.annotations import read_annotations
from toolex.metrics import RunArrays
from toolex.metrics.measures import HEADLINE
from toolex.validate.credit import credit_table, score_runs
from toolex.validate.expansion import expansion_frame, expansion_summary
from toolex.validate.gold import GoldRecord, read_gold
from toolex.validate.pairing import pair
from toolex.validate.result import ValidationResult

RunLike = RunArrays | Mapping[str, Mapping[str, float]] | str | Path


def load_run(run: RunLike, name: str) -> RunArrays:
    """A run as arrays, from a TREC file or ``{query: {tool: score}}``; an empty run is an error."""
    if isinstance(run, (str, Path)):
        arrays = RunArrays.from_trec(run)
        where: str | Path | None = run
    else:
        arrays = run if isinstance(run, RunArrays) else RunArrays.from_dict(run)
        where = None
    if not arrays.query_ids or not len(arrays.rows):
        raise InputError(where, f"run {name!r} ranks no tools (empty run)")
    return arrays


def validate(
    gold: Sequence[GoldRecord] | str | Path,
    annotations: Sequence[Annotation] | str | Path,
    runs: Mapping[str, RunLike] | None = None,
    k: int = HEADLINE.k,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> ValidationResult:
    """Score ``annotations`` against ``gold`` (records or file paths) and, with ``runs`` (name → run), the
    credit they give each run at cut-off ``k``.

    >>> from toolex.data.records import Annotation
    >>> from toolex.validate.gold import GoldRecord
    >>> gold = [GoldRecord("q1", ("a",), (("a",), ("b",)))]
    >>> ours = [Annotation("q1", "web", ("a",), (("a",), ("b",)))]
    >>> validate(gold, ours, {"bm25": {"q1": {"b": 2.0, "a": 1.0}}}, k=1).table()["recovered"].tolist()
    [1.0, 1.0, 1.0]
    """
    if k < 1:
        raise ToolexError(f"K must be positive, got {k}")
    if bootstrap < 0:
        raise ToolexError(f"the number of bootstrap resamples must be 0 or more, got {bootstrap}")
    if not 0 < level < 1:
        raise ToolexError(f"the interval level must lie strictly between 0 and 1, got {level}")
    gold_path = gold if isinstance(gold, (str, Path)) else None
    ours_path = annotations if isinstance(annotations, (str, Path)) else None
    gold_records = read_gold(gold) if isinstance(gold, (str, Path)) else list(gold)
    ours = read_annotations(annotations) if isinstance(annotations, (str, Path)) else list(annotations)
    paired = pair(gold_records, ours, gold_path, ours_path)
    expansion = expansion_frame(paired)
    arrays = {name: load_run(run, name) for name, run in (runs or {}).items()}
    per_query, missing = score_runs(paired, arrays, k)
    credit = credit_table(per_query, missing, bootstrap, seed, level)
    settings = {"bootstrap": bootstrap, "seed": seed, "level": level, "runs": list(arrays)}
    return ValidationResult(k, expansion, expansion_summary(expansion), per_query, credit,
                            len(paired.missing),
                            paired.ignored, settings)
