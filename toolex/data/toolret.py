"""Loader for the ToolRet layout: ``<root>/<subset>/queries.json`` and ``tools.json``.

The same records as published on the model hub (``mangopy/ToolRet-Queries`` and ``mangopy/ToolRet-Tools``, one
configuration per subset) are read too: JSON lines or Parquet files, ``labels`` and ``documentation`` stored
as JSON strings. :func:`load_toolret_hub` fetches them with the ``datasets`` library where the hub is
reachable.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from toolex.data.checksum import files_checksum
from toolex.data.readers import find_table, maybe_json, read_records, require
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError

#: Category of each ToolRet subset, as ToolRet groups them (``category`` in the records wins when present).
SUBSET_CATEGORY = {
    "apibank": "web",
    "apigen": "web",
    "gorilla-huggingface": "code",
    "toolink": "code",
}

_API_NAME = re.compile(r"\b(?:from|using|via|of|on|with|to) (?:the )?"
                       r"([A-Z][\w.&'+-]*(?: [A-Z0-9][\w.&'+-]*){0,4}) API\b")


def tool_platform(documentation: Any) -> str | None:
    """The provider/platform of a tool when its documentation says it (``framework``, ``tool_name``, "… the X
    API")."""
    if not isinstance(documentation, dict):
        return None
    for key in ("tool_name", "framework", "provider", "platform"):
        value = documentation.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    description = documentation.get("description")
    if isinstance(description, str):
        match = _API_NAME.search(description)
        if match:
            return match.group(1).strip()
    return None


def tool_name(documentation: Any, fallback: str) -> str:
    if isinstance(documentation, dict):
        for key in ("name", "api_name", "tool_name"):
            value = documentation.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return fallback


def load_toolret_subset(folder: str | Path, subset: str | None = None) -> Benchmark:
    """One ToolRet subset from a folder holding its queries and tools files."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(folder, "not a folder with ToolRet queries and tools files")
    subset = subset or folder.name
    queries_path, tools_path = find_table(folder, "queries"), find_table(folder, "tools")
    default_category = SUBSET_CATEGORY.get(subset, "")

    tools: dict[str, Tool] = {}
    for i, record in enumerate(read_records(tools_path)):
        require(record, ("id", "documentation"), tools_path, i)
        tool_id = str(record["id"])
        if tool_id in tools:
            raise InputError(tools_path, f"duplicate tool id {tool_id!r}", record=i)
        documentation = maybe_json(record["documentation"], tools_path, tool_id, "documentation")
        tools[tool_id] = Tool(
            id=tool_id,
            name=tool_name(documentation, tool_id),
            documentation=documentation,
            subset=subset,
            category=str(record.get("type") or record.get("category") or default_category),
            platform=tool_platform(documentation),
        )

    queries: list[Query] = []
    seen: set[str] = set()
    for i, record in enumerate(read_records(queries_path)):
        require(record, ("id", "query", "labels"), queries_path, i)
        query_id = str(record["id"])
        if query_id in seen:
            raise InputError(queries_path, f"duplicate query id {query_id!r}", record=i)
        seen.add(query_id)
        text = str(record["query"]).strip()
        if not text:
            raise InputError(queries_path, "empty query text", record=query_id)
        labels = maybe_json(record["labels"], queries_path, query_id, "labels")
        if not isinstance(labels, list) or not labels:
            raise InputError(queries_path, "'labels' must be a non-empty list", record=query_id)
        reference: list[str] = []
        for label in labels:
            if not isinstance(label, dict) or "id" not in label:
                raise InputError(queries_path, "a label without an 'id'", record=query_id)
            if float(label.get("relevance", 1)) <= 0:
                continue
            tool_id = str(label["id"])
            if tool_id not in tools:
                raise InputError(
                    queries_path, f"label {tool_id!r} is not a tool of {tools_path.name}", record=query_id
                )
            if tool_id not in reference:
                reference.append(tool_id)
        queries.append(
            Query(
                id=query_id,
                text=text,
                reference=tuple(reference),
                instruction=str(record.get("instruction") or ""),
                category=str(record.get("category") or default_category),
                subset=subset,
            )
        )
    return Benchmark(
        name=f"toolret/{subset}",
        queries=queries,
        tools=tools,
        checksum=files_checksum([queries_path, tools_path]),
        sources=(str(queries_path), str(tools_path)),
    )


def load_toolret_hub(subset: str,
                     cache_dir: str | Path | None = None) -> Benchmark:  # pragma: no cover - network
    """A ToolRet subset straight from the model hub (needs ``datasets`` and network access)."""
    try:
        from datasets import load_dataset
    except ImportError as exc:
        raise InputError(None, "reading the hub needs the 'datasets' package: pip install datasets") from exc
    import json
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix=f"toolret-{subset}-", dir=cache_dir))
    for repo, stem in (("mangopy/ToolRet-Queries", "queries"), ("mangopy/ToolRet-Tools", "tools")):
        rows = load_dataset(repo, subset, split="queries" if stem == "queries" else "tools")
        with open(folder / f"{stem}.jsonl", "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return load_toolret_subset(folder, subset)
