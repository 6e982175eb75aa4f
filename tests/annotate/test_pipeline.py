"""ToolEX end to end on real snapshot queries: the offline judge, and the LLM judge over a real HTTP
server."""

from __future__ import annotations

import json

import pytest

from toolex.annotate.judges import OfflineSimilarityJudge
from toolex.annotate.judges.llm import LLMJudge
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.annotate.run_folder import (
    ANNOTATIONS,
    COMBINATIONS,
    SUBQUERIES,
    VERIFIED,
    ArtifactFolder,
)
from toolex.annotate.stats import table1
from toolex.data import load_benchmark
from toolex.io.annotations import read_annotations
from toolex.io.artifact import MANIFEST
from toolex.llm import LLMClient, LLMSettings, ResponseCache
from toolex.metrics import evaluate
from toolex.retrieval import build_retriever, retrieve_queries

from .responder import RuleServer

FILES = (SUBQUERIES, VERIFIED, COMBINATIONS, ANNOTATIONS)


@pytest.fixture(scope="module")
def minilm():
    return build_retriever("dense:minilm")


@pytest.fixture(scope="module")
def benches(data_dir):
    return [load_benchmark("toolret/apibank", data_dir), load_benchmark("toolret/toolink", data_dir)]


def sample(benches, n=12):
    return [q for b in benches for q in b.sample(n, seed=1).queries]


def test_offline_pipeline_artifacts_and_evaluation(tmp_path, benches, minilm):
    queries = sample(benches)
    out = tmp_path / "offline"
    judge = OfflineSimilarityJudge(minilm)
    annotations = ToolEX(benches, judge, out, AnnotateConfig(top_k=10), retriever=minilm,
                         queries=queries).run()
    folder = ArtifactFolder(out)
    decompositions = folder.decompositions()
    assert [d.query_id for d in decompositions] == [q.id for q in queries]
    for d, q in zip(decompositions, queries):
        assert d.ok and [s.reference_tool for s in d.subqueries] == list(q.reference)
        for s in d.subqueries:  # sub-queries are text of their query, never of a tool
            assert " ".join(s.text.split()) in " ".join(q.text.split())
    verified = folder.verified_sets()
    assert len(verified) == sum(len(q.reference) for q in queries)
    assert all(v.verified[0] == v.reference_tool for v in verified)
    audited = folder.audited()
    assert all(a.reference in [c.tools for c in a.combinations if c.is_reference] or
               set(a.reference) in [set(c.tools) for c in a.combinations if c.is_reference] for a in audited)
    # the export is what `toolex evaluate` reads, and it validates against the pool
    pool = {t for b in benches for t in b.tools}
    assert read_annotations(out / ANNOTATIONS, pool=pool) == annotations
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["judge"]["name"] == "offline-similarity(minilm)"
    assert {b["checksum"] for b in manifest["benchmarks"]} == {b.checksum for b in benches}
    assert manifest["kind"] == "annotations" and manifest["status"] == "complete"
    assert manifest["identity"]["stages"] == {s: manifest["stages"][s]["key"] for s in manifest["stages"]}
    assert manifest["identity"]["data"] == manifest["data_fingerprint"]
    stats = table1(out)
    assert stats.loc["all", "queries"] == len(queries)
    assert stats.loc["all", "verified_items"] >= stats.loc["all", "sub_queries"]
    # ToolEq >= one-to-one on a real run
    minilm.index({t.id: t for b in benches for t in b.tools.values()})
    run = retrieve_queries(minilm, queries, k=100)
    summary = evaluate(run, annotations, k=10).summary()
    for m in ("ndcg", "recall", "comp"):
        assert summary["tooleq"][m] >= summary["one_to_one"][m]


def test_offline_rerun_is_byte_identical_and_resumes_a_lost_stage(tmp_path, benches, minilm):
    queries = sample(benches, 6)
    out = tmp_path / "run"
    make = lambda: ToolEX(benches, OfflineSimilarityJudge(minilm), out, AnnotateConfig(top_k=8),  # noqa: E731
                          retriever=minilm, queries=queries)
    make().run()
    first = {f: (out / f).read_bytes() for f in FILES}
    (out / COMBINATIONS).unlink()  # a run killed during Stage 3
    (out / ANNOTATIONS).unlink()
    make().run()
    assert {f: (out / f).read_bytes() for f in FILES} == first


def _llm_judge(base_url, root, mode="per-candidate"):
    settings = LLMSettings(base_url=base_url, model="rule-model", response_format="json_object",
                           concurrency=2,
                           max_retries=1, timeout=10.0, backoff=0.01)
    return LLMJudge(client=LLMClient(settings, cache=ResponseCache(root)), mode=mode, progress=False)


def test_llm_judge_pipeline_resumes_without_repeating_calls(tmp_path, benches, minilm, monkeypatch):
    monkeypatch.setenv("TOOLEX_LLM_API_KEY", "sk-secret-never-written")
    queries = sample(benches, 4)
    out = tmp_path / "llm"
    with RuleServer() as server:
        def make():
            return ToolEX(benches, _llm_judge(server.base_url, tmp_path / "cache"), out,
                          AnnotateConfig(top_k=5, max_combinations=6), retriever=minilm, queries=queries)

        make().run()
        calls, first = server.calls, {f: (out / f).read_bytes() for f in FILES}
        assert calls > 0
        for f in (out / MANIFEST, out / VERIFIED):  # a crash that lost Stage 2 and the manifest
            f.unlink()
        make().run()
        assert server.calls == calls  # every answer came from the cache
        assert {f: (out / f).read_bytes() for f in FILES} == first
    verified = ArtifactFolder(out).verified_sets()
    reasons = [c.verdict.reason for v in verified for c in v.candidates if c.verdict.judge != "reference"]
    assert reasons and all(reasons)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["judge"]["name"] == "llm:rule-model"
    text = "".join((out / f).read_text() for f in (*FILES, MANIFEST))
    assert "sk-secret-never-written" not in text
    cache_text = "".join(p.read_text(errors="ignore") for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert "sk-secret-never-written" not in cache_text


def test_batched_mode_gives_one_call_per_subquery(tmp_path, benches, minilm):
    queries = sample(benches, 3)
    with RuleServer() as server:
        judge = _llm_judge(server.base_url, tmp_path / "cache", mode="batched")
        pipeline = ToolEX(benches, judge, tmp_path / "b", AnnotateConfig(top_k=5, max_combinations=1),
                          retriever=minilm, queries=queries)
        decompositions = pipeline.decompose()
        before = server.calls
        pipeline.verify(decompositions)
        assert server.calls - before == sum(len(d.subqueries) for d in decompositions)


def test_agreement_on_an_llm_run(tmp_path, benches, minilm):
    from toolex.annotate.agreement import judge_agreement

    queries = sample(benches, 3)
    out = tmp_path / "llm"
    with RuleServer() as server:
        ToolEX(benches, _llm_judge(server.base_url, tmp_path / "cache"), out,
               AnnotateConfig(top_k=6, max_combinations=4), retriever=minilm, queries=queries).run()
    tools = {t.id: t for b in benches for t in b.tools.values()}
    judge = OfflineSimilarityJudge(minilm)
    report = judge_agreement(out, judge, {q.id: q for q in queries}, tools)
    n_candidates = sum(len(v.candidates) - 1 for v in ArtifactFolder(out).verified_sets())
    assert report["verification"]["items"] == n_candidates
    assert 0.0 <= report["verification"]["agreement"] <= 1.0
    assert report["other_judge"] == judge.name
