"""Writing and reading a built skill benchmark: ``queries.jsonl``, ``pool_ids.txt`` and ``manifest.json``.

The folder holds no skill text: the pool is a list of skill ids of the corpus named (with its checksum) in
the manifest, and the tools are read back from that corpus.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolex.annotate.run_folder import write_jsonl
from toolex.data.checksum import files_checksum
from toolex.data.readers import iter_jsonl
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError
from toolex.io.artifact import read_manifest, write_manifest
from toolex.io.atomic import write_text
from toolex.paths import resolve
from toolex.skills.build import SkillQuery
from toolex.skills.loader import default_corpus, load_skills

QUERIES = "queries.jsonl"
POOL = "pool_ids.txt"
BENCHMARK_NAME = "skillret-style"


def write_benchmark(folder: str | Path, queries: list[SkillQuery], pool: Mapping[str, Tool],
                    manifest: dict[str, Any], identity: Mapping[str, Any] | None = None) -> Path:
    """Write the three files of a benchmark (the manifest last, so it marks a complete folder), the manifest
    with ``identity`` in its envelope."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / QUERIES, (q.to_json() for q in queries))
    write_text(folder / POOL, "".join(f"{i}\n" for i in pool))
    write_manifest(folder, "skills-benchmark", manifest, identity=identity)
    return folder


def read_queries(folder: str | Path) -> list[SkillQuery]:
    """The written queries of a benchmark folder."""
    path = Path(folder) / QUERIES
    out = []
    for i, record in enumerate(iter_jsonl(path), 1):
        try:
            out.append(SkillQuery(str(record["id"]), str(record["query"]), tuple(record["reference"]),
                                  str(record.get("strategy", "")), str(record.get("generator", ""))))
        except KeyError as exc:
            raise InputError(path, f"missing field {exc.args[0]!r}", record=f"line {i}") from None
    return out


def read_benchmark(folder: str | Path, skills: Mapping[str, Tool] | None = None) -> Benchmark:
    """The benchmark of a folder; ``skills`` is the corpus (by default the manifest's corpus path, where a
    leading ``$TOOLEX_DATA/`` means :func:`toolex.paths.data_dir`, when it exists, else
    :func:`~toolex.skills.loader.default_corpus`).

    Every C* id and pool id must resolve to a skill of the corpus.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    if skills is None:
        recorded = resolve(manifest.get("corpus", {}).get("path") or str(default_corpus()))
        skills = load_skills(recorded if recorded.exists() else default_corpus())
    pool_path = folder / POOL
    ids = [line.strip() for line in pool_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    missing = [i for i in ids if i not in skills]
    if missing:
        raise InputError(pool_path, f"{len(missing)} pool ids are not in the corpus (first: {missing[0]!r})")
    pool = {i: skills[i] for i in ids}
    queries: list[Query] = []
    for q in read_queries(folder):
        unknown = [t for t in q.skills if t not in pool]
        if unknown:
            raise InputError(folder / QUERIES, f"C* skill {unknown[0]!r} is not in the pool", record=q.id)
        queries.append(q.to_query())
    return Benchmark(name=BENCHMARK_NAME, queries=queries, tools=pool,
                     checksum=files_checksum([folder / QUERIES, pool_path]),
                     sources=(str(folder / QUERIES),), meta=manifest)
