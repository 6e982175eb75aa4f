"""The MetaTool and ToolAlpaca converters on tiny hand-made source files, and (when present) the snapshot."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from toolex import paths
from toolex.data import load_benchmark, metatool, toolalpaca
from toolex.errors import InputError

# --- MetaTool ----------------------------------------------------------------------------------------------

DESCRIPTIONS = {"WeatherTool": "Weather forecasts anywhere.", "NewsTool": "The latest news.",
                "word_sneak": "A word game.", "PDF&URLTool": "Chat with PDF files and web pages."}
MANIFESTS = [
    {"name_for_model": "word_sneak", "name_for_human": "Word Sneak", "description_for_model": "Play a game.",
     "description_for_human": "A word game."},
    {"name_for_model": "word_sneak", "name_for_human": "Word Sneak 2", "description_for_model": "Other.",
     "description_for_human": "A word game."},  # a differing duplicate: the first wins, counted
    {"name_for_model": "not_a_tool", "name_for_human": "X", "description_for_model": "Y",
     "description_for_human": "Z"},
]
ROWS = [
    ("Will it rain tomorrow?", "WeatherTool"),            # row 0
    ("What's the weather like today?", "WeatherTool"),    # row 1: ambiguous (also word_sneak)
    ("Any news about Tesla?", "NewsTool"),                # row 2
    ("What's the weather like today?", "word_sneak"),     # row 3: ambiguous
    ("  Will it snow in Oslo?  ", "WeatherTool"),         # row 4: stripped
    ("Any news about Tesla?", "NewsTool"),                # row 5: duplicate of row 2
    ("Summarise this PDF\nWeather,broken", "PDF&URLTool"),  # row 6: spans two lines
    ("Headlines from Rome?", "NewsTool"),                 # row 7
    ("Play a word game with me.", "word_sneak"),          # row 8
    ("Is it sunny in Lima?", "WeatherTool"),              # row 9
]
MULTI = [{"query": "Weather in Paris and news about France.", "tool": ["WeatherTool", "NewsTool"]},
         {"query": "Summarise this page and play a game.", "tool": ["PDF&URLTool", "GoneTool"]},
         {"query": " News, then the weather. ", "tool": ["NewsTool", "WeatherTool"]}]


def _write_csv(path: Path, rows: list[tuple[str, str]], header: tuple[str, str] = ("Query", "Tool")) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture()
def meta_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "metatool"
    folder.mkdir()
    (folder / metatool.DESCRIPTIONS).write_text(json.dumps(DESCRIPTIONS), encoding="utf-8")
    (folder / metatool.MANIFESTS).write_text(json.dumps(MANIFESTS), encoding="utf-8")
    (folder / metatool.MULTI).write_text(json.dumps(MULTI), encoding="utf-8")
    _write_csv(folder / metatool.QUERIES, ROWS)
    return folder


def test_metatool_tools_carry_description_and_manifest(meta_folder):
    bench = metatool.load_metatool(meta_folder)
    assert sorted(bench.tools) == ["metatool_NewsTool", "metatool_PDF&URLTool", "metatool_WeatherTool",
                                   "metatool_word_sneak"]
    tool = bench.tools["metatool_word_sneak"]
    assert (tool.name, tool.platform, tool.category, tool.subset) == (
        "word_sneak", "word_sneak", "customized", "metatool")
    assert tool.documentation == {"name": "word_sneak", "description": "A word game.",
                                  "name_for_human": "Word Sneak", "description_for_model": "Play a game."}
    assert bench.tools["metatool_NewsTool"].documentation == {"name": "NewsTool",
                                                              "description": "The latest news."}
    assert bench.meta["manifests"] == 1 and bench.meta["manifest_conflicts"] == 1


def test_metatool_candidates_leave_out_ambiguous_multiline_and_repeated_texts(meta_folder):
    rows = metatool.read_rows(meta_folder / metatool.QUERIES, list(DESCRIPTIONS))
    assert [r.row for r in rows] == list(range(10))
    assert rows[4].text == "Will it snow in Oslo?"
    kept, excluded = metatool.candidates(rows)
    assert [r.row for r in kept] == [0, 2, 4, 7, 8, 9]
    assert excluded == {"ambiguous": 2, "multiline": 1, "duplicate": 1}


def test_metatool_queries_ids_references_and_multi_tool(meta_folder):
    bench = metatool.load_metatool(meta_folder)
    assert bench.name == "customized/metatool"
    single = [q for q in bench.queries if q.subset == "metatool/single"]
    multi = [q for q in bench.queries if q.subset == "metatool/multi"]
    assert len(single) == 6  # fewer candidates than SINGLE: all of them
    assert [q.id for q in single] == [f"metatool_single_{i}" for i in (0, 2, 4, 7, 8, 9)]
    by_id = bench.query_by_id
    assert (by_id["metatool_single_4"].text, by_id["metatool_single_4"].reference) == (
        "Will it snow in Oslo?", ("metatool_WeatherTool",))
    # the record naming an unknown tool is counted, not kept; ids keep the file's record index
    assert [q.id for q in multi] == ["metatool_multi_0", "metatool_multi_2"]
    assert by_id["metatool_multi_2"].reference == ("metatool_NewsTool", "metatool_WeatherTool")
    assert by_id["metatool_multi_2"].text == "News, then the weather."
    assert bench.meta["multi"] == {"kept": 2, "unresolved": 1}
    assert {q.instruction for q in bench.queries} == {metatool.INSTRUCTION}
    assert metatool.INSTRUCTION.startswith("Given a `") and "retrieve tools that" in metatool.INSTRUCTION
    assert {q.category for q in bench.queries} == {"customized"}
    assert all(t in bench.tools for q in bench.queries for t in q.reference)
    assert bench.meta["licence"] == "MIT" and "35e81bb7" in bench.meta["attribution"]
    assert len(bench.sources) == 4


def _rows(n_tools: int, per_tool: int) -> list[metatool.Row]:
    return [metatool.Row(t * per_tool + i, f"query {t}-{i}", f"tool{t:02d}")
            for t in range(n_tools) for i in range(per_tool)]


def test_metatool_draw_is_stratified_and_deterministic():
    rows = _rows(7, 5)
    picked = metatool.select(rows, 10, seed=0)
    assert len(picked) == 10
    per_tool = Counter(r.tool for r in picked)
    assert len(per_tool) == 7 and max(per_tool.values()) == 2  # every tool first, then a second round
    assert picked == metatool.select(rows, 10, seed=0)
    assert picked == metatool.select(list(reversed(rows)), 10, seed=0)  # input order does not matter
    assert picked == sorted(picked, key=lambda r: r.row)
    assert len({tuple(r.row for r in metatool.select(rows, 10, seed=s)) for s in range(10)}) > 1
    few = metatool.select(rows, 4, seed=1)
    assert len(few) == 4 and len({r.tool for r in few}) == 4  # fewer than the tools: one each
    uneven = [*_rows(3, 1), *[metatool.Row(100 + i, f"many {i}", "tool09") for i in range(20)]]
    assert Counter(r.tool for r in metatool.select(uneven, 8)) == {"tool00": 1, "tool01": 1, "tool02": 1,
                                                                  "tool09": 5}
    assert len(metatool.select(rows, 1000)) == 35


def test_metatool_documented_count_and_seed(meta_folder):
    assert (metatool.SINGLE, metatool.SEED) == (200, 0)
    rows = [(f"Question number {i} about the weather?", "WeatherTool") for i in range(150)]
    rows += [(f"Question number {i} about the news?", "NewsTool") for i in range(150)]
    _write_csv(meta_folder / metatool.QUERIES, rows)
    first = metatool.load_metatool(meta_folder)
    again = metatool.load_metatool(meta_folder)
    single = [q for q in first.queries if q.subset == "metatool/single"]
    assert len(single) == 200
    assert Counter(q.reference[0] for q in single) == {"metatool_WeatherTool": 100, "metatool_NewsTool": 100}
    assert [q.id for q in first.queries] == [q.id for q in again.queries]
    assert first.checksum == again.checksum
    other = metatool.load_metatool(meta_folder, seed=1)
    assert [q.id for q in other.queries] != [q.id for q in first.queries]
    assert other.checksum != first.checksum  # the draw is part of the provenance
    assert first.meta["single"]["drawn"] == 200 and first.meta["single"]["seed"] == 0


def test_metatool_malformed_records_name_file_and_record(meta_folder):
    _write_csv(meta_folder / metatool.QUERIES, [ROWS[0], ("Where is my parcel?", "ParcelTool")])
    with pytest.raises(InputError, match=r"all_clean_data\.csv, record line 3: tool 'ParcelTool' is not in"):
        metatool.load_metatool(meta_folder)
    (meta_folder / metatool.QUERIES).write_text("Query,Tool\nfine?,NewsTool\nno tool here\n")
    with pytest.raises(InputError, match=r"all_clean_data\.csv, record line 3: expected 2 fields"):
        metatool.load_metatool(meta_folder)
    _write_csv(meta_folder / metatool.QUERIES, ROWS, header=("Text", "Plugin"))
    with pytest.raises(InputError, match="record line 1: expected the header Query,Tool"):
        metatool.load_metatool(meta_folder)
    _write_csv(meta_folder / metatool.QUERIES, ROWS)
    (meta_folder / metatool.MULTI).write_text(json.dumps([MULTI[0], {"query": "x", "tool": "NewsTool"}]))
    with pytest.raises(InputError, match=r"multi_tool_query_golden\.json, record 1: 'tool' must be a list"):
        metatool.load_metatool(meta_folder)
    (meta_folder / metatool.DESCRIPTIONS).write_text(json.dumps({**DESCRIPTIONS, "NewsTool": ""}))
    with pytest.raises(InputError, match=r"plugin_des\.json, record NewsTool: a tool needs"):
        metatool.load_metatool(meta_folder)
    (meta_folder / metatool.DESCRIPTIONS).unlink()
    with pytest.raises(InputError, match="plugin_des.json: MetaTool tool descriptions not found"):
        metatool.load_metatool(meta_folder)


# --- ToolAlpaca --------------------------------------------------------------------------------------------

def _operation(operation_id: str | None, summary: str, params: list[str]) -> dict:
    out = {"summary": summary, "responses": {"200": {"description": "OK"}},
           "parameters": [{"name": p, "in": "query", "required": True, "schema": {"type": "string"},
                           "description": f"the {p}"} for p in params]}
    if operation_id:
        out["operationId"] = operation_id
    return out


def _nl(summary: str, params: list[str]) -> str:
    return (f"{summary}\nParameters: {json.dumps({p: f'Required. string. the {p}' for p in params})}\n"
            "Output: OK.")


def _api(name: str, functions: dict[str, tuple[str, str, list[str]]], instructions: list[str],
         answers: list, nested: dict | None = None) -> dict:
    paths_: dict = {}
    for fn, (path, summary, params) in functions.items():
        operation_id = None if fn == f"{path.strip('/').replace('/', '_')}_get" else fn
        paths_.setdefault(path, {})["get"] = _operation(operation_id, summary, params)
    for parent, items in (nested or {}).items():
        paths_[parent].update(items)
    return {"Name": name, "Description": f"The {name} API", "Category": "Test",
            "Documentation": json.dumps({"openapi": "3.0.1", "paths": paths_}),
            "NLDocumentation": "".join(f"{fn}: {_nl(s, p)}\n" for fn, (_, s, p) in functions.items()),
            "Function_Description": {**{fn: _nl(s, p) for fn, (_, s, p) in functions.items()},
                                     "components": ""},
            "Function_Projection": {fn: [path, "get"] for fn, (path, _, _) in functions.items()},
            "Instructions": instructions, "Golden_Answers": answers}


def _step(action: str, arguments: str = "{}") -> dict:
    return {"Action": action, "Action_Input": arguments}


REAL = [
    _api("Nager.Date", {"CountryInfo": ("/api/country", "Get country info", ["countryCode"]),
                        "api_holidays_get": ("/api/holidays", "Get public holidays", ["year"])},
         ["Get the country info for China.", "  Holidays in 2024 and info on France?  "],
         [[_step("CountryInfo", '{"countryCode": "CN"}')],
          [_step("api_holidays_get"), _step("CountryInfo"), _step("api_holidays_get")]]),
    _api("AviationAPI", {"airports_get": ("/airports", "Get an airport", ["apt"])},
         ["METAR for KAVL?", "Weather and runway at ORD?"],
         [[_step("weather_metar_get", '{"apt": "KAVL"}')],
          [_step("weather_metar_get"), _step("airports_get")]],
         nested={"/airports": {"/weather/metar": {"get": _operation(None, "Get the METAR", ["apt"])}}}),
]
SIMULATED = [
    _api("Améthyste", {"generateAvatar": ("/avatar", "Generate an avatar", ["userId"]),
                       "searchUser": ("/users", "Search a user", ["query"])},
         ["Make me an avatar.", "Find my friend and make an avatar."],
         # a golden answer stored as a Python-literal string, with ToolAlpaca's getDetails and [Optional]
         ["[{'Action': 'getDetails', 'Action_Input': '{\"Question\": \"your user id?\"}'}, "
          "{'Action': 'generateAvatar', 'Action_Input': '{}'}]",
          [_step("searchUser"), _step("[Optional]generateAvatar")]]),
]


@pytest.fixture()
def alpaca_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "toolalpaca"
    folder.mkdir()
    (folder / "eval_real.json").write_text(json.dumps(REAL), encoding="utf-8")
    (folder / "eval_simulated.json").write_text(json.dumps(SIMULATED), encoding="utf-8")
    return folder


def test_toolalpaca_tools_are_api_functions(alpaca_folder):
    bench = toolalpaca.load_toolalpaca(alpaca_folder)
    assert sorted(bench.tools) == [
        "toolalpaca_amethyste_generateAvatar", "toolalpaca_amethyste_searchUser",
        "toolalpaca_aviationapi_airports_get", "toolalpaca_aviationapi_weather_metar_get",
        "toolalpaca_nager-date_CountryInfo", "toolalpaca_nager-date_api_holidays_get"]
    tool = bench.tools["toolalpaca_nager-date_CountryInfo"]
    assert (tool.name, tool.platform, tool.subset, tool.category) == ("CountryInfo", "Nager.Date",
                                                                      "toolalpaca/real", "customized")
    assert tool.documentation == {"name": "CountryInfo", "description": "Get country info",
                                  "api": "Nager.Date", "api_description": "The Nager.Date API",
                                  "path": "/api/country", "method": "get",
                                  "documentation": _nl("Get country info", ["countryCode"])}
    assert bench.tools["toolalpaca_amethyste_searchUser"].subset == "toolalpaca/simulated"
    # the nested path item is recovered under ToolAlpaca's naming rule, documented in the NL layout
    recovered = bench.tools["toolalpaca_aviationapi_weather_metar_get"]
    assert bench.meta["recovered_functions"] == ["toolalpaca_aviationapi_weather_metar_get"]
    assert recovered.documentation["path"] == "/weather/metar"
    assert recovered.documentation["documentation"] == _nl("Get the METAR", ["apt"])
    assert bench.meta["functions"] == {"real": 4, "simulated": 2}


def test_toolalpaca_queries_and_references(alpaca_folder):
    bench = toolalpaca.load_toolalpaca(alpaca_folder)
    assert bench.name == "customized/toolalpaca"
    by_id = bench.query_by_id
    assert list(by_id) == ["toolalpaca_nager-date_0", "toolalpaca_nager-date_1", "toolalpaca_aviationapi_0",
                           "toolalpaca_aviationapi_1", "toolalpaca_amethyste_0", "toolalpaca_amethyste_1"]
    holidays = by_id["toolalpaca_nager-date_1"]
    assert holidays.text == "Holidays in 2024 and info on France?"
    assert holidays.reference == ("toolalpaca_nager-date_api_holidays_get",
                                  "toolalpaca_nager-date_CountryInfo")  # distinct, in call order
    assert by_id["toolalpaca_aviationapi_1"].reference == ("toolalpaca_aviationapi_weather_metar_get",
                                                           "toolalpaca_aviationapi_airports_get")
    # getDetails asks the user: no tool
    assert by_id["toolalpaca_amethyste_0"].reference == ("toolalpaca_amethyste_generateAvatar",)
    assert by_id["toolalpaca_amethyste_1"].reference == ("toolalpaca_amethyste_searchUser",
                                                         "toolalpaca_amethyste_generateAvatar")
    assert by_id["toolalpaca_amethyste_1"].subset == "toolalpaca/simulated"
    assert bench.meta["calls"] == {"get_details": 1, "optional": 1}
    assert bench.meta["apis"] == {"real": 2, "simulated": 1}
    assert bench.meta["instructions"] == {"real": 4, "simulated": 2}
    assert {q.instruction for q in bench.queries} == {toolalpaca.INSTRUCTION}
    assert {q.category for q in bench.queries} == {"customized"}
    assert bench.meta["licence"] == "Apache-2.0" and "18906999" in bench.meta["attribution"]
    assert toolalpaca.api_part("A Bíblia Digital") == "a-biblia-digital"


def test_toolalpaca_naming_rule_matches_projection():
    assert toolalpaca.function_name("/jokes/random/{category}", "get", {}) == "jokes_random_category_get"
    assert toolalpaca.function_name("/x", "post", {"operationId": "makeX"}) == "makeX"


def _broken(folder: Path, api: dict) -> None:
    (folder / "eval_simulated.json").write_text(json.dumps([api]), encoding="utf-8")


@pytest.mark.parametrize("change, message", [
    (lambda a: a["Golden_Answers"].__setitem__(1, [_step("deleteUniverse")]),
     r"eval_simulated\.json, record 0 \(Améthyste\), instruction 1: golden answer calls 'deleteUniverse'"),
    (lambda a: a["Golden_Answers"].__setitem__(0, "[{'Action': 'searchUser'"),
     r"record 0 \(Améthyste\), instruction 0: golden answer is not a Python literal"),
    (lambda a: a["Golden_Answers"].__setitem__(0, [{"Input": "{}"}]),
     r"record 0 \(Améthyste\), instruction 0: a golden answer step needs an 'Action'"),
    (lambda a: a["Golden_Answers"].pop(),
     r"record 0 \(Améthyste\): 2 instructions but 1 golden answers"),
    (lambda a: a.pop("Function_Projection"),
     r"eval_simulated\.json, record 0: an API needs Function_Projection"),
    (lambda a: a.__setitem__("Documentation", "{not json"),
     r"record 0 \(Améthyste\): 'Documentation' is not"),
])
def test_toolalpaca_malformed_records_name_file_and_record(alpaca_folder, change, message):
    api = json.loads(json.dumps(SIMULATED[0]))
    change(api)
    _broken(alpaca_folder, api)
    with pytest.raises(InputError, match=message):
        toolalpaca.load_toolalpaca(alpaca_folder)


def test_toolalpaca_apis_sharing_an_id_are_refused(alpaca_folder):
    (alpaca_folder / "eval_simulated.json").write_text(json.dumps(REAL[:1]), encoding="utf-8")
    with pytest.raises(InputError, match="is given in both evaluation files"):
        toolalpaca.load_toolalpaca(alpaca_folder)
    twin = {**SIMULATED[0], "Name": "AMETHYSTE"}
    (alpaca_folder / "eval_simulated.json").write_text(json.dumps([SIMULATED[0], twin]), encoding="utf-8")
    with pytest.raises(InputError, match=r"record 1 \(AMETHYSTE\): API 'AMETHYSTE' and API 'Améthyste'"):
        toolalpaca.load_toolalpaca(alpaca_folder)


# --- registry ----------------------------------------------------------------------------------------------

def test_registry_names(meta_folder, alpaca_folder):
    root = meta_folder.parent
    (root / "customized").mkdir()
    meta_folder.rename(root / "customized" / "metatool")
    alpaca_folder.rename(root / "customized" / "toolalpaca")
    merged = load_benchmark("customized", root)
    assert merged.meta["parts"] == ["customized/metatool", "customized/toolalpaca"]
    assert len(merged.queries) == 8 + 6 and len(merged.tools) == 4 + 6
    assert load_benchmark("customized/toolalpaca", root).name == "customized/toolalpaca"
    with pytest.raises(InputError, match="customized/metatool, customized/toolalpaca"):
        load_benchmark("customized/nope", root)


# --- the snapshot ------------------------------------------------------------------------------------------

CUSTOMIZED = paths.data_dir() / "customized"


@pytest.mark.skipif(not (CUSTOMIZED / "metatool" / metatool.QUERIES).exists(),
                    reason="the MetaTool source data is not under TOOLEX_DATA")
def test_metatool_snapshot_counts():
    bench = load_benchmark("customized/metatool")
    assert len(bench.tools) == 199
    assert sum(len(t.documentation) == 4 for t in bench.tools.values()) == 153  # with a manifest
    assert bench.meta["single"] == {"drawn": 200, "requested": 200, "seed": 0, "rows": 20_614,
                                    "candidates": 20_531, "tools_with_rows": 199}
    assert bench.meta["excluded"] == {"ambiguous": 29, "multiline": 1, "duplicate": 53}
    assert bench.meta["multi"] == {"kept": 497, "unresolved": 0} and bench.meta["manifest_conflicts"] == 0
    single = [q for q in bench.queries if q.subset == "metatool/single"]
    assert len(single) == 200 and len(bench.queries) == 697
    assert len({q.reference[0] for q in single}) == 199  # every tool drawn, one of them twice
    assert {len(q.reference) for q in bench.queries if q.subset == "metatool/multi"} == {2}
    assert len({q.id for q in bench.queries}) == 697
    assert all(t in bench.tools for q in bench.queries for t in q.reference)


@pytest.mark.skipif(not (CUSTOMIZED / "toolalpaca" / "eval_real.json").exists(),
                    reason="the ToolAlpaca source data is not under TOOLEX_DATA")
def test_toolalpaca_snapshot_counts():
    bench = load_benchmark("customized/toolalpaca")
    assert bench.meta["apis"] == {"real": 11, "simulated": 10}
    assert bench.meta["instructions"] == {"real": 114, "simulated": 100}
    assert bench.meta["functions"] == {"real": 45, "simulated": 54} and len(bench.tools) == 99
    assert bench.meta["calls"] == {"get_details": 8, "optional": 1}
    assert len(bench.meta["recovered_functions"]) == 5
    assert len(bench.queries) == 214 and bench.skipped == 0
    assert Counter(len(q.reference) for q in bench.queries) == {1: 178, 2: 36}
    assert all(t in bench.tools for q in bench.queries for t in q.reference)
    merged = load_benchmark("customized")
    assert (len(merged.queries), len(merged.tools)) == (697 + 214, 199 + 99)
