"""What notebook 07 opens first: the skill benchmark and SkillEq, with the report layer's provenance helpers
bound to them (as :class:`toolex.report.context.Analysis` does for the tool benchmarks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from toolex.annotate.run_folder import ArtifactFolder
from toolex.annotate.stats import table1
from toolex.data import load_benchmark
from toolex.data.checksum import combine_checksums
from toolex.data.records import Benchmark, Tool
from toolex.experiments.settings import flag, parameter_values
from toolex.report.provenance import footer, provenance
from toolex.skills.lengths import tool_vs_skill_lengths
from toolex.skills.loader import load_skills
from toolex.skills.workspace import SkillSettings, ensure_skill_benchmark, ensure_skilleq


@dataclass
class SkillAnalysis:
    """A skill benchmark, its SkillEq folder and the judge kind they were made with."""

    settings: SkillSettings
    benchmark: Benchmark
    folder: Path
    judge_kind: str
    skills: dict[str, Tool] = field(repr=False, default_factory=dict)

    @property
    def generator(self) -> str:
        """Who wrote the queries (``offline-template`` or ``llm:<model>``)."""
        return str(self.benchmark.meta.get("generator", {}).get("generator", "?"))

    @cached_property
    def judge(self) -> str:
        """The judge's name as the SkillEq manifest records it."""

        return str(ArtifactFolder(self.folder).manifest().get("judge", {}).get("name", self.judge_kind))

    @property
    def corpus_checksum(self) -> str:
        return str(self.benchmark.meta.get("corpus", {}).get("checksum", ""))

    @property
    def data_checksum(self) -> str:
        """The benchmark's files (queries, pool ids) combined with the corpus the skill texts come from."""
        return combine_checksums([self.benchmark.checksum, self.corpus_checksum])

    def describe(self) -> str:
        """``skillret-style (16 queries over 300 skills, queries: offline-template, data sha256
        abcd1234)``."""
        return (f"{self.benchmark.name} ({len(self.benchmark)} queries over {len(self.benchmark.tools):,} "
                f"skills, queries: {self.generator}, data sha256 {self.data_checksum[:8]})")

    def footer(self, retrievers: Sequence[str] = (), note: str = "") -> str:
        """Figure footer: the skill benchmark, retriever(s), judge, toolex version."""
        return footer(self.describe(), retrievers, self.judge, note)

    def provenance(self, retrievers: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
        """Provenance record of a table of ours over the skill benchmark."""
        return provenance(self.describe(), self.data_checksum, asdict(self.settings), self.judge, retrievers,
                          generator=self.generator, benchmark_key=self.benchmark.meta.get("key"),
                          annotation_folder=str(self.folder), **extra)

    def table1(self) -> pd.DataFrame:
        """Table 1 statistics of SkillEq (:func:`toolex.annotate.stats.table1`)."""

        return table1(self.folder)

    def lengths(self, tokenizer: str = "minilm", limit: int | None = None,
                seed: int = 0) -> tuple[pd.DataFrame, str, dict[str, Any]]:
        """Figure 5's length table of ToolRet tools and every skill of the corpus, its data note and the
        provenance record of a table made from it (:func:`toolex.skills.lengths.tool_vs_skill_lengths`)."""

        tools = load_benchmark("toolret")
        table, note = tool_vs_skill_lengths(self.skills, tokenizer, tools=tools.tools, limit=limit, seed=seed)
        record = provenance(note, combine_checksums([tools.checksum, self.corpus_checksum]),
                            {"tokenizer": tokenizer, "limit": limit, "seed": seed}, None, ())
        return table, note, record


def open_skill_notebook(parameters: Mapping[str, Any], progress: bool = True) -> SkillAnalysis:
    """What the skill notebook opens from its parameters cell, as every notebook does
    (:func:`toolex.experiments.settings.parameter_values`): the smoke or default skill settings by ``SMOKE``,
    its ``JUDGE`` and its own ``GENERATOR`` (:func:`open_skill_analysis`)."""
    given = parameter_values(parameters)
    settings = SkillSettings.for_smoke() if flag(given["SMOKE"]) else SkillSettings()
    return open_skill_analysis(settings, given["JUDGE"], parameters.get("GENERATOR"), progress)


def open_skill_analysis(settings: SkillSettings, judge: str = "offline", generator: str | None = None,
                        progress: bool = True) -> SkillAnalysis:
    """Load (or build) the skill benchmark of ``settings`` and its SkillEq folder with ``judge``.

    ``generator`` None: ``recorded`` with the offline judge (an LLM-written benchmark kept in ``data/skills``,
    else the offline template), else ``auto`` (also writes with an LLM when one answers).
    """

    skills = load_skills()
    kind = generator or ("recorded" if judge == "offline" else "auto")
    benchmark = ensure_skill_benchmark(settings, generator=kind, skills=skills, progress=progress)
    folder = ensure_skilleq(benchmark, judge=judge, progress=progress)
    return SkillAnalysis(settings, benchmark, folder, judge, skills)
