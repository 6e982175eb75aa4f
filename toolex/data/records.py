"""The core records used everywhere: a tool, a query, a benchmark (queries, tool pool, one-to-one qrels) and
an annotation (the valid tool combinations of one query: ToolEq's ground truth; its file format is
:mod:`toolex.io.annotations`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from toolex.data.checksum import combine_checksums

CATEGORIES = ("code", "web", "customized")
#: Documentation fields that hold a tool's free-text description, in order of preference.
DESCRIPTION_KEYS = ("description", "api_description", "functionality", "func_description", "summary")


def one_line(text: str, width: int) -> str:
    """``text`` on one line, cut at ``width`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def documentation_text(documentation: Any) -> str:
    """The documentation of a tool as one string: kept as is when it is text, else compact JSON.

    This is how ToolRet's evaluation scripts stringify the ``documentation`` field (``json.dumps``).
    """
    if isinstance(documentation, str):
        return documentation
    return json.dumps(documentation, ensure_ascii=False)


@dataclass(frozen=True)
class Tool:
    """One tool of a pool.

    ``documentation`` is the raw record (dict or text) as the benchmark ships it; ``text`` is its string form.
    """

    id: str
    name: str
    documentation: Any
    subset: str = ""
    category: str = ""
    platform: str | None = None

    @property
    def text(self) -> str:
        return documentation_text(self.documentation)

    @property
    def description(self) -> str:
        """The free-text description (the documentation text when there is no description field)."""
        doc = self.documentation
        if isinstance(doc, dict):
            for key in DESCRIPTION_KEYS:
                value = doc.get(key)
                if isinstance(value, str) and value.strip():
                    return value.strip().strip('"').strip()
        return self.text

    def summary(self, width: int = 100) -> str:
        """The description's first sentence on one line, cut at ``width`` characters."""
        return one_line(" ".join(self.description.split()).split(". ")[0], width)


@dataclass(frozen=True)
class Query:
    """One benchmark query with its annotated tool combination C* (``reference``)."""

    id: str
    text: str
    reference: tuple[str, ...]
    instruction: str = ""
    category: str = ""
    subset: str = ""

    @property
    def with_instruction(self) -> str:
        """The query prefixed by its instruction, as the ToolRet protocol feeds retrievers."""
        return f"{self.instruction} {self.text}".strip() if self.instruction else self.text


@dataclass
class Benchmark:
    """Queries, their tool pool and provenance (the checksum of the files they came from).

    A query without any relevant tool (every label of relevance 0) cannot be scored or annotated: it is left
    out at load, in every command alike, and counted in ``meta["skipped"]["no_relevant_tool"]``.
    """

    name: str
    queries: list[Query]
    tools: dict[str, Tool]
    checksum: str
    sources: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        kept = [q for q in self.queries if q.reference]
        if len(kept) != len(self.queries):
            skipped = dict(self.meta.get("skipped", {}))
            skipped["no_relevant_tool"] = skipped.get("no_relevant_tool", 0) + len(self.queries) - len(kept)
            self.queries = kept
            self.meta = {**self.meta, "skipped": skipped}

    @property
    def skipped(self) -> int:
        """Queries left out at load because no tool is relevant to them."""
        return int(self.meta.get("skipped", {}).get("no_relevant_tool", 0))

    def __len__(self) -> int:
        return len(self.queries)

    def __iter__(self) -> Iterator[Query]:
        return iter(self.queries)

    @property
    def query_by_id(self) -> dict[str, Query]:
        return {q.id: q for q in self.queries}

    @property
    def categories(self) -> list[str]:
        return sorted({q.category for q in self.queries})

    def qrels(self) -> dict[str, dict[str, int]]:
        """One-to-one qrels: every tool of C* has relevance 1."""
        return {q.id: {t: 1 for t in q.reference} for q in self.queries}

    def sample(self, n: int | None, seed: int = 0) -> Benchmark:
        """A reproducible sample of ``n`` queries (all when ``n`` is None or larger than the benchmark)."""
        if n is None or n >= len(self.queries):
            return self
        import random

        picked = sorted(random.Random(seed).sample(range(len(self.queries)), n))
        return Benchmark(
            name=self.name,
            queries=[self.queries[i] for i in picked],
            tools=self.tools,
            checksum=self.checksum,
            sources=self.sources,
            meta={**self.meta, "sample": {"n": n, "seed": seed}},
        )


def merge_benchmarks(name: str, benchmarks: Iterable[Benchmark]) -> Benchmark:
    """One benchmark holding the queries and the union of the tool pools of several."""

    benchmarks = list(benchmarks)
    tools: dict[str, Tool] = {}
    for bench in benchmarks:
        tools.update(bench.tools)
    return Benchmark(
        name=name,
        queries=[q for b in benchmarks for q in b.queries],
        tools=tools,
        checksum=combine_checksums(b.checksum for b in benchmarks),
        sources=tuple(s for b in benchmarks for s in b.sources),
        meta={"parts": [b.name for b in benchmarks],
              **({"skipped": {"no_relevant_tool": n}} if (n := sum(b.skipped for b in benchmarks)) else {})},
    )


@dataclass(frozen=True)
class Annotation:
    """The valid tool combinations of one query; ``reference`` is C*."""

    query_id: str
    category: str
    reference: tuple[str, ...]
    combinations: tuple[tuple[str, ...], ...]
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        record = {
            "query_id": self.query_id,
            "category": self.category,
            "reference": list(self.reference),
            "combinations": [list(c) for c in self.combinations],
        }
        record.update(self.extra)
        return record


def one_to_one(benchmark: Benchmark) -> list[Annotation]:
    """The benchmark's own ground truth: C* as the only combination of each query."""
    return [Annotation(q.id, q.category, q.reference, (q.reference,)) for q in benchmark.queries]
