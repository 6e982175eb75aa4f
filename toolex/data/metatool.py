"""MetaTool as a tool-retrieval benchmark of category ``customized``, converted from its source data.

MetaTool (Huang et al., ICLR 2024; MIT, HowieHwong/MetaTool @ 35e81bb7, ``dataset/``) is the source of
ToolRet's ``metatool`` subset. Its tools are ChatGPT plugins; several overlap in function (that is what
MetaTool was built to test), so a one-to-one reference understates what a retriever may rightly return.

* **Tools**: the 199 tools of ``plugin_des.json``, id ``metatool_<name>``, ``name`` the tool name,
  ``platform`` the tool name too (each plugin is its own provider: no two tools share a platform). The
  documentation is ``{"name", "description"}`` from ``plugin_des.json``, plus ``name_for_human`` and
  ``description_for_model`` from the plugin's manifest in ``plugin_info.json`` where one exists (153 tools).
  The manifest's ``description_for_human`` is left out: it is the ``plugin_des.json`` description again
  (152 of 153; the other differs by three emoji). The 46 tools without a manifest are the ones MetaTool
  merged from several plugins of the same function (``FinanceTool``, ``NewsTool``, ...): they carry the
  one-line merged description only, so their documentation is shorter than that of the 153 single plugins.
  Where ``plugin_info.json`` lists a plugin twice, the first manifest is used; differing duplicates are
  counted in ``meta["manifest_conflicts"]`` (none for the 199 tools of the snapshot: its only differing
  duplicate, ``SEO``, is not one of them).
* **Single-tool queries**: rows of ``all_clean_data.csv`` (one query, one tool each), text stripped of
  surrounding white space. Left out of the draw, and counted (in rows) in ``meta["excluded"]``: the rows of
  a text that the file labels with more than one tool (``ambiguous``; 12 texts in 29 rows, e.g. "What's
  the weather like today?" under ``WeatherTool`` and ``word_sneak``: one reference would be arbitrary), a
  text spanning several lines (``multiline``; one row, two CSV lines that a stray quote in the source
  joined into one field) and the repeats of a text already seen with the same tool (``duplicate``; 53
  rows, the first row of each text is kept). That leaves 20,531 candidate rows of the 20,614, over all 199
  tools. The rows the generator left with an assistant's preamble ("Certainly! ...") are kept as MetaTool
  ships them.
  :data:`SINGLE` (200) queries are drawn with :data:`SEED`, stratified by tool: every tool's rows are
  shuffled with a seed of its own, the tools are put in a seeded order, and one query per tool is taken in
  that order, round after round, until 200 are drawn. With 199 tools every tool gets one query and one
  tool (the first in the seeded order) a second, so no tool weighs more than twice another (the file
  itself ranges from 12 rows for ``ProductComparison`` to 1,122 for ``FinanceTool``). ToolRet's own count
  for this subset is not in the snapshot; 200 is about one query per tool. Query id
  ``metatool_single_<row>``, ``row`` the 0-based data row of the file (header excluded).
* **Multi-tool queries**: every record of ``multi_tool_query_golden.json`` (497, each naming two tools;
  all resolve to tools of ``plugin_des.json``), not sampled: the file is MetaTool's curated golden set.
  Reference: both tools, in the file's order. A record naming a tool that is not in ``plugin_des.json``
  is left out and counted in ``meta["multi"]["unresolved"]`` (0 in the snapshot). Query id
  ``metatool_multi_<index>``, ``index`` the 0-based record of the file. The multi-tool queries outnumber
  the single-tool ones (497 to 200); ``Query.subset`` (``metatool/single``, ``metatool/multi``) keeps
  them apart for reporting.
* **Instruction**: ToolRet gives each query an instruction written by an LLM for that query ("Given a
  `<task>` task, retrieve tools that ...") and retrievers read instruction + query. The snapshot holds no
  instruction of a ``customized`` subset, so one fixed instruction in that template is written here for
  every query (:data:`INSTRUCTION`); scores with instructions are therefore not comparable to ToolRet's
  own for this subset.

Benchmark name: ``customized/metatool``. The checksum covers the four source files, the draw size and the
seed. Derived data are MIT as well.
"""

from __future__ import annotations

import csv
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.data.checksum import files_checksum
from toolex.data.readers import read_json, read_records
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError
from toolex.sampling import round_robin

QUERIES = "all_clean_data.csv"
DESCRIPTIONS = "plugin_des.json"
MANIFESTS = "plugin_info.json"
MULTI = "multi_tool_query_golden.json"
#: Single-tool queries drawn (stratified by tool, seeded).
SINGLE = 200
SEED = 0
CATEGORY = "customized"
#: The instruction of every query, in the template of ToolRet's per-query instructions.
INSTRUCTION = ("Given a `plugin selection` task, retrieve tools that can fulfil the user's request by "
               "matching the functionality the request needs to what each plugin offers.")
#: Manifest fields added to a tool's documentation.
MANIFEST_FIELDS = ("name_for_human", "description_for_model")
LICENCE = "MIT"
ATTRIBUTION = ("MetaTool (Huang et al. 2024), MIT, HowieHwong/MetaTool @ 35e81bb7; queries and tools "
               "derived from its dataset/ files")


def tool_id(name: str) -> str:
    return f"metatool_{name}"


def load_descriptions(path: Path) -> dict[str, str]:
    """Tool name -> description from ``plugin_des.json`` (an object of strings)."""
    data = read_json(path, "MetaTool tool descriptions")
    if not isinstance(data, dict) or not data:
        raise InputError(path, "expected a non-empty object of tool name -> description")
    for name, description in data.items():
        if not name.strip() or not isinstance(description, str) or not description.strip():
            raise InputError(path, "a tool needs a name and a non-empty description", record=name)
    return {name: description.strip() for name, description in data.items()}


def load_manifests(path: Path, names: Sequence[str]) -> tuple[dict[str, dict[str, Any]], int]:
    """The manifest of each of ``names`` that ``plugin_info.json`` holds (its first, keyed by
    ``name_for_model``), and the number of those names listed again with a different manifest."""
    wanted = set(names)
    manifests: dict[str, dict[str, Any]] = {}
    conflicts: set[str] = set()
    for i, record in enumerate(read_records(path)):
        name = record.get("name_for_model")
        if not isinstance(name, str) or not name:
            raise InputError(path, "a manifest needs a 'name_for_model'", record=i)
        if name not in wanted:
            continue
        if name in manifests:
            if record != manifests[name]:
                conflicts.add(name)
            continue
        manifests[name] = record
    return manifests, len(conflicts)


def tool_documentation(name: str, description: str, manifest: Mapping[str, Any] | None) -> dict[str, Any]:
    documentation: dict[str, Any] = {"name": name, "description": description}
    for key in MANIFEST_FIELDS:
        value = (manifest or {}).get(key)
        if isinstance(value, str) and value.strip():
            documentation[key] = value.strip()
    return documentation


def tools_of(descriptions: Mapping[str, str], manifests: Mapping[str, Mapping[str, Any]]) -> dict[str, Tool]:
    return {tool_id(name): Tool(tool_id(name), name,
                                tool_documentation(name, descriptions[name], manifests.get(name)),
                                subset="metatool", category=CATEGORY, platform=name)
            for name in sorted(descriptions)}


@dataclass(frozen=True)
class Row:
    """One data row of ``all_clean_data.csv``: ``row`` is its 0-based index, header excluded."""

    row: int
    text: str
    tool: str


def read_rows(path: Path, tools: Sequence[str]) -> list[Row]:
    """Every data row of the queries file; a row that is not ``query,tool`` or names a tool without a
    description is an error naming its line."""
    if not path.exists():
        raise InputError(path, "MetaTool queries file not found")
    known = set(tools)
    rows: list[Row] = []
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None or [h.strip() for h in header] != ["Query", "Tool"]:
                raise InputError(path, f"expected the header Query,Tool, found {header!r}", record="line 1")
            for i, fields in enumerate(reader):
                where = f"line {reader.line_num}"
                if len(fields) != 2:
                    raise InputError(path, f"expected 2 fields (query, tool), found {len(fields)}",
                                     record=where)
                text, tool = fields[0].strip(), fields[1].strip()
                if not text:
                    raise InputError(path, "empty query text", record=where)
                if tool not in known:
                    raise InputError(path, f"tool {tool!r} is not in {DESCRIPTIONS}", record=where)
                rows.append(Row(i, text, tool))
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason})") from None
    except csv.Error as exc:
        raise InputError(path, f"unreadable CSV ({exc})") from None
    return rows


def candidates(rows: Sequence[Row]) -> tuple[list[Row], dict[str, int]]:
    """The rows the single-tool draw may take, and the counts of those left out (see the module
    docstring): ``ambiguous`` (rows of a text labelled with several tools), ``multiline`` and
    ``duplicate``."""
    tools_of_text: dict[str, set[str]] = {}
    for r in rows:
        tools_of_text.setdefault(r.text, set()).add(r.tool)
    excluded = Counter({"ambiguous": 0, "multiline": 0, "duplicate": 0})
    kept: list[Row] = []
    seen: set[str] = set()
    for r in sorted(rows, key=lambda r: r.row):
        if len(tools_of_text[r.text]) > 1:
            excluded["ambiguous"] += 1
        elif "\n" in r.text or "\r" in r.text:
            excluded["multiline"] += 1
        elif r.text in seen:
            excluded["duplicate"] += 1
        else:
            seen.add(r.text)
            kept.append(r)
    return kept, dict(excluded)


def select(rows: Sequence[Row], n: int = SINGLE, seed: int = SEED) -> list[Row]:
    """``n`` rows stratified by tool (round-robin over seeded per-tool shuffles, tools in a seeded order),
    in row order; all of them when there are fewer."""
    by_tool: dict[str, list[Row]] = {}
    for r in sorted(rows, key=lambda r: r.row):
        by_tool.setdefault(r.tool, []).append(r)
    for tool, items in by_tool.items():
        random.Random(f"{seed}:{tool}").shuffle(items)
    order = sorted(by_tool)
    random.Random(f"{seed}:order").shuffle(order)
    picked = round_robin([by_tool[tool] for tool in order], n)
    return sorted(picked, key=lambda r: r.row)


def multi_queries(path: Path, tools: Mapping[str, Tool]) -> tuple[list[Query], int]:
    """The queries of the multi-tool golden file whose tools all resolve, and the number that do not."""
    queries: list[Query] = []
    unresolved = 0
    for i, record in enumerate(read_records(path)):
        text, names = record.get("query"), record.get("tool")
        if not isinstance(text, str) or not text.strip():
            raise InputError(path, "a multi-tool query needs a non-empty 'query'", record=i)
        if (not isinstance(names, list) or len(names) < 2
                or not all(isinstance(n, str) and n.strip() for n in names)):
            raise InputError(path, "'tool' must be a list of at least two tool names", record=i)
        reference = tuple(dict.fromkeys(tool_id(n.strip()) for n in names))
        if not all(t in tools for t in reference):
            unresolved += 1
            continue
        queries.append(Query(f"metatool_multi_{i}", text.strip(), reference, INSTRUCTION, CATEGORY,
                             "metatool/multi"))
    return queries, unresolved


def load_metatool(folder: str | Path, single: int = SINGLE, seed: int = SEED) -> Benchmark:
    """MetaTool's 199 tools with ``single`` drawn single-tool queries and every resolvable multi-tool
    query."""
    folder = Path(folder)
    descriptions = load_descriptions(folder / DESCRIPTIONS)
    manifests, conflicts = load_manifests(folder / MANIFESTS, list(descriptions))
    tools = tools_of(descriptions, manifests)
    rows = read_rows(folder / QUERIES, list(descriptions))
    pool, excluded = candidates(rows)
    queries = [Query(f"metatool_single_{r.row}", r.text, (tool_id(r.tool),), INSTRUCTION, CATEGORY,
                     "metatool/single") for r in select(pool, single, seed)]
    multi, unresolved = multi_queries(folder / MULTI, tools)
    queries.extend(multi)
    sources = [folder / name for name in (QUERIES, DESCRIPTIONS, MANIFESTS, MULTI)]
    checksum = keys.checksum(f"{files_checksum(sources)}:{single}:{seed}")
    return Benchmark("customized/metatool", queries, tools, checksum, tuple(str(s) for s in sources),
                     {"single": {"drawn": len(queries) - len(multi), "requested": single, "seed": seed,
                                 "rows": len(rows), "candidates": len(pool),
                                 "tools_with_rows": len({r.tool for r in rows})},
                      "excluded": excluded,
                      "multi": {"kept": len(multi), "unresolved": unresolved},
                      "manifests": len(manifests), "manifest_conflicts": conflicts,
                      "instruction": INSTRUCTION, "licence": LICENCE, "attribution": ATTRIBUTION})
