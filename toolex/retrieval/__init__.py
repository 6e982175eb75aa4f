"""Tool retrievers (BM25, dense encoders, OpenAI-compatible endpoints), fusion and sub-query retrieval.

Heavy libraries (bm25s, torch, faiss, openai) are imported only when a retriever that needs them is built.
"""

from toolex.retrieval.base import (
    DEFAULT_K,
    Hit,
    Retriever,
    hits_to_run,
    over_pools,
    retrieve_over_pools,
    retrieve_queries,
)
from toolex.retrieval.fusion import RRF_K, rrf, rrf_scores
from toolex.retrieval.spec import RetrieverSpec, build_retriever, parse_spec
from toolex.retrieval.subquery import SUBQUERY_K, subquery_retrieve

__all__ = [
    "DEFAULT_K",
    "RRF_K",
    "SUBQUERY_K",
    "Hit",
    "Retriever",
    "RetrieverSpec",
    "build_retriever",
    "hits_to_run",
    "over_pools",
    "parse_spec",
    "retrieve_over_pools",
    "retrieve_queries",
    "rrf",
    "rrf_scores",
    "subquery_retrieve",
]
