"""TREC runs and qrels, and the annotations file: round trips and validation errors."""

from __future__ import annotations

import json

import pytest

from toolex.data.records import Annotation
from toolex.errors import InputError
from toolex.io.annotations import read_annotations, write_annotations
from toolex.io.trec import ranked, read_qrels, read_run, write_qrels, write_run


def test_run_round_trip_in_trec_eval_order(tmp_path):
    run = {"q1": {"a": 0.5, "b": 0.5, "c": 2.0}, "q2": {"x": -1.0}}
    path = write_run(run, tmp_path / "run.trec", tag="my run")
    lines = path.read_text().splitlines()
    assert lines[0].split() == ["q1", "Q0", "c", "1", "2.0", "my_run"]
    assert [line.split()[2] for line in lines[:3]] == ["c", "b", "a"]  # tie: id descending
    assert read_run(path) == run
    assert ranked(run["q1"], 2) == [("c", 2.0), ("b", 0.5)]


def test_run_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.trec"
    path.write_text("q1 Q0 a 1 0.5 t\nq1 Q0 b 2\n")
    with pytest.raises(InputError, match=r"bad.trec, record line 2: expected 6 columns"):
        read_run(path)
    path.write_text("q1 Q0 a 1 0.5 t\nq1 Q0 a 2 0.4 t\n")
    with pytest.raises(InputError, match="listed twice"):
        read_run(path)
    path.write_text("q1 Q0 a 1 high t\n")
    with pytest.raises(InputError, match="'high' is not a number"):
        read_run(path)


def test_qrels_round_trip(tmp_path):
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    assert read_qrels(write_qrels(qrels, tmp_path / "qrels")) == qrels


def test_annotations_round_trip(tmp_path):
    anns = [Annotation("q1", "web", ("a", "b"), (("a", "b"), ("c", "b")))]
    path = write_annotations(anns, tmp_path / "ann.jsonl")
    assert read_annotations(path) == anns
    assert read_annotations(path, pool={"a", "b", "c"}) == anns


@pytest.mark.parametrize(
    "record, message",
    [
        ({"query_id": "q", "reference": ["a"], "combinations": [["b"]]}, "C\\* is not among"),
        ({"query_id": "q", "reference": ["a"]}, "missing field 'combinations'"),
        ({"query_id": "q", "reference": [], "combinations": [["a"]]}, "'reference' must be a non-empty list"),
        ({"query_id": "q", "reference": ["a"], "combinations": [["a"], []]}, "combination 1 must be"),
        ({"query_id": "q", "reference": ["a"], "combinations": [["a"], ["zz"]]}, "unknown tool id\\(s\\) zz"),
    ],
)
def test_annotations_validation(tmp_path, record, message):
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps({"category": "web", **record}) + "\n")
    with pytest.raises(InputError, match=message):
        read_annotations(path, pool={"a", "b"})


def test_annotations_duplicate_query(tmp_path):
    line = json.dumps({"query_id": "q", "reference": ["a"], "combinations": [["a"]]})
    path = tmp_path / "ann.jsonl"
    path.write_text(line + "\n" + line + "\n")
    with pytest.raises(InputError, match="ann.jsonl, record line 2: query 'q' annotated twice"):
        read_annotations(path)


def test_combinations_deduplicated_as_sets(tmp_path):
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps({"query_id": "q", "reference": ["a", "b"],
                                "combinations": [["a", "b"], ["b", "a"], ["c", "d"]]}) + "\n")
    (ann,) = read_annotations(path)
    assert ann.combinations == (("a", "b"), ("c", "d"))


def test_a_tool_twice_in_a_combination_is_refused_not_collapsed(tmp_path):
    path = tmp_path / "ann.jsonl"  # [c, c] collapsed to [c] would earn full recall for one tool
    path.write_text(json.dumps({"query_id": "q", "reference": ["a", "b"],
                                "combinations": [["a", "b"], ["c", "c"]]}) + "\n")
    with pytest.raises(InputError, match="record q \\(line 1\\): combination 1 lists a tool twice"):
        read_annotations(path)
