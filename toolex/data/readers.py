"""Reading record files (JSON list, JSON lines, Parquet, TSV) with errors that name the file and record."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from toolex.errors import InputError, refuse_folder

TABLE_SUFFIXES = (".json", ".jsonl", ".jsonl.gz", ".parquet")
T = TypeVar("T")


def read_json(path: str | Path, what: str = "file") -> Any:
    """One JSON document; a missing file or bad JSON is one line naming the file."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, f"{what} not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason})") from None


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """All records of a ``.json`` (a list), ``.jsonl`` / ``.jsonl.gz`` or ``.parquet`` file."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found")
    name = path.name
    if name.endswith(".parquet"):
        import pandas as pd

        try:
            return pd.read_parquet(path).to_dict(orient="records")
        except Exception as exc:  # pragma: no cover - depends on pyarrow
            raise InputError(path, f"unreadable Parquet ({exc})") from None
    if name.endswith((".jsonl", ".jsonl.gz")):
        return list(iter_jsonl(path))
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError(path,
                         f"unreadable JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason})") from None
    if isinstance(data, dict) and "data" in data and isinstance(data["data"], list):
        data = data["data"]
    if not isinstance(data, list):
        raise InputError(path, f"expected a JSON list of records, found {type(data).__name__}")
    for i, record in enumerate(data):
        if not isinstance(record, dict):
            raise InputError(path, f"expected an object, found {type(record).__name__}", record=i)
    return data


def iter_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    """Records of a JSON-lines file (gzip when the name ends in ``.gz``); blank lines are skipped."""
    for _, record in iter_jsonl_numbered(path):
        yield record


def iter_jsonl_numbered(path: str | Path, what: str = "file") -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of a JSON-lines file, for errors that point at the line."""
    path = Path(path)
    refuse_folder(path, what)
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(path, f"unreadable JSON ({exc.msg})", record=f"line {lineno}") from None
                if not isinstance(record, dict):
                    raise InputError(path, "expected a JSON object", record=f"line {lineno}")
                yield lineno, record
    except FileNotFoundError:
        raise InputError(path, f"{what} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"unreadable ({exc})") from None


def is_id(value: Any) -> bool:
    """A non-empty string without white space (a TREC run cannot hold any other id)."""
    return isinstance(value, str) and bool(value) and not any(c.isspace() for c in value)


def record_query_id(record: dict[str, Any], path: Path, lineno: int, required: tuple[str, ...]) -> str:
    """The ``query_id`` of a record after checking its ``required`` fields; errors name the file and line."""
    for key in required:
        if key not in record:
            raise InputError(path, f"missing field {key!r}", record=f"line {lineno}")
    qid = record["query_id"]
    if not is_id(qid):
        raise InputError(path, f"'query_id' must be a non-empty string without white space, found {qid!r}",
                         record=f"line {lineno}")
    return str(qid)


def read_keyed_jsonl(path: str | Path, what: str, parse: Callable[[dict[str, Any], Path, int], T],
                     key: Callable[[T], str], twice: str, empty: str) -> list[T]:
    """Parsed records of a JSON-lines file whose ``key`` (a query id) may appear once: a repeated key names
    its line (``twice`` formats the key, e.g. ``"query {!r} listed twice"``); an empty file is an error
    (``empty``)."""
    path = Path(path)
    out: list[T] = []
    seen: set[str] = set()
    for lineno, record in iter_jsonl_numbered(path, what):
        parsed = parse(record, path, lineno)
        if key(parsed) in seen:
            raise InputError(path, twice.format(key(parsed)), record=f"line {lineno}")
        seen.add(key(parsed))
        out.append(parsed)
    if not out:
        raise InputError(path, empty)
    return out


def find_table(folder: Path, stem: str) -> Path:
    """The file ``stem.{json,jsonl,jsonl.gz,parquet}`` in ``folder`` (or ``stem-*.parquet`` as the hub names
    shards)."""
    for suffix in TABLE_SUFFIXES:
        candidate = folder / f"{stem}{suffix}"
        if candidate.exists():
            return candidate
    shards = sorted(folder.glob(f"{stem}*.parquet")) + sorted(folder.glob(f"*/{stem}*.parquet"))
    if shards:
        return shards[0]
    raise InputError(folder, f"no {stem}.json / .jsonl / .parquet file in this folder")


def maybe_json(value: Any, path: Path, record: str | int, field: str) -> Any:
    """Decode a field that the hub layout stores as a JSON string (``labels``, ``documentation``); the
    value is then checked like any loaded field (see :func:`check_field`)."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"field {field!r} is not valid JSON ({exc.msg})", record=record) from None
    check_field(field, value, path, record)
    return value


#: Fields that name a query or a tool: they become TREC columns, so text without white space (or an integer).
ID_FIELDS = ("id", "_id", "query_id")
#: Fields that are text fed to retrievers and prompts: never a dict or list stringified.
TEXT_FIELDS = ("query", "text", "instruction", "title", "tool_name", "api_name")


def _is_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and value.strip() != "" and not any(c.isspace() for c in value)


def check_field(field: str, value: Any, path: Path, record: str | int) -> None:
    """Type check of one loaded field, by name: ids, texts and ``labels``; raise naming file and record.

    Values are checked, never coerced: ``None``, a list or a dict where an id or a text is expected would
    otherwise become the strings ``"None"``, ``"['x']"`` or a dict's repr.
    """
    if field in ID_FIELDS and not _is_id(value):
        raise InputError(path, f"field {field!r} must be an id (text without white space, or an integer), "
                               f"found {value!r}", record=record)
    if field in TEXT_FIELDS and value is not None and not isinstance(value, str):
        raise InputError(path, f"field {field!r} must be text, found {type(value).__name__}", record=record)
    if field == "labels" and isinstance(value, list):
        for label in value:
            if not isinstance(label, dict):
                continue  # the loader names a label without an id
            if "id" in label:
                check_field("id", label["id"], path, record)
            relevance = label.get("relevance", 1)
            if isinstance(relevance, bool) or not isinstance(relevance, int | float):
                raise InputError(path, f"label {label.get('id')!r}: relevance must be a number, found "
                                       f"{relevance!r}", record=record)


def require(record: dict[str, Any], fields: tuple[str, ...], path: Path, index: int | str) -> None:
    """Fail clearly when a record lacks one of ``fields`` or one of them has the wrong type
    (see :func:`check_field`)."""
    missing = [f for f in fields if f not in record or record[f] is None]
    ident = record.get("id", record.get("_id", index))
    ident = ident if _is_id(ident) else index
    if missing:
        raise InputError(path, f"missing field(s) {', '.join(map(repr, missing))}", record=ident)
    for name in (*fields, *(f for f in TEXT_FIELDS if f in record and f not in fields)):
        check_field(name, record[name], path, ident)


def open_text(path: str | Path, what: str = "file"):
    """Open a UTF-8 text file for reading; a missing file is an :class:`InputError` naming it."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, f"{what} not found")
    return open(path, encoding="utf-8")  # noqa: SIM115 - the caller closes it with `with`
