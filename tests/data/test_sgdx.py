"""SGD-X wordings and two-tool SGD queries on the tiny SGD schema of ``test_sgd`` with five rewritten
variants."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.data.test_sgd import DIALOGUES, SCHEMAS, _write_dialogues
from toolex.data import sgd, sgdx
from toolex.data.registry import load_benchmark, own_gold, own_gold_rule
from toolex.errors import InputError


def _variant(service: dict, v: int) -> dict:
    """A rewritten service as SGD-X writes one: every name and description changed, same structure."""
    out = copy.deepcopy(service)
    renamed = {s["name"]: f"v{v}_{s['name']}" for s in service["slots"]}
    out["service_name"] = f"{service['service_name']}{v}"
    out["description"] = f"(variant {v}) {service['description']}"
    for slot in out["slots"]:
        slot["name"], slot["description"] = renamed[slot["name"]], f"rewritten {slot['description']}"
    for intent in out["intents"]:
        intent["name"] = f"{intent['name']}V{v}"
        intent["description"] = f"rewritten {intent['description']}"
        intent["required_slots"] = [renamed[s] for s in intent["required_slots"]]
        intent["optional_slots"] = {renamed[s]: x for s, x in intent["optional_slots"].items()}
        intent["result_slots"] = [renamed.get(s, s) for s in intent["result_slots"]]
    return out


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    for split, services in SCHEMAS.items():
        (tmp_path / f"schema_{split}.json").write_text(json.dumps(services), encoding="utf-8")
        for v in range(1, 6):
            target = tmp_path / "sgd_x" / f"v{v}"
            target.mkdir(parents=True, exist_ok=True)
            (target / f"schema_{split}.json").write_text(json.dumps([_variant(s, v) for s in services]),
                                                         encoding="utf-8")
    _write_dialogues(tmp_path / sgd.DIALOGUES, [json.dumps(d) for d in DIALOGUES])
    return tmp_path


def test_variant_tools_map_to_their_original_by_position(folder):
    tools, origin, variant_of = sgdx.wordings(folder, ("v1", "v3"))
    assert len(tools) == 13 * 3
    tool = tools["Buses_13.FindBusV3"]
    assert origin["Buses_13.FindBusV3"] == "Buses_1.FindBus"
    assert variant_of[("Buses_1.FindBus", "v3")] == tool.id
    assert (tool.platform, tool.category, tool.subset) == ("Buses_13", "Buses", "sgd-x")
    # the intent's parameters name the variant's slots, with their rewritten descriptions
    required = tool.documentation["parameters"]["required"]
    assert [p["name"] for p in required] == ["v3_from_location", "v3_to_location"]
    assert required[0]["description"] == "rewritten the from location"
    assert tools["Buses_1.FindBus"].documentation["description"] == "FindBus intent"  # the original kept


def test_each_api_is_in_the_pool_once_in_a_wording_of_its_part(folder):
    calibration = sgdx.load_sgdx(folder, "sgd-x", "calibration")
    report = sgdx.load_sgdx(folder, "sgd-x", "report")
    assert len(calibration.tools) == len(report.tools) == 13  # every API once, no original wording
    for bench, allowed in ((calibration, {"1", "2", "3"}), (report, {"4", "5"})):
        origin = bench.meta["origin"]
        assert sorted(origin.values()) == sorted(sgd.tools_of(sgd.load_schemas(folder)))
        assert {bench.tools[t].platform[-1] for t in bench.tools} <= allowed
        # one wording per service: the tools of one service share it
        by_service: dict[str, set[str]] = {}
        for t in bench.tools:
            by_service.setdefault(origin[t].split(".")[0], set()).add(bench.tools[t].platform)
        assert all(len(wordings) == 1 for wordings in by_service.values())
        assert all(q.reference[0] in bench.tools and origin[q.reference[0]] != q.reference[0]
                   for q in bench.queries)
    original = sgd.load_sgd(folder, "calibration").queries
    assert {q.id for q in calibration.queries} == {"x" + q.id for q in original}
    assert calibration.meta["reference_wordings"] == ["v1", "v2", "v3"]
    assert sgdx.load_sgdx(folder, "sgd-x", "calibration").tools == calibration.tools  # seeded
    assert "Lee et al." in calibration.meta["attribution"] and calibration.checksum != report.checksum


def test_gold_is_the_pools_tools_of_the_class(folder):
    bench = sgdx.load_sgdx(folder, "sgd-x", "calibration")
    gold = sgdx.acceptable(bench)
    origin = bench.meta["origin"]
    pool = {origin[t]: t for t in bench.tools}
    bus = next(q for q in bench.queries if origin[q.reference[0]] == "Buses_2.FindBus")
    assert gold[bus.id][0] == list(bus.reference)
    assert {c[0] for c in gold[bus.id]} == {pool["Buses_1.FindBus"], pool["Buses_2.FindBus"]}
    dentist = next(q for q in bench.queries if origin[q.reference[0]] == "Services_2.FindProvider")
    assert gold[dentist.id] == [list(dentist.reference)]  # a hair stylist does not replace a dentist


def test_two_tool_queries_join_two_openings_of_two_domains_of_one_part(folder):
    bench = sgdx.load_sgdx(folder, "sgd-pairs", "calibration")
    assert [q.text for q in bench.queries] == ["A dentist in Berkeley. And a bus from Berkeley."]
    query = bench.queries[0]
    origin = bench.meta["origin"]
    assert [origin[t] for t in query.reference] == ["Services_2.FindProvider", "Buses_1.FindBus"]
    assert query.category == "Services+Buses"
    gold = sgdx.acceptable(bench)[query.id]
    assert len(gold) == 1 * 2 and gold[0] == list(query.reference)  # one dentist x two bus services
    # the dev dialogue opens a bus (calibration) then a hotel (report): in no part
    assert sgdx.load_sgdx(folder, "sgd-pairs", "report").queries == []


def test_registry_names_and_own_gold(folder, monkeypatch):
    monkeypatch.setenv("TOOLEX_DATA", str(folder.parent))
    (folder.parent / "sgd").exists() or (folder.parent / "sgd").symlink_to(folder)
    bench = load_benchmark("sgd-x/report")
    assert bench.name == "sgd-x/report" and set(own_gold(bench)) == {q.id for q in bench.queries}
    assert own_gold_rule(bench).startswith("sgd-x gold")
    with pytest.raises(InputError, match="sgd-pairs/report"):
        load_benchmark("sgd-y/report")


def test_a_variant_whose_structure_differs_is_named(folder):
    path = folder / "sgd_x" / "v2" / "schema_test.json"
    services = json.loads(path.read_text())
    services[0]["intents"] = []
    path.write_text(json.dumps(services))
    with pytest.raises(InputError, match="v2/schema_test.json.*differ in number"):
        sgdx.wordings(folder, ("v2",))
    with pytest.raises(InputError, match="unknown SGD-X source"):
        sgdx.load_sgdx(folder, "sgd-z", "report")


def test_a_misspelled_benchmark_gets_a_close_match(folder, monkeypatch):
    monkeypatch.setenv("TOOLEX_DATA", str(folder.parent))
    with pytest.raises(InputError, match="did you mean 'toolret/apibank'"):
        load_benchmark("toolret/apibnak")
    with pytest.raises(InputError, match="did you mean 'sgd-x/report'"):
        load_benchmark("sgd-x/reprot")


def test_gold_command_writes_what_validate_reads(folder, monkeypatch, tmp_path, capsys):
    from toolex.cli import main
    from toolex.validate.gold import read_gold

    monkeypatch.setenv("TOOLEX_DATA", str(folder.parent))
    (folder.parent / "sgd").exists() or (folder.parent / "sgd").symlink_to(folder)
    out = tmp_path / "gold.jsonl"
    assert main(["gold", "--benchmark", "sgd-x/calibration", "--out", str(out)]) == 0
    records = read_gold(out)
    bench = load_benchmark("sgd-x/calibration")
    assert {r.query_id for r in records} == {q.id for q in bench.queries}
    assert "accepted combinations beyond C*" in capsys.readouterr().out
