"""The command line: `toolex evaluate` and `toolex paper-check` run as a user runs them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from toolex import paths
from toolex.cli import main
from toolex.data.records import Annotation
from toolex.io.annotations import write_annotations
from toolex.io.trec import write_run


def toolex(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolex.cli", *args], capture_output=True, text=True,
                          check=False)


@pytest.fixture()
def run_and_annotations(tmp_path):
    anns = [
        Annotation("q1", "web", ("a", "b"), (("a", "b"), ("c", "b"))),
        Annotation("q2", "code", ("d",), (("d",), ("e",))),
        Annotation("q3", "code", ("f",), (("f",),)),
    ]
    run = {"q1": {"c": 3.0, "b": 2.0, "a": 0.1}, "q2": {"x": 1.0, "d": 0.5}, "q9": {"a": 1.0}}
    return write_run(run, tmp_path / "run.trec"), write_annotations(anns, tmp_path / "ann.jsonl")


def test_evaluate_json(run_and_annotations, tmp_path):
    run, ann = run_and_annotations
    out = toolex("evaluate", "--run", str(run), "--annotations", str(ann), "--k", "2", "--json",
                 "--per-query", str(tmp_path / "pq.csv"))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["queries"] == 3 and result["k"] == 2
    assert set(result["one_to_one"]) == {"ndcg", "recall", "comp"}
    assert result["tooleq"]["comp"] == pytest.approx(2 / 3)  # q1 via (c, b), q2 via d
    assert result["one_to_one"]["comp"] == pytest.approx(1 / 3)  # q2 only
    assert set(result["by_category"]) == {"web", "code"}
    assert result["missing_from_run"] == 1 and result["not_annotated"] == 1
    assert (tmp_path / "pq.csv").read_text().startswith("query_id,category")


def test_a_run_over_part_of_the_annotations_scores_only_its_queries(run_and_annotations):
    run, ann = run_and_annotations
    out = toolex("evaluate", "--run", str(run), "--annotations", str(ann), "--k", "2", "--json",
                 "--run-queries-only")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["queries"] == 2 and result["missing_from_run"] == 0  # q3 is not in the run: left out
    assert result["tooleq"]["comp"] == pytest.approx(1.0)
    assert result["one_to_one"]["comp"] == pytest.approx(0.5)
    assert "left out 1 of 3 annotated queries" in out.stderr


def test_evaluate_table_and_errors(run_and_annotations, tmp_path):
    run, ann = run_and_annotations
    out = toolex("evaluate", "--run", str(run), "--annotations", str(ann))
    assert out.returncode == 0 and "ToolEq" in out.stdout and "all" in out.stdout
    assert "not in the run and score 0" in out.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "q1"}\n')
    out = toolex("evaluate", "--run", str(run), "--annotations", str(bad))
    assert out.returncode == 2 and "bad.jsonl, record line 1: missing field 'reference'" in out.stderr
    assert "Traceback" not in out.stderr


def test_paper_check_passes_on_the_paper():
    out = toolex("paper-check")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "FAIL" not in out.stdout and "KNOWN" in out.stdout


def test_paper_check_fails_on_a_wrong_claim(tmp_path):
    folder = tmp_path / "paper"
    shutil.copytree(paths.paper_dir(), folder)
    claims = (folder / "claims.yaml").read_text().replace("tooleq_pp: 3.8", "tooleq_pp: 3.2")
    (folder / "claims.yaml").write_text(claims)
    out = toolex("paper-check", "--paper", str(folder))
    assert out.returncode == 1
    assert any(line.startswith("FAIL") and "finetuning_gain.4B.tooleq" in line
               for line in out.stdout.splitlines())


def test_evaluate_keeps_category_names_and_warns_before_the_table(tmp_path):
    anns = [Annotation("q1", "customized", ("a",), (("a",), ("b",))),
            Annotation("q2", "web", ("c",), (("c",),))]
    ann = write_annotations(anns, tmp_path / "ann.jsonl")
    run = write_run({"q1": {"b": 1.0}}, tmp_path / "run.trec")
    out = subprocess.run([sys.executable, "-m", "toolex.cli", "evaluate", "--run", str(run), "--annotations",
                          str(ann)], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and "customized" in out.stdout and "customiz " not in out.stdout
    combined = subprocess.run(f"{sys.executable} -m toolex.cli evaluate --run {run} --annotations {ann} 2>&1",
                              shell=True, capture_output=True, text=True, check=False).stdout
    assert combined.index("score 0") < combined.index("ToolEq")


def test_a_folder_where_a_file_belongs_and_a_missing_run_folder_are_named(run_and_annotations, tmp_path):
    run, _ = run_and_annotations
    out = toolex("evaluate", "--run", str(run), "--annotations", str(tmp_path))
    assert out.returncode == 2 and "this is a folder; pass the" in out.stderr and "Errno" not in out.stderr
    _, annotations = run_and_annotations
    out = toolex("evaluate", "--run", str(tmp_path), "--annotations", str(annotations))  # the same words
    assert out.returncode == 2 and "this is a folder; pass the run file inside it" in out.stderr
    out = toolex("review", "sample", "--run", str(tmp_path / "nope"), "--campaign",
                 str(tmp_path / "c.sqlite"))
    assert out.returncode == 2 and "annotation run folder not found" in out.stderr


def test_no_abbreviated_option_and_the_commands_own_usage_on_an_unknown_one(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["evaluate", "--run", "r.trec", "--annotations", "a.jsonl", "--annotation", "x"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "usage: toolex evaluate" in err and "unrecognized arguments: --annotation x" in err
    with pytest.raises(SystemExit):
        main(["evaluate", "--run", "r.trec", "--annotation", "a.jsonl"])  # not taken for --annotations
    assert "required: --annotations" in capsys.readouterr().err


def test_a_run_that_shares_no_query_id_with_the_annotations_is_an_error_naming_both(run_and_annotations,
                                                                                   tmp_path):
    _, annotations = run_and_annotations
    other = write_run({"z1": {"a": 1.0}}, tmp_path / "other.trec")
    done = toolex("evaluate", "--run", str(other), "--annotations", str(annotations))
    assert done.returncode == 2 and not done.stdout
    assert "share no query id" in done.stderr
    assert str(other) in done.stderr and str(annotations) in done.stderr


def test_an_unknown_option_of_an_action_prints_the_actions_usage(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["review", "export", "--campaign", "c.sqlite", "--out", "o", "--nope"])
    assert stop.value.code == 2
    assert "usage: toolex review export" in capsys.readouterr().err


def test_a_folder_where_a_file_belongs_gets_the_same_words_everywhere(tmp_path):
    """Every reader and writer of a file named on the command line says it in one sentence."""
    from toolex.annotate.estimate import load_prices
    from toolex.annotate.judges.scoring import ScoreModel
    from toolex.annotate.operating_point import read_draw_record
    from toolex.errors import InputError
    from toolex.io.atomic import write_json
    from toolex.review.database import Campaign

    folder = tmp_path / "a-folder"
    folder.mkdir()
    for read, what in ((ScoreModel.load, "score model file"), (read_draw_record, "draw record file"),
                       (load_prices, "price table file"), (Campaign, "campaign file"),
                       (lambda p: write_json(p, {}), "file")):
        with pytest.raises(Exception) as raised:
            read(folder)
        assert isinstance(raised.value, InputError), what
        assert str(raised.value) == f"{folder}: this is a folder; pass the {what} inside it"
    for argv in (["review", "export", "--campaign", str(folder), "--out", str(tmp_path / "o")],
                 ["review", "sample", "--items", str(folder), "--campaign", str(tmp_path / "c.sqlite")],
                 ["review", "report", "--campaign", str(folder)],
                 ["retrieve", "--benchmark", "toolret/web", "--out", str(folder)]):
        done = toolex(*argv)
        assert done.returncode == 2 and "Traceback" not in done.stderr, argv
        assert "this is a folder; pass the" in done.stderr, argv
