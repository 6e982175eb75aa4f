"""End to end in the smoke setting: benchmark, SkillEq with the offline judge, Table 1, Table 3, Figure 5."""

from __future__ import annotations

import pytest

from toolex.annotate.artifacts import ANNOTATIONS, COMBINATIONS, MANIFEST, SUBQUERIES, VERIFIED
from toolex.annotate.stats import table1
from toolex.io.annotations import read_annotations
from toolex.skills import (
    SkillSettings,
    ensure_skill_benchmark,
    ensure_skilleq,
    figure5,
    length_summary,
    table3,
    token_lengths,
    tool_vs_skill_lengths,
)
from toolex.skills.results import PAPER_LABEL


@pytest.fixture(scope="module")
def minilm():
    from toolex.retrieval import build_retriever

    return build_retriever("dense:minilm")


def test_skilleq_smoke(isolated, skills, corpus_path, minilm):
    settings = SkillSettings.for_smoke(pool_size=80, n_queries=8)
    bench = ensure_skill_benchmark(settings, generator="offline", corpus=corpus_path, skills=skills, progress=False)
    folder = ensure_skilleq(bench, judge="offline", retriever=minilm, progress=False)
    for name in (SUBQUERIES, VERIFIED, COMBINATIONS, ANNOTATIONS, MANIFEST):
        assert (folder / name).exists(), name
    annotations = read_annotations(folder / ANNOTATIONS, pool=bench.tools)
    assert [a.query_id for a in annotations] == [q.id for q in bench]
    for a, q in zip(annotations, bench):
        assert set(a.reference) == set(q.reference)
        assert any(set(c) == set(q.reference) for c in a.combinations)
    stats = table1(folder)
    assert stats.loc["all", "queries"] == 8
    assert stats.loc["all", "sub_queries"] == sum(len(q.reference) for q in bench)
    assert stats.loc["all", "avg_combinations_per_query"] >= 1.0
    frame = table3(bench, folder, retrievers=["bm25", minilm], k=10)
    ours = frame[frame["source"] != PAPER_LABEL]
    assert len(ours) == 6 and set(ours["metric"]) == {"ndcg@10", "recall@10", "comp@10"}
    assert (ours["skilleq"] >= ours["skillret"] - 1e-9).all()
    assert (frame["source"] == PAPER_LABEL).sum() == 27


def test_figure5(tmp_path, skills, toolret):
    assert token_lengths(["Hello, world!"], "regex").tolist() == [4]
    table, note = tool_vs_skill_lengths(skills, "regex", tools=toolret.tools, limit=300)
    summary = length_summary(table)
    assert summary.loc["skills", "median"] > summary.loc["tools", "median"]
    out = figure5(table, "regex", note, out_dir=tmp_path)
    assert out["paths"]["png"].stat().st_size > 0 and out["paths"]["pdf"].stat().st_size > 0
    assert "ToolRet" in note and "skills" in note
