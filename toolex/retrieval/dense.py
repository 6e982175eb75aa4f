"""Dense retrieval: tools and queries embedded by an encoder, exact inner-product search with faiss."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from toolex.data.records import Tool
from toolex.retrieval.base import DEFAULT_K, Hit, Retriever, check_instructions, tool_list
from toolex.retrieval.embedding_cache import CacheStats, EmbeddingCache
from toolex.retrieval.encoders import Encoder
from toolex.retrieval.faiss_index import FlatIPIndex
from toolex.retrieval.text_format import PromptFormat, prompt_format


class DenseRetriever(Retriever):
    """Embeds the pool once (through the embedding cache) and ranks it by inner product.

    ``cache``: True for the default cache folder (:func:`toolex.paths.cache_dir` ``/embeddings``), a folder,
    an :class:`EmbeddingCache`, or False to encode everything every time. ``stats`` counts cache hits, misses
    and encoded texts (queries and tools together).
    """

    def __init__(self, encoder: Encoder, family: str = "plain",
                 cache: bool | str | Path | EmbeddingCache = True,
                 use_gpu: bool | None = None, progress: bool = False, name: str | None = None) -> None:
        super().__init__()
        self.encoder, self.format = encoder, prompt_format(family)
        self.use_gpu, self.progress = use_gpu, progress
        self.name = name or f"dense:{encoder.settings().get('model', 'model')}"
        if isinstance(cache, EmbeddingCache):
            self.cache: EmbeddingCache | None = cache
        elif cache is False:
            self.cache = None
        else:
            self.cache = EmbeddingCache(encoder.settings(), root=None if cache is True else cache)
        self._stats = CacheStats()
        self._index: FlatIPIndex | None = None

    @property
    def prompt(self) -> PromptFormat:
        return self.format

    @property
    def stats(self) -> CacheStats:
        return self.cache.stats if self.cache is not None else self._stats

    def settings(self) -> dict[str, Any]:
        fmt = self.format
        return {"name": self.name, **self.encoder.settings(), "family": fmt.family,
                "query_format": fmt.with_instruction, "query_format_no_instruction": fmt.without_instruction,
                "document_format": fmt.document, "default_instruction": fmt.default_instruction,
                "search": "faiss IndexFlatIP (exact inner product)"}

    def embed(self, texts: Sequence[str], desc: str = "encode") -> np.ndarray:
        """Vectors of already formatted texts, through the cache when there is one."""
        if self.cache is not None:
            return self.cache.embed(texts, self.encoder.encode, progress=self.progress, desc=desc)
        self._stats.misses += len(texts)
        self._stats.encoded += len(texts)
        return np.asarray(self.encoder.encode(list(texts)), dtype=np.float32)

    def index(self, tools: Mapping[str, Tool] | Sequence[Tool]) -> None:
        pool = tool_list(tools)
        if not pool:
            raise ValueError("cannot index an empty tool pool")
        vectors = self.embed([self.format.doc(t.text) for t in pool], desc=f"encode {len(pool)} tools")
        self._index = FlatIPIndex(vectors, use_gpu=self.use_gpu)
        self.tool_ids = [t.id for t in pool]

    def query_texts(self, texts: Sequence[str], instructions: Sequence[str] | None = None) -> list[str]:
        """The query strings the encoder sees (the family's instruction format)."""
        return [self.format.query(t, i) for t, i in zip(texts, check_instructions(texts, instructions))]

    def search(self, texts: Sequence[str], k: int = DEFAULT_K,
               instructions: Sequence[str] | None = None) -> list[list[Hit]]:
        self._check_indexed()
        assert self._index is not None
        if not texts:
            return []
        vectors = self.embed(self.query_texts(texts, instructions), desc="encode queries")
        scores, rows = self._index.search(vectors, k)
        ids = self.tool_ids
        return [[(ids[r], float(s)) for r, s in zip(row, score) if r >= 0]
                for row, score in zip(rows, scores)]
