"""The Schema-Guided Dialogue converter on a tiny schema and three dialogues, and (when present) the
snapshot."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from toolex import paths
from toolex.data import sgd
from toolex.errors import InputError
from toolex.io.atomic import write_jsonl
from toolex.validate.gold import benchmark_gold, read_gold


def _slot(name: str, values: list[str] | None = None) -> dict:
    return {"name": name, "description": f"the {name.replace('_', ' ')}", "is_categorical": bool(values),
            "possible_values": values or []}


def _intent(name: str, required: list[str], optional: dict[str, str] | None = None) -> dict:
    return {"name": name, "description": f"{name} intent",
            "is_transactional": name.startswith(("Buy", "Reserve")),
            "required_slots": required, "optional_slots": optional or {},
            "result_slots": [*required, "price"]}


def _service(name: str, description: str, *intents: dict) -> dict:
    slots = {s for i in intents for s in [*i["required_slots"], *i["optional_slots"]]}
    return {"service_name": name, "description": description,
            "slots": [_slot(s, ["economy", "flexible"] if s == "fare_type" else None) for s in sorted(slots)],
            "intents": list(intents)}


BUSES_1 = _service("Buses_1", "Find a bus to take you to the city you want",
                   _intent("FindBus", ["from_location", "to_location"], {"fare_type": "economy"}),
                   _intent("BuyBusTicket", ["from_location", "to_location", "travelers"]))
SCHEMAS = {
    "train": [BUSES_1,
              _service("Buses_2", "Bus tickets across the country",
                       _intent("FindBus", ["origin", "destination"])),
              _service("Services_1", "Find and book a hair stylist", _intent("FindProvider", ["city"])),
              _service("Services_2", "Find and book a dentist", _intent("FindProvider", ["city"])),
              _service("Music_1", "Songs on demand", _intent("LookupSong", []),
                       _intent("PlaySong", ["song_name"])),
              _service("Music_2", "Music streaming", _intent("LookupMusic", []),
                       _intent("PlayMedia", ["title"]))],
    "dev": [_service("Hotels_1", "Hotel rooms", _intent("SearchHotel", ["destination"]),
                     _intent("ReserveHotel", ["hotel_name"])),
            _service("Hotels_2", "Houses for short stays", _intent("SearchHouse", ["where_to"])),
            BUSES_1],
    "test": [_service("Hotels_3", "Hotel rooms too", _intent("SearchHotel", ["location"]))],
}


def _turn(utterance: str, *frames: tuple[str, str]) -> dict:
    return {"utterance": utterance, "frames": [{"service": s, "active_intent": i, "requested_slots": [],
                                                "slot_values": {}} for s, i in frames]}


DIALOGUES = [
    {"split": "train", "dialogue_id": "1_00000", "services": ["Buses_1"], "turns": [
        _turn("Find me a bus to Fresno.", ("Buses_1", "FindBus")),
        _turn("Leaving tomorrow.", ("Buses_1", "FindBus")),
        _turn("Buy two tickets.", ("Buses_1", "BuyBusTicket")),
        _turn("Thanks.", ("Buses_1", "NONE")),
        _turn("Look for another bus to LA.", ("Buses_1", "FindBus"))]},
    # the same dialogue id in another split, as in SGD
    {"split": "dev", "dialogue_id": "1_00000", "services": ["Buses_2", "Hotels_1", "Music_1"], "turns": [
        _turn("I need a bus to Sacramento.", ("Buses_2", "FindBus")),
        _turn("Also find a hotel there and play a song.", ("Hotels_1", "SearchHotel"),
              ("Music_1", "PlaySong"),
              ("Buses_2", "FindBus")),
        _turn("Book the hotel.", ("Hotels_1", "ReserveHotel"))]},
    {"split": "test", "dialogue_id": "2_00001", "services": ["Services_2", "Music_2", "Buses_1"], "turns": [
        _turn("Hi.", ("Services_2", "NONE")),
        _turn("   ", ("Music_2", "LookupMusic")),
        _turn("A dentist in Berkeley.", ("Services_2", "FindProvider")),
        _turn("And a bus from Berkeley.", ("Buses_1", "FindBus"))]},
]


def _write_dialogues(path: Path, lines: list[str]) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("".join(f"{line}\n" for line in lines))
    return path


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    for split, services in SCHEMAS.items():
        (tmp_path / f"schema_{split}.json").write_text(json.dumps(services), encoding="utf-8")
    _write_dialogues(tmp_path / sgd.DIALOGUES, [json.dumps(d) for d in DIALOGUES])
    return tmp_path


def test_tools_are_service_intents_with_schema_documentation(folder):
    services = sgd.load_schemas(folder)
    assert sorted(services) == ["Buses_1", "Buses_2", "Hotels_1", "Hotels_2", "Hotels_3", "Music_1",
                                "Music_2",
                                "Services_1", "Services_2"]
    tools = sgd.tools_of(services)
    assert len(tools) == 13
    tool = tools["Buses_1.FindBus"]
    assert (tool.name, tool.platform, tool.category, tool.subset) == ("FindBus", "Buses_1", "Buses", "sgd")
    doc = tool.documentation
    assert doc["description"] == "FindBus intent"
    assert doc["service_description"] == "Find a bus to take you to the city you want"
    assert doc["parameters"]["required"] == [{"name": "from_location", "description": "the from location"},
                                             {"name": "to_location", "description": "the to location"}]
    assert doc["parameters"]["optional"] == [{"name": "fare_type", "description": "the fare type",
                                              "enum": ["economy", "flexible"]}]
    assert doc["returns"] == ["from_location", "to_location", "price"]
    assert doc["transactional"] is False
    assert tools["Buses_1.BuyBusTicket"].documentation["transactional"] is True
    assert "FindBus intent" in tool.text


def test_openings_follow_intent_changes_per_service(folder):
    found = [(o.split, o.dialogue_id, o.turn, o.service, o.intent)
             for o in sgd.openings(folder / sgd.DIALOGUES)]
    assert found == [
        ("train", "1_00000", 0, "Buses_1", "FindBus"),
        ("train", "1_00000", 2, "Buses_1", "BuyBusTicket"),
        ("train", "1_00000", 4, "Buses_1", "FindBus"),  # back after NONE: opens again
        ("dev", "1_00000", 0, "Buses_2", "FindBus"),
        ("dev", "1_00000", 1, "Hotels_1", "SearchHotel"),  # two frames of one turn open two intents
        ("dev", "1_00000", 1, "Music_1", "PlaySong"),
        ("dev", "1_00000", 2, "Hotels_1", "ReserveHotel"),
        ("test", "2_00001", 1, "Music_2", "LookupMusic"),
        ("test", "2_00001", 2, "Services_2", "FindProvider"),
        ("test", "2_00001", 3, "Buses_1", "FindBus"),
    ]
    utterances = {(o.dialogue_id, o.turn): o.utterance for o in sgd.openings(folder / sgd.DIALOGUES)}
    assert utterances[("2_00001", 1)] == ""  # stripped; select() drops it


def test_parts_by_domain_as_documented():
    calibration = ["Buses", "Flights", "Homes", "Messaging", "Music", "Payment", "Services", "Trains",
                   "Travel",
                   "Weather"]
    report = ["Alarm", "Banks", "Calendar", "Events", "Hotels", "Media", "Movies", "RentalCars",
              "Restaurants",
              "RideSharing"]
    assert [sgd.part_of(d) for d in calibration] == ["calibration"] * 10
    assert [sgd.part_of(d) for d in report] == ["report"] * 10
    assert sgd.domain_of("RentalCars_3") == "RentalCars"


def test_select_keeps_the_part_drops_empty_and_samples_per_intent_deterministically(folder):
    found = list(sgd.openings(folder / sgd.DIALOGUES))
    kept = sgd.select(found, "calibration")
    assert {sgd.tool_id(o.service, o.intent) for o in kept} == {
        "Buses_1.FindBus", "Buses_1.BuyBusTicket", "Buses_2.FindBus", "Music_1.PlaySong",
        "Services_2.FindProvider"}  # Music_2.LookupMusic's only opening is empty
    assert len(kept) == 7
    report = sgd.select(found, "report")
    assert [(o.service, o.intent) for o in report] == [("Hotels_1", "SearchHotel"),
                                                       ("Hotels_1", "ReserveHotel")]

    def drawn(seed: int) -> list[tuple[str, str, int]]:
        picked = sgd.select(found, "calibration", per_intent=2, seed=seed)
        return [(o.split, o.dialogue_id, o.turn) for o in picked
                if (o.service, o.intent) == ("Buses_1", "FindBus")]

    assert all(len(drawn(seed)) == 2 for seed in range(10))
    assert drawn(0) == drawn(0)
    assert sgd.select(list(reversed(found)), "calibration", 2, 0) == sgd.select(found, "calibration", 2, 0)
    assert len({tuple(drawn(seed)) for seed in range(10)}) > 1  # the seed matters
    picked = sgd.select(found, "calibration", per_intent=2)
    assert picked == sorted(picked, key=lambda o: (o.split, o.dialogue_id, o.turn, o.service))


def test_load_sgd_query_ids_carry_the_split(folder):
    bench = sgd.load_sgd(folder, "calibration")
    assert bench.name == "sgd/calibration" and len(bench.tools) == 13
    ids = [q.id for q in bench.queries]
    assert len(ids) == len(set(ids)) == 7
    assert {"sgd_train_1_00000_0", "sgd_dev_1_00000_0"} <= set(ids)  # the same dialogue id in two splits
    query = next(q for q in bench.queries if q.id == "sgd_dev_1_00000_0")
    assert (query.text, query.reference, query.category, query.subset) == (
        "I need a bus to Sacramento.", ("Buses_2.FindBus",), "Buses", "sgd/calibration")
    assert bench.meta["licence"] == "CC BY-SA 4.0" and "Rastogi" in bench.meta["attribution"]
    assert len(bench.sources) == 4 and bench.checksum
    report = sgd.load_sgd(folder, "report")
    # ids are per turn: only a turn that opens intents of both parts gives both parts one id (the snapshot
    # has no turn that opens two intents, see test_snapshot_counts)
    assert set(ids) & {q.id for q in report.queries} == {"sgd_dev_1_00000_1"}
    assert report.tools.keys() == bench.tools.keys()
    with pytest.raises(InputError, match="unknown SGD part"):
        sgd.load_sgd(folder, "test")


def test_acceptable_same_domain_same_intent_with_the_exceptions(folder):
    bench = sgd.load_sgd(folder, "calibration")
    gold = sgd.acceptable(bench)
    by_reference = {q.reference[0]: gold[q.id] for q in bench.queries}
    assert by_reference["Buses_1.FindBus"] == [["Buses_1.FindBus"], ["Buses_2.FindBus"]]
    assert by_reference["Buses_2.FindBus"] == [["Buses_2.FindBus"], ["Buses_1.FindBus"]]
    assert by_reference["Buses_1.BuyBusTicket"] == [["Buses_1.BuyBusTicket"]]
    # a dentist does not replace a hair stylist: Services is substitutable per service only
    assert by_reference["Services_2.FindProvider"] == [["Services_2.FindProvider"]]
    # Music_1's PlaySong does what Music_2's PlayMedia does (RENAMED)
    assert by_reference["Music_1.PlaySong"] == [["Music_1.PlaySong"], ["Music_2.PlayMedia"]]
    report = sgd.load_sgd(folder, "report")
    hotels = {q.reference[0]: sgd.acceptable(report)[q.id] for q in report.queries}
    assert hotels["Hotels_1.SearchHotel"] == [["Hotels_1.SearchHotel"], ["Hotels_3.SearchHotel"]]  # no houses
    assert hotels["Hotels_1.ReserveHotel"] == [["Hotels_1.ReserveHotel"]]
    eq = sgd.equivalents(bench.tools)
    assert eq["Music_2.LookupMusic"] == ("Music_1.LookupSong", "Music_2.LookupMusic")
    assert eq["Services_1.FindProvider"] == ("Services_1.FindProvider",)


def test_gold_records_round_trip_through_read_gold(folder, tmp_path):
    bench = sgd.load_sgd(folder, "calibration")
    records = [g.to_json() for g in benchmark_gold(bench)]
    path = write_jsonl(tmp_path / "gold.jsonl", records)
    gold = {g.query_id: g for g in read_gold(path)}
    assert gold.keys() == {q.id for q in bench.queries}
    for q in bench.queries:
        assert gold[q.id].reference == q.reference
        assert [list(c) for c in gold[q.id].acceptable] == sgd.acceptable(bench)[q.id]
    assert gold["sgd_dev_1_00000_0"].alternatives == [frozenset({"Buses_1.FindBus"})]


def test_malformed_dialogue_names_the_line(folder):
    path = folder / sgd.DIALOGUES
    _write_dialogues(path,
                     [json.dumps(DIALOGUES[0]), "", '{"split": "dev", "turns": [', json.dumps(DIALOGUES[1])])
    with pytest.raises(InputError, match=r"dialogues_user_turns\.jsonl\.gz, record line 3: malformed"):
        list(sgd.openings(path))
    missing = {k: v for k, v in DIALOGUES[1].items() if k != "dialogue_id"}
    _write_dialogues(path, [json.dumps(DIALOGUES[0]), json.dumps(missing)])
    with pytest.raises(InputError, match="record line 2: malformed dialogue: KeyError"):
        sgd.load_sgd(folder, "calibration")
    path.write_bytes(gzip.compress(json.dumps(DIALOGUES[0]).encode() + b"\n\xff\xfe\n"))
    with pytest.raises(InputError, match="record line 2: malformed dialogue: UnicodeDecodeError"):
        list(sgd.openings(path))
    path.write_text(json.dumps(DIALOGUES[0]), encoding="utf-8")  # not gzip
    with pytest.raises(InputError, match="not a readable gzip file"):
        list(sgd.openings(path))
    path.write_bytes(gzip.compress(json.dumps(DIALOGUES[0]).encode() * 50)[:200])  # truncated
    with pytest.raises(InputError, match="not a readable gzip file"):
        list(sgd.openings(path))


def test_bad_schemas_and_unknown_intents_are_input_errors(folder):
    (folder / "schema_test.json").unlink()
    with pytest.raises(InputError, match="schema_test.json: SGD schema file not found"):
        sgd.load_schemas(folder)
    (folder / "schema_test.json").write_text(json.dumps([{"service_name": "Hotels_3", "slots": []}]))
    with pytest.raises(InputError, match="schema_test.json, record 0: a service needs"):
        sgd.load_schemas(folder)
    (folder / "schema_test.json").write_text("[", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        sgd.load_schemas(folder)
    (folder / "schema_test.json").write_text("[]", encoding="utf-8")
    (folder / "schema_dev.json").write_text(json.dumps(SCHEMAS["dev"][1:]), encoding="utf-8")  # no Hotels_1
    with pytest.raises(InputError, match=r"record 1_00000: intent Hotels_1.SearchHotel is in no schema"):
        sgd.load_sgd(folder, "report")


def test_one_turn_opening_two_intents_of_one_part_is_refused(folder):
    turn = _turn("Find a bus and a dentist.", ("Buses_1", "FindBus"), ("Services_1", "FindProvider"))
    dialogue = {"split": "train", "dialogue_id": "9_00009", "services": [], "turns": [turn]}
    _write_dialogues(folder / sgd.DIALOGUES, [json.dumps(dialogue)])
    with pytest.raises(InputError, match="two intent openings share one query id"):
        sgd.load_sgd(folder, "calibration")


@pytest.mark.skipif(not (paths.data_dir() / "sgd" / "schema_train.json").exists(),
                    reason="the SGD snapshot is not under TOOLEX_DATA")
def test_snapshot_counts():
    folder = paths.data_dir() / "sgd"
    services = sgd.load_schemas(folder)
    assert (len(services), len(sgd.tools_of(services))) == (45, 88)  # as the data README states
    found = list(sgd.openings(folder / sgd.DIALOGUES))
    assert len({(o.split, o.dialogue_id, o.service, o.intent) for o in found}) == 40_743  # first openings
    assert len({(o.split, o.dialogue_id, o.turn) for o in found}) == len(found) == 40_865
    parts = {p: sgd.load_sgd(folder, p) for p in sgd.PARTS}
    assert {p: len(b.queries) for p, b in parts.items()} == {"calibration": 410, "report": 470}
    for bench in parts.values():
        assert len({q.id for q in bench.queries}) == len(bench.queries)
        assert {sgd.part_of(q.category) for q in bench.queries} == {bench.name.split("/")[1]}


def test_same_named_intents_of_another_purpose_stand_alone():
    cls = sgd.equivalence_class
    assert cls("Media_1", "FindMovies") == cls("Media_3", "FindMovies")  # both find films to play
    assert cls("Media_2", "FindMovies") != cls("Media_1", "FindMovies")  # films to rent
    movies = {cls(f"Movies_{i}", "FindMovies") for i in (1, 2, 3)}
    assert len(movies) == 3  # cinemas, a database, reviews
    assert cls("Media_1", "PlayMovie") == cls("Media_3", "PlayMovie")
    assert cls("Hotels_1", "SearchHotel") == cls("Hotels_3", "SearchHotel")
    assert sgd.GOLD_VERSION.startswith("2:")
