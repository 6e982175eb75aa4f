"""The retriever interface: index a tool pool, then rank it for a batch of queries.

A retriever returns, for each query, ``(tool id, score)`` pairs best first; :func:`retrieve_queries` turns
them into a TREC run (``{query_id: {tool_id: score}}``, see :mod:`toolex.io.trec`). Benchmarks are retrieved
each over its own pool: :func:`retrieve_over_pools` (and :func:`over_pools`, for any search) indexes each pool
once and merges the runs, the one loop every caller uses.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from toolex.data.records import Query, Tool
from toolex.io.trec import Run

Hit = tuple[str, float]
#: The default number of tools kept per query (the ToolRet / Tool-DE protocol).
DEFAULT_K = 100


class TextFormat(Protocol):
    """How a model family formats documents and queries
    (:class:`toolex.retrieval.text_format.PromptFormat`)."""

    def doc(self, text: str) -> str: ...

    def query(self, text: str, instruction: str = "") -> str: ...


class EncoderSettings(Protocol):
    def settings(self) -> dict[str, Any]: ...


@runtime_checkable
class Embedder(Protocol):
    """What a judge needs from a dense retriever: its encoder's settings, its text format and cached vectors
    (:class:`toolex.retrieval.dense.DenseRetriever` is one)."""

    encoder: EncoderSettings
    format: TextFormat

    def embed(self, texts: Sequence[str], desc: str = "encode") -> np.ndarray: ...


class Retriever(ABC):
    """Ranks the tools of an indexed pool for batches of query texts."""

    #: A short name used as the run tag (``bm25``, ``dense:minilm``, ...).
    name: str = "retriever"

    def __init__(self) -> None:
        self.tool_ids: list[str] = []

    @abstractmethod
    def index(self, tools: Mapping[str, Tool] | Sequence[Tool]) -> None:
        """Index a tool pool (replaces any previous pool)."""

    @abstractmethod
    def search(self, texts: Sequence[str], k: int = DEFAULT_K,
               instructions: Sequence[str] | None = None) -> list[list[Hit]]:
        """The top ``k`` tools of the pool for each query text, best first.

        ``instructions`` (one per text, may be empty) are applied the way the retriever's protocol applies
        them.
        """

    def settings(self) -> dict[str, Any]:
        """The settings that determine the ranking (provenance of a run)."""
        return {"name": self.name}

    def _check_indexed(self) -> None:
        if not self.tool_ids:
            raise RuntimeError(f"{type(self).__name__}: index a tool pool before searching")


def tool_list(tools: Mapping[str, Tool] | Sequence[Tool]) -> list[Tool]:
    """The tools of a pool in a stable order (insertion order of a mapping)."""
    return list(tools.values()) if isinstance(tools, Mapping) else list(tools)


def check_instructions(texts: Sequence[str], instructions: Sequence[str] | None) -> list[str]:
    if instructions is None:
        return [""] * len(texts)
    if len(instructions) != len(texts):
        raise ValueError(f"{len(instructions)} instructions for {len(texts)} query texts")
    return [i or "" for i in instructions]


def hits_to_run(query_ids: Sequence[str], hits: Sequence[Sequence[Hit]]) -> Run:
    """A TREC run from per-query hit lists aligned with ``query_ids``."""
    if len(query_ids) != len(hits):
        raise ValueError(f"{len(hits)} hit lists for {len(query_ids)} queries")
    return {qid: dict(ranking) for qid, ranking in zip(query_ids, hits)}


def retrieve_queries(retriever: Retriever, queries: Sequence[Query], k: int = DEFAULT_K,
                     use_instruction: bool = True, batch_size: int = 256, progress: bool = False) -> Run:
    """Rank the indexed pool for benchmark queries (instructions applied when ``use_instruction``)."""
    from tqdm.auto import tqdm

    query_ids, hits = [q.id for q in queries], []
    bar = tqdm(total=len(queries), desc=f"retrieve {retriever.name}", disable=not progress, unit="q")
    for start in range(0, len(queries), batch_size):
        batch = queries[start:start + batch_size]
        instructions = [q.instruction for q in batch] if use_instruction else None
        hits.extend(retriever.search([q.text for q in batch], k=k, instructions=instructions))
        bar.update(len(batch))
    bar.close()
    return hits_to_run(query_ids, hits)


G = TypeVar("G")


def over_pools(retriever: Retriever, groups: Iterable[tuple[Mapping[str, Tool], G]],
               search: Callable[[G], Run]) -> Run:
    """``search(group)`` for each group with its pool indexed (a pool is indexed again only when it is
    another object than the one indexed last, so groups sharing a pool in a row index it once), the runs
    merged."""
    run: Run = {}
    indexed: Mapping[str, Tool] | None = None
    for pool, group in groups:
        if indexed is not pool:
            retriever.index(pool)
            indexed = pool
        run.update(search(group))
    return run


def retrieve_over_pools(retriever: Retriever, groups: Iterable[tuple[Mapping[str, Tool], Sequence[Query]]],
                        k: int = DEFAULT_K, use_instruction: bool = True, progress: bool = False) -> Run:
    """Each group's queries ranked over its pool (:func:`retrieve_queries`), each pool indexed once
    (:func:`over_pools`)."""
    return over_pools(retriever, groups, lambda queries: retrieve_queries(
        retriever, queries, k=k, use_instruction=use_instruction, progress=progress))
