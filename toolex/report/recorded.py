"""LLM-judged annotation runs kept with the project (``data/annotations/<run>/``) in the notebooks.

An LLM run is slow to redo, so it is committed; here it is read back and set beside the offline judge run on
the same queries with the same settings (retriever, pool, candidates, combination cap), so the two Table 1s
differ only by their judge. The offline twin is computed once under ``<artifacts>/annotations/`` and reused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from toolex import __version__, keys, paths
from toolex.annotate.judges.scoring import default_model
from toolex.annotate.pipeline import AnnotateConfig
from toolex.annotate.run_folder import ArtifactFolder
from toolex.annotate.stats import table1
from toolex.data import load_benchmark
from toolex.data.checksum import combine_checksums
from toolex.data.records import Benchmark, Query
from toolex.errors import InputError
from toolex.experiments.workspace import ensure_toolex
from toolex.io.artifact import MANIFEST

AGREEMENT_FILE = "agreement.json"


def recorded_runs(root: str | Path | None = None) -> list[Path]:
    """The annotation run folders under ``data/annotations`` (each with a manifest and annotations)."""
    root = Path(root) if root is not None else paths.recorded_dir() / "annotations"
    return sorted(p.parent for p in root.glob(f"*/{MANIFEST}") if (p.parent / "annotations.jsonl").exists())


def run_queries(folder: str | Path, data: str | Path | None = None) -> tuple[list[Benchmark], list[Query]]:
    """The benchmarks a run names in its manifest (checksums checked) and the queries it annotated."""
    run = ArtifactFolder(folder)
    manifest = run.manifest()
    benchmarks = []
    for entry in manifest.get("benchmarks", []):
        bench = load_benchmark(entry["name"], data)
        if entry.get("checksum") and entry["checksum"] != bench.checksum:
            raise InputError(run.path(MANIFEST), f"benchmark {entry['name']} changed since the run "
                             f"(checksum {bench.checksum[:12]} != {entry['checksum'][:12]})")
        benchmarks.append(bench)
    ids = {d.query_id for d in run.decompositions()}
    queries = [q for b in benchmarks for q in b.queries if q.id in ids]
    if len(queries) != len(ids):
        raise InputError(run.path("subqueries.jsonl"), f"{len(ids) - len(queries)} query ids are not in the "
                         "benchmarks of the manifest")
    return benchmarks, queries


def offline_twin(folder: str | Path, progress: bool = False,
                 loaded: tuple[list[Benchmark], list[Query]] | None = None) -> ArtifactFolder:
    """The offline judge's run on the same queries with the same settings as the recorded run (cached);
    ``loaded``: :func:`run_queries` of the folder when the caller has it already."""

    run = ArtifactFolder(folder)
    config = AnnotateConfig(**run.manifest()["config"])
    benchmarks, queries = loaded or run_queries(folder)
    key = [sorted(q.id for q in queries), [b.checksum for b in benchmarks]]
    return ensure_toolex(f"offline-twin-{keys.slug(run.folder.name)}", key, benchmarks, queries, config,
                         "offline", progress)


def table1_per_judge(folder: str | Path, with_offline: bool = True, progress: bool = False) -> pd.DataFrame:
    """Table 1 per subset for the recorded LLM run and (``with_offline``) its offline twin, indexed by
    (judge, subset). The twin embeds every tool of the run's pool once (minutes on 2 cores, then cached)."""
    loaded = run_queries(folder)
    subset_of = {q.id: b.name for b in loaded[0] for q in b.queries}
    frames = [table1(ArtifactFolder(folder), subset_of)]
    if with_offline:
        frames.append(table1(offline_twin(folder, progress, loaded), subset_of))
    return pd.concat(frames).reset_index().set_index(["judge", "group"])


def agreement_table(folder: str | Path) -> pd.DataFrame:
    """The recorded offline-vs-LLM agreement (``toolex agreement``) as one row per decision kind."""
    path = Path(folder) / AGREEMENT_FILE
    if not path.exists():
        raise InputError(path, "no agreement report; run `toolex agreement --llm-run` on this folder")
    report = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for kind in ("verification", "audit"):
        part = report[kind]
        rows.append({"decision": kind, "items": part["items"], "agreement": part["agreement"],
                     "cohen_kappa": part["cohen_kappa"],
                     "llm_yes_rate": (part["both_yes"] + part["reference_yes_only"]) / max(part["items"], 1),
                     "offline_yes_rate": (part["both_yes"] + part["other_yes_only"]) / max(part["items"], 1),
                     "llm_judge": report["reference_judge"], "offline_judge": report["other_judge"]})
    return pd.DataFrame(rows).set_index("decision")


def offline_judge_name() -> str:
    """The name of the offline judge the twin uses (its score model's encoder), without loading the
    encoder."""

    return f"offline-similarity({default_model().encoder})"


def run_provenance(folder: str | Path) -> dict[str, Any]:
    """What produced a recorded run's tables: its judge, settings, benchmarks and the package version."""

    manifest = ArtifactFolder(folder).manifest()
    benchmarks = [{k: b.get(k) for k in ("name", "checksum")} for b in manifest.get("benchmarks", [])]
    config = manifest.get("config") or {}
    return {"toolex": __version__,
            "data_checksum": combine_checksums([b["checksum"] or "" for b in benchmarks]),
            "judge": manifest.get("judge", {}).get("name"),
            "retrievers": [f"{config.get('retriever')} (candidates)"],
            "created": manifest.get("created") or f"recorded run {Path(folder).name}",
            "recorded_run": Path(folder).name, "llm": manifest.get("judge", {}).get("llm"), "config": config,
            "benchmarks": benchmarks, "queries": manifest.get("queries"),
            "run_toolex_version": manifest.get("toolex_version"), "offline_twin_judge": offline_judge_name()}
