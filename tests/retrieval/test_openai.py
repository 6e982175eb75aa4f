"""The OpenAI-compatible embeddings encoder against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

DIM = 16


def fake_vector(text: str) -> list[float]:
    """A deterministic vector of a text: bag of hashed words (so that shared words mean similar vectors)."""
    vec = np.zeros(DIM)
    for word in text.lower().split():
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
    return (vec * 3.0 + 0.01).tolist()  # not normalised: the client side must normalise


class Handler(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self):  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Handler.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": fake_vector(t)}
                for i, t in enumerate(inputs)]
        data.reverse()  # servers may answer out of order; the client sorts by index
        payload = json.dumps({"object": "list", "data": data, "model": body["model"],
                              "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    Handler.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_openai_encoder_batches_orders_and_normalises(server):
    from toolex.retrieval.encoders import OpenAIEncoder

    encoder = OpenAIEncoder("test-embed", base_url=server, api_key="secret", batch_size=3)
    texts = ["alpha beta", "gamma", "beta delta", "epsilon", "alpha"]
    vectors = encoder.encode(texts)
    assert vectors.shape == (5, DIM)
    expected = np.asarray([fake_vector(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)
    assert [len(r["input"]) for r in Handler.requests] == [3, 2]
    assert all(r["path"] == "/v1/embeddings" and r["model"] == "test-embed" for r in Handler.requests)
    assert Handler.requests[0]["auth"] == "Bearer secret"


def test_openai_spec_end_to_end_with_cache(server, toolret_parts, tmp_path):
    from toolex.retrieval import build_retriever, retrieve_queries

    bench = toolret_parts[0]
    spec = f"openai:Qwen/Qwen3-Embedding-0.6B@{server}"
    retriever = build_retriever(spec, cache=tmp_path)
    assert retriever.settings()["family"] == "qwen3"
    retriever.index(bench.tools)
    run = retrieve_queries(retriever, bench.queries[:20], k=10)
    assert len(run) == 20 and all(len(v) == 10 for v in run.values())
    sent = [t for r in Handler.requests for t in r["input"]]
    q = bench.queries[0]
    assert f"Instruct: {q.instruction}\nQuery:{q.text}" in sent
    first = len(Handler.requests)

    again = build_retriever(spec, cache=tmp_path)
    again.index(bench.tools)
    assert retrieve_queries(again, bench.queries[:20], k=10) == run
    assert len(Handler.requests) == first and again.stats.encoded == 0
