"""A table of malformed inputs and options: each is one line on stderr naming the file, record or option, and
exit code 2 -- never a traceback, a NaN, a silent coercion or a partial output."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from toolex.cli import main

from .conftest import TALLY
from .fault_server import FaultServer
from .tiny import NAME

GOOD_ANN = {"query_id": "q1", "category": "web", "reference": ["a", "b"],
            "combinations": [["a", "b"], ["c", "b"]]}
GOOD_RUN = "q1 Q0 a 1 3.0 t\nq1 Q0 c 2 2.0 t\nq1 Q0 b 3 1.0 t\n"


def ann(**change) -> str:
    return json.dumps({**GOOD_ANN, **change}) + "\n"


# (case, run file bytes, annotations text, extra options, what the one line must say)
EVALUATE = [
    ("nan-score", b"q1 Q0 a 1 3.0 t\nq1 Q0 c 2 nan t\n", ann(), [], ["run.trec", "line 2", "NaN"]),
    ("non-utf8-run", b"q1 Q0 a 1 3.0 t\nq1 Q0 \xff\xfe 2 2.0 t\n", ann(), [],
     ["run.trec", "line 2", "UTF-8"]),
    ("five-columns", b"q1 Q0 a 1 3.0\n", ann(), [], ["run.trec", "line 1", "6 columns"]),
    ("score-text", b"q1 Q0 a 1 high t\n", ann(), [], ["run.trec", "line 1", "not a number"]),
    ("tool-twice-in-run", b"q1 Q0 a 1 3.0 t\nq1 Q0 a 2 2.0 t\n", ann(), [], ["run.trec", "line 2", "twice"]),
    ("k-zero", GOOD_RUN.encode(), ann(), ["--k", "0"], ["--k"]),
    ("k-negative", GOOD_RUN.encode(), ann(), ["--k", "-3"], ["--k"]),
    ("per-query-missing-folder", GOOD_RUN.encode(), ann(), ["--per-query", "{tmp}/nowhere/pq.csv"],
     ["--per-query", "nowhere"]),
    ("empty-annotations", GOOD_RUN.encode(), "", [], ["ann.jsonl", "empty"]),
    ("blank-annotations", GOOD_RUN.encode(), "\n\n", [], ["ann.jsonl", "empty"]),
    ("query-id-null", GOOD_RUN.encode(), ann(query_id=None), [], ["ann.jsonl", "line 1", "'query_id'"]),
    ("query-id-list", GOOD_RUN.encode(), ann(query_id=["x"]), [], ["ann.jsonl", "line 1", "'query_id'"]),
    ("query-id-number", GOOD_RUN.encode(), ann(query_id=7), [], ["ann.jsonl", "line 1", "'query_id'"]),
    ("query-id-space", GOOD_RUN.encode(), ann(query_id="q 1"), [], ["ann.jsonl", "line 1", "'query_id'"]),
    ("category-dict", GOOD_RUN.encode(), ann(category={"a": 1}), [], ["ann.jsonl", "q1", "'category'"]),
    ("reference-empty", GOOD_RUN.encode(), ann(reference=[]), [], ["ann.jsonl", "q1", "'reference'"]),
    ("reference-twice", GOOD_RUN.encode(), ann(reference=["a", "a"], combinations=[["a"]]), [],
     ["ann.jsonl", "q1", "twice"]),
    ("combination-a-a", GOOD_RUN.encode(), ann(combinations=[["a", "b"], ["c", "c"]]), [],
     ["ann.jsonl", "q1", "combination 1", "twice"]),
    ("tool-id-space", GOOD_RUN.encode(), ann(combinations=[["a", "b"], ["c d", "b"]]), [],
     ["ann.jsonl", "q1", "combination 1", "white space"]),
    ("tool-id-number", GOOD_RUN.encode(), ann(combinations=[["a", "b"], [3, "b"]]), [],
     ["ann.jsonl", "q1", "combination 1"]),
    ("not-json", GOOD_RUN.encode(), '{"query_id": "q1", \n', [], ["ann.jsonl", "line 1", "JSON"]),
    ("not-an-object", GOOD_RUN.encode(), "[1, 2]\n", [], ["ann.jsonl", "line 1", "object"]),
    ("missing-run", None, ann(), [], ["run.trec", "not found"]),
]


def _one_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    TALLY["malformed inputs refused in one line"] += 1
    return lines[0]


@pytest.mark.parametrize("case, run, annotations, options, says", EVALUATE, ids=[c[0] for c in EVALUATE])
def test_evaluate_refuses_bad_input(tmp_path: Path, capsys, case: str, run: bytes | None, annotations: str,
                                    options: list[str], says: list[str]) -> None:
    if run is not None:
        (tmp_path / "run.trec").write_bytes(run)
    (tmp_path / "ann.jsonl").write_text(annotations)
    argv = ["evaluate", "--run", str(tmp_path / "run.trec"), "--annotations", str(tmp_path / "ann.jsonl"),
            *[o.format(tmp=tmp_path) for o in options]]
    assert main(argv) == 2
    line = _one_line(capsys)
    assert line.startswith("toolex evaluate: error:")
    for fragment in says:
        assert fragment in line, line


def test_huge_k_is_capped_not_allocated(tmp_path: Path, capsys) -> None:
    (tmp_path / "run.trec").write_text(GOOD_RUN)
    (tmp_path / "ann.jsonl").write_text(ann())
    base = ["evaluate", "--run", str(tmp_path / "run.trec"), "--annotations", str(tmp_path / "ann.jsonl"),
            "--json"]
    assert main([*base, "--k", "10"]) == 0
    small = json.loads(capsys.readouterr().out)
    assert main([*base, "--k", str(10**12)]) == 0  # uncapped, this would ask for terabytes
    huge = json.loads(capsys.readouterr().out)
    assert huge["k"] == 10**12 and {k: v for k, v in huge.items() if k != "k"} == \
        {k: v for k, v in small.items() if k != "k"}


def _bench(tiny_data: Path, tmp_path: Path, edit: Callable[[list, list], None]) -> Path:
    data = tmp_path / "data"
    shutil.copytree(tiny_data, data)
    folder = data / "toolret" / "tiny"
    queries, tools = (json.loads((folder / f).read_text()) for f in ("queries.json", "tools.json"))
    edit(queries, tools)
    (folder / "queries.json").write_text(json.dumps(queries))
    (folder / "tools.json").write_text(json.dumps(tools))
    return data


def _set(which: str, index: int, **change):
    def edit(queries: list, tools: list) -> None:
        (queries if which == "query" else tools)[index].update(change)
    return edit


def _relevance(value):
    def edit(queries: list, tools: list) -> None:
        queries[1]["labels"][0]["relevance"] = value
    return edit


# (case, edit of the tiny benchmark, what the one line must say)
BENCHMARK = [
    ("relevance-text", _relevance("high"), ["queries.json", "q_money", "relevance"]),
    ("relevance-null", _relevance(None), ["queries.json", "q_money", "relevance"]),
    ("query-id-null", _set("query", 2, id=None), ["queries.json", "record 2", "'id'"]),
    ("query-id-list", _set("query", 2, id=["x"]), ["queries.json", "record 2", "'id'"]),
    ("query-id-space", _set("query", 2, id="q stock"), ["queries.json", "record 2", "'id'"]),
    ("query-text-dict", _set("query", 0, query={"text": "weather"}),
     ["queries.json", "q_weather", "'query'"]),
    ("query-text-number", _set("query", 0, query=42), ["queries.json", "q_weather", "'query'"]),
    ("instruction-list", _set("query", 0, instruction=["be brief"]),
     ["queries.json", "q_weather", "'instruction'"]),
    ("tool-id-space", _set("tool", 3, id="t currency"), ["tools.json", "record 3", "'id'"]),
    ("tool-id-bool", _set("tool", 3, id=True), ["tools.json", "record 3", "'id'"]),
    ("label-id-dict",
     lambda q, t: q[0]["labels"][0].update(id={"x": 1}), ["queries.json", "q_weather", "'id'"]),
]


@pytest.mark.parametrize("case, edit, says", BENCHMARK, ids=[c[0] for c in BENCHMARK])
def test_benchmark_types_are_checked_at_load(tiny_data: Path, tmp_path: Path, capsys, case: str, edit,
                                             says: list[str]) -> None:
    data = _bench(tiny_data, tmp_path, edit)
    out = tmp_path / "run.trec"
    assert main(["retrieve", "--data", str(data), "--benchmark", NAME, "--retriever", "bm25", "--out",
                 str(out),
                 "--quiet"]) == 2
    line = _one_line(capsys)
    for fragment in says:
        assert fragment in line, line
    assert not out.exists()


def test_query_without_relevant_tool_is_skipped_with_a_count(tiny_data: Path, tmp_path: Path, capsys) -> None:
    def all_zero(queries: list, tools: list) -> None:
        for label in queries[1]["labels"]:
            label["relevance"] = 0

    data = _bench(tiny_data, tmp_path, all_zero)
    out = tmp_path / "run.trec"
    assert main(["retrieve", "--data", str(data), "--benchmark", NAME, "--retriever", "bm25", "--pool",
                 "subset",
                 "--out", str(out), "--quiet"]) == 0
    assert "1 queries without a relevant tool" in capsys.readouterr().err
    assert "q_money" not in {line.split()[0] for line in out.read_text().splitlines()}


def test_annotate_out_naming_a_file(tiny_data: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "a-file"
    target.write_text("keep me")
    assert main(["annotate", "--data", str(tiny_data), "--benchmark", NAME, "--retriever", "bm25",
                 "--out", str(target), "--no-progress"]) == 2
    assert "a-file" in _one_line(capsys) and target.read_text() == "keep me"


@pytest.mark.parametrize("option", [["--top-k", "0"], ["--max-combinations", "0"], ["--sample", "0"]])
def test_annotate_bad_numbers(tiny_data: Path, tmp_path: Path, capsys, option: list[str]) -> None:
    assert main(["annotate", "--data", str(tiny_data), "--benchmark", NAME, "--retriever", "bm25",
                 "--out", str(tmp_path / "o"), "--no-progress", *option]) == 2
    assert option[0] in _one_line(capsys)


def test_api_run_into_a_folder_of_another_sample_refuses(tiny_data: Path, tmp_path: Path, capsys, port: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    with FaultServer(port=port) as srv:
        monkeypatch.setenv("TOOLEX_LLM_BASE_URL", srv.base_url)
        monkeypatch.setenv("TOOLEX_LLM_MODEL", "rule-model")
        base = ["annotate", "--data", str(tiny_data), "--benchmark", NAME, "--judge", "api", "--retriever",
                "bm25",
                "--pool", "subset", "--top-k", "3", "--out", str(out), "--no-progress"]
        assert main([*base, "--sample", "2"]) == 0
        first = (out / "annotations.jsonl").read_bytes()
        capsys.readouterr()
        assert main([*base, "--sample", "2"]) == 0  # the same run again: a resume, not an overwrite
        capsys.readouterr()
        assert main([*base, "--sample", "3"]) == 2
        line = _one_line(capsys)
        assert str(out) in line and "--force" in line and (out / "annotations.jsonl").read_bytes() == first
        assert main([*base, "--sample", "3", "--force"]) == 0
    assert len((out / "annotations.jsonl").read_text().splitlines()) == 3


def test_nan_in_a_python_run_is_refused() -> None:
    from toolex.data.records import Annotation
    from toolex.errors import InputError
    from toolex.metrics import evaluate

    truth = [Annotation("q1", "web", ("a",), (("a",),))]
    with pytest.raises(InputError, match="score of tool 'b' for query 'q1' is NaN"):
        # a NaN on top: 1.0 here, 0.0 in trec_eval
        evaluate({"q1": {"b": float("nan"), "a": 1.0}}, truth, k=1)
