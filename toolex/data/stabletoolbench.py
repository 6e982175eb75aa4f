"""Loader for StableToolBench's solvable queries (``G1_instruction.json`` …).

Each query carries its ``api_list``; the tool pool is the union of all api_lists of the groups loaded, and a
tool's id is ``<tool_name>::<api_name>`` with runs of white space replaced by ``_`` (TREC files split on white
space). ``relevant APIs`` is C*.
"""

from __future__ import annotations

import re
from pathlib import Path

from toolex.data.checksum import files_checksum
from toolex.data.readers import read_records, require
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError

GROUPS = ("G1_instruction", "G1_category", "G1_tool", "G2_instruction", "G2_category", "G3_instruction")


def api_id(tool_name: str, api_name: str) -> str:
    return re.sub(r"\s+", "_", f"{tool_name.strip()}::{api_name.strip()}")


def load_stabletoolbench(folder: str | Path, groups: tuple[str, ...] = GROUPS) -> Benchmark:
    folder = Path(folder)
    tools: dict[str, Tool] = {}
    queries: list[Query] = []
    paths = []
    for group in groups:
        path = folder / f"{group}.json"
        paths.append(path)
        for i, record in enumerate(read_records(path)):
            require(record, ("query_id", "query", "api_list", "relevant APIs"), path, i)
            for api in record["api_list"]:
                require(api, ("tool_name", "api_name"), path, f"{record['query_id']} api_list")
                tool_id = api_id(api["tool_name"], api["api_name"])
                if tool_id not in tools:
                    tools[tool_id] = Tool(
                        id=tool_id,
                        name=api["api_name"],
                        documentation=api,
                        subset="stabletoolbench",
                        category="web",
                        platform=api["tool_name"],
                    )
            reference = []
            for pair in record["relevant APIs"]:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise InputError(path, f"'relevant APIs' entry {pair!r} is not [tool_name, api_name]",
                                     record=record["query_id"])
                tool_id = api_id(*pair)
                if tool_id not in tools:
                    raise InputError(path, f"relevant API {pair!r} is not in any api_list",
                                     record=record["query_id"])
                if tool_id not in reference:
                    reference.append(tool_id)
            text = str(record["query"]).strip()
            if not text:
                raise InputError(path, "empty query text", record=record["query_id"])
            queries.append(
                Query(id=f"{group}_{record['query_id']}", text=text, reference=tuple(reference),
                      category="web", subset=group)
            )
    return Benchmark(
        name="stabletoolbench" if tuple(groups) == GROUPS else "stabletoolbench/" + "+".join(groups),
        queries=queries,
        tools=tools,
        checksum=files_checksum(paths),
        sources=tuple(str(p) for p in paths),
    )
