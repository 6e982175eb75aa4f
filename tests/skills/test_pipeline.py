"""End to end in the smoke setting: benchmark, SkillEq with the offline judge, Table 1, Table 3, Figure 5, the
report-layer provenance bound to them."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from toolex import __version__, paths
from toolex.annotate.run_folder import ANNOTATIONS, COMBINATIONS, SUBQUERIES, VERIFIED
from toolex.annotate.stats import table1
from toolex.data.checksum import combine_checksums
from toolex.io.annotations import read_annotations
from toolex.io.artifact import MANIFEST
from toolex.skills import (
    SkillAnalysis,
    SkillSettings,
    ensure_skill_benchmark,
    ensure_skilleq,
    figure5,
    length_summary,
    skilleq_key,
    table3,
    token_lengths,
    tool_vs_skill_lengths,
)
from toolex.skills.table3 import PAPER_LABEL

from .conftest import TINY_POOL, TINY_QUERIES


@pytest.fixture(scope="module")
def minilm():
    from toolex.experiments.workspace import retriever

    return retriever("dense:minilm")  # the instance the annotation folder's candidate search uses too


def test_skilleq_smoke(isolated, skills, corpus_path, minilm, monkeypatch):
    settings = SkillSettings.for_smoke(pool_size=TINY_POOL, n_queries=TINY_QUERIES)
    bench = ensure_skill_benchmark(settings, generator="offline", corpus=corpus_path, skills=skills,
                                   progress=False)
    folder = ensure_skilleq(bench, judge="offline", progress=False)
    assert folder.parent == paths.artifacts_dir() / "annotations"
    assert folder.name.startswith("skilleq-smoke-offline-template-offline-")
    for name in (SUBQUERIES, VERIFIED, COMBINATIONS, ANNOTATIONS, MANIFEST):
        assert (folder / name).exists(), name
    annotations = read_annotations(folder / ANNOTATIONS, pool=bench.tools)
    assert [a.query_id for a in annotations] == [q.id for q in bench]
    for a, q in zip(annotations, bench):
        assert set(a.reference) == set(q.reference)
        assert any(set(c) == set(q.reference) for c in a.combinations)
    stats = table1(folder)
    assert stats.loc["all", "queries"] == TINY_QUERIES
    assert stats.loc["all", "sub_queries"] == sum(len(q.reference) for q in bench)
    assert stats.loc["all", "avg_combinations_per_query"] >= 1.0

    # a complete folder is reused as it is: no judge is built, nothing is rewritten
    from toolex.annotate import judges

    written = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    with monkeypatch.context() as patched:  # undone alone: the isolated folders stay set
        patched.setattr(judges, "build_judge",
                        lambda *a, **k: pytest.fail("judge built for a complete folder"))
        assert ensure_skilleq(bench, judge="offline", progress=False) == folder
        assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == written

    frame = table3(bench, folder, retrievers=["bm25", minilm], k=10)
    ours = frame[frame["source"] != PAPER_LABEL]
    assert len(ours) == 6 and set(ours["metric"]) == {"ndcg@10", "recall@10", "comp@10"}
    assert (ours["skilleq"] >= ours["skillret"] - 1e-9).all()
    assert (frame["source"] == PAPER_LABEL).sum() == 27

    report = SkillAnalysis(settings, bench, folder, "offline", skills)
    assert report.judge == stats["judge"].iloc[0] and report.judge.startswith("offline-similarity")
    record = report.provenance(["bm25", "dense:minilm"])
    assert record["toolex"] == __version__ and record["created"]
    assert record["data_checksum"] == combine_checksums([bench.checksum, bench.meta["corpus"]["checksum"]])
    assert record["settings"] == asdict(settings) and record["generator"] == "offline-template"
    assert record["judge"] == report.judge and record["retrievers"] == ["bm25", "dense:minilm"]
    assert record["annotation_folder"] == str(folder) and record["benchmark_key"] == bench.meta["key"]
    assert f"{TINY_QUERIES} queries over {TINY_POOL} skills" in record["data"]
    text = report.footer(["bm25"])
    assert text.startswith(f"Data: {report.describe()}") and f"Judge: {report.judge}" in text
    assert text.endswith(f"toolex {__version__}")


def test_skilleq_key_follows_the_benchmark(isolated, skills, corpus_path, capsys):
    settings = SkillSettings.for_smoke(pool_size=60, n_queries=4)
    bench = ensure_skill_benchmark(settings, generator="offline", corpus=corpus_path, skills=skills,
                                   progress=False)
    identity = bench.meta["identity"]  # the envelope keeps what the benchmark's key hashes
    assert identity["settings"]["n_queries"] == 4
    assert identity["corpus_checksum"] == bench.meta["corpus"]["checksum"]
    assert skilleq_key(bench) == skilleq_key(ensure_skill_benchmark(settings, generator="offline",
                                                                    corpus=corpus_path, skills=skills))
    capsys.readouterr()
    other = ensure_skill_benchmark(replace(settings, n_queries=5), generator="offline", corpus=corpus_path,
                                   skills=skills, progress=False)
    assert "built with another settings; building it again" in capsys.readouterr().err
    assert other.meta["identity"]["settings"]["n_queries"] == 5
    assert skilleq_key(other) != skilleq_key(bench)
    moved = replace(bench, meta={**bench.meta, "corpus": {**bench.meta["corpus"], "checksum": "other"}})
    assert skilleq_key(moved) != skilleq_key(bench)


def test_figure5(tmp_path, skills, toolret):
    assert token_lengths(["Hello, world!"], "regex").tolist() == [4]
    table, note = tool_vs_skill_lengths(skills, "regex", tools=toolret.tools, limit=300)
    summary = length_summary(table)
    assert summary.loc["skills", "median"] > summary.loc["tools", "median"]
    out = figure5(table, "regex", note, out_dir=tmp_path)
    assert set(out["paths"]) == {"png", "pdf"}
    assert out["paths"]["png"] == tmp_path / "07_figure5_doc_lengths.png"
    assert out["paths"]["png"].stat().st_size > 0 and out["paths"]["pdf"].stat().st_size > 0
    assert "ToolRet" in note and "skills" in note
    footer = " ".join(t.get_text() for t in out["figure"].texts).replace("\n", " ")
    assert footer.startswith("Data: 300 tools of the ToolRet snapshot")
    assert "Tokenizer: regex tokens" in footer
    assert footer.endswith(f"toolex {__version__}")
