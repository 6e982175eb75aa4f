"""Outputs are written whole or not at all, and a different run's output is not overwritten without
--force."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolex.cli import main
from toolex.errors import InputError
from toolex.io.trec import read_run, write_run

from .tiny import NAME


def _retrieve(tiny_data: Path, out: Path, *extra: str) -> list[str]:
    return ["retrieve", "--data", str(tiny_data), "--benchmark", NAME, "--retriever", "bm25", "--pool",
            "subset",
            "--out", str(out), "--quiet", *extra]


def test_retrieve_refuses_to_overwrite_a_different_run(tiny_data: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "bm25.trec"
    assert main(_retrieve(tiny_data, out, "--k", "5")) == 0
    first = out.read_bytes()
    assert json.loads(Path(f"{out}.json").read_text())["run_file"]["lines"] == len(first.splitlines())
    assert main(_retrieve(tiny_data, out, "--k", "5")) == 0  # the same run again is not an overwrite
    assert out.read_bytes() == first
    capsys.readouterr()
    assert main(_retrieve(tiny_data, out, "--k", "3")) == 2
    err = capsys.readouterr().err
    assert "holds a different run" in err and "--force" in err and out.read_bytes() == first
    out.write_bytes(first[: len(first) // 2])  # a run file that no longer matches its sidecar
    assert main(_retrieve(tiny_data, out, "--k", "5")) == 2
    assert main(_retrieve(tiny_data, out, "--k", "3", "--force")) == 0
    assert max(len(s) for s in read_run(out).values()) == 3
    foreign = tmp_path / "someone-else.trec"  # a file toolex did not write: no sidecar
    foreign.write_text("q Q0 d 1 1.0 x\n")
    assert main(_retrieve(tiny_data, foreign)) == 2 and foreign.read_text() == "q Q0 d 1 1.0 x\n"


def test_a_run_described_before_the_manifest_envelope_is_still_this_run(tiny_data: Path, tmp_path: Path,
                                                                          capsys) -> None:
    """A description written before the envelope holds the identity's fields at its top level beside the
    run's own (queries, seconds, digest): the same run there is a repeat, another one is refused."""
    out = tmp_path / "bm25.trec"
    assert main(_retrieve(tiny_data, out, "--k", "5")) == 0
    sidecar = Path(f"{out}.json")
    today = json.loads(sidecar.read_text())
    former = {**today["identity"], "queries": today["queries"], "seconds": today["seconds"],
              "run_file": today["run_file"]}
    sidecar.write_text(json.dumps(former))
    assert main(_retrieve(tiny_data, out, "--k", "5")) == 0
    assert json.loads(sidecar.read_text())["kind"] == "run"  # written again with the envelope
    sidecar.write_text(json.dumps(former))
    assert main(_retrieve(tiny_data, out, "--k", "3")) == 2
    assert "holds a different run" in capsys.readouterr().err


def test_huge_retrieve_k_is_capped_by_the_pool(tiny_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "all.trec"
    assert main(_retrieve(tiny_data, out, "--k", str(10**9))) == 0
    assert max(len(s) for s in read_run(out).values()) == 15  # the tiny pool


def test_a_failed_write_leaves_the_previous_file(tmp_path: Path) -> None:
    path = write_run({"q1": {"a": 2.0, "b": 1.0}}, tmp_path / "r.trec")
    before = path.read_bytes()
    with pytest.raises(InputError, match="white space"):
        write_run({"q1": {"a": 2.0, "b c": 1.0}}, path)  # fails after the first line was written
    with pytest.raises(InputError, match="NaN"):
        write_run({"q1": {"a": float("nan")}}, path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["r.trec"]


def test_per_query_csv_is_written_atomically(tmp_path: Path) -> None:
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 3.0 t\n")
    (tmp_path / "ann.jsonl").write_text(json.dumps({"query_id": "q1", "reference": ["a"],
                                                    "combinations": [["a"]]}) + "\n")
    target = tmp_path / "pq.csv"
    assert main(["evaluate", "--run", str(tmp_path / "run.trec"), "--annotations",
                 str(tmp_path / "ann.jsonl"),
                 "--per-query", str(target)]) == 0
    assert target.read_text().splitlines()[1].startswith("q1,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ann.jsonl", "pq.csv", "run.trec"]
