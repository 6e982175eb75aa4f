"""The recorded LLM annotation sample read back beside its offline twin (same queries, same settings)."""

from __future__ import annotations

import json
import shutil

import pytest

from toolex import paths
from toolex.annotate.run_folder import ArtifactFolder
from toolex.data import load_benchmark
from toolex.errors import InputError
from toolex.report.recorded import (
    AGREEMENT_FILE,
    agreement_table,
    offline_twin,
    recorded_runs,
    run_queries,
    table1_per_judge,
)

RUNS = recorded_runs()


def test_the_local_llm_sample_is_recorded():
    names = [r.name for r in RUNS]
    assert "local-llm-sample" in names
    manifest = ArtifactFolder(paths.recorded_dir() / "annotations" / "local-llm-sample").manifest()
    assert manifest["judge"]["name"].startswith("llm:") and manifest["queries"] >= 50


@pytest.fixture
def run_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "artifacts"))
    source = paths.recorded_dir() / "annotations" / "local-llm-sample"
    target = tmp_path / "annotations" / "local-llm-sample"
    shutil.copytree(source, target)
    return target


#: The benchmark the twin test keeps of the sample: its offline twin then searches this benchmark's 101 tools,
#: not the sample's 6,881, so its candidates are not the recorded run's (the whole twin, on the same pool, is
#: notebook 03's in the default ``make paper``).
SMALL = "toolret/apibank"


@pytest.fixture
def small_run_copy(run_copy):
    """The recorded sample cut to the queries of :data:`SMALL`, its manifest naming that benchmark only."""
    manifest = json.loads((run_copy / "manifest.json").read_text())
    manifest["benchmarks"] = [b for b in manifest["benchmarks"] if b["name"] == SMALL]
    keep = {q.id for q in load_benchmark(SMALL).queries}
    for path in run_copy.glob("*.jsonl"):
        lines = [line for line in path.read_text().splitlines() if json.loads(line)["query_id"] in keep]
        path.write_text("".join(f"{line}\n" for line in lines))
    manifest["queries"] = len((run_copy / "subqueries.jsonl").read_text().splitlines())
    (run_copy / "manifest.json").write_text(json.dumps(manifest))
    (run_copy / AGREEMENT_FILE).unlink()  # it reports on the whole sample
    return run_copy


def test_the_sample_spans_its_benchmarks(run_copy):
    benchmarks, queries = run_queries(run_copy)
    manifest = ArtifactFolder(run_copy).manifest()
    assert [b.name for b in benchmarks] == [b["name"] for b in manifest["benchmarks"]]
    assert len(benchmarks) >= 2 and len(queries) == manifest["queries"]
    assert SMALL in {b.name for b in benchmarks}


def test_table1_per_judge_on_the_same_queries(small_run_copy):
    run_copy = small_run_copy
    _, queries = run_queries(run_copy)
    assert len(queries) >= 5, "the sample lost its queries of the small benchmark"
    frame = table1_per_judge(run_copy)
    judges = list(dict.fromkeys(frame.index.get_level_values("judge")))
    assert len(judges) == 2 and judges[0].startswith("llm:") and judges[1].startswith("offline-similarity")
    for judge in judges:
        assert frame.loc[(judge, "all"), "queries"] == len(queries)
    accepted = sum(len(json.loads(line)["verified"])
                   for line in (run_copy / "verified.jsonl").read_text().splitlines())
    assert frame.loc[(judges[0], "all"), "verified_items"] == accepted
    twin = offline_twin(run_copy)
    stamp = twin.path("manifest.json").stat().st_mtime_ns
    assert offline_twin(run_copy).path("manifest.json").stat().st_mtime_ns == stamp  # reused, not recomputed
    assert twin.manifest()["config"] == ArtifactFolder(run_copy).manifest()["config"]


def test_agreement_table_matches_the_report(run_copy):
    report = json.loads((run_copy / "agreement.json").read_text())
    table = agreement_table(run_copy)
    for kind in ("verification", "audit"):
        assert table.loc[kind, "items"] == report[kind]["items"]
        assert table.loc[kind, "cohen_kappa"] == pytest.approx(report[kind]["cohen_kappa"])
        yes = report[kind]["both_yes"] + report[kind]["reference_yes_only"]
        assert table.loc[kind, "llm_yes_rate"] == pytest.approx(yes / report[kind]["items"])


def test_a_changed_benchmark_is_named(run_copy):
    manifest = json.loads((run_copy / "manifest.json").read_text())
    manifest["benchmarks"][0]["checksum"] = "0" * 64
    (run_copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="manifest.json.*changed since the run"):
        run_queries(run_copy)
