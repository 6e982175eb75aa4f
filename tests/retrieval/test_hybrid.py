"""The hybrid retriever: its spec, and a ranking equal to RRF of its parts' runs."""

from __future__ import annotations

import pytest

from toolex.data.records import Tool
from toolex.errors import InputError
from toolex.retrieval import parse_spec, rrf
from toolex.retrieval.base import Retriever, hits_to_run
from toolex.retrieval.hybrid import FusionRetriever
from toolex.retrieval.spec import RetrieverSpec, build_retriever


class FixedOrder(Retriever):
    """Ranks the pool in a fixed order per query text (scores 1/rank)."""

    def __init__(self, name: str, orders: dict[str, list[str]]) -> None:
        super().__init__()
        self.name, self.orders = name, orders

    def index(self, tools):
        self.tool_ids = [t.id for t in tools]

    def search(self, texts, k=100, instructions=None):
        return [[(tid, 1.0 / r) for r, tid in enumerate(self.orders[t][:k], 1)] for t in texts]


POOL = [Tool(t, t, {"name": t}) for t in "abcde"]
LEFT = FixedOrder("left", {"q1": list("abcde"), "q2": list("edcba")})
RIGHT = FixedOrder("right", {"q1": list("cabed"), "q2": list("aebdc")})


def test_fused_ranking_is_rrf_of_the_parts_runs():
    fusion = FusionRetriever([LEFT, RIGHT])
    fusion.index(POOL)
    texts = ["q1", "q2"]
    expected = rrf([hits_to_run(texts, part.search(texts)) for part in (LEFT, RIGHT)], top=3)
    got = hits_to_run(texts, fusion.search(texts, k=3))
    assert got == expected
    assert list(got["q1"]) == ["a", "c", "b"]  # a: 1/61 + 1/62 beats c: 1/63 + 1/61


def test_fusion_needs_an_index_and_two_parts():
    with pytest.raises(ValueError, match="at least two"):
        FusionRetriever([LEFT])
    with pytest.raises(RuntimeError, match="index"):
        FusionRetriever([LEFT, RIGHT]).search(["q1"])


@pytest.mark.parametrize("spec,parsed,name", [
    ("hybrid", RetrieverSpec("rrf", "bm25+dense:minilm"), "hybrid"),
    ("rrf:bm25+dense:minilm", RetrieverSpec("rrf", "bm25+dense:minilm"), "hybrid"),
    ("rrf:dense:mpnet+bm25", RetrieverSpec("rrf", "dense:mpnet+bm25"), "rrf:dense:mpnet+bm25"),
    ("rrf:bm25+openai:m@http://h/v1?a=1+2", RetrieverSpec("rrf", "bm25+openai:m@http://h/v1?a=1+2"),
     "rrf:bm25+openai:m@http://h/v1?a=1+2"),
])
def test_rrf_specs(spec, parsed, name):
    assert parse_spec(spec) == parsed
    assert str(parse_spec(spec)) == name


@pytest.mark.parametrize("bad", ["rrf:", "rrf:bm25", "hybrid:x", "rrf:bm25+tfidf"])
def test_bad_rrf_specs(bad):
    with pytest.raises(InputError):
        parse_spec(bad)


def test_hybrid_builds_bm25_and_minilm():
    built = build_retriever("hybrid", cache=False)
    assert isinstance(built, FusionRetriever) and built.name == "hybrid"
    assert [p.name for p in built.parts] == ["bm25", "dense:minilm"]
    assert built.settings()["rrf_k"] == 60
