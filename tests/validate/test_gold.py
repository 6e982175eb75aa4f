"""Gold files: strict validation with file and line, set semantics, atomic writer, gold as ToolEq ground
truth."""

from __future__ import annotations

import json

import pytest

from toolex.errors import InputError
from toolex.metrics import GroundTruth
from toolex.validate import GoldRecord, gold_annotations, read_gold, write_gold


def write_lines(path, *lines: str):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_read_gold_defaults_and_set_semantics(tmp_path):
    path = write_lines(
        tmp_path / "gold.jsonl",
        '{"query_id": "q1", "acceptable": [["a", "b"], ["b", "a"], ["c", "b", "c"]]}',  # permutation, repeat
        "",  # blank lines are skipped
        '{"query_id": "q2", "category": "web", "reference": ["e"], "acceptable": [["d"], ["e"]], "note": 1}',
    )
    q1, q2 = read_gold(path)
    assert q1.reference == ("a", "b")  # no reference field: the first acceptable combination
    assert q1.acceptable == (("a", "b"), ("c", "b"))  # (b, a) is C* again; c kept once
    assert q1.alternatives == [frozenset({"b", "c"})]
    assert not q1.reference_given
    assert q2.reference == ("e",) and q2.reference_given and q2.category == "web"
    assert q2.alternatives == [frozenset({"d"})] and q2.extra == {"note": 1}


@pytest.mark.parametrize(("line", "message"), [
    ('{"query_id": "q2", "acceptable": [["a"]', "unreadable JSON"),
    ('["q2"]', "expected a JSON object"),
    ('{"acceptable": [["a"]]}', "missing field 'query_id'"),
    ('{"query_id": "q2"}', "missing field 'acceptable'"),
    ('{"query_id": 2, "acceptable": [["a"]]}', "'query_id' must be a non-empty string"),
    ('{"query_id": "", "acceptable": [["a"]]}', "'query_id' must be a non-empty string"),
    ('{"query_id": "q2", "acceptable": []}', "'acceptable' must be a non-empty list"),
    ('{"query_id": "q2", "acceptable": ["a"]}', "acceptable combination 0 must be"),
    ('{"query_id": "q2", "acceptable": [["a"], []]}', "acceptable combination 1 must be"),
    ('{"query_id": "q2", "acceptable": [["a", 3]]}', "acceptable combination 0 must be"),
    ('{"query_id": "q2", "acceptable": [["a", " "]]}', "acceptable combination 0 must be"),
    ('{"query_id": "q2", "acceptable": [["a b"]]}', "strings without white space"),
    ('{"query_id": "q 2", "acceptable": [["a"]]}',
     "'query_id' must be a non-empty string without white space"),
    ('{"query_id": "q2", "reference": ["z"], "acceptable": [["a"]]}', "C* is not among 'acceptable'"),
    ('{"query_id": "q2", "reference": "a", "acceptable": [["a"]]}', "'reference' must be a non-empty list"),
    ('{"query_id": "q2", "category": 1, "acceptable": [["a"]]}', "'category' must be a string"),
    ('{"query_id": "q1", "acceptable": [["b"]]}', "query 'q1' listed twice"),
])
def test_malformed_gold_lines_name_file_and_line(tmp_path, line, message):
    path = write_lines(tmp_path / "gold.jsonl", '{"query_id": "q1", "acceptable": [["a"]]}', line)
    with pytest.raises(InputError) as info:
        read_gold(path)
    text = str(info.value)
    assert text.startswith(f"{path}, record ") and "line 2" in text and message in text
    assert "\n" not in text


def test_empty_or_missing_gold_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no gold queries"):
        read_gold(write_lines(tmp_path / "empty.jsonl", ""))
    with pytest.raises(InputError, match="gold file not found"):
        read_gold(tmp_path / "absent.jsonl")


def test_write_gold_round_trip_is_atomic(tmp_path):
    records = [GoldRecord("q1", ("b",), (("a",), ("b",)), "web", {"source": "people"}),
               GoldRecord("q2", ("c", "d"), (("c", "d"),))]
    path = write_gold(records, tmp_path / "sub" / "gold.jsonl")
    assert read_gold(path) == records
    assert read_gold(path)[0].extra == {"source": "people"}
    assert [p.name for p in path.parent.iterdir()] == ["gold.jsonl"]  # no temporary file left
    first = json.loads(path.read_text().splitlines()[0])
    assert first["query_id"] == "q1" and first["acceptable"] == [["a"], ["b"]] and first["reference"] == ["b"]


def test_gold_as_tooleq_ground_truth():
    gold = [GoldRecord("q1", ("a",), (("a",), ("b",))), GoldRecord("q2", ("c",), (("c",),))]
    truth = GroundTruth(gold_annotations(gold))
    result = truth.evaluate({"q1": {"b": 2.0, "x": 1.0}, "q2": {"x": 2.0, "c": 1.0}}, k=1).per_query
    assert result["one_to_one_ndcg"].tolist() == [0.0, 0.0]
    assert result["tooleq_ndcg"].tolist() == [1.0, 0.0]  # q1 credited through the gold alternative b
    with pytest.raises(ValueError, match="not the gold C"):
        gold[0].to_annotation(reference=("b",))
