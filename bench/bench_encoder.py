"""The default judge's encoder on CPU: today's path (sentence-transformers, fp32) against int8 dynamic
quantization of its linear layers (``torch.ao.quantization.quantize_dynamic``), bfloat16 autocast, and the
model exported to ONNX and run by onnxruntime (fp32, and int8 by onnxruntime's dynamic quantization), and the
model converted by OpenVINO (``openvino.convert_model`` of the PyTorch transformer) and compiled with bfloat16
inference (``pip install openvino``; AVX512-BF16 or AMX), for latency (one request) and for throughput (two
streams fed asynchronously), and quantized to int8 by NNCF's post-training quantization (``pip install nncf``;
weights and activations, SmoothQuant, calibrated on tool documents of a benchmark neither timed nor judged:
every linear layer, or the attention's alone), in the same run.

Measures (1) encoding throughput on tool documents as Stage 2 formats them, each path timed twice in
alternation, the faster pass kept; (2) how far the vectors move (cosine of each text's two vectors); (3) how
many Stage 2 verdicts change when ToolEX annotates the same benchmarks with each encoder, and how long each
annotation takes (no embedding cache, so each path encodes everything). Prints one JSON object; the goal is a
ratio of at least 3 (over fp32 in batches of 32, the path when the goal was set) with at least 99.5 % of
verdicts unchanged.

Usage: ``python bench/bench_encoder.py [--texts 512] [--paths int8 bf16 onnx onnx-int8 openvino-bf16 ...]
[--verdicts PATH ...] [--benchmarks toolret/apibank customized/toolalpaca]``.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from toolex.annotate.judges.factory import build_judge
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.data import load_benchmark
from toolex.data.readers import iter_jsonl
from toolex.retrieval.dense import DenseRetriever
from toolex.retrieval.encoders import BATCH_SIZE, l2_normalize
from toolex.retrieval.openvino_encoder import converted_model, mean_pooled, token_batches
from toolex.retrieval.spec import build_retriever

#: The paths timed beside today's (sentence-transformers, fp32).
PATHS = ("int8", "bf16", "onnx", "onnx-int8", "openvino-bf16", "openvino-bf16-streams", "openvino-int8",
         "openvino-int8-attention")
#: The packages each path needs beyond the project's own (none of them a dependency of the project).
NEEDS = {"onnx": ("onnx", "onnxruntime"), "onnx-int8": ("onnx", "onnxruntime"),
         "openvino-bf16": ("openvino",), "openvino-bf16-streams": ("openvino",),
         "openvino-int8": ("openvino", "nncf"), "openvino-int8-attention": ("openvino", "nncf")}
#: The benchmark whose tool documents calibrate the int8 paths' activation ranges (neither timed nor judged).
CALIBRATION = "toolret/apigen"
CALIBRATION_TEXTS = 300


def installed(path: str) -> bool:
    """Whether the packages ``path`` needs are installed."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in NEEDS.get(path, ()))


def quantized(retriever: DenseRetriever) -> DenseRetriever:
    """The same retriever with its encoder's linear layers quantized to int8 (dynamic), uncached."""
    twin = copy.copy(retriever)
    twin.encoder = copy.copy(retriever.encoder)
    model = copy.deepcopy(retriever.encoder._st)  # type: ignore[attr-defined]
    twin.encoder._st = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear},  # type: ignore[attr-defined]
                                                              dtype=torch.qint8)
    return twin


class Bf16:
    """An encoder run under CPU bfloat16 autocast (AVX512-BF16 or AMX where the CPU has them)."""

    def __init__(self, encoder) -> None:
        self.encoder = encoder

    def encode(self, texts: list[str]) -> np.ndarray:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return np.asarray(self.encoder.encode(texts), dtype=np.float32)


class OnnxEncoder:
    """The same model exported to ONNX (``torch.onnx.export`` of its transformer), run by onnxruntime on the
    CPU: the sentence-transformers tokenizer, mean pooling over the mask and L2 normalisation as the model's
    own modules do, length-sorted batches; ``int8``: onnxruntime's dynamic quantization of the exported
    graph's weights (``onnxruntime.quantization.quantize_dynamic``)."""

    def __init__(self, encoder, folder: Path, int8: bool = False, batch_size: int = 32) -> None:
        st = encoder._st
        self.tokenizer, self.max_length = st.tokenizer, int(st.max_seq_length)
        self.batch_size = batch_size
        self.path = self.export(st, folder, int8)
        self.session = self.load()

    def export(self, st, folder: Path, int8: bool) -> Path:
        """The model's ONNX file in ``folder`` (exported once; ``int8``: its quantized twin)."""
        path = folder / "model.onnx"
        if not path.exists():
            model = st[0].auto_model.eval()
            example = self.tokenizer(["an example tool"], return_tensors="pt")
            with torch.no_grad():
                torch.onnx.export(model, (example["input_ids"], example["attention_mask"]), str(path),
                                  input_names=["input_ids", "attention_mask"], output_names=["hidden"],
                                  dynamic_axes={"input_ids": {0: "batch", 1: "tokens"},
                                                "attention_mask": {0: "batch", 1: "tokens"},
                                                "hidden": {0: "batch", 1: "tokens"}},
                                  opset_version=17, dynamo=False)
        if int8:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            quantized_path = folder / "model.int8.onnx"
            if not quantized_path.exists():
                quantize_dynamic(str(path), str(quantized_path), weight_type=QuantType.QInt8)
            path = quantized_path
        return path

    def load(self):
        """The onnxruntime session of :attr:`path` on the CPU."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        return ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])

    def hidden(self, input_ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The transformer's last hidden states of one batch."""
        return self.session.run(None, {"input_ids": input_ids, "attention_mask": mask})[0]

    def batches(self, texts: list[str]):
        """Each batch's text positions, token ids and attention mask (alike lengths share a batch)."""
        return token_batches(self.tokenizer, texts, self.batch_size, self.max_length)

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 768), dtype=np.float32)
        for at, input_ids, mask in self.batches(texts):
            out[at] = l2_normalize(mean_pooled(self.hidden(input_ids, mask), mask))
        return out


class OpenVinoEncoder(OnnxEncoder):
    """The model's transformer converted by OpenVINO (``openvino.convert_model``, no ONNX file) and compiled
    for the CPU with bfloat16 inference precision (its own kernels; LayerNorm and softmax stay as OpenVINO
    decides), in batches of 8 (they measured a little faster than 32 here), otherwise as
    :class:`OnnxEncoder`."""

    BATCH_SIZE = 8

    def __init__(self, encoder, folder: Path) -> None:
        super().__init__(encoder, folder, batch_size=self.BATCH_SIZE)

    def export(self, st, folder: Path, int8: bool) -> Path:
        """The converted model's IR file in ``folder`` (converted once)."""
        import openvino

        path = folder / "model.xml"
        if not path.exists():
            openvino.save_model(converted_model(st), str(path), compress_to_fp16=False)
        return path

    def load(self):
        import openvino

        settings = {"INFERENCE_PRECISION_HINT": "bf16", "PERFORMANCE_HINT": "LATENCY",
                    "INFERENCE_NUM_THREADS": torch.get_num_threads()}
        return openvino.Core().compile_model(str(self.path), "CPU", settings)

    def hidden(self, input_ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.session({"input_ids": input_ids, "attention_mask": mask})[0]


class OpenVinoInt8Encoder(OpenVinoEncoder):
    """:class:`OpenVinoEncoder` with int8 weights and activations: NNCF's post-training quantization of the
    converted model (``ModelType.TRANSFORMER``: SmoothQuant, fast bias correction), its activation ranges from
    ``calibration`` (tool documents no timed or judged benchmark holds); ``attention_only``: the attention's
    projections and products alone, the feed-forward layers and the attention's output projection staying in
    bfloat16. Everything NNCF leaves in floating point runs in bfloat16."""

    def __init__(self, encoder, folder: Path, calibration: list[str], attention_only: bool = False) -> None:
        self.calibration, self.attention_only = calibration, attention_only
        super().__init__(encoder, folder)

    def export(self, st, folder: Path, int8: bool) -> Path:
        import nncf
        import openvino

        converted = super().export(st, folder, int8)
        path = folder / ("model.int8-attention.xml" if self.attention_only else "model.int8.xml")
        if not path.exists():
            items = [{"input_ids": ids, "attention_mask": mask}
                     for _, ids, mask in self.batches(self.calibration)]
            floats = [r".*intermediate.*", r".*\.output\.dense/.*", r".*attn\.o/.*"]  # kept in bf16
            ignored = nncf.IgnoredScope(patterns=floats, validate=False) if self.attention_only else None
            nncf.set_log_level(logging.WARNING)  # its notes and progress bars would go to stdout, the JSON's
            with contextlib.redirect_stdout(sys.stderr):
                model = nncf.quantize(openvino.Core().read_model(str(converted)), nncf.Dataset(items),
                                      model_type=nncf.ModelType.TRANSFORMER, subset_size=len(items),
                                      **({"ignored_scope": ignored} if ignored else {}))
            openvino.save_model(model, str(path), compress_to_fp16=False)
        return path


class OpenVinoStreamsEncoder(OpenVinoEncoder):
    """:class:`OpenVinoEncoder` compiled for throughput: two inference streams (one core each) fed by an
    asynchronous queue, so that one batch's tokenizing and pooling overlap another's inference; batches of 4
    (they measured a little faster than 8 and 16 here)."""

    BATCH_SIZE = 4
    STREAMS = 2

    def load(self):
        import openvino

        settings = {"INFERENCE_PRECISION_HINT": "bf16", "PERFORMANCE_HINT": "THROUGHPUT",
                    "NUM_STREAMS": self.STREAMS, "INFERENCE_NUM_THREADS": torch.get_num_threads()}
        return openvino.Core().compile_model(str(self.path), "CPU", settings)

    def encode(self, texts: list[str]) -> np.ndarray:
        import openvino

        out = np.zeros((len(texts), 768), dtype=np.float32)
        queue = openvino.AsyncInferQueue(self.session, self.STREAMS)

        def pooled(request, userdata) -> None:
            at, mask = userdata
            out[at] = l2_normalize(mean_pooled(request.get_output_tensor(0).data, mask))

        queue.set_callback(pooled)
        for at, input_ids, mask in self.batches(texts):
            queue.start_async({"input_ids": input_ids, "attention_mask": mask}, (at, mask))
        queue.wait_all()
        return out


class Swapped:
    """A retriever's encoder with another path behind ``encode`` (the settings say which)."""

    def __init__(self, encoder, path, name: str) -> None:
        self.encoder, self.path, self.name = encoder, path, name

    def settings(self) -> dict:
        return {**self.encoder.settings(), "backend": self.name}

    def encode(self, texts) -> np.ndarray:
        return self.path.encode(list(texts))


def with_batch(encoder, size: int):
    """The same sentence-transformers encoder taking ``size`` texts per forward pass."""
    twin = copy.copy(encoder)
    twin._batch_size = size
    return twin


def with_encoder(retriever: DenseRetriever, encoder, name: str) -> DenseRetriever:
    twin = copy.copy(retriever)
    twin.encoder = Swapped(retriever.encoder, encoder, name)  # type: ignore[assignment]
    return twin


def batch_size(encoder) -> int:
    """The texts one forward pass of ``encoder`` holds."""
    inner = getattr(encoder, "encoder", None)
    size = getattr(encoder, "batch_size", None) or getattr(inner, "batch_size", 32)
    return int(size() if callable(size) else size)


def timed(encoder, texts: list[str]) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    vectors = encoder.encode(texts)
    return time.perf_counter() - start, vectors


def verdicts(folder: Path) -> dict[tuple[str, str, str], bool]:
    """Each Stage 2 verdict, by (query, sub-query index, candidate tool)."""
    return {(record["query_id"], str(record["index"]), candidate["tool_id"]): bool(candidate["equivalent"])
            for record in iter_jsonl(folder / "verified.jsonl") for candidate in record["candidates"]}


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=512, help="tool documents timed")
    parser.add_argument("--benchmarks", nargs="+", default=["toolret/apibank", "customized/toolalpaca"])
    parser.add_argument("--verdicts", nargs="*", choices=PATHS, default=["bf16"],
                        help="the paths whose Stage 2 verdicts (and annotation time, no embedding cache) are "
                             "compared with fp32's")
    parser.add_argument("--paths", nargs="+", choices=PATHS, default=[p for p in PATHS if installed(p)],
                        help="the paths timed beside fp32 (default: each whose package is installed)")
    args = parser.parse_args()
    torch.manual_seed(0)

    paths = [p for p in PATHS if p in args.paths or p in args.verdicts]
    wanted = set(paths)
    base = build_retriever("dense:mpnet", cache=False)
    assert isinstance(base, DenseRetriever)
    fast = quantized(base)
    packaged = build_retriever("openvino:mpnet", cache=False) if "openvino-bf16" in wanted else None
    benchmarks = [load_benchmark(name) for name in args.benchmarks]
    tools = [t for b in benchmarks for t in b.tools.values()]
    pool = [t for b in [load_benchmark("toolret/toolink")] for t in b.tools.values()] + tools
    texts = [base.format.doc(t.text) for t in pool][: args.texts]
    onnx_folder = Path(tempfile.mkdtemp(prefix="toolex-onnx-"))
    builders = {"int8": lambda: fast.encoder, "bf16": lambda: Bf16(base.encoder),
                "onnx": lambda: OnnxEncoder(base.encoder, onnx_folder),
                "onnx-int8": lambda: OnnxEncoder(base.encoder, onnx_folder, int8=True),
                "openvino-bf16": lambda: packaged.encoder,
                "openvino-bf16-streams": lambda: OpenVinoStreamsEncoder(base.encoder, onnx_folder),
                "openvino-int8": lambda: OpenVinoInt8Encoder(base.encoder, onnx_folder, calibration()),
                "openvino-int8-attention": lambda: OpenVinoInt8Encoder(base.encoder, onnx_folder,
                                                                       calibration(), attention_only=True)}

    def calibration() -> list[str]:
        tools = list(load_benchmark(CALIBRATION).tools.values())
        return [base.format.doc(t.text) for t in tools[:CALIBRATION_TEXTS]]

    encoders = {"fp32": base.encoder, **{name: builders[name]() for name in paths}}
    if batch_size(base.encoder) != BATCH_SIZE:  # the peer when the 3x goal was set: batches of 32
        encoders = {"fp32": base.encoder, "fp32-batch-32": with_batch(base.encoder, BATCH_SIZE),
                    **{name: encoders[name] for name in paths}}
    times: dict[str, list[float]] = {name: [] for name in encoders}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(2):
        for name, encoder in encoders.items():
            seconds, vectors[name] = timed(encoder, texts)
            times[name].append(seconds)
    cosine = {name: np.sum(vectors["fp32"] * vectors[name], axis=1) for name in paths}

    def verdict_retriever(name: str) -> DenseRetriever:
        if name == "int8":
            return fast
        if name == "openvino-bf16":
            return packaged
        if name.startswith(("onnx", "openvino")):
            return with_encoder(base, encoders[name], name)
        return base

    config = AnnotateConfig()
    found, annotated = {}, {}
    with tempfile.TemporaryDirectory(prefix="toolex-bench-") as tmp:
        for name in ("fp32", *args.verdicts):
            retriever = verdict_retriever(name)
            judge = build_judge("offline", embedder=retriever, progress=False)
            folder = Path(tmp) / name
            bf16 = torch.autocast("cpu", dtype=torch.bfloat16) if name == "bf16" else contextlib.nullcontext()
            start = time.perf_counter()
            with bf16:
                ToolEX(benchmarks, judge, folder, config, retriever=retriever, progress=False).run()
            annotated[name] = time.perf_counter() - start
            found[name] = verdicts(folder)

    def compared(other: str) -> dict:
        shared = set(found["fp32"]) & set(found[other])
        same = sum(found["fp32"][k] == found[other][k] for k in shared)
        # over every item either run judged, an item the other run never retrieved counting as not verified
        # there (which is what the annotation records), and the overlap of the two runs' verified items
        union = set(found["fp32"]) | set(found[other])
        accepted = {name: {k for k, v in found[name].items() if v} for name in ("fp32", other)}
        either, both = accepted["fp32"] | accepted[other], accepted["fp32"] & accepted[other]
        return {"items": len(shared), "only_in_one": len(union - shared),
                "unchanged_share": round(same / len(shared), 4) if shared else None,
                "unchanged_share_of_all_items": (round(1 - len(either - both) / len(union), 4) if union
                                                 else None),
                "verified_overlap": round(len(both) / len(either), 4) if either else None,
                "accepted": sum(found[other].values()),
                "annotation_seconds": round(annotated[other], 1),
                "annotation_speedup_over_fp32": round(annotated["fp32"] / annotated[other], 2)}

    best = {name: min(values) for name, values in times.items()}
    print(json.dumps({
        "bench": "encoder", "model": "all-mpnet-base-v2", "threads": torch.get_num_threads(),
        "texts": len(texts), "seconds": {k: [round(v, 2) for v in vs] for k, vs in times.items()},
        "texts_per_s": {k: round(len(texts) / v, 1) for k, v in best.items()},
        "batch_sizes": {name: batch_size(encoder) for name, encoder in encoders.items()},
        "speedup_over_fp32": {name: round(best["fp32"] / best[name], 2) for name in paths},
        **({"speedup_over_fp32_batch_32": {name: round(best["fp32-batch-32"] / best[name], 2)
                                           for name in ["fp32", *paths]}} if "fp32-batch-32" in best else {}),
        "cosine_to_fp32": {name: {"min": round(float(c.min()), 4), "mean": round(float(c.mean()), 4)}
                           for name, c in cosine.items()},
        "verdicts": {"benchmarks": args.benchmarks,
                     "fp32": {"accepted": sum(found["fp32"].values()),
                              "annotation_seconds": round(annotated["fp32"], 1)},
                     **{name: compared(name) for name in args.verdicts}},
        "goal": {"speedup": 3.0, "unchanged_share": 0.995},
    }))


if __name__ == "__main__":
    main()
