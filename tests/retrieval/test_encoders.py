"""The encoders' batch size on the CPU is the one the kept bench chose, and an explicit size wins."""

from __future__ import annotations

import json

from toolex import paths
from toolex.retrieval import encoders
from toolex.retrieval.encoders import BATCH_SIZE, CPU_BATCH_SIZE, default_batch_size, load_encoder
from toolex.retrieval.spec import build_retriever

KEPT = paths.ROOT / "data" / "bench" / "batch_size_cpu.json"


def test_the_cpu_batch_size_is_the_one_the_kept_bench_chose_on_every_source():
    kept = json.loads(KEPT.read_text(encoding="utf-8"))
    assert kept["chosen"] == CPU_BATCH_SIZE
    assert kept["baseline_batch_size"] == 32  # the default before the bench, which every ratio divides
    # chosen on the other sources, it still encodes each source left out at least as fast as batches of 32
    for source, row in kept["held_out"].items():
        assert row["minilm"] >= 1.0 and row["mpnet"] >= 1.0, source
    for model, sources in kept["cells"].items():
        for source, sizes in sources.items():
            assert sizes[str(CPU_BATCH_SIZE)]["max_abs_change"] < 1e-5, (model, source)


def test_sentence_transformers_encoders_batch_by_device_unless_told():
    assert default_batch_size("cpu") == CPU_BATCH_SIZE
    assert default_batch_size("cuda") == BATCH_SIZE
    assert build_retriever("dense:minilm", device="cpu", cache=False).encoder.batch_size() == CPU_BATCH_SIZE
    assert load_encoder("minilm", device="cpu", batch_size=64).batch_size() == 64


def test_other_encoder_kinds_keep_their_batch_size(monkeypatch):
    seen = {}

    class Recorded:
        def __init__(self, model, **kwargs):
            seen.update(kwargs)

    monkeypatch.setattr(encoders, "TransformersEncoder", Recorded)
    load_encoder("some/qwen3-embedding", family="qwen3", device="cpu")
    assert seen["batch_size"] == BATCH_SIZE
    endpoint = build_retriever("openai:some-model@http://127.0.0.1:1/v1", api_key="x", cache=False)
    assert endpoint.encoder.batch_size() == BATCH_SIZE
