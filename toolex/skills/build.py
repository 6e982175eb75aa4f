"""Building a SkillRet-style one-to-one benchmark: seeds, written queries, filters.

Rounds of seeds are drawn (:class:`~toolex.skills.seeds.SeedSampler`) and written into queries by a
generator (:class:`~toolex.skills.template.TemplateGenerator` or
:class:`~toolex.skills.llm_writer.LLMGenerator`) until ``n_queries`` are kept. A query is rejected when the
generator failed, when it is shorter than
``min_words`` words, when it names one of its seed skills (any case, any of ``-``, ``_``, space or nothing
between the name's words: :func:`~toolex.skills.text.leaked_names`), or when it duplicates a kept query
(lowercase words and digits). The seed skills of a kept query are its C*.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from toolex.data.records import Query, Tool
from toolex.skills.pool import eligible
from toolex.skills.seeds import DEFAULT_SIZES, Seed, SeedSampler
from toolex.skills.text import leaked_names, normalise

REJECT_REASONS = ("failed", "short", "leak", "duplicate")


class Generator(Protocol):
    """Writes one query per seed: ``(text, None)`` or ``(None, reason)``."""

    name: str

    def describe(self) -> dict[str, Any]: ...

    def generate(self, seeds: list[Seed],
                 pool: Mapping[str, Tool]) -> list[tuple[str | None, str | None]]: ...


@dataclass(frozen=True)
class SkillQuery:
    """A written query with its seed (C*) and provenance."""

    id: str
    text: str
    skills: tuple[str, ...]
    strategy: str
    generator: str

    @property
    def category(self) -> str:
        return f"{len(self.skills)}-skill"

    def to_query(self) -> Query:
        return Query(self.id, self.text, self.skills, category=self.category, subset="skillret-style")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "query": self.text, "reference": list(self.skills), "category": self.category,
                "strategy": self.strategy, "generator": self.generator}


@dataclass
class BuildReport:
    """The kept queries and what was thrown away (counts and a few examples per reason).

    ``generated`` queries were written, ``examined`` of them were filtered (the rest were not needed):
    ``examined == kept + sum(rejected)``.
    """

    queries: list[SkillQuery]
    generated: int = 0
    examined: int = 0
    rounds: int = 0
    rejected: Counter = field(default_factory=Counter)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def counts(self) -> dict[str, Any]:
        return {"generated": self.generated, "examined": self.examined, "kept": len(self.queries),
                "rounds": self.rounds,
                "rejected": {r: int(self.rejected.get(r, 0)) for r in REJECT_REASONS},
                "by_category": dict(sorted(Counter(q.category for q in self.queries).items())),
                "by_strategy": dict(sorted(Counter(q.strategy for q in self.queries).items()))}


def reject_reason(text: str | None, error: str | None, names: list[str], seen: set[str],
                  min_words: int = 5) -> str | None:
    """Why a written query is rejected (one of :data:`REJECT_REASONS`), or None to keep it."""
    if text is None:
        return "failed"
    if len(text.split()) < min_words:
        return "short"
    if leaked_names(text, names):
        return "leak"
    if normalise(text) in seen:
        return "duplicate"
    return None


def build_queries(pool: Mapping[str, Tool], generator: Generator, n_queries: int, seed: int = 0,
                  sizes: tuple[float, ...] = DEFAULT_SIZES, oversample: float = 1.25, max_rounds: int = 4,
                  id_prefix: str = "skillret", examples: int = 5, chunk: int = 32) -> BuildReport:
    """Draw, write and filter until ``n_queries`` queries are kept (or ``max_rounds`` rounds are spent).

    The seeds of a round are written at most ``chunk`` at a time, never more than the queries still missing,
    and writing stops once enough are kept, so an LLM writes no query that would be thrown away unread; the
    seeds drawn do not depend on ``chunk``.
    """
    sampler = SeedSampler(eligible(pool), sizes)
    report = BuildReport([])
    seen: set[str] = set()
    used: set[tuple[str, ...]] = set()
    for round_ in range(max_rounds):
        missing = n_queries - len(report.queries)
        if missing <= 0:
            break
        seeds = sampler.draw(max(1, int(missing * oversample) + 2), seed=seed * 1000 + round_, exclude=used)
        if not seeds:
            break
        used.update(tuple(sorted(s.skills)) for s in seeds)
        report.rounds += 1
        start = 0
        while start < len(seeds) and len(report.queries) < n_queries:
            batch = seeds[start:start + max(1, min(chunk, n_queries - len(report.queries)))]
            start += len(batch)
            written = generator.generate(batch, pool)
            report.generated += len(batch)
            for s, (text, error) in zip(batch, written):
                if len(report.queries) >= n_queries:
                    break
                _examine(report, s, text, error, pool, seen, generator.name, id_prefix, examples)
    return report


def _examine(report: BuildReport, seed: Seed, text: str | None, error: str | None, pool: Mapping[str, Tool],
             seen: set[str], generator: str, id_prefix: str, examples: int) -> None:
    """Filter one written query into ``report`` (kept, or counted under its reject reason)."""
    report.examined += 1
    names = [pool[i].name for i in seed.skills]
    reason = reject_reason(text, error, names, seen)
    if reason is not None:
        report.rejected[reason] += 1
        bucket = report.examples.setdefault(reason, [])
        if len(bucket) < examples:
            bucket.append({"skills": names, "query": text, "error": error})
        return
    assert text is not None
    seen.add(normalise(text))
    report.queries.append(SkillQuery(f"{id_prefix}-{len(report.queries):05d}", text, seed.skills,
                                     seed.strategy,
                                     generator))
