"""ETOM: a real MCP tool registry with people-reviewed equivalence sets, as benchmarks with a one-to-many
ground truth.

ETOM (arXiv 2510.19423, EACL 2026 Findings; MIT, attribute it) holds 2,375 tools of 491 MCP servers
(``mcp_registry.json``) and queries in five levels. A level-2 query's ``ground_truth_tools`` lists one inner
list per acceptable tool, each that tool and the tools it was found equivalent to (by embedding neighbours, an
LLM's check and people's review of borderline pairs). Read as a benchmark:

* **Pool**: every tool of the registry, ``<server>::<tool>`` (white space as ``_``); its documentation is
  its name, description and input schema; ``platform`` its server; category the server's first category.
* **Queries**: the level-2 queries whose need has several acceptable tools and whose inner lists all hold the
  same tools (one equivalence set; where the lists differ, the upstream relation is not transitive and no
  single set is the gold). C* is the first tool listed, the other tools of the set its alternatives.
* **Parts**: each equivalence set falls into ``calibration`` or ``report`` by the parity of a digest of its
  tools, so no set is in both; ``etom/all`` holds both.

The labels are weaker than people's (an LLM decided most pairs) and lean towards pairs an encoder already
finds alike; the registry's share and scale of similarity are real, which SGD's are not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.data.checksum import files_checksum
from toolex.data.readers import read_json
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError

REGISTRY = "mcp_registry.json"
LEVEL_2 = "queries/level_2.json"
PARTS = ("calibration", "report", "all")
ATTRIBUTION = ("ETOM (snooow1029/ETOM, arXiv 2510.19423), MIT: the MCP registry, its level-2 queries and "
               "equivalence sets")
#: How registry ids become tool ids (part of the checksum: a change renames tools and may move sets).
ID_RULE = "ids v2: white space as _"
GOLD_RULE = "etom gold v1: the level-2 query's one equivalence set (every inner list the same tools)"


def safe_id(raw: str) -> str:
    """A registry id as a run file can hold it: stripped, each run of white space one ``_``."""
    return re.sub(r"\s+", "_", raw.strip())


def tool_id(server: str, tool: str) -> str:
    return safe_id(f"{server.strip()}::{tool.strip()}")


def registry_tools(path: Path) -> dict[str, Tool]:
    """Every tool of the registry file, keyed ``<server>::<tool>``."""
    data = read_json(path, "ETOM registry")
    servers = data.get("servers") if isinstance(data, Mapping) else None
    if not isinstance(servers, list):
        raise InputError(path, "no list of servers under 'servers'")
    tools: dict[str, Tool] = {}
    for i, server in enumerate(servers):
        name = server.get("server_name") if isinstance(server, Mapping) else None
        if not name or not isinstance(server.get("tools"), list):
            raise InputError(path, "a server needs a server_name and a list of tools", record=f"server {i}")
        category = next(iter(server.get("categories") or []), "mcp")
        for tool in server["tools"]:
            if not isinstance(tool, Mapping) or not tool.get("tool_name"):
                raise InputError(path, "a tool without a tool_name", record=name)
            tid = tool_id(name, tool["tool_name"])
            if tid in tools:
                raise InputError(path, "a tool id repeats", record=tid)
            documentation = {"name": tool["tool_name"], "description": tool.get("tool_description") or "",
                             "parameters": tool.get("input_schema") or {}}
            tools[tid] = Tool(tid, tool["tool_name"], documentation, subset="etom", category=category,
                              platform=name)
    return tools


def equivalence_set(record: Mapping[str, Any], path: Path) -> tuple[str, ...] | None:
    """The query's acceptable tools, the first listed first, when every inner list holds the same tools
    (None when it has one tool, or its lists differ)."""
    lists = record.get("ground_truth_tools")
    if not isinstance(lists, list) or not lists:
        raise InputError(path, "no ground_truth_tools", record=f"query {record.get('query_id')}")
    try:
        sets = [[safe_id(t["tool_id"]) for t in inner] for inner in lists]  # some ids carry a stray space
    except (KeyError, TypeError) as exc:
        raise InputError(path, f"malformed ground_truth_tools ({exc})",
                         record=f"query {record.get('query_id')}") from exc
    if len({frozenset(s) for s in sets}) != 1 or len(set(sets[0])) < 2:
        return None
    return tuple(dict.fromkeys(sets[0]))


def part_of(tools: tuple[str, ...]) -> str:
    """``calibration`` or ``report``: the parity of the first byte of sha256 of the set's sorted tools."""
    return PARTS[keys.text_digest("\n".join(sorted(tools)))[0] % 2]


def load_etom(folder: str | Path, part: str) -> Benchmark:
    """``etom/<part>``: level-2 queries with one equivalence set, over the whole registry."""
    if part not in PARTS:
        raise InputError(None, f"unknown ETOM part {part!r}; choose one of {', '.join(PARTS)}")
    folder = Path(folder)
    tools = registry_tools(folder / REGISTRY)
    path = folder / LEVEL_2
    records = read_json(path, "ETOM queries")
    if not isinstance(records, list):
        raise InputError(path, "not a list of queries")
    name = f"etom/{part}"
    queries, sets = [], {}
    for record in records:
        accepted = equivalence_set(record, path)
        if accepted is None or (part != "all" and part_of(accepted) != part):
            continue
        missing = [t for t in accepted if t not in tools]
        if missing:
            raise InputError(path, f"tool {missing[0]!r} is not in the registry",
                             record=f"query {record.get('query_id')}")
        qid = f"etom2_{record['query_id']}"
        reference = accepted[0]
        queries.append(Query(qid, str(record["query"]), (reference,), "", tools[reference].category, name))
        sets[qid] = list(accepted)
    sources = [folder / REGISTRY, path]
    checksum = keys.checksum(f"{files_checksum(sources)}:{name}:{ID_RULE}")
    return Benchmark(name, queries, tools, checksum, tuple(str(s) for s in sources),
                     {"accepted": sets, "licence": "MIT", "attribution": ATTRIBUTION})


def acceptable(benchmark: Benchmark) -> dict[str, list[list[str]]]:
    """The gold combinations of every query: C* first, then each other tool of its equivalence set."""
    accepted: Mapping[str, list[str]] = benchmark.meta["accepted"]
    return {q.id: [list(q.reference), *[[t] for t in accepted[q.id] if t not in q.reference]]
            for q in benchmark.queries}
