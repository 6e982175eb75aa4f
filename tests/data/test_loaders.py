"""Loaders over the real snapshots, the hub layout, and clear errors on bad input."""

from __future__ import annotations

import json
import shutil

import pytest

from toolex.data import load_benchmark, tool_pools
from toolex.data.toolret import load_toolret_subset
from toolex.errors import InputError


def test_toolret_snapshot_counts(toolret):
    # numbers stated by the snapshot's README
    assert len(toolret.queries) == 2098
    assert len(toolret.tools) == 6417
    assert sum(len(q.reference) for q in toolret.queries) == 3020
    by_subset = {s: sum(q.subset == s for q in toolret.queries) for s in
                 ("apibank", "apigen", "gorilla-huggingface", "toolink")}
    assert by_subset == {"apibank": 101, "apigen": 1000, "gorilla-huggingface": 500, "toolink": 497}
    assert {q.category for q in toolret.queries if q.subset in ("apibank", "apigen")} == {"web"}
    assert {q.category for q in toolret.queries if q.subset in ("gorilla-huggingface", "toolink")} == {"code"}
    assert all(t in toolret.tools for q in toolret.queries for t in q.reference)


def test_toollens_and_stabletoolbench(data_dir):
    toollens = load_benchmark("toollens", data_dir)
    assert len(toollens.queries) == 1877 and len(toollens.tools) == 464
    assert sum(len(q.reference) for q in toollens.queries) == 4987
    assert all(t.platform for t in toollens.tools.values())
    stb = load_benchmark("stabletoolbench", data_dir)
    assert len(stb.queries) == 765 and len(stb.tools) == 2479
    assert all(" " not in t for t in stb.tools)
    assert {q.category for q in stb.queries} == {"web"}


def test_checksum_is_stable_and_content_based(data_dir, tmp_path):
    a = load_benchmark("toolret/apibank", data_dir)
    copy = tmp_path / "apibank"
    shutil.copytree(data_dir / "toolret" / "apibank", copy)
    assert load_toolret_subset(copy).checksum == a.checksum
    records = json.loads((copy / "queries.json").read_text())
    records[0]["query"] += " changed"
    (copy / "queries.json").write_text(json.dumps(records))
    assert load_toolret_subset(copy).checksum != a.checksum


def test_hub_layout_jsonl_with_json_string_fields(data_dir, tmp_path):
    """The hub stores labels and documentation as JSON strings, in JSON lines or Parquet files."""
    source = data_dir / "toolret" / "apibank"
    folder = tmp_path / "apibank"
    folder.mkdir()
    with open(folder / "queries.jsonl", "w") as out:
        for record in json.loads((source / "queries.json").read_text()):
            out.write(json.dumps({**record, "labels": json.dumps(record["labels"])}) + "\n")
    with open(folder / "tools.jsonl", "w") as out:
        for record in json.loads((source / "tools.json").read_text()):
            out.write(json.dumps({**record, "documentation": json.dumps(record["documentation"])}) + "\n")
    hub = load_toolret_subset(folder, "apibank")
    local = load_benchmark("toolret/apibank", data_dir)
    assert [q.reference for q in hub.queries] == [q.reference for q in local.queries]
    assert hub.tools["apibank_tool_0"].documentation == local.tools["apibank_tool_0"].documentation


def test_parquet_layout(data_dir, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    source = data_dir / "toolret" / "toolink"
    folder = tmp_path / "toolink"
    folder.mkdir()
    queries = json.loads((source / "queries.json").read_text())
    tools = json.loads((source / "tools.json").read_text())
    pd.DataFrame([{**q, "labels": json.dumps(q["labels"])}
                  for q in queries]).to_parquet(folder / "queries.parquet")
    pd.DataFrame([{**t, "documentation": json.dumps(t["documentation"])} for t in tools]).to_parquet(
        folder / "tools.parquet")
    assert len(load_toolret_subset(folder).queries) == 497


def test_pools(data_dir):
    benches = [load_benchmark(n, data_dir) for n in ("toolret/apibank", "toolret/toolink", "toolret/apigen")]
    subset = tool_pools(benches, "subset")
    assert len(subset["toolret/apibank"]) == 101
    category = tool_pools(benches, "category")
    assert len(category["toolret/apibank"]) == 101 + 3605
    assert len(category["toolret/toolink"]) == 1804
    every = tool_pools(benches, "all")
    assert len(every["toolret/toolink"]) == 101 + 3605 + 1804
    with pytest.raises(InputError, match="unknown pool"):
        tool_pools(benches, "galaxy")


def _subset_copy(data_dir, tmp_path):
    folder = tmp_path / "apibank"
    shutil.copytree(data_dir / "toolret" / "apibank", folder)
    return (folder, json.loads((folder / "queries.json").read_text()),
            json.loads((folder / "tools.json").read_text()))


@pytest.mark.parametrize(
    "break_it, message",
    [
        (lambda q, t: q[3].pop("labels"),
         r"queries.json, record apibank_query_3: missing field\(s\) 'labels'"),
        (lambda q, t: q[4]["labels"][0].update(id="nope"), r"record apibank_query_4: label 'nope' is not a "
                                                           r"tool"),
        (lambda q, t: q[5].update(id=q[6]["id"]), r"queries.json, record 6: duplicate query id "
                                                  r"'apibank_query_6'"),
        (lambda q, t: t[7].update(id=t[8]["id"]), r"tools.json, record 8: duplicate tool id "
                                                  r"'apibank_tool_8'"),
        (lambda q, t: q[9].update(query="   "), r"record apibank_query_9: empty query text"),
        (lambda q, t: q[2].update(labels=[]), r"record apibank_query_2: 'labels' must be a non-empty list"),
    ],
)
def test_bad_input_names_file_and_record(data_dir, tmp_path, break_it, message):
    folder, queries, tools = _subset_copy(data_dir, tmp_path)
    break_it(queries, tools)
    (folder / "queries.json").write_text(json.dumps(queries))
    (folder / "tools.json").write_text(json.dumps(tools))
    with pytest.raises(InputError, match=message):
        load_toolret_subset(folder)


def test_unreadable_json(data_dir, tmp_path):
    folder, _, _ = _subset_copy(data_dir, tmp_path)
    (folder / "queries.json").write_text('[{"id": "q1", "query": "x",')
    with pytest.raises(InputError, match=r"queries.json: unreadable JSON at line 1"):
        load_toolret_subset(folder)


def test_unknown_benchmark_and_missing_folder(tmp_path):
    with pytest.raises(InputError, match="unknown benchmark 'toolbox'"):
        load_benchmark("toolbox", tmp_path)
    with pytest.raises(InputError, match="data folder not found"):
        load_benchmark("toolret", tmp_path / "absent")


def test_sample_is_reproducible(apigen):
    a, b = apigen.sample(50, seed=3), apigen.sample(50, seed=3)
    assert [q.id for q in a] == [q.id for q in b] and len(a) == 50
    assert [q.id for q in apigen.sample(50, seed=4)] != [q.id for q in a]


def test_the_smoke_pool_keeps_every_named_tool_and_a_seeded_draw(data_dir):
    from toolex.data.registry import SMOKE_POOL, smoke_tools

    toolink = load_benchmark("toolret/toolink", data_dir)
    apibank = load_benchmark("toolret/apibank", data_dir)
    cut = smoke_tools(toolink)
    named = {t for q in toolink.queries for t in q.reference}
    assert named <= set(cut) and len(cut) == SMOKE_POOL < len(toolink.tools)
    assert list(cut) == [t for t in toolink.tools if t in cut]  # the benchmark's order
    assert cut == smoke_tools(toolink) and set(cut) != set(smoke_tools(toolink, seed=1))
    assert smoke_tools(apibank) == apibank.tools  # a pool no larger than the cut is kept whole
    pools = tool_pools([toolink, apibank], "smoke")
    assert pools["toolret/toolink"] is pools["toolret/apibank"] and set(pools["toolret/apibank"]) == (
        set(cut) | set(apibank.tools))
