"""A sentence-transformers model run by OpenVINO on the CPU, in bfloat16 where the CPU has it.

The model's transformer is converted in memory (``openvino.convert_model``, no file written) and compiled
with the inference precision asked for; tokenizing, mean pooling over the attention mask and L2
normalisation are the model's own. On a CPU with bfloat16 kernels (measured with AVX512-BF16, without AMX),
bfloat16 encodes mpnet about twice as fast as sentence-transformers in fp32, its vectors at a cosine of at
least 0.998 to fp32's (``bench/bench_encoder.py``; ``data/bench/encoder_cpu.json``); a CPU without them runs
fp32.
:meth:`OpenVinoEncoder.settings` names the precision the compiled model actually uses, so the embedding cache,
the runs and the annotation keys never mix these vectors with sentence-transformers' own.

Needs ``pip install 'toolex[openvino]'``. Models whose pooling is not a plain mean are refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from toolex.errors import InputError
from toolex.retrieval.encoders import CPU_BATCH_SIZE, Encoder, l2_normalize, offline_if_local

#: Inference precisions OpenVINO is asked for (``bf16`` becomes ``f32`` on a CPU without bfloat16 kernels).
PRECISIONS = ("bf16", "f32")


def _openvino() -> Any:
    try:
        import openvino
    except ImportError as exc:
        raise InputError(None, "the OpenVINO encoder needs the 'openvino' package "
                               "(pip install 'toolex[openvino]')") from exc
    return openvino


def check_mean_pooled(st: Any, model: str) -> None:
    """Refuse a model that is not a transformer followed by mean pooling (and, optionally, normalisation)."""
    names = [type(module).__name__ for module in st]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise InputError(None, f"{model}: modules {names}; the OpenVINO encoder takes a transformer, "
                               "mean pooling and normalisation")
    mode = getattr(st[1], "pooling_mode", None)
    if mode != "mean":
        raise InputError(None, f"{model}: pooling {mode!r}; the OpenVINO encoder pools by mean only")


def converted_model(st: Any) -> Any:
    """The transformer of sentence-transformers model ``st`` as an OpenVINO model (in memory): token ids and
    an attention mask of any batch size and length in, the last hidden states out."""
    import torch

    openvino = _openvino()
    example = st.tokenizer(["a tool", "another tool"], padding=True, return_tensors="pt")
    inputs = {"input_ids": example["input_ids"], "attention_mask": example["attention_mask"]}
    transformer: Any = st[0].auto_model
    with torch.no_grad():
        converted = openvino.convert_model(transformer.eval(), example_input=inputs)
    converted.reshape({name: [-1, -1] for name in inputs})
    return converted


def token_batches(tokenizer: Any, texts: Sequence[str], batch_size: int, max_length: int = 0
                  ) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
    """Each batch's text positions, int64 token ids and attention mask, longest texts first, so that texts of
    alike length share a batch (as sentence-transformers forms them); truncated at ``max_length`` (0: the
    tokenizer's own)."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    for start in range(0, len(order), batch_size):
        at = order[start:start + batch_size]
        batch = tokenizer([texts[i] for i in at], padding=True, truncation=True,
                          max_length=max_length or None, return_tensors="np")
        yield at, batch["input_ids"].astype(np.int64), batch["attention_mask"].astype(np.int64)


def mean_pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The float32 mean of each text's token states over its attention mask (sentence-transformers' mean
    pooling, before any normalisation)."""
    weights = mask.astype(np.float32)[..., None]
    return ((hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)).astype(np.float32)


class OpenVinoEncoder(Encoder):
    """A sentence-transformers model (hub id or local folder) compiled by OpenVINO for the CPU."""

    def __init__(self, model: str, max_length: int | None = None, batch_size: int | None = None,
                 normalize: bool = True, precision: str = "bf16", label: str | None = None) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; choose one of {PRECISIONS}")
        openvino = _openvino()
        offline_if_local(model)
        self.model, self.label = model, label or model
        st = SentenceTransformer(model, device="cpu", trust_remote_code=True)
        check_mean_pooled(st, model)
        if max_length:
            st.max_seq_length = max_length
        self.max_length = int(st.max_seq_length or 0)
        self.normalize, self._batch_size = normalize, batch_size or CPU_BATCH_SIZE
        self._tokenizer = st.tokenizer
        core = openvino.Core()
        if precision == "bf16" and "BF16" not in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES"):
            precision = "f32"  # not OpenVINO's own fallback, which may be another reduced precision
        self._compiled = core.compile_model(converted_model(st), "CPU", {
            "INFERENCE_PRECISION_HINT": precision, "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_NUM_THREADS": torch.get_num_threads()})
        self.precision = self._compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
        self._request = self._compiled.create_infer_request()

    def settings(self) -> dict[str, Any]:
        return {"kind": "openvino", "model": self.label, "max_length": self.max_length,
                "normalize": self.normalize, "precision": self.precision}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``, in :func:`token_batches`."""
        texts = list(texts)
        out: np.ndarray | None = None
        for at, input_ids, mask in token_batches(self._tokenizer, texts, self._batch_size, self.max_length):
            hidden = self._request.infer({"input_ids": input_ids, "attention_mask": mask})[0]
            pooled = mean_pooled(hidden, mask)
            if out is None:
                out = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            out[at] = pooled
        if out is None:
            return np.zeros((0, 0), np.float32)
        return l2_normalize(out) if self.normalize else out
