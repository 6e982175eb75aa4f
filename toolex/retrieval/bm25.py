"""BM25 with bm25s, following the ToolRet / Tool-DE evaluation protocol (Tool-REX ``example/eval-BM25.py``).

The protocol: tool text is the ``documentation`` field as a string (:attr:`toolex.data.Tool.text`), tokenised
by
``bm25s.tokenize`` with English stopwords; BM25 "lucene" with k1 = 1.5, b = 0.75; the query is prefixed by its
instruction (``f"{instruction} {query}"``) and tokenised with the bm25s defaults (English stopwords too); a
query whose tokenisation is empty is replaced by ``NONE`` (tokenised without stopwords); k = min(100, pool
size). The reference script retrieves one query at a time; here the queries of a batch are tokenised and
scored together, with the same scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from toolex.data.records import Tool
from toolex.retrieval.base import DEFAULT_K, Hit, Retriever, check_instructions, tool_list

EMPTY_QUERY = "NONE"


def bm25_query_text(text: str, instruction: str = "") -> str:
    """The query string the protocol tokenises: the instruction, a space, then the query."""
    return f"{instruction} {text}" if instruction else text


class BM25Retriever(Retriever):
    """bm25s BM25 over the documentation text of a tool pool."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75, method: str = "lucene", stopwords: str = "en",
                 n_threads: int = 0) -> None:
        super().__init__()
        self.k1, self.b, self.method, self.stopwords, self.n_threads = k1, b, method, stopwords, n_threads
        self._model: Any = None

    def settings(self) -> dict[str, Any]:
        import bm25s

        return {"name": self.name, "library": f"bm25s {bm25s.__version__}", "method": self.method,
                "k1": self.k1,
                "b": self.b, "corpus_stopwords": self.stopwords, "query_stopwords": "english (bm25s default)",
                "query": "instruction + ' ' + query", "empty_query": EMPTY_QUERY}

    def index(self, tools: Mapping[str, Tool] | Sequence[Tool]) -> None:
        import bm25s

        pool = tool_list(tools)
        if not pool:
            raise ValueError("cannot index an empty tool pool")
        self.tool_ids = [t.id for t in pool]
        self._ids = np.asarray(self.tool_ids, dtype=object)
        corpus_tokens = bm25s.tokenize([t.text for t in pool], stopwords=self.stopwords, show_progress=False)
        self._model = bm25s.BM25(method=self.method, k1=self.k1, b=self.b)
        self._model.index(corpus_tokens, show_progress=False)

    def tokenize_queries(self, texts: Sequence[str],
                         instructions: Sequence[str] | None = None) -> list[list[str]]:
        """Token lists of the queries as the protocol builds them (empty ones replaced by ``NONE``)."""
        import bm25s

        full = [bm25_query_text(t, i) for t, i in zip(texts, check_instructions(texts, instructions))]
        if not full:
            return []
        tokenized = bm25s.tokenize(full, stopwords="english", show_progress=False)
        words = {idx: word for word, idx in tokenized.vocab.items()}
        empty = [w.lower() for w in EMPTY_QUERY.split()]
        out = []
        for ids in tokenized.ids:
            tokens = [words[i] for i in ids if words[i] != ""]
            out.append(tokens or list(empty))
        return out

    def search(self, texts: Sequence[str], k: int = DEFAULT_K,
               instructions: Sequence[str] | None = None) -> list[list[Hit]]:
        self._check_indexed()
        tokens = self.tokenize_queries(texts, instructions)
        if not tokens:
            return []
        k = min(k, len(self.tool_ids))
        docs, scores = self._model.retrieve(tokens, k=k, show_progress=False, n_threads=self.n_threads)
        ids = self._ids[docs]
        return [list(zip(row_ids.tolist(), row_scores.tolist())) for row_ids, row_scores in zip(ids, scores)]
