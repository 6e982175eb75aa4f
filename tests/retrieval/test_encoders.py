"""The encoders' batch size on the CPU is the one the kept bench chose, and an explicit size wins."""

from __future__ import annotations

import json

from toolex import paths
from toolex.retrieval.encoders import CPU_BATCH_SIZE, GPU_BATCH_SIZE, default_batch_size, load_encoder
from toolex.retrieval.spec import build_retriever

KEPT = paths.ROOT / "data" / "bench" / "batch_size_cpu.json"


def test_the_cpu_batch_size_is_the_one_the_kept_bench_chose_on_every_source():
    kept = json.loads(KEPT.read_text(encoding="utf-8"))
    assert kept["chosen"] == CPU_BATCH_SIZE
    assert kept["baseline_batch_size"] == GPU_BATCH_SIZE
    # chosen on the other sources, it still encodes each source left out at least as fast as batches of 32
    for source, row in kept["held_out"].items():
        assert row["minilm"] >= 1.0 and row["mpnet"] >= 1.0, source
    for model, sources in kept["cells"].items():
        for source, sizes in sources.items():
            assert sizes[str(CPU_BATCH_SIZE)]["max_abs_change"] < 1e-5, (model, source)


def test_sentence_transformers_encoders_batch_by_device_unless_told():
    assert default_batch_size("cpu") == CPU_BATCH_SIZE
    assert default_batch_size("cuda") == GPU_BATCH_SIZE
    assert load_encoder("minilm", device="cpu").batch_size() == CPU_BATCH_SIZE
    assert load_encoder("minilm", device="cpu", batch_size=64).batch_size() == 64
    assert build_retriever("dense:minilm", device="cpu", cache=False).encoder.batch_size() == CPU_BATCH_SIZE
