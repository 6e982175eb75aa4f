"""Runs are computed once and reused from the artifacts folder."""

from __future__ import annotations

import pytest

from toolex.data import DEFAULT_BENCHMARKS
from toolex.experiments.settings import SMOKE_BENCHMARKS, SMOKE_SAMPLE, ReportSettings
from toolex.experiments.workspace import Workspace, ensure_run


def test_settings_smoke_caps_the_sample():
    assert ReportSettings.make(smoke=True).sample == SMOKE_SAMPLE
    assert ReportSettings.make(smoke=True).benchmarks == SMOKE_BENCHMARKS
    assert ReportSettings.make(["toollens"], smoke=True, sample=5).benchmarks == ("toollens",)
    assert ReportSettings.make(smoke=True, sample=5).sample == 5
    assert ReportSettings.make().sample is None and ReportSettings.make().benchmarks == DEFAULT_BENCHMARKS


def test_the_smoke_benchmarks_and_only_they_are_searched_in_the_smoke_pool():
    assert ReportSettings.make(smoke=True).pool == "smoke"
    assert ReportSettings.make(SMOKE_BENCHMARKS, smoke=True).pool == "smoke"
    assert ReportSettings.make(["toollens"], smoke=True).pool == "all"
    assert ReportSettings.make(SMOKE_BENCHMARKS).pool == "all"


def test_the_smoke_pools_tools_are_part_of_its_keys():
    from toolex.data import load_benchmarks
    from toolex.data.registry import pool_identity

    benchmarks = load_benchmarks(list(SMOKE_BENCHMARKS))
    settings = ReportSettings.make(smoke=True)
    queries = [q for b in benchmarks for q in b.sample(settings.sample, settings.seed).queries]
    smoke = Workspace(settings, benchmarks, queries)
    whole = Workspace(ReportSettings.make(SMOKE_BENCHMARKS, sample=SMOKE_SAMPLE), benchmarks, queries)
    assert smoke.key != whole.key
    assert pool_identity(benchmarks, "all") == "all"  # the default's keys hold the name only, as before
    assert pool_identity(benchmarks, "smoke") != pool_identity(benchmarks[:2], "smoke")


def test_ensure_run_caches(tmp_path, monkeypatch, data_dir):
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path))
    ws = Workspace.load(ReportSettings.make(["toolret/apibank"], ["bm25"], sample=5))
    assert len(ws.queries) == 5 and "5 queries" in ws.describe()
    run = ensure_run("bm25", ws, depth=10)
    files = list((tmp_path / "runs" / "report").glob("bm25.all.*.trec"))
    assert len(files) == 1 and set(run) == {q.id for q in ws.queries}
    assert all(len(r) == 10 for r in run.values())
    monkeypatch.setattr("toolex.experiments.workspace.retriever", lambda spec: pytest.fail("recomputed"))
    again = ensure_run("bm25", ws, depth=10)
    assert {q: list(r) for q, r in again.items()} == {q: list(r) for q, r in run.items()}
