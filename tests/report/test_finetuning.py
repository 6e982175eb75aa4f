"""The held-out rows: retrievers and the fine-tuned model scored on the queries that did not train it."""

from __future__ import annotations

import json
from types import SimpleNamespace

from toolex.experiments.finetune import FinetuneSettings, held_out
from toolex.experiments.settings import ReportSettings
from toolex.experiments.workspace import Workspace, ensure_run
from toolex.report import finetuning


def test_held_out_scores_only_queries_that_did_not_train(tmp_path, monkeypatch, data_dir):
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "artifacts"))
    settings = ReportSettings.make(["toolret/apibank"], ["bm25"], sample=30)
    workspace = Workspace.load(settings)
    report = SimpleNamespace(settings=settings, workspace=workspace,
                             annotated=SimpleNamespace(annotations=workspace.one_to_one()))
    model = tmp_path / "minilm-ft-test"
    model.mkdir()
    manifest = {"base": "minilm", "training": {"queries": 7, "triples": 9, "steps": 1}}
    (model / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(finetuning, "ensure_finetuned", lambda *a, **kw: model)
    # the "fine-tuned" run is BM25's, so its scores must equal BM25's row for row
    monkeypatch.setattr(finetuning, "ensure_run",
                        lambda spec, ws: ensure_run("bm25" if spec == f"dense:{model}" else spec, ws))
    tuning = FinetuneSettings(benchmarks=("toolret/apibank",))

    result = finetuning.held_out_scores(report, ["bm25"], tuning)

    expected = {q.id for q in workspace.queries if held_out(q.id, tuning)}
    assert 0 < len(expected) < len(workspace.queries)
    assert result.held_out == len(expected) and result.base == "bm25"
    assert set(result.scores.query_id) == expected
    assert set(result.scores.system) == {"bm25", finetuning.TUNED}
    values = result.scores.set_index(["query_id", "measure", "kind", "system"]).value.unstack("system")
    assert (values["bm25"] == values[finetuning.TUNED]).all()
    assert "7 training queries" in result.describe() and f"{len(expected)} held-out" in result.describe()
