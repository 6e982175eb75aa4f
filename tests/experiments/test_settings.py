"""One settings object per notebook run: its cut-off reaches every table, helper and provenance record."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from toolex.experiments.settings import ReportSettings
from toolex.experiments.workspace import Workspace, ensure_run
from toolex.report import finetuning
from toolex.report.context import Analysis

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: Calls whose cut-off must come from the settings, never from a literal.
CUT_OFF_CALLS = re.compile(r"(evaluate_runs|rank_cdf\.summary|illusion_interval|Measure)"
                           r"\(([^()]|\([^()]*\))*?(,\s*|\(\s*\"\w+\",\s*)\d+\s*[,)]")


def code_cells(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def test_the_cut_off_reaches_the_measures_and_the_provenance():
    settings = ReportSettings.make(["toolret/apibank"], ["bm25"], k=5)
    assert settings.measure("ndcg").key == "ndcg@5" and settings.as_dict()["k"] == 5
    report = Analysis(settings, SimpleNamespace(describe=lambda: "d", data_checksum="c"),
                    SimpleNamespace(judge_name="j", folder=SimpleNamespace(folder="f")))
    assert report.provenance()["settings"]["k"] == 5


def test_the_parameters_cell_states_the_one_settings_object(monkeypatch):
    monkeypatch.delenv("SMOKE", raising=False)
    monkeypatch.delenv("JUDGE", raising=False)
    cell = {"SMOKE": False, "JUDGE": "local", "BENCHMARKS": ["toolret/apibank"], "RETRIEVERS": None,
            "SAMPLE": 7, "SEED": 3, "K": 5, "FINETUNE": True}
    settings = ReportSettings.from_parameters(cell, retrievers=("bm25", "hybrid"))
    assert (settings.benchmarks, settings.retrievers, settings.judge, settings.sample, settings.seed,
            settings.k) == (("toolret/apibank",), ("bm25", "hybrid"), "local", 7, 3, 5)
    assert ReportSettings.from_parameters({"K": 5}).measure("ndcg").key == "ndcg@5"
    assert ReportSettings.from_parameters({}) == ReportSettings.make()  # a parameter left out: its default
    smoke = ReportSettings.from_parameters({"SMOKE": "1"})  # papermill may pass a flag as text
    assert smoke.smoke and smoke == ReportSettings.make(smoke=True)


def test_held_out_scores_use_the_settings_cut_off(tmp_path, monkeypatch, data_dir):
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "artifacts"))
    settings = ReportSettings.make(["toolret/apibank"], ["bm25"], sample=20, k=5)
    workspace = Workspace.load(settings)
    report = SimpleNamespace(settings=settings, workspace=workspace,
                             annotated=SimpleNamespace(annotations=workspace.one_to_one()))
    model = tmp_path / "minilm-ft-test"
    model.mkdir()
    (model / "manifest.json").write_text(json.dumps({"base": "minilm", "training": {}}))
    monkeypatch.setattr(finetuning, "ensure_finetuned", lambda *a, **kw: model)
    monkeypatch.setattr(finetuning, "ensure_run",
                        lambda spec, ws: ensure_run("bm25" if spec == f"dense:{model}" else spec, ws))
    scores = finetuning.held_out_scores(report, ["bm25"]).scores
    assert set(scores.measure) == {"ndcg@5", "recall@5", "comp@5"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_with_a_cut_off_passes_it_to_its_settings(path):
    cells = code_cells(path)
    parameters = next((c for c in cells if c.lstrip().startswith("# Parameters")), "")
    makes = [c for c in cells if "ReportSettings.make(" in c]
    if re.search(r"^K = ", parameters, re.M):
        opened = any("open_notebook(globals()" in c for c in cells)
        assert opened or makes and all("k=K" in c for c in makes), f"{path.name}: K never reaches settings"
    for cell in cells:
        found = CUT_OFF_CALLS.search(cell)
        assert not found, f"{path.name}: a literal cut-off in {found[0] if found else ''!r}"


def test_the_literal_cut_off_pattern_sees_what_it_must():
    assert CUT_OFF_CALLS.search("results.evaluate_runs(runs, report.annotated.annotations, 10, ws.subset_of)")
    assert CUT_OFF_CALLS.search('Measure("ndcg", 10)')
    assert not CUT_OFF_CALLS.search("results.evaluate_runs(runs, annotations, settings.k, ws.subset_of)")
