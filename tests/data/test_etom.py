"""ETOM's registry and level-2 equivalence sets as benchmarks, on a tiny registry in ETOM's layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolex.data import etom
from toolex.data.registry import load_benchmark, own_gold, own_gold_rule
from toolex.errors import InputError


def _tool(name: str, description: str) -> dict:
    return {"tool_name": name, "tool_description": description,
            "input_schema": {"type": "object", "properties": {"prompt": {"type": "string"}},
                             "required": ["prompt"]}}


REGISTRY = {"total_servers": 3, "total_tools": 5, "servers": [
    {"server_name": "Image Server", "server_description": "images", "categories": ["image-generation"],
     "tools": [_tool("generate_image", "Create an image from a prompt."),
               _tool("list_models", "List models.")]},
    {"server_name": "Nova", "server_description": "aws", "categories": ["cloud-platform"],
     "tools": [_tool("generate_image", "Create images from text prompts.")]},
    {"server_name": "Notes", "server_description": "notes", "categories": [],
     "tools": [_tool("read_note", "Read a note."), _tool("open_note", "Open a note.")]},
]}


def _entry(tool_id: str) -> dict:
    server, tool = tool_id.split("::")
    return {"tool_id": tool_id, "server_name": server, "tool_name": tool, "description": "",
            "dependencies": []}


def _query(qid: int, text: str, lists: list[list[str]]) -> dict:
    return {"query_id": qid, "query": text, "ground_truth_tools": [[_entry(t) for t in s] for s in lists],
            "ground_truth_tools_count": len(lists)}


IMAGES = ["Image Server::generate_image", "Nova::generate_image"]
LEVEL_2 = [
    _query(1, "Draw a beach at sunset.", [IMAGES, list(reversed(IMAGES))]),
    _query(2, "Which models can I use?", [["Image Server::list_models"]]),  # one tool: no alternative
    # the lists differ: no single equivalence set
    _query(3, "Show me my note.", [["Notes::read_note", "Notes::open_note"], ["Notes::open_note"]]),
    _query(4, "Paint a cat.", [["Nova::generate_image ", "Image Server::generate_image"]] * 2),  # stray space
]


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "etom"
    (root / "queries").mkdir(parents=True)
    (root / "mcp_registry.json").write_text(json.dumps(REGISTRY), encoding="utf-8")
    (root / "queries" / "level_2.json").write_text(json.dumps(LEVEL_2), encoding="utf-8")
    return root


def test_all_holds_the_queries_with_one_equivalence_set_over_the_whole_registry(folder):
    bench = etom.load_etom(folder, "all")
    assert [q.id for q in bench.queries] == ["etom2_1", "etom2_4"]
    assert len(bench.tools) == 5
    first = bench.queries[0]
    assert first.reference == ("Image_Server::generate_image",) and first.category == "image-generation"
    assert bench.queries[1].reference == ("Nova::generate_image",)  # first listed; id stripped
    tool = bench.tools["Nova::generate_image"]
    assert (tool.name, tool.platform, tool.description) == ("generate_image", "Nova",
                                                             "Create images from text prompts.")
    assert bench.tools["Notes::read_note"].category == "mcp"  # a server without categories
    gold = etom.acceptable(bench)
    assert gold["etom2_1"] == [["Image_Server::generate_image"], ["Nova::generate_image"]]
    assert gold["etom2_4"] == [["Nova::generate_image"], ["Image_Server::generate_image"]]


def test_parts_split_by_equivalence_set_and_cover_all(folder):
    parts = {p: etom.load_etom(folder, p) for p in ("calibration", "report")}
    ids = [q.id for p in parts.values() for q in p.queries]
    assert sorted(ids) == ["etom2_1", "etom2_4"] and len(set(ids)) == 2
    # one set, one part: both queries share the image set
    assert {len(p.queries) for p in parts.values()} == {0, 2}
    assert parts["calibration"].checksum != parts["report"].checksum


def test_registry_names_own_gold_and_bad_input(folder, monkeypatch):
    monkeypatch.setenv("TOOLEX_DATA", str(folder.parent))
    bench = load_benchmark("etom/all")
    assert set(own_gold(bench)) == {q.id for q in bench.queries}
    assert own_gold_rule(bench).startswith("etom gold")
    with pytest.raises(InputError, match="did you mean 'etom/report'"):
        load_benchmark("etom/reprot")
    broken = [*LEVEL_2, _query(9, "Gone.", [["Nowhere::tool", "Nova::generate_image"]] * 2)]
    (folder / "queries" / "level_2.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InputError, match=r"level_2.json, record query 9: tool 'Nowhere::tool'"):
        etom.load_etom(folder, "all")
