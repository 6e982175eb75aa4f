"""Loader for the BEIR layout (ToolLens): ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

Tool and query ids are prefixed (``toollens_tool_<id>``, ``toollens_query_<id>``) so that they stay unique
when pools of several benchmarks are merged; a TREC run over ToolLens uses the prefixed ids.
"""

from __future__ import annotations

import re
from pathlib import Path

from toolex.data.checksum import files_checksum
from toolex.data.readers import iter_jsonl, require
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError

_FIELD = re.compile(r"(category_name|tool_name|api_name|api_description):(.*?)(?=, "
                    r"(?:category_name|tool_name|api_name|api_description|required_params|optional_params"
                    r"|return_schema):|$)")


def _fields(text: str) -> dict[str, str]:
    return {key: value.strip() for key, value in _FIELD.findall(text)}


def read_qrels_tsv(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels: a header line, then ``query-id  corpus-id  score`` separated by tabs."""
    qrels: dict[str, dict[str, int]] = {}
    if not path.exists():
        raise InputError(path, "file not found")
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            parts = line.rstrip("\n").split("\t")
            if lineno == 1 and parts[0] == "query-id":
                continue
            if not line.strip():
                continue
            if len(parts) != 3:
                raise InputError(path, f"expected 3 tab-separated columns, found {len(parts)}",
                                 record=f"line {lineno}")
            try:
                score = int(float(parts[2]))
            except ValueError:
                raise InputError(path, f"score {parts[2]!r} is not a number",
                                 record=f"line {lineno}") from None
            qrels.setdefault(parts[0], {})[parts[1]] = score
    return qrels


def load_beir(folder: str | Path, split: str = "test", name: str = "toollens",
              category: str = "web") -> Benchmark:
    """A BEIR-layout tool benchmark; only queries with at least one relevant tool in ``split`` are kept."""
    folder = Path(folder)
    corpus_path, queries_path = folder / "corpus.jsonl", folder / "queries.jsonl"
    qrels_path = folder / "qrels" / f"{split}.tsv"
    tools: dict[str, Tool] = {}
    for i, record in enumerate(iter_jsonl(corpus_path)):
        require(record, ("_id", "text"), corpus_path, i)
        tool_id = f"{name}_tool_{record['_id']}"
        if tool_id in tools:
            raise InputError(corpus_path, f"duplicate tool id {record['_id']!r}", record=i)
        fields = _fields(record["text"])
        title = record.get("title") or ""
        documentation = f"{title}\n{record['text']}".strip() if title else record["text"]
        tools[tool_id] = Tool(
            id=tool_id,
            name=fields.get("api_name") or title or tool_id,
            documentation=documentation,
            subset=name,
            category=category,
            platform=fields.get("tool_name"),
        )
    qrels = read_qrels_tsv(qrels_path)
    texts: dict[str, str] = {}
    for i, record in enumerate(iter_jsonl(queries_path)):
        require(record, ("_id", "text"), queries_path, i)
        if record["_id"] in texts:
            raise InputError(queries_path, f"duplicate query id {record['_id']!r}", record=i)
        texts[str(record["_id"])] = str(record["text"])
    queries = []
    for raw_id, labels in qrels.items():
        if raw_id not in texts:
            raise InputError(qrels_path, f"query {raw_id!r} is not in {queries_path.name}")
        reference = []
        for raw_tool, score in labels.items():
            tool_id = f"{name}_tool_{raw_tool}"
            if tool_id not in tools:
                raise InputError(qrels_path, f"label {raw_tool!r} is not a tool of {corpus_path.name}",
                                 record=raw_id)
            if score > 0:
                reference.append(tool_id)
        if not reference:
            continue
        if not texts[raw_id].strip():
            raise InputError(queries_path, "empty query text", record=raw_id)
        queries.append(
            Query(id=f"{name}_query_{raw_id}", text=texts[raw_id].strip(), reference=tuple(reference),
                  category=category, subset=name)
        )
    return Benchmark(
        name=name,
        queries=queries,
        tools=tools,
        checksum=files_checksum([corpus_path, queries_path, qrels_path]),
        sources=(str(corpus_path), str(queries_path), str(qrels_path)),
        meta={"split": split},
    )
