"""Fixtures of the retrieval tests: the ToolRet snapshot, its BM25 index, and a private embedding cache."""

from __future__ import annotations

import pytest

from toolex.data import load_benchmarks, tool_pools

TOOLRET_SUBSETS = ("toolret/apibank", "toolret/apigen", "toolret/gorilla-huggingface", "toolret/toolink")


@pytest.fixture(scope="session")
def toolret_parts(data_dir):
    return load_benchmarks(list(TOOLRET_SUBSETS), data_dir)


@pytest.fixture(scope="session")
def toolret_pool(toolret_parts):
    """The Tool-DE default pool: every tool of the four subsets."""
    return tool_pools(toolret_parts, "all")[toolret_parts[0].name]


@pytest.fixture(scope="session")
def bm25_all(toolret_pool):
    from toolex.retrieval.bm25 import BM25Retriever

    retriever = BM25Retriever()
    retriever.index(toolret_pool)
    return retriever


@pytest.fixture(scope="session")
def minilm_encoder():
    from toolex.retrieval.encoders import load_encoder

    return load_encoder("minilm", max_length=128, batch_size=64)


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "embeddings"
