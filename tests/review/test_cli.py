"""``toolex review sample|report|export`` on a small run over the API-Bank snapshot, and a gold file imported
as a finished review."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.review.conftest import write_run
from toolex.cli import main
from toolex.data import load_benchmark
from toolex.review.database import Campaign


@pytest.fixture
def apibank_run(tmp_path, data_dir):
    bench = load_benchmark("toolret/apibank", data_dir)
    single = [q for q in bench.queries if len(q.reference) == 1][:6]
    others = [t for t in bench.tools if t not in {r for q in single for r in q.reference}]
    run = {q.id: (q.category, list(q.reference), [([others[2 * n]], True), ([others[2 * n + 1]], n % 2 == 0)])
           for n, q in enumerate(single)}
    folder = write_run(tmp_path / "run", run)
    (folder / "manifest.json").write_text(json.dumps({
        "judge": {"name": "offline-similarity(minilm)"}, "config": {"retriever": "dense:minilm"},
        "benchmarks": [{"name": "toolret/apibank", "checksum": bench.checksum}]}))
    return folder, run


def test_sample_report_export(tmp_path, apibank_run, capsys):
    folder, run = apibank_run
    campaign = tmp_path / "c.sqlite"
    assert main(["review", "sample", "--run", str(folder), "--campaign", str(campaign), "--size", "5",
                 "--seed", "1"]) == 0
    with Campaign(campaign) as c:
        assert len(c) == 5 and c.meta()["allocation"] == "proportional"
        item = c.items()[0]
        assert item.payload["query"] and item.payload["docs"][item.tools[0]]["description"]
        for n, item_id in enumerate(c.item_ids()):
            c.decide(item_id, "ann", True)
            c.decide(item_id, "bob", n != 0, None if n else "near_synonym")
    # topping up the same campaign from the same run adds only new items
    assert main(["review", "sample", "--run", str(folder), "--campaign", str(campaign)]) == 0
    with Campaign(campaign) as c:
        assert len(c) == 9  # 6 + 3 accepted non-reference combinations
    capsys.readouterr()
    assert main(["review", "report", "--campaign", str(campaign), "--tables", str(tmp_path / "t"),
                 "--figures", str(tmp_path / "f"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["decided"], summary["valid"], summary["pending"]) == (4, 4, 1)
    assert pd.read_csv(tmp_path / "t" / "10_review_precision.csv").iloc[-1].decided == 4
    for ext in ("csv", "md", "tex", "json"):
        assert (tmp_path / "t" / f"10_review_taxonomy.{ext}").stat().st_size > 0
    assert (tmp_path / "f" / "10_review_precision.png").stat().st_size > 5_000
    assert main(["review", "export", "--campaign", str(campaign), "--out", str(tmp_path / "e")]) == 0
    lines = (tmp_path / "e" / "history.jsonl").read_text().splitlines()
    assert len(lines) == 10 and json.loads(lines[0])["reviewer"] == "ann"
    assert len((tmp_path / "e" / "final.jsonl").read_text().splitlines()) == 9


def test_another_run_is_refused(tmp_path, apibank_run, capsys):
    folder, run = apibank_run
    campaign = tmp_path / "c.sqlite"
    assert main(["review", "sample", "--run", str(folder), "--campaign", str(campaign)]) == 0
    other = write_run(tmp_path / "other", {**run, next(iter(run)): (*next(iter(run.values()))[:2], [])})
    (other / "manifest.json").write_text((folder / "manifest.json").read_text())
    capsys.readouterr()
    assert main(["review", "sample", "--run", str(other), "--campaign", str(campaign)]) == 2
    assert "refusing run" in capsys.readouterr().err


def test_gold_file_as_a_finished_review(tmp_path, apibank_run, capsys):
    folder, run = apibank_run
    qids = list(run)
    gold = tmp_path / "gold.jsonl"
    # query 0: its first alternative is acceptable, query 1: none of ours; queries 2+ are not in the gold file
    gold.write_text(json.dumps({"query_id": qids[0], "acceptable": [run[qids[0]][1], run[qids[0]][2][0][0]]})
                    + "\n" + json.dumps({"query_id": qids[1], "acceptable": [run[qids[1]][1]]}) + "\n")
    campaign = tmp_path / "gold.sqlite"
    assert main(["review", "sample", "--run", str(folder), "--campaign", str(campaign), "--gold",
                 str(gold)]) == 0
    with Campaign(campaign) as c:
        assert sorted(i.query_id for i in c.items()) == sorted([qids[0], qids[0], qids[1]])
        assert {d["reviewer"] for d in c.decisions()} == {"gold-a", "gold-b"}
        assert {d["note"] for d in c.decisions() if not d["valid"]} == {"from gold"}
    capsys.readouterr()
    assert main(["review", "report", "--campaign", str(campaign), "--tables", str(tmp_path / "t"),
                 "--figures", str(tmp_path / "f"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["decided"], summary["valid"], summary["cohen_kappa"]) == (3, 1, 1.0)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "x", "acceptable": "t1"}\n')
    assert main(["review", "sample", "--run", str(folder), "--campaign", str(tmp_path / "b.sqlite"),
                 "--gold", str(bad)]) == 2
    assert "bad.jsonl, record x" in capsys.readouterr().err


def test_a_size_beyond_the_run_says_fewer_were_drawn(tmp_path, apibank_run, capsys):
    folder, _ = apibank_run
    assert main(["review", "sample", "--run", str(folder), "--campaign", str(tmp_path / "c.sqlite"),
                 "--size", "500"]) == 0
    err = capsys.readouterr().err
    assert "--size 500 asked for more than the run holds: all 9 accepted combinations were drawn" in err
