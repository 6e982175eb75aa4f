"""Retriever specs as the command line writes them.

``bm25`` · ``dense:minilm`` (the embedded all-MiniLM-L6-v2) · ``dense:<hub id or local folder>`` ·
``openai:<model>@<base_url>`` (an OpenAI-compatible ``/v1/embeddings`` endpoint; the key comes from
``OPENAI_API_KEY`` or ``api_key``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolex.errors import InputError
from toolex.retrieval.base import Retriever
from toolex.retrieval.prompts import detect_family

KINDS = ("bm25", "dense", "openai")


@dataclass(frozen=True)
class RetrieverSpec:
    kind: str
    model: str = ""
    base_url: str | None = None

    def __str__(self) -> str:
        if self.kind == "bm25":
            return "bm25"
        if self.kind == "openai":
            return f"openai:{self.model}@{self.base_url}" if self.base_url else f"openai:{self.model}"
        return f"dense:{self.model}"


def parse_spec(spec: str) -> RetrieverSpec:
    """Parse ``bm25``, ``dense:<model>`` or ``openai:<model>[@<base_url>]``."""
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind == "bm25" and not rest:
        return RetrieverSpec("bm25")
    if kind == "dense" and rest:
        return RetrieverSpec("dense", rest)
    if kind == "openai" and rest:
        model, _, base_url = rest.partition("@")
        if not model:
            raise InputError(None, f"retriever spec {spec!r}: no model name before '@'")
        return RetrieverSpec("openai", model, base_url or None)
    raise InputError(None, f"unknown retriever spec {spec!r}; use bm25, dense:minilm, dense:<hub id or path> "
                           "or openai:<model>@<base_url>")


def build_retriever(spec: str | RetrieverSpec, family: str | None = None, max_length: int | None = None,
                    batch_size: int = 32, device: str | None = None, cache: bool | str | Path = True,
                    progress: bool = False, api_key: str | None = None,
                    encoder_kind: str = "auto") -> Retriever:
    """A ready-to-index retriever for a spec; ``family`` overrides the prompt family detected from the
    name."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "bm25":
        from toolex.retrieval.bm25 import BM25Retriever

        return BM25Retriever()
    from toolex.retrieval.dense import DenseRetriever
    from toolex.retrieval.encoders import Encoder

    family = family or detect_family(parsed.model)
    encoder: Encoder
    if parsed.kind == "openai":
        from toolex.retrieval.encoders import OpenAIEncoder

        encoder = OpenAIEncoder(parsed.model, base_url=parsed.base_url, api_key=api_key,
                                batch_size=max(batch_size, 1))
    else:
        from toolex.retrieval.encoders import load_encoder

        encoder = load_encoder(parsed.model, family=family, max_length=max_length, batch_size=batch_size,
                               device=device, kind=encoder_kind)
    return DenseRetriever(encoder, family=family, cache=cache, progress=progress, name=str(parsed))
