"""The skill benchmark and SkillEq as cached artifacts: computed when missing, reused when present.

Layout under :func:`skills_dir` (``<artifacts>/skills``; LLM-written benchmarks worth keeping are copied to
:func:`recorded_skills_dir`, ``data/skills``, and found there too)::

    <setting>-<generator>/benchmark/{queries.jsonl, pool_ids.txt, manifest.json}
    <setting>-<generator>/summary-<judge>.json            (written by ``toolex skills``)

``setting`` is ``full`` or ``smoke``; ``generator`` is ``offline-template`` or ``llm-<model>``. A benchmark
folder is reused when its manifest's ``key`` (:func:`benchmark_key`: corpus checksum, settings, generator and
prompt) matches. SkillEq is one more cached annotation folder of the report layer
(``<artifacts>/annotations/skilleq-<setting>-<generator>-<judge>-<key>``, see :func:`ensure_skilleq`), keyed
like every other by the benchmark, the judge's own settings and the config, and resumed by the annotation
pipeline's stage keys when incomplete.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolex import __version__, keys, paths
from toolex.annotate.pipeline import AnnotateConfig
from toolex.data.records import Benchmark, Tool
from toolex.errors import InputError
from toolex.experiments.workspace import ensure_toolex
from toolex.io.artifact import MANIFEST, different_identity, write_manifest
from toolex.llm import LLMSettings
from toolex.llm.local import models_endpoint
from toolex.paths import artifacts_dir, portable
from toolex.skills.benchmark_folder import (
    POOL,
    QUERIES,
    read_benchmark,
    read_manifest,
    write_benchmark,
)
from toolex.skills.build import Generator, build_queries
from toolex.skills.llm_writer import LLMGenerator
from toolex.skills.loader import corpus_checksum, default_corpus, load_skills
from toolex.skills.pool import sample_pool
from toolex.skills.template import TemplateGenerator

if TYPE_CHECKING:
    from toolex.annotate.pipeline import AnnotateConfig

GENERATORS = ("auto", "recorded", "offline", "local", "api")


@dataclass(frozen=True)
class SkillSettings:
    """Sizes of a skill benchmark: ``pool_size`` skills (None: the whole corpus), ``n_queries`` kept queries,
    seed-set size shares ``sizes`` (one, two, three skills) and the random ``seed``."""

    n_queries: int = 300
    pool_size: int | None = 4000
    seed: int = 0
    sizes: tuple[float, float, float] = (0.5, 0.35, 0.15)
    smoke: bool = False

    @classmethod
    def for_smoke(cls, **changes: Any) -> SkillSettings:
        """The CI setting: 300 skills, 16 queries (well under a minute end to end)."""
        return replace(cls(n_queries=16, pool_size=300, smoke=True), **changes)

    @property
    def label(self) -> str:
        return "smoke" if self.smoke else "full"


def skills_dir() -> Path:
    return artifacts_dir() / "skills"


def recorded_skills_dir() -> Path:
    """LLM-written skill benchmarks kept with the project
    (``data/skills/<setting>-<generator>/benchmark``)."""

    return paths.recorded_dir() / "skills"  # looked up at call time: tests point it elsewhere


def make_generator(kind: str = "offline", progress: bool = True) -> Generator:
    """``offline`` (template), ``local`` (the local LLM server) or ``api`` (``TOOLEX_LLM_*`` settings)."""
    if kind == "offline":
        return TemplateGenerator()
    if kind in ("local", "api"):
        settings = LLMSettings.local_from_env() if kind == "local" else LLMSettings.from_env()
        return LLMGenerator(settings, progress=progress)
    raise InputError(None, f"unknown generator {kind!r}; choose one of {', '.join(GENERATORS)}")


def llm_available() -> str | None:
    """``api`` when ``TOOLEX_LLM_BASE_URL`` is set, ``local`` when the local server answers, else None."""
    if os.environ.get("TOOLEX_LLM_BASE_URL"):
        return "api"
    try:
        return "local" if models_endpoint(timeout=1.0) else None
    except Exception:  # noqa: BLE001 - an absent or broken local server means "no LLM"
        return None


def benchmark_key(checksum: str, settings: SkillSettings, generator: dict[str, Any]) -> str:
    """A benchmark folder's key: the corpus checksum, the settings and the generator's own description (its
    ``describe()`` less the usage it tallies), what :func:`benchmark_identity` names."""
    return keys.key(checksum, settings, {k: v for k, v in generator.items() if k != "usage"})


def benchmark_identity(checksum: str, settings: SkillSettings, generator: dict[str, Any]) -> dict[str, Any]:
    """What decides a benchmark folder, the identity its manifest keeps: the corpus checksum, the settings and
    the generator's description less its usage (the fields :func:`benchmark_key` hashes)."""
    return {"corpus_checksum": checksum, "settings": json.loads(json.dumps(asdict(settings))),
            "generator": {k: v for k, v in generator.items() if k != "usage"}}


def _existing_llm_folder(settings: SkillSettings, checksum: str) -> Path | None:
    """A complete LLM-written benchmark of these settings and this corpus, built here or recorded."""
    wanted = json.loads(json.dumps(asdict(settings)))
    for root in (skills_dir(), recorded_skills_dir()):
        for manifest_path in sorted(root.glob(f"{settings.label}-llm-*/benchmark/{MANIFEST}")):
            manifest = read_manifest(manifest_path.parent)
            if manifest.get("corpus", {}).get("checksum") == checksum and manifest.get("settings") == wanted:
                return manifest_path.parent
    return None


def ensure_skill_benchmark(settings: SkillSettings | None = None, generator: str | Generator = "auto",
                           corpus: str | Path | None = None, skills: dict[str, Tool] | None = None,
                           rebuild: bool = False, progress: bool = True) -> Benchmark:
    """The SkillRet-style one-to-one benchmark of ``settings``, built when missing, read back when present.

    ``generator="auto"`` reuses an LLM-written benchmark of the same settings when there is one (built here or
    recorded in ``data/skills``), else writes with the configured LLM (``TOOLEX_LLM_BASE_URL``, or the local
    server when it answers), else with the offline template. ``generator="recorded"`` reuses an LLM-written
    benchmark when there is one and otherwise uses the template, never calling an LLM. ``skills``: the loaded
    corpus, to avoid reading it twice.
    """
    settings = settings or SkillSettings()
    corpus_path = Path(corpus) if corpus is not None else default_corpus()
    checksum = corpus_checksum(corpus_path)
    if isinstance(generator, str):
        kind = generator
        if kind in ("auto", "recorded"):
            found = None if rebuild else _existing_llm_folder(settings, checksum)
            if found is not None:
                return read_benchmark(found, skills)
            kind = (llm_available() if kind == "auto" else None) or "offline"
        gen = make_generator(kind, progress=progress)
    else:
        gen = generator
    described = gen.describe()
    key = benchmark_key(checksum, settings, described)
    folder = skills_dir() / f"{settings.label}-{keys.slug(gen.name, '.', '-', lower=True)}" / "benchmark"
    identity = benchmark_identity(checksum, settings, described)
    held = read_manifest(folder)
    if not rebuild and keys.same_key(held.get("key"), key):
        return read_benchmark(folder, skills)
    if held and not rebuild:
        changed = different_identity(held.get("identity"), identity) if held.get("identity") else []
        changed = changed or ["key"]
        print(f"[toolex] {folder}: built with another {', '.join(changed)}; building it again",
              file=sys.stderr, flush=True)
    skills = skills if skills is not None else load_skills(corpus_path)
    pool = sample_pool(skills, settings.pool_size, settings.seed)
    report = build_queries(pool, gen, settings.n_queries, seed=settings.seed, sizes=settings.sizes)
    manifest = {
        "key": key,
        "toolex_version": __version__,
        "name": "skillret-style",
        "corpus": {"path": str(corpus_path), "checksum": checksum, "skills": len(skills)},
        "pool": {"skills": len(pool), "size": settings.pool_size, "seed": settings.seed,
                 "method": "uniform sample of the corpus (toolex.skills.pool.sample_pool)"},
        "settings": asdict(settings),
        "generator": {**described, "usage": getattr(gen, "usage", dict)()},
        "seed_sampling": "toolex.skills.seeds: one to three skills; partners from the anchor's repository "
                         "(closest by description words), else the closest of the pool",
        "filters": "toolex.skills.build: generation failures, fewer than 5 words, leaked seed-skill names "
                   "(case-insensitive; '-', '_', space or nothing between words), duplicates",
        "counts": report.counts(),
        "rejected_examples": report.examples,
    }
    write_benchmark(folder, report.queries, pool, manifest, identity)
    return read_benchmark(folder, skills)


def benchmark_folder(benchmark: Benchmark) -> Path:
    """The folder (``<setting>-<generator>``) a benchmark was read from (built here or recorded)."""
    return Path(benchmark.sources[0]).parent.parent


def record_benchmark(benchmark: Benchmark) -> Path:
    """Copy a built benchmark folder to :func:`recorded_skills_dir` (to be committed); returns the copy."""
    import shutil

    source = benchmark_folder(benchmark) / "benchmark"
    target = recorded_skills_dir() / benchmark_folder(benchmark).name / "benchmark"
    if source.resolve() != target.resolve():
        target.mkdir(parents=True, exist_ok=True)
        for name in (QUERIES, POOL):
            shutil.copyfile(source / name, target / name)
        manifest = read_manifest(source)  # written last: it marks a complete folder
        # no machine path in a committed file
        manifest["corpus"]["path"] = portable(manifest["corpus"]["path"])
        write_manifest(target, "skills-benchmark", manifest)
    return target


def work_folder(benchmark: Benchmark) -> Path:
    """Where the SkillEq artifacts and summaries of a benchmark go: ``skills_dir()/<setting>-<generator>``."""
    return skills_dir() / benchmark_folder(benchmark).name


def skilleq_key(benchmark: Benchmark) -> str:
    """What decides a SkillEq folder besides the judge and the config: the benchmark's files (queries and pool
    ids), the corpus the skill texts come from and the query ids."""

    corpus = benchmark.meta.get("corpus", {}).get("checksum")
    return keys.key(benchmark.checksum, corpus, [q.id for q in benchmark.queries])


def ensure_skilleq(benchmark: Benchmark, judge: str = "offline", config: AnnotateConfig | None = None,
                   progress: bool = True) -> Path:
    """SkillEq: ToolEX (same stages, judges and artifacts as for tools) on a skill benchmark; returns its
    folder.

    The folder is the report layer's cached annotation folder
    (:func:`toolex.experiments.workspace.ensure_toolex`,
    ``annotations/skilleq-<setting>-<generator>-<judge>-<key>``): reused when complete, else computed with the
    judge :func:`toolex.annotate.judges.build_judge` makes, its key from :func:`skilleq_key`, the judge's own
    settings and ``config`` (default :class:`AnnotateConfig`).
    """

    config = config or AnnotateConfig()
    folder = ensure_toolex(skilleq_label(benchmark, judge), skilleq_key(benchmark), [benchmark],
                           benchmark.queries, config, judge, progress)
    return folder.folder


def skilleq_label(benchmark: Benchmark, judge: str = "offline") -> str:
    """The name of SkillEq's annotation folder before its key: ``skilleq-<setting>-<generator>-<judge>``."""
    return f"skilleq-{benchmark_folder(benchmark).name}-{keys.slug(judge, '.', '-', lower=True)}"
