"""How far each judge's annotations can be trusted: ToolEq with our expansion vs with human labels.

:func:`judge_validation` scores the annotations of an analysis (:func:`toolex.report.context.open_analysis` on
a benchmark that carries a human one-to-many ground truth: by default the SGD report part, domains the offline
judge was never calibrated on) and its retrievers' runs with ``toolex.validate``. :func:`credit_frame` stacks
several judges' credit tables; :func:`tradeoff_frame` and :func:`ceiling_frame` read the cascade's kept
trade-off curve and ceiling; ``python -m toolex.report.validation`` writes the kept report
(``data/validation/``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from toolex import paths
from toolex.annotate.run_folder import ArtifactFolder
from toolex.data import load_benchmark
from toolex.data.records import Annotation, Benchmark
from toolex.data.registry import own_gold_rule
from toolex.experiments.settings import DEFAULT_RETRIEVERS, ReportSettings, flag, parameter_values
from toolex.experiments.workspace import benchmark_runs, ensure_runs
from toolex.io.annotations import read_annotations
from toolex.io.atomic import write_json
from toolex.metrics.measures import HEADLINE
from toolex.report.context import Analysis, open_analysis
from toolex.validate import ValidationResult, validate
from toolex.validate.core import RunLike
from toolex.validate.goals import goals_of
from toolex.validate.gold import GoldRecord, benchmark_gold

#: The benchmark the kept validation reports on (calibration used the other SGD part).
VALIDATION_BENCHMARK = "sgd/report"
#: Queries of the smoke setting.
SMOKE_QUERIES = 60


def validation_settings(judge: str = "offline", sample: int | None = None, smoke: bool = False,
                        retrievers: Sequence[str] = DEFAULT_RETRIEVERS, k: int = HEADLINE.k, seed: int = 0,
                        benchmark: str = VALIDATION_BENCHMARK) -> ReportSettings:
    """The settings of a validation: one benchmark with a human ground truth (smoke: 60 queries)."""
    if smoke:
        sample = min(sample or SMOKE_QUERIES, SMOKE_QUERIES)
    return ReportSettings.make(benchmarks=[benchmark], retrievers=retrievers, judge=judge, sample=sample, k=k,
                               seed=seed)


def open_validation_notebook(parameters: Mapping[str, Any]) -> Analysis:
    """What a validation notebook opens from its parameters cell, as every notebook does
    (:func:`toolex.experiments.settings.parameter_values`): its ``JUDGE``, ``SAMPLE``, ``SMOKE``,
    ``RETRIEVERS``, ``K`` and ``SEED`` on the benchmark with a human ground truth."""
    given = parameter_values(parameters)
    return open_analysis(validation_settings(given["JUDGE"], given["SAMPLE"], flag(given["SMOKE"]),
                                             given["RETRIEVERS"] or DEFAULT_RETRIEVERS, k=int(given["K"]),
                                             seed=int(given["SEED"])))


def judge_validation(analysis: Analysis, bootstrap: int = 1000) -> ValidationResult:
    """ToolEq with the analysis's annotations vs ToolEq with the benchmark's human labels, for its
    retrievers."""
    workspace, settings = analysis.workspace, analysis.settings
    runs = ensure_runs(settings.retrievers, workspace)
    gold = benchmark_gold(workspace.benchmarks[0], [q.id for q in workspace.queries])
    return validate(gold, analysis.annotated.annotations, runs, k=settings.k, bootstrap=bootstrap,
                    seed=settings.seed)


def validation_provenance(analysis: Analysis) -> dict[str, Any]:
    """Data, judge (with its score model or routing counts), retrievers and annotation settings."""
    manifest = analysis.annotated.folder.manifest()
    judge = manifest.get("judge", {})
    return {"data": analysis.workspace.describe(), "gold": own_gold_rule(analysis.workspace.benchmarks[0]),
            "judge": analysis.judge,
            "retrievers": list(analysis.settings.retrievers),
            "annotation_settings": manifest.get("config", {}),
            "score_model": judge.get("score_model") or judge.get("offline", {}).get("score_model"),
            "routing": manifest.get("ledger", {}).get("routing")}


def credit_frame(results: Mapping[str, ValidationResult]) -> pd.DataFrame:
    """One row per judge, retriever and metric: 1:1, ours, gold, recovered share (interval), over, under."""
    frames = [r.table().assign(judge=name) for name, r in results.items()]
    if not frames:
        return pd.DataFrame()
    frame = pd.concat(frames, ignore_index=True)
    return frame[["judge", *[c for c in frame.columns if c != "judge"]]]


def goal_check(result: ValidationResult, metric: str = HEADLINE.key,
               share: tuple[float, float] = (0.85, 1.15), credit: float = 0.01) -> pd.DataFrame:
    """Per retriever: is the recovered share within ``share`` and are over- and under-credit at most
    ``credit`` per query (the goals of the validation)?"""
    table = result.table()
    return goals_of(table[table["metric"] == metric], share, credit)


def credit_by_domain(result: ValidationResult, metric: str = HEADLINE.key) -> pd.DataFrame:
    """Mean over- and under-credit per domain (the query's category) and retriever, at ``metric``."""
    per_query = result.per_query[result.per_query["metric"] == metric].merge(
        result.expansion[["query_id", "category"]], on="query_id")
    by_domain = per_query.pivot_table(index="category", columns="retriever", values=["over", "under"],
                                      aggfunc="mean")
    by_domain.columns = [f"{kind} ({name})" for kind, name in by_domain.columns]
    return by_domain.reset_index()


@dataclass(frozen=True)
class FolderValidation:
    """A finished ToolEX folder on an ``sgd/*`` benchmark, validated against the benchmark's human gold."""

    result: ValidationResult
    benchmark: Benchmark
    gold: list[GoldRecord]
    annotations: list[Annotation]
    manifest: dict[str, Any]


def validate_folder(folder: str | Path, runs: Mapping[str, RunLike], k: int = HEADLINE.k,
                    bootstrap: int = 1000, seed: int = 0) -> FolderValidation:
    """Validate the annotations of a finished ToolEX folder against its benchmark's own human gold (the
    folder's queries only)."""

    artifacts = ArtifactFolder(folder)
    manifest = artifacts.manifest()
    annotations = read_annotations(artifacts.annotations_path())
    benchmark = load_benchmark(manifest["benchmarks"][0]["name"])
    gold = benchmark_gold(benchmark, [a.query_id for a in annotations])
    result = validate(gold, annotations, dict(runs), k=k, bootstrap=bootstrap, seed=seed)
    return FolderValidation(result, benchmark, list(gold), list(annotations), manifest)


def keep_validation(folder: str | Path, runs: Mapping[str, RunLike], out: str | Path, label: str,
                    k: int = HEADLINE.k, bootstrap: int = 1000, seed: int = 0) -> ValidationResult:
    """:func:`validate_folder`, kept as ``out`` (read back by :func:`recorded_validations`)."""

    done = validate_folder(folder, runs, k, bootstrap, seed)
    manifest, benchmark, result = done.manifest, done.benchmark, done.result
    judge = manifest.get("judge", {})
    record = {"label": label, "judge": judge.get("name"), "gold": own_gold_rule(benchmark),
              "data": f"{benchmark.name}, {len(done.annotations)} queries "
              f"(data sha256 {benchmark.checksum[:8]})", "annotation_settings": manifest.get("config", {}),
              "ledger": {key: manifest.get("ledger", {}).get(key) for key in ("total", "routing")
                         if key in manifest.get("ledger", {})},
              **result.summary(), "goals": goal_check(result).to_dict(orient="records")}
    write_json(Path(out), json.loads(json.dumps(record, default=str)))
    return result


def recorded_validations(folder: str | Path | None = None) -> dict[str, ValidationResult]:
    """The kept validations of other judges (``data/validation/sgd_report_*.json``, ``toolex validate --json``
    output), named by their judge and sample; the credit table is rebuilt from each file's summary."""

    root = Path(folder) if folder else paths.validation_dir()
    out: dict[str, ValidationResult] = {}
    for path in sorted(root.glob("sgd_report_*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "label" not in data:
            continue
        rows = [{"retriever": name, "metric": metric, **{k: v for k, v in block.items()
                                                         if k not in ("recovered_interval",)},
                 "recovered_low": block.get("recovered_interval", [None, None])[0],
                 "recovered_high": block.get("recovered_interval", [None, None])[1]}
                for name, metrics in data.get("runs", {}).items() for metric, block in metrics.items()]
        out[data["label"]] = ValidationResult(int(data["k"]), pd.DataFrame(), data.get("expansion", {}),
                                              pd.DataFrame(), pd.DataFrame(rows),
                                              int(data["missing_annotations"]),
                                              int(data["ignored_annotations"]), data.get("settings", {}))
    return out


def tradeoff_frame(path: str | Path | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The cascade's trade-off curve kept by ``bench/cascade_tradeoff.py`` and its description."""

    path = Path(path) if path else paths.validation_dir() / "cascade_local_llm_sample.json"
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    meta = {k: v for k, v in data.items() if k != "curve"}
    return pd.DataFrame(data["curve"]), meta


def ceiling_frame(path: str | Path | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The cascade's ceiling kept by ``bench/cascade_ceiling.py``: a row per variant and retriever (items sent
    to the stand-in verifier, expansion recall and precision, recovered share, over- and under-credit at
    NDCG@10) and the description of the run."""

    path = Path(path) if path else paths.validation_dir() / "cascade_ceiling_sgd_report.json"
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    rows = [{"variant": r["variant"], "retriever": name,
             "sent": (r.get("routing") or {}).get("sent_to_llm", 0),
             "expansion_recall": r["expansion"]["recall"], "expansion_precision": r["expansion"]["precision"],
             **{k: block[k] for k in ("recovered", "over_credit", "under_credit")}}
            for r in data["rows"] for name, block in r[HEADLINE.key].items()]
    return pd.DataFrame(rows), {k: v for k, v in data.items() if k != "rows"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, description="write the kept validation report of one judge: annotate the "
                                        "benchmark with --judge, or validate a finished --folder")
    parser.add_argument("--judge", default="offline")
    parser.add_argument("--benchmark", default=VALIDATION_BENCHMARK)
    parser.add_argument("--sample", type=int, default=None, help="queries (default: all)")
    parser.add_argument("--folder", help="a finished ToolEX folder on an sgd/* benchmark (an LLM run, a "
                                         "sample) to validate instead of annotating")
    parser.add_argument("--label", help="with --folder: what the run is, as the kept file names it")
    parser.add_argument("--out", required=True, help="JSON report to write")
    args = parser.parse_args(argv)
    if args.folder:
        if not args.label:
            parser.error("--folder needs --label")
        manifest = ArtifactFolder(args.folder).manifest()
        benchmark = load_benchmark(manifest["benchmarks"][0]["name"])
        result = keep_validation(args.folder, benchmark_runs(benchmark, DEFAULT_RETRIEVERS), args.out,
                                 args.label)
    else:
        analysis = open_analysis(validation_settings(args.judge, args.sample, benchmark=args.benchmark))
        result, provenance = judge_validation(analysis), validation_provenance(analysis)
        record = {"provenance": provenance, **result.summary(),
                  "goals": goal_check(result).to_dict(orient="records")}
        write_json(Path(args.out), json.loads(json.dumps(record, default=str)))
    print(result.table().round(4).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
