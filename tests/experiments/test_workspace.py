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
