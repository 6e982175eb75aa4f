"""Query formats per encoder family, and last-token pooling on a small real transformers model."""

from __future__ import annotations

import numpy as np
import pytest

from toolex.retrieval.text_format import QWEN3_DEFAULT_INSTRUCTION, detect_family, prompt_format


def test_qwen3_format():
    fmt = prompt_format("qwen3")
    assert fmt.query("find a song", "Given a music task, retrieve tools") == \
        "Instruct: Given a music task, retrieve tools\nQuery:find a song"
    assert fmt.query("find a song") == f"Instruct: {QWEN3_DEFAULT_INSTRUCTION}\nQuery:find a song"
    assert fmt.doc('{"name": "x"}') == '{"name": "x"}' and fmt.pooling == "last"


def test_e5_and_plain_formats():
    e5, plain = prompt_format("e5"), prompt_format("plain")
    assert e5.query("q") == "query: q" and e5.doc("d") == "passage: d"
    assert e5.query("q", "Do it") == "Instruct: Do it\nquery: q"
    assert plain.query("q") == "q" and plain.doc("d") == "d"
    assert plain.query("q", "Do it") == "Instruct: Do it\nQuery: q"
    with pytest.raises(ValueError):
        prompt_format("nope")


@pytest.mark.parametrize("name,family", [
    ("Qwen/Qwen3-Embedding-0.6B", "qwen3"), ("Lux1997/Tool-Embed-0.6B", "qwen3"),
    ("intfloat/e5-base-v2", "e5"), ("intfloat/e5-mistral-7b-instruct", "plain"),
    ("sentence-transformers/all-MiniLM-L6-v2", "plain"), ("minilm", "plain"),
    ("BAAI/bge-base-en-v1.5", "plain"),
])
def test_detect_family(name, family):
    assert detect_family(name) == family


def test_dense_queries_carry_the_instruction_tools_do_not(toolret_parts, tmp_path):
    from toolex.retrieval.dense import DenseRetriever

    class Recorder:
        model = "recorder"
        seen: list[str] = []

        def settings(self):
            return {"model": "recorder"}

        def encode(self, texts):
            self.seen.extend(texts)
            return np.ones((len(texts), 4), np.float32)

    encoder = Recorder()
    bench = toolret_parts[0]
    retriever = DenseRetriever(encoder, family="qwen3", cache=tmp_path)
    tools = list(bench.tools.values())[:3]
    retriever.index(tools)
    assert encoder.seen == [t.text for t in tools]
    q = bench.queries[0]
    retriever.search([q.text], k=2, instructions=[q.instruction])
    assert encoder.seen[-1] == f"Instruct: {q.instruction}\nQuery:{q.text}"


def _save_tiny(folder, config, model_cls):
    import torch
    from transformers import AutoTokenizer

    from toolex.retrieval.encoders import minilm_path

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()))
    model_cls(config(tokenizer.vocab_size)).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A small randomly initialised BERT (absolute positions) with MiniLM's tokenizer, as a local folder."""
    from transformers import BertConfig, BertModel

    def config(vocab):
        return BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                          intermediate_size=64, max_position_embeddings=128)

    return _save_tiny(tmp_path_factory.mktemp("tiny-bert"), config, BertModel)


@pytest.fixture(scope="module")
def tiny_qwen3(tmp_path_factory):
    """A small randomly initialised Qwen3 decoder (causal, rotary positions), the Qwen3-Embedding
    architecture."""
    from transformers import Qwen3Config, Qwen3Model

    def config(vocab):
        return Qwen3Config(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           num_key_value_heads=1, head_dim=16, intermediate_size=64,
                           max_position_embeddings=256,
                           pad_token_id=0)

    return _save_tiny(tmp_path_factory.mktemp("tiny-qwen3"), config, Qwen3Model)


TEXTS = ["short", "a much longer text about weather forecasts and the tools that fetch them", "mid text"]


@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_pooling_does_not_depend_on_padding(tiny_bert, pooling):
    from toolex.retrieval.encoders import TransformersEncoder

    encoder = TransformersEncoder(str(tiny_bert), pooling=pooling, max_length=64, batch_size=8, device="cpu")
    batched = encoder.encode(TEXTS)
    alone = np.concatenate([encoder.encode([t]) for t in TEXTS])
    assert batched.shape == (3, 32)
    assert np.allclose(batched, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)


def test_last_token_pooling_on_a_qwen3_model(tiny_qwen3):
    """Left padding, the last real token, L2 normalisation: the same vector batched or alone."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from toolex.retrieval.encoders import TransformersEncoder, load_encoder

    encoder = load_encoder(str(tiny_qwen3), family="qwen3", max_length=64, batch_size=8, device="cpu")
    assert isinstance(encoder, TransformersEncoder) and encoder.pooling == "last"
    assert encoder._tokenizer.padding_side == "left"
    query = "Instruct: x\nQuery:find a song"
    batched = encoder.encode([query, *TEXTS])
    alone = np.concatenate([encoder.encode([t]) for t in [query, *TEXTS]])
    assert np.allclose(batched, alone, atol=1e-4)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)

    model = AutoModel.from_pretrained(str(tiny_qwen3)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_qwen3))
    with torch.no_grad():
        hidden = model(**tokenizer([query], return_tensors="pt")).last_hidden_state[0, -1]
    expected = torch.nn.functional.normalize(hidden, dim=0).numpy()
    assert np.allclose(batched[0], expected, atol=1e-4)
