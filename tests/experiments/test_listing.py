"""``toolex cached``: every cached artifact named with the setting it was made with."""

from __future__ import annotations

import json

from tests.annotate.fakes import BagOfWords, tiny_benchmark
from toolex.annotate.judges import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import default_model
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.cli import main
from toolex.experiments.listing import cached
from toolex.experiments.settings import ReportSettings
from toolex.experiments.workspace import Workspace, ensure_run


def test_each_cached_artifact_says_its_setting(tmp_path, monkeypatch, data_dir, capsys):
    root = tmp_path / "artifacts"
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(root))
    bench, bow = tiny_benchmark(), BagOfWords()
    folder = root / "annotations" / "offline-0123456789ab"
    ToolEX([bench], OfflineSimilarityJudge(bow, default_model()), folder,
           AnnotateConfig(retriever="bow", top_k=6, max_combinations=8), retriever=bow, progress=False).run()
    (root / "annotations" / "local-ba9876543210").mkdir()  # a run killed before its first stage ended
    ensure_run("bm25", Workspace.load(ReportSettings.make(["toolret/apibank"], ["bm25"], sample=5)))
    legacy = root / "runs" / "report" / "dense_bge-small-en-v1.5.all.aaaaaaaaaaaa.trec"  # undescribed
    legacy.write_text("q 0 t 1 1 bm25\n")
    model = root / "models" / "minilm-ft-cccccccccccc"
    model.mkdir(parents=True)
    (model / "manifest.json").write_text(json.dumps({"base": "minilm", "data": {"toolret/apibank": "x"},
                                                     "labels": {"rule": "ToolEq"}}))
    rows = {row["name"]: row for row in cached(root=root)}
    assert rows["offline-0123456789ab"]["setting"].startswith("judge offline")
    assert f"on {bench.name} ({len(bench.queries)} queries)" in rows["offline-0123456789ab"]["setting"]
    assert rows["local-ba9876543210"]["state"].startswith("incomplete")
    described = next(r for n, r in rows.items() if n.startswith("report/bm25.") and "aaaa" not in n)
    assert described["setting"].startswith("bm25 over toolret/apibank (5 queries")
    assert "top 100" in described["setting"]
    undescribed = rows["report/dense_bge-small-en-v1.5.all.aaaaaaaaaaaa.trec"]["setting"]
    assert undescribed == "dense_bge-small-en-v1.5, all (no description beside it)"
    tuned = rows["minilm-ft-cccccccccccc"]["setting"]
    assert tuned == "minilm fine-tuned on ToolEq labels of toolret/apibank"
    assert main(["cached", "--kind", "models"]) == 0
    out = capsys.readouterr().out
    assert "minilm-ft-cccccccccccc" in out and "offline-0123456789ab" not in out
