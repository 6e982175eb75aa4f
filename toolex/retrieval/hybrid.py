"""A hybrid retriever: Reciprocal Rank Fusion of several retrievers' rankings over the same pool.

``hybrid`` is ``rrf:bm25+dense:minilm`` (the lexical and the embedded dense baseline);
``rrf:<spec>+<spec>...`` fuses any retrievers. Each part ranks its top :data:`FUSION_DEPTH` tools (at least
``k``), the fused score is :func:`toolex.retrieval.fusion.rrf_scores` with the paper's k = 60, and the top
``k`` are returned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolex.data.records import Tool
from toolex.io.trec import ranked
from toolex.retrieval.base import DEFAULT_K, Hit, Retriever, tool_list
from toolex.retrieval.fusion import RRF_K, rrf_scores

#: The short name of the default hybrid and the parts it fuses.
HYBRID = "hybrid"
HYBRID_PARTS = ("bm25", "dense:minilm")
#: Tools each part ranks before fusion (the depth of a report run).
FUSION_DEPTH = DEFAULT_K


class FusionRetriever(Retriever):
    """RRF of the rankings of ``parts`` (each a ready-to-index retriever)."""

    def __init__(self, parts: Sequence[Retriever], name: str | None = None, k: int = RRF_K,
                 depth: int = FUSION_DEPTH) -> None:
        super().__init__()
        if len(parts) < 2:
            raise ValueError(f"a fusion needs at least two retrievers, got {len(parts)}")
        self.parts = list(parts)
        self.k, self.depth = k, depth
        self.name = name or "rrf:" + "+".join(p.name for p in self.parts)

    def index(self, tools: Mapping[str, Tool] | Sequence[Tool]) -> None:
        for part in self.parts:
            part.index(tools)
        self.tool_ids = [t.id for t in tool_list(tools)]

    def search(self, texts: Sequence[str], k: int = DEFAULT_K,
               instructions: Sequence[str] | None = None) -> list[list[Hit]]:
        self._check_indexed()
        depth = max(k, self.depth)
        per_part = [part.search(texts, k=depth, instructions=instructions) for part in self.parts]
        out = []
        for i in range(len(texts)):
            fused = rrf_scores(([tid for tid, _ in hits[i]] for hits in per_part), self.k)
            out.append(list(ranked(fused, k)))
        return out

    def settings(self) -> dict[str, Any]:
        return {"name": self.name, "fusion": "rrf", "rrf_k": self.k, "depth": self.depth,
                "parts": [part.settings() for part in self.parts]}
