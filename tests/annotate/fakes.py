"""Small, fast stand-ins for the annotation tests: a tiny benchmark whose tools share name words, a
deterministic bag-of-words dense retriever (also an encoder for the offline judge), a rule judge in Python and
a wrapper that counts how often each stage is computed."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.stage_records import Decomposition, SubQuery, Verdict
from toolex.data.records import Benchmark, Query, Tool

STAGES = ("decompose", "verify", "audit")


def _tool(tid: str, name: str, what: str, platform: str | None = None) -> Tool:
    return Tool(tid, name, {"name": name, "description": f"{what}.",
                            "parameters": {"type": "object", "properties": {"city": {}},
                                           "required": ["city"]}},
                platform=platform)


def tiny_benchmark() -> Benchmark:
    """Four ``get_*`` tools (each shares the word ``get`` with the others, so each is verified for every
    ``get_*`` reference by a shared-word rule), two ``send_*`` tools, and three queries."""
    tools = [_tool("a", "get_weather", "Get the weather forecast of a city"),
             _tool("b", "get_email", "Get the emails of an inbox"),
             _tool("n", "get_news", "Get the news headlines of a city"),
             _tool("s", "get_stock", "Get the stock price of a company"),
             _tool("m", "send_mail", "Send an email message"),
             _tool("t", "send_text", "Send a text message")]
    queries = [Query("q1", "Tell me the weather in Paris and read my emails", ("a", "b"), category="web"),
               Query("q2", "Read the news of Rome then send a text to Ann", ("n", "t"), category="web"),
               Query("q3", "Get the news of Oslo, the stock of Acme and mail both to Bo", ("n", "s", "m"),
                     category="code")]
    return Benchmark("tiny", queries, {t.id: t for t in tools}, checksum="tiny-0001")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _vector(text: str, dim: int = 64) -> np.ndarray:
    out = np.zeros(dim, dtype=np.float32)
    for w in _words(text):
        out[int(hashlib.md5(w.encode()).hexdigest(), 16) % dim] += 1.0
    return out


class _Format:
    family = "plain"

    @staticmethod
    def doc(text: str) -> str:
        return text

    @staticmethod
    def query(text: str, instruction: str = "") -> str:
        return text


class _Encoder:
    def __init__(self, label: str) -> None:
        self.label = label

    def settings(self) -> dict[str, Any]:
        return {"kind": "hashed-bag-of-words", "model": self.label}


class BagOfWords:
    """A dense retriever in miniature: hashed word counts, cosine ranking, ties by tool id."""

    name = "bow"

    def __init__(self, label: str = "bow-64") -> None:
        self.encoder, self.format = _Encoder(label), _Format()
        self.pool: list[Tool] = []
        self.searches = 0

    def settings(self) -> dict[str, Any]:
        return {"name": self.name, **self.encoder.settings()}

    def embed(self, texts: Sequence[str], desc: str = "") -> np.ndarray:
        return np.stack([_vector(t) for t in texts]) if texts else np.zeros((0, 64), dtype=np.float32)

    def index(self, tools: Mapping[str, Tool] | Sequence[Tool]) -> None:
        self.pool = sorted(tools.values() if isinstance(tools, Mapping) else tools, key=lambda t: t.id)

    def search(self, texts: Sequence[str], k: int = 10, instructions: Sequence[str] | None = None
               ) -> list[list[tuple[str, float]]]:
        self.searches += 1
        docs = self.embed([t.text for t in self.pool])
        docs /= np.maximum(np.linalg.norm(docs, axis=1, keepdims=True), 1e-12)
        out = []
        for text in texts:
            q = _vector(text)
            q /= max(float(np.linalg.norm(q)), 1e-12)
            scores = docs @ q
            order = sorted(range(len(self.pool)),
                           key=lambda i: (-round(float(scores[i]), 6), self.pool[i].id))
            out.append([(self.pool[i].id, float(scores[i])) for i in order[:k]])
        return out


def shared_word(a: str, b: str) -> bool:
    return bool(set(re.split(r"[\W_]+", a.lower())) & set(re.split(r"[\W_]+", b.lower())) - {""})


class RuleJudge(Judge):
    """Decomposes into one sub-query per tool of C* (``fail``: query ids whose decomposition fails), verifies
    a candidate when its name shares a word with the reference's, and accepts every audited combination."""

    kind = "rule"

    def __init__(self, fail: Sequence[str] = (), version: int = 1) -> None:
        self.fail, self.version, self.name = set(fail), version, "rule"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "version": self.version}

    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        out = []
        for it in items:
            if it.query.id in self.fail:
                out.append(Decomposition(it.query.id, (), self.name, ok=False, error="malformed answer"))
                continue
            subs = tuple(SubQuery(i, f"{t.name.replace('_', ' ')} for {it.query.text}", t.name, "it", t.id)
                         for i, t in enumerate(it.tools))
            out.append(Decomposition(it.query.id, subs, self.name))
        return out

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        return [Verdict(shared_word(it.reference.name, it.candidate.name), "shared word rule", self.name)
                for it in items]

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        return [Verdict(True, "accepted", self.name) for _ in items]


def count_stages(judge: Any) -> Counter[str]:
    """Wrap the judge's three stage methods; the counter says how many times each stage was computed."""
    counts: Counter[str] = Counter()
    for stage in STAGES:
        method = getattr(judge, stage)

        def wrapper(items: Any, _method: Any = method, _stage: str = stage) -> Any:
            counts[_stage] += 1
            return _method(items)

        setattr(judge, stage, wrapper)
    return counts
