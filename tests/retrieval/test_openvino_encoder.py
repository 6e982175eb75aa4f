"""The OpenVINO encoder gives sentence-transformers' vectors (within bfloat16's error), is keyed apart from
them, and refuses what it cannot run."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from toolex.errors import InputError
from toolex.retrieval.encoders import load_encoder, minilm_path
from toolex.retrieval.spec import build_retriever, parse_spec

pytest.importorskip("openvino")

TEXTS = ["Search one-way flights between two cities on a date",
         "get_weather(city: str, unit: str = 'celsius'): current weather and a three-day forecast for a city",
         "Convert an amount of money from one currency to another at today's rate",
         "x"]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    return load_encoder("minilm", device="cpu").encode(TEXTS)


def test_fp32_gives_the_sentence_transformers_vectors(reference):
    from toolex.retrieval.openvino_encoder import OpenVinoEncoder

    encoder = OpenVinoEncoder(str(minilm_path()), precision="f32", batch_size=3)
    vectors = encoder.encode(TEXTS)
    assert vectors.shape == reference.shape and vectors.dtype == np.float32
    assert np.abs(vectors - reference).max() < 1e-4
    assert encoder.settings()["precision"] == "f32"


def test_the_default_precision_moves_the_vectors_a_little_and_is_named(reference):
    retriever = build_retriever("openvino:minilm", cache=False)
    vectors = retriever.encoder.encode(TEXTS)
    cosines = np.sum(vectors * reference, axis=1)
    assert cosines.min() > 0.998  # bfloat16 where the CPU has it (mpnet's bench: at least 0.9986), else fp32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    settings = retriever.encoder.settings()
    assert settings["kind"] == "openvino" and settings["precision"] in ("bf16", "f32")
    assert settings["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert retriever.encoder.encode([]).shape[0] == 0
    # keyed apart from the sentence-transformers model: the cache, runs and annotations never mix them
    assert settings != build_retriever("dense:minilm", cache=False).encoder.settings()
    assert retriever.name == "openvino:minilm"


def test_the_spec_round_trips_and_fuses():
    assert str(parse_spec("openvino:mpnet")) == "openvino:mpnet"
    fused = parse_spec("rrf:bm25+openvino:minilm")
    assert fused.kind == "rrf" and fused.model == "bm25+openvino:minilm"


def test_a_pooling_other_than_the_mean_is_refused():
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Pooling, Transformer

    from toolex.retrieval.openvino_encoder import check_mean_pooled

    transformer = Transformer(str(minilm_path()))
    dimension = getattr(transformer, "get_embedding_dimension", None)  # the name before 6.x as a fallback
    pooling = Pooling((dimension or transformer.get_word_embedding_dimension)(), "cls")
    st = SentenceTransformer(modules=[transformer, pooling], device="cpu")
    with pytest.raises(InputError, match="mean only"):
        check_mean_pooled(st, "cls-model")


def test_without_openvino_the_error_says_what_to_install(monkeypatch):
    from toolex.retrieval import openvino_encoder

    monkeypatch.setitem(sys.modules, "openvino", None)
    with pytest.raises(InputError, match=r"toolex\[openvino\]"):
        openvino_encoder.OpenVinoEncoder(str(minilm_path()))


def test_the_gpu_is_not_asked_of_it():
    with pytest.raises(InputError, match="CPU"):
        build_retriever("openvino:minilm", device="cuda", cache=False)
