"""`toolex validate` as a user runs it: JSON round trip, run names, one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolex.data.records import Annotation
from toolex.io.annotations import write_annotations
from toolex.io.trec import write_run
from toolex.validate import GoldRecord, validate, write_gold

GOLD = [
    GoldRecord("q1", ("a",), (("a",), ("b",))),
    GoldRecord("q2", ("c",), (("c",), ("d",))),
    GoldRecord("q3", ("f",), (("f",), ("g",))),
]
OURS = [
    Annotation("q1", "web", ("a",), (("a",), ("b",))),
    Annotation("q2", "web", ("c",), (("c",), ("e",))),
    Annotation("q9", "code", ("f",), (("f",),)),
]
RUN = {"q1": {"b": 3.0, "x": 2.0, "a": 1.0}, "q2": {"e": 2.0, "c": 1.0}, "q3": {"g": 2.0, "f": 1.0}}


def toolex(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolex.cli", "validate", *map(str, args)],
                          capture_output=True, text=True, check=False)


@pytest.fixture()
def files(tmp_path):
    return (write_gold(GOLD, tmp_path / "gold.jsonl"), write_annotations(OURS, tmp_path / "ann.jsonl"),
            write_run(RUN, tmp_path / "bm25.trec"))


def test_json_round_trip_matches_the_python_api(files):
    gold, ann, run = files
    out = toolex("--annotations", ann, "--gold", gold, "--run", run, "--run", f"second={run}", "--k", "2",
                 "--json", "--bootstrap", "300", "--seed", "5")
    assert out.returncode == 0, out.stderr
    assert "NaN" not in out.stdout and len(out.stdout.strip().splitlines()) == 1
    result = json.loads(out.stdout)
    expected = validate(gold, ann, {"bm25": run, "second": run}, k=2, bootstrap=300, seed=5).summary()
    assert result == json.loads(json.dumps(expected))
    assert list(result["runs"]) == ["bm25", "second"] and result["runs"]["bm25"] == result["runs"]["second"]
    assert result["missing_annotations"] == 1 and result["ignored_annotations"] == 1
    assert set(result["runs"]["bm25"]) == {"ndcg@2", "recall@2", "comp@2"}
    assert result["expansion"]["combination"]["matched"] == 1


def test_table_by_default(files):
    gold, ann, run = files
    out = toolex("--annotations", ann, "--gold", gold, "--run", run, "--bootstrap", "50")
    assert out.returncode == 0, out.stderr
    assert "recovered" in out.stdout and "combination" in out.stdout and "ndcg@10" in out.stdout
    assert "1 gold queries have no annotation" in out.stderr


@pytest.mark.parametrize(("case", "message"), [
    ("k0", "--k must be positive, got 0"),
    ("bad_gold", "gold.jsonl, record q2 (line 2): acceptable combination 0 must be a non-empty list"),
    ("empty_gold", "empty.jsonl: no gold queries"),
    ("empty_ann", "empty.jsonl: no annotat"),
    ("unknown_queries", "none of the 3 gold queries is annotated here"),
    ("unknown_run", "ranks none of the 3 gold queries"),
    ("empty_run", "empty.trec: run 'empty' ranks no tools"),
    ("twice", "two runs named 'bm25'"),
    ("missing_file", "absent.trec: run file not found"),
])
def test_errors_are_one_line_and_exit_2(files, tmp_path, case, message):
    gold, ann, run = files
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    (tmp_path / "empty.trec").write_text("")
    overrides = {
        "k0": lambda: {"--k": "0"},
        "bad_gold": lambda: {"--gold": _bad_gold(gold)},
        "empty_gold": lambda: {"--gold": empty},
        "empty_ann": lambda: {"--annotations": empty},
        "unknown_queries": lambda: {"--annotations": write_annotations(
            [Annotation("zz", "", ("a",), (("a",),))], tmp_path / "other.jsonl")},
        "unknown_run": lambda: {"--run": write_run({"zz": {"a": 1.0}}, tmp_path / "zz.trec")},
        "empty_run": lambda: {"--run": tmp_path / "empty.trec"},
        "twice": lambda: {"--run": [run, f"bm25={run}"]},
        "missing_file": lambda: {"--run": tmp_path / "absent.trec"},
    }[case]()
    args = {"--annotations": ann, "--gold": gold, **overrides}
    argv = [a for flag, values in args.items() for v in (values if isinstance(values, list) else [values])
            for a in (flag, v)]
    out = toolex(*argv, "--json")
    assert out.returncode == 2, out.stdout + out.stderr
    assert message in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert out.stdout == ""


def _bad_gold(gold):
    bad = gold.with_name("gold.jsonl")
    lines = bad.read_text().splitlines()
    lines[1] = '{"query_id": "q2", "acceptable": [[1]]}'
    bad.write_text("\n".join(lines) + "\n")
    return bad
