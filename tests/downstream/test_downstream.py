"""The downstream experiment with a rule-based fake LLM: functions, the virtual API server, the agent loop,
the evaluator, the three settings' tools, the run folder (cache, replay, resume after a kill, failures) and
the command."""

from __future__ import annotations

import json
import math

import pytest

from tests.downstream.fake_llm import DownstreamLLM, count
from toolex.data.records import Annotation, Benchmark, Query, Tool
from toolex.downstream import functions
from toolex.downstream.agent import Agent
from toolex.downstream.evaluator import PassRateEvaluator
from toolex.downstream.run import (
    RunFolder,
    ToolChoice,
    pass_rates,
    results_frame,
    run_setting,
    sample_queries,
    tool_choices,
)
from toolex.downstream.simulator import ApiSimulator, HttpApi, SimulatorServer
from toolex.errors import InputError
from toolex.llm import LLMClient, LLMSettings, ResponseCache


def _api(tool: str, api: str, required=(("q", "STRING"),), optional=()) -> Tool:
    def params(pairs):
        return [{"name": n, "type": t, "description": n, "default": ""} for n, t in pairs]

    doc = {"category_name": "Data", "tool_name": tool, "api_name": api, "api_description": f"{api} of {tool}",
           "required_parameters": params(required), "optional_parameters": params(optional), "method": "GET"}
    return Tool(f"{tool}::{api}", api, doc, "stabletoolbench", "web", tool)


TOOLS = {t.id: t for t in (_api("Weather", "current"), _api("Weather", "forecast", (("days", "NUMBER"),)),
                           _api("Meteo", "now"), _api("Quiet", "silent_api"))}
QUERIES = [Query("G1_instruction_1", "What is the weather now?", ("Weather::current",),
                 subset="G1_instruction"),
           Query("G1_tool_2", "Forecast please", ("Weather::forecast",), subset="G1_tool"),
           Query("G2_category_3", "loop forever on the weather", ("Weather::current",), subset="G2_category"),
           Query("G3_instruction_4", "give up on the weather", ("Meteo::now",), subset="G3_instruction")]
BENCHMARK = Benchmark("stabletoolbench/test", QUERIES, TOOLS, "c0ffee")


def _client(server: DownstreamLLM, tmp_path, role: str) -> LLMClient:
    settings = LLMSettings(base_url=server.base_url, model="fake-model", response_format="json_object",
                           backoff=0.01, timeout=5.0, malformed_retries=0, max_retries=0)
    return LLMClient(settings.for_stage(role), cache=ResponseCache(tmp_path / "cache"))


def test_functions_follow_toolbench_names_and_check_arguments():
    tool = TOOLS["Weather::forecast"]
    assert functions.function_name(tool) == "forecast_for_weather"
    spec = functions.function_spec(tool)
    assert spec["parameters"]["required"] == ["days"]
    assert spec["parameters"]["properties"]["days"]["type"] == "number"
    assert functions.argument_error(tool, {"days": 3}) is None
    assert "missing required parameter(s) days" in functions.argument_error(tool, {})
    assert "unknown parameter(s) city" in functions.argument_error(tool, {"days": 2, "city": "x"})
    assert "days must be a number" in functions.argument_error(tool, {"days": "soon"})
    assert "JSON object" in functions.argument_error(tool, ["days"])
    assert functions.normalise({"b": " x ", "a": 2.0}) == {"a": 2, "b": "x"}
    twins = functions.functions_of([TOOLS["Weather::current"], TOOLS["Weather::current"]])
    assert list(twins) == ["current_for_weather", "current_for_weather_2"]


def test_the_simulator_refuses_bad_calls_without_the_llm_and_replays_the_same_call(tmp_path):
    with DownstreamLLM() as server:
        simulator = ApiSimulator(TOOLS, _client(server, tmp_path, "simulator"))
        assert "no API" in simulator.call("Nope::x", {})["error"]
        assert "missing required" in simulator.call("Weather::forecast", {})["error"]
        assert count(server, "simulator") == 0
        first = simulator.call("Weather::current", {"q": " Paris "})
        again = simulator.call("Weather::current", {"q": "Paris"})  # the same call once normalised
        assert first == again and first["error"] == "" and count(server, "simulator") == 1
        silent = simulator.call("Quiet::silent_api", {"q": "x"})
        assert silent["error"] == "the API returned an empty response"
        with SimulatorServer(simulator) as http:
            answer = HttpApi(http.url).call("Weather::current", {"q": "Paris"})
            assert answer == first and count(server, "simulator") == 2
            assert "invalid request" in HttpApi(http.url).call("Weather::forecast", {"days": "x"})["error"]


def test_the_settings_offer_c_star_the_retrieved_top_and_an_equivalent_combination():
    oracle = tool_choices("oracle", QUERIES[:2])
    assert oracle["G1_tool_2"] == ToolChoice(("Weather::forecast",))
    run = {"G1_instruction_1": {"Meteo::now": 3.0, "Weather::current": 2.0}, "G1_tool_2": {}}
    retrieved = tool_choices("retrieved", QUERIES[:2], run=run)
    assert retrieved["G1_instruction_1"].tools == ("Meteo::now",) and retrieved["G1_tool_2"].tools == ()
    annotations = {"G1_instruction_1": Annotation("G1_instruction_1", "web", ("Weather::current",),
                                                  (("Weather::current",), ("Meteo::now",)))}
    expanded = tool_choices("expanded", QUERIES[:2], annotations=annotations)
    assert expanded["G1_instruction_1"] == ToolChoice(("Meteo::now",), False)
    assert expanded["G1_tool_2"] == ToolChoice(("Weather::forecast",), True)
    with pytest.raises(InputError):
        tool_choices("retrieved", QUERIES, run=None)


def test_the_sample_spreads_over_groups_and_is_seeded():
    sample = sample_queries(BENCHMARK, 3, seed=1)
    assert len({q.subset for q in sample}) == 3 and sample == sample_queries(BENCHMARK, 3, seed=1)


def _run(server, tmp_path, queries, setting="oracle"):
    folder = RunFolder(tmp_path / "run", {"sample": [q.id for q in queries]})
    simulator = ApiSimulator(TOOLS, _client(server, tmp_path, "simulator"))
    with SimulatorServer(simulator) as http:
        solver = Agent(_client(server, tmp_path, "agent"), HttpApi(http.url), max_steps=3)
        judge = PassRateEvaluator(_client(server, tmp_path, "evaluator"))
        return folder, run_setting(folder, setting, queries, tool_choices(setting, queries), TOOLS, solver,
                                   judge)


def test_a_run_records_each_query_and_resumes_after_a_kill_without_repeating_a_call(tmp_path):
    with DownstreamLLM() as server:
        folder, failed = _run(server, tmp_path, QUERIES)
        assert failed == []
        records = {r["query_id"]: r for r in folder.records("oracle")}
        assert records["G1_instruction_1"]["evaluation"]["status"] == "Solved"
        assert records["G1_instruction_1"]["trajectory"]["finish"] == "give_answer"
        assert records["G2_category_3"]["trajectory"]["finish"] == "step_limit"  # never called Finish
        assert records["G2_category_3"]["evaluation"] == {"status": "Unsolved", "reason":
                                                          "no final answer (step_limit)", "asked": False,
                                                          "passed": 0.0}
        assert records["G3_instruction_4"]["trajectory"]["finish"] == "give_up"
        calls = len(server.requests)
        # a kill while the last line was being written: the torn line is dropped, that query runs again
        path = folder.path("oracle")
        lines = path.read_bytes().splitlines(keepends=True)
        path.write_bytes(b"".join(lines[:-1]) + lines[-1][:20])
        folder, failed = _run(server, tmp_path, QUERIES)
        assert failed == [] and len(server.requests) == calls  # every call replayed from the cache
        assert len(folder.records("oracle")) == 4
        frame = results_frame(folder.folder)
        table = pass_rates(frame).set_index(["group", "setting"])
        assert table.loc[("all", "oracle"), "pass rate, %"] == 50.0
        assert table.loc[("all", "oracle"), "95% CI low"] < 50.0 < table.loc[("all", "oracle"), "95% CI high"]


def test_a_run_replayed_from_the_cache_alone_asks_nothing_and_records_the_same_steps(tmp_path):
    # the fake model writes its keys unsorted and the cache stores them sorted: the next step's prompt must
    # not depend on which of the two an answer came from
    with DownstreamLLM() as server:
        folder, failed = _run(server, tmp_path, QUERIES)
        first = {r["query_id"]: r["trajectory"] for r in folder.records("oracle")}
        calls = len(server.requests)
        assert failed == [] and len(first["G2_category_3"]["steps"]) == 3  # a multi-step trajectory
        for path in folder.folder.glob("*.jsonl"):
            path.unlink()
        folder, failed = _run(server, tmp_path, QUERIES)
        again = {r["query_id"]: r["trajectory"] for r in folder.records("oracle")}
        assert failed == [] and len(server.requests) == calls

    def without_cache_flags(trajectory):
        return [{k: v for k, v in step.items() if k != "cached"} for step in trajectory["steps"]]

    assert {q: without_cache_flags(t) for q, t in again.items()} == {q: without_cache_flags(t)
                                                                     for q, t in first.items()}


def test_a_failing_agent_is_not_recorded_and_is_asked_again(tmp_path):
    garbled = [Query("G1_tool_9", "garbled weather", ("Weather::current",), subset="G1_tool")]
    with DownstreamLLM() as server:
        server.broken.set()
        folder, failed = _run(server, tmp_path, garbled)
        assert failed == ["G1_tool_9"] and folder.records("oracle") == []
        server.broken.clear()
        folder, failed = _run(server, tmp_path, garbled)
        assert failed == [] and folder.records("oracle")[0]["evaluation"]["status"] == "Solved"


def test_a_folder_of_another_run_is_refused(tmp_path):
    RunFolder(tmp_path / "run", {"sample": ["a"]})
    with pytest.raises(InputError, match="another downstream run"):
        RunFolder(tmp_path / "run", {"sample": ["b"]})


def test_paired_comparison_counts_wins_on_the_same_queries():
    import pandas as pd

    frame = pd.DataFrame({"setting": ["oracle"] * 3 + ["expanded"] * 3, "group": ["G1"] * 6,
                          "query_id": ["a", "b", "c"] * 2, "passed": [0.0, 1.0, 0.5, 1.0, 1.0, 0.0],
                          "fallback": [False] * 6})
    from toolex.report.downstream import paired

    result = paired(frame, "oracle", "expanded", resamples=200)
    assert result["queries"] == 3 and result["expanded better"] == 1 and result["oracle better"] == 1
    assert result["difference, points"] == pytest.approx(100 * 0.5 / 3)
    assert result["95% interval"].startswith("[")
    same = paired(frame.assign(passed=[1.0, 0.0, 1.0] * 2), "oracle", "expanded", resamples=200)
    assert same["95% interval"] == "n/a (every resample 0.0)" and math.isnan(same["95% CI low"])


def test_the_command_estimates_calls_before_asking(capsys, data_dir):
    from toolex.cli import main

    assert main(["downstream", "--data", str(data_dir), "--sample", "6", "--max-steps", "4", "--out",
                 "unused", "--estimate"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["queries"] == 6 and out["most_llm_calls"] == 6 * 3 * 9


def test_figure6_reads_a_kept_run_without_any_llm(tmp_path):
    from toolex.report import downstream

    with DownstreamLLM() as server:
        folder, _ = _run(server, tmp_path, QUERIES, "oracle")
    identity = {"benchmark": "stabletoolbench/test", "data": "c0ffee" * 4, "queries": [q.id for q in QUERIES],
                "settings": ["oracle"], "retriever": "bm25", "prompts": {}, "models": {"agent": "fake-model"}}
    (folder.folder / "manifest.json").write_text(json.dumps({"identity": identity}))
    run = downstream.open_run(folder.folder)
    assert run is not None and "4 queries × 1 settings" in run.describe()
    assert set(run.table["group"]) == {q.subset for q in QUERIES} | {"all"}
    fig = downstream.pass_rate_bars(run.table, "t")
    assert len(fig.axes[0].patches) == 5  # one bar per group and setting
    diffs = downstream.differences(run.frame, resamples=100)
    assert list(diffs["queries"]) == [0, 0]  # one setting only: nothing to pair
    assert diffs["paper, points (range over the six groups)"].iloc[0] == "3.5 to 6.5"
    assert "Judge:" not in run.footer() and "LLMs: agent: fake-model" in run.footer()  # no expanded setting
    record = run.provenance()  # the record every table of ours carries
    assert record["toolex"] and record["created"] and record["data_checksum"] == "c0ffee" * 4
    assert record["judge"] is None and record["llms"] == {"agent": "fake-model"}
    assert record["retrievers"] == ["bm25"]


def test_figure6_names_the_expanded_settings_judge_and_the_queries_scored(tmp_path):
    """The footer's judge is the ToolEX judge whose annotations the expanded setting offered, not the agent's
    model; each group is labelled with the queries each setting scored."""
    import pandas as pd

    from toolex.downstream.run import RunFolder, pass_rates
    from toolex.report import downstream

    identity = {"benchmark": "b", "data": "c0ffee" * 4, "queries": ["a", "b"],
                "settings": ["oracle", "expanded"], "retriever": "bm25", "prompts": {},
                "models": {"agent": "fake-model"}}
    folder = RunFolder(tmp_path / "run", identity)
    folder.record_expansion("offline-similarity(mpnet), score model 0123 (threshold 0.4)", "ann/")
    again = RunFolder(tmp_path / "run", identity)  # reopening keeps what the manifest records
    assert again.manifest["expansion"]["annotations"] == "ann/"
    frame = pd.DataFrame({"setting": ["oracle", "expanded", "expanded"], "group": ["G1"] * 3,
                          "query_id": ["a", "a", "b"], "status": ["ok"] * 3, "passed": [1.0, 0.0, 1.0],
                          "fallback": [False] * 3, "steps": [1] * 3, "finish": ["give_answer"] * 3})
    run = downstream.KeptRun(folder.folder, identity, frame, pass_rates(frame), again.manifest)
    assert "Judge: offline-similarity(mpnet), score model 0123" in run.footer()
    assert "LLMs: agent: fake-model" in run.footer()
    assert run.provenance()["judge"].startswith("offline-similarity(mpnet)")
    fig = downstream.pass_rate_bars(run.table, "t")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["G1\nn=1/2", "all\nn=1/2"]


def test_the_command_runs_two_settings_on_real_queries_and_resumes(tmp_path, monkeypatch, capsys, data_dir):
    from toolex.cli import main

    with DownstreamLLM() as server:
        monkeypatch.setenv("TOOLEX_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("TOOLEX_LLM_MODEL", "fake-model")
        monkeypatch.setenv("TOOLEX_LLM_RESPONSE_FORMAT", "json_object")
        monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "cache"))
        args = ["downstream", "--data", str(data_dir), "--llm", "api", "--sample", "3", "--setting", "oracle",
                "--setting", "retrieved", "--group", "G1_tool", "--group", "G2_category", "--out",
                str(tmp_path / "run")]
        assert main(args) == 0
        table = capsys.readouterr().out
        assert "oracle" in table and "retrieved" in table
        calls = len(server.requests)
        assert main(args) == 0 and len(server.requests) == calls  # nothing left to ask
    records = [json.loads(line) for line in (tmp_path / "run" / "oracle.jsonl").read_text().splitlines()]
    assert len(records) == 3 and {r["group"] for r in records} == {"G1_tool", "G2_category"}
    retrieved = [json.loads(line) for line in (tmp_path / "run" / "retrieved.jsonl").read_text().splitlines()]
    assert all(len(r["tools"]) >= 1 for r in retrieved)
    with pytest.raises(SystemExit):
        main(["downstream", "--setting", "nonsense", "--out", str(tmp_path / "x")])
