"""Retriever specs as the command line writes them.

``bm25`` · ``dense:minilm`` (the embedded all-MiniLM-L6-v2) · ``dense:minilm-ft`` (MiniLM fine-tuned on
one-to-one labels; :func:`toolex.experiments.finetune.resolve_spec` turns it into ``dense:<folder>``) ·
``dense:<hub id or local folder>`` · ``openvino:<model>`` (the same sentence-transformers model compiled by
OpenVINO in bfloat16 on the CPU: faster, cosines to fp32 of at least 0.998 for mpnet, keyed apart) ·
``openai:<model>@<base_url>`` (an OpenAI-compatible ``/v1/embeddings``
endpoint; the key comes from ``OPENAI_API_KEY`` or ``api_key``) · ``rrf:<spec>+<spec>...`` (Reciprocal Rank
Fusion of those retrievers) · ``hybrid`` (``rrf:bm25+dense:minilm``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolex.errors import InputError
from toolex.retrieval.base import Retriever
from toolex.retrieval.bm25 import BM25Retriever
from toolex.retrieval.dense import DenseRetriever
from toolex.retrieval.encoders import BATCH_SIZE, Encoder, OpenAIEncoder, load_encoder, resolve_model
from toolex.retrieval.hybrid import HYBRID, HYBRID_PARTS, FusionRetriever
from toolex.retrieval.openvino_encoder import OpenVinoEncoder
from toolex.retrieval.text_format import detect_family

KINDS = ("bm25", "dense", "openvino", "openai", "rrf")


@dataclass(frozen=True)
class RetrieverSpec:
    kind: str
    model: str = ""
    base_url: str | None = None

    def __str__(self) -> str:
        if self.kind == "bm25":
            return "bm25"
        if self.kind == "rrf":
            return HYBRID if self.model == "+".join(HYBRID_PARTS) else f"rrf:{self.model}"
        if self.kind == "openai":
            return f"openai:{self.model}@{self.base_url}" if self.base_url else f"openai:{self.model}"
        return f"{self.kind}:{self.model}"


def parse_spec(spec: str) -> RetrieverSpec:
    """Parse ``bm25``, ``dense:<model>``, ``openvino:<model>``, ``openai:<model>[@<base_url>]``,
    ``rrf:<spec>+<spec>...`` or ``hybrid``."""
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind == "bm25" and not rest:
        return RetrieverSpec("bm25")
    if kind == HYBRID and not rest:
        return RetrieverSpec("rrf", "+".join(HYBRID_PARTS))
    if kind == "rrf" and rest:
        parts = [str(parse_spec(part)) for part in _split_parts(rest)]
        if len(parts) < 2:
            raise InputError(None, f"retriever spec {spec!r}: rrf fuses two or more retrievers "
                                   "(rrf:bm25+dense:minilm)")
        return RetrieverSpec("rrf", "+".join(parts))
    if kind in ("dense", "openvino") and rest:
        return RetrieverSpec(kind, rest)
    if kind == "openai" and rest:
        model, _, base_url = rest.partition("@")
        if not model:
            raise InputError(None, f"retriever spec {spec!r}: no model name before '@'")
        return RetrieverSpec("openai", model, base_url or None)
    raise InputError(None, f"unknown retriever spec {spec!r}; use bm25, dense:minilm, "
                           "dense:<hub id or path>, openvino:<model>, openai:<model>@<base_url>, "
                           "rrf:<spec>+<spec> or hybrid")


def _split_parts(text: str) -> list[str]:
    """The parts of an ``rrf:`` spec: split on ``+`` where a new part starts (``bm25``, ``dense:``,
    ``openai:``), so that a ``+`` inside a model name or URL stays."""
    parts: list[str] = []
    for piece in text.split("+"):
        starts = piece.strip().lower()
        if not parts or starts == "bm25" or starts == HYBRID or starts.startswith(("dense:", "openvino:",
                                                                                     "openai:")):
            parts.append(piece.strip())
        else:
            parts[-1] += "+" + piece
    return parts


def build_retriever(spec: str | RetrieverSpec, family: str | None = None, max_length: int | None = None,
                    batch_size: int | None = None, device: str | None = None, cache: bool | str | Path = True,
                    progress: bool = False, api_key: str | None = None,
                    encoder_kind: str = "auto") -> Retriever:
    """A ready-to-index retriever for a spec; ``family`` overrides the prompt family detected from the
    name."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "rrf":
        parts = [build_retriever(part, max_length=max_length, batch_size=batch_size, device=device,
                                 cache=cache, progress=progress, api_key=api_key)
                 for part in _split_parts(parsed.model)]
        return FusionRetriever(parts, name=str(parsed))
    if parsed.kind == "bm25":
        return BM25Retriever()

    family = family or detect_family(parsed.model)
    encoder: Encoder
    if parsed.kind == "openai":
        encoder = OpenAIEncoder(parsed.model, base_url=parsed.base_url, api_key=api_key,
                                batch_size=max(batch_size or BATCH_SIZE, 1))
    elif parsed.kind == "openvino":
        if device not in (None, "cpu"):
            raise InputError(None, f"{parsed}: the OpenVINO encoder runs on the CPU, not {device!r}")
        model, label, length = resolve_model(parsed.model, max_length)
        encoder = OpenVinoEncoder(model, max_length=length, batch_size=batch_size, label=label)
    else:
        encoder = load_encoder(parsed.model, family=family, max_length=max_length, batch_size=batch_size,
                               device=device, kind=encoder_kind)
    return DenseRetriever(encoder, family=family, cache=cache, progress=progress, name=str(parsed))
