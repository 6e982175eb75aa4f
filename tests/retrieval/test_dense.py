"""Dense retrieval with the embedded MiniLM: the embedding cache (hits, misses, corruption) and faiss
search."""

from __future__ import annotations

import numpy as np
import pytest

from toolex.retrieval import retrieve_queries
from toolex.retrieval.dense import DenseRetriever
from toolex.retrieval.embedding_cache import EmbeddingCache, read_shard, write_shard
from toolex.retrieval.faiss_index import FlatIPIndex


@pytest.fixture(scope="module")
def apibank(toolret_parts):
    return toolret_parts[0]


def test_minilm_cold_then_warm(apibank, minilm_encoder, cache_root):
    cold = DenseRetriever(minilm_encoder, cache=cache_root)
    cold.index(apibank.tools)
    run_cold = retrieve_queries(cold, apibank.queries, k=10)
    distinct = len({t.text for t in apibank.tools.values()}) + len(set(
        cold.query_texts([q.text for q in apibank.queries], [q.instruction for q in apibank.queries])))
    assert cold.stats.hits == 0 and cold.stats.misses == len(apibank.tools) + len(apibank.queries)
    assert cold.stats.encoded == distinct

    warm = DenseRetriever(minilm_encoder, cache=cache_root)
    warm.index(apibank.tools)
    run_warm = retrieve_queries(warm, apibank.queries, k=10)
    assert warm.stats.encoded == 0 and warm.stats.misses == 0
    assert warm.stats.hits == len(apibank.tools) + len(apibank.queries)
    for qid in run_cold:
        assert list(run_cold[qid]) == list(run_warm[qid])
        assert np.allclose(list(run_cold[qid].values()), list(run_warm[qid].values()), atol=1e-6)

    # a sane ranking: the MiniLM one-to-one recall on apibank is far above chance
    hit = sum(any(t in run_cold[q.id] for t in q.reference) for q in apibank.queries)
    assert hit / len(apibank.queries) > 0.5


def test_adding_tools_encodes_only_new_ones(apibank, minilm_encoder, cache_root):
    tools = list(apibank.tools.values())
    first = DenseRetriever(minilm_encoder, cache=cache_root)
    first.index(tools[:80])
    assert first.stats.encoded == 80
    second = DenseRetriever(minilm_encoder, cache=cache_root)
    second.index(tools)
    assert (second.stats.hits, second.stats.encoded) == (80, len(tools) - 80)


def test_corrupt_or_partial_shard_is_rebuilt(apibank, minilm_encoder, cache_root):
    tools = list(apibank.tools.values())[:30]
    DenseRetriever(minilm_encoder, cache=cache_root).index(tools)
    shards = list(cache_root.rglob("shard-*.emb"))
    assert len(shards) == 1
    data = bytearray(shards[0].read_bytes())
    data[-5] ^= 0xFF  # flip one byte of a vector
    shards[0].write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        read_shard(shards[0])

    again = DenseRetriever(minilm_encoder, cache=cache_root)
    again.index(tools)
    assert again.stats.corrupt == 1 and again.stats.encoded == 30 and again.stats.hits == 0
    shards = list(cache_root.rglob("shard-*.emb"))
    assert len(shards) == 1
    read_shard(shards[0])  # the rebuilt shard is whole

    shards[0].write_bytes(shards[0].read_bytes()[:100])  # a partial write
    third = DenseRetriever(minilm_encoder, cache=cache_root)
    third.index(tools)
    assert third.stats.corrupt == 1 and third.stats.encoded == 30
    assert not list(cache_root.rglob(".tmp-*"))


def test_cache_is_keyed_by_settings_and_text(tmp_path):
    vectors = np.eye(3, dtype=np.float32)
    a = EmbeddingCache({"model": "m", "max_length": 128}, root=tmp_path)
    b = EmbeddingCache({"model": "m", "max_length": 256}, root=tmp_path)
    assert a.folder != b.folder
    a.put(["x", "y", "z"], vectors)
    assert EmbeddingCache({"model": "m", "max_length": 128}, root=tmp_path).get(["y", "w"])[1] is None
    got = EmbeddingCache({"model": "m", "max_length": 128}, root=tmp_path).get(["y"])[0]
    assert np.array_equal(got, vectors[1])
    assert b.get(["x"]) == [None]


def test_compaction_keeps_every_vector(tmp_path):
    cache = EmbeddingCache({"model": "m"}, root=tmp_path, compact_after=3)
    for i in range(5):
        cache.put([f"t{i}"], np.full((1, 4), i, np.float32))
    assert len(list(cache.folder.glob("shard-*.emb"))) <= 3
    fresh = EmbeddingCache({"model": "m"}, root=tmp_path)
    assert [float(v[0]) for v in fresh.get([f"t{i}" for i in range(5)])] == [0, 1, 2, 3, 4]


def test_a_cache_sees_what_another_process_wrote_after_it_was_read(tmp_path):
    """Two caches on one folder stand for two processes (a notebook kernel and a command): vectors the
    second stores after the first has read the folder are found by the first, not encoded again, and its
    compaction keeps them."""
    settings = {"model": "m"}
    first = EmbeddingCache(settings, root=tmp_path)
    first.put(["a"], np.full((1, 4), 1, np.float32))
    other = EmbeddingCache(settings, root=tmp_path)
    other.put(["b", "c"], np.full((2, 4), 2, np.float32))
    encoded: list[str] = []
    vectors = first.embed(["a", "b", "c"], lambda texts: encoded.extend(texts) or np.zeros((len(texts), 4)))
    assert encoded == [] and vectors[:, 0].tolist() == [1, 2, 2]
    assert first.stats.hits == 3 and first.stats.misses == 0
    other.put(["d"], np.full((1, 4), 3, np.float32))  # not read by the first before it compacts
    first.put(["e"], np.full((1, 4), 4, np.float32))
    first.compact()
    assert len(list(first.folder.glob("shard-*.emb"))) == 1
    again = EmbeddingCache(settings, root=tmp_path)
    assert [float(v[0]) for v in again.get(["a", "b", "c", "d", "e"])] == [1, 2, 2, 3, 4]


def test_compaction_deletes_only_the_shards_it_merged(tmp_path, monkeypatch):
    """A shard another process writes after this cache read the folder, while it compacts, stays."""
    settings = {"model": "m"}
    first = EmbeddingCache(settings, root=tmp_path)
    first.put(["a"], np.full((1, 4), 1, np.float32))
    first.put(["b"], np.full((1, 4), 2, np.float32))
    other = EmbeddingCache(settings, root=tmp_path)
    read = first._read_new_shards

    def read_then_another_writes(*args):
        found = read(*args)
        other.put(["x"], np.full((1, 4), 9, np.float32))
        return found

    monkeypatch.setattr(first, "_read_new_shards", read_then_another_writes)
    first.compact()
    assert [float(v[0]) for v in EmbeddingCache(settings, root=tmp_path).get(["a", "b", "x"])] == [1, 2, 9]


def test_shard_round_trip(tmp_path):
    digests = [bytes([i]) * 32 for i in range(4)]
    vectors = np.arange(12, dtype=np.float32).reshape(4, 3)
    write_shard(tmp_path / "shard-a.emb", digests, vectors)
    got_digests, got = read_shard(tmp_path / "shard-a.emb")
    assert got_digests == digests and np.array_equal(got, vectors)


def test_flat_ip_is_exact():
    rng = np.random.default_rng(0)
    docs, queries = rng.normal(size=(500, 16)).astype(np.float32), rng.normal(size=(7, 16)).astype(np.float32)
    index = FlatIPIndex(docs, use_gpu=False)
    scores, rows = index.search(queries, 10)
    brute = queries @ docs.T
    assert np.array_equal(rows, np.argsort(-brute, axis=1)[:, :10])
    assert np.allclose(scores, np.sort(brute, axis=1)[:, ::-1][:, :10], atol=1e-4)
    assert index.search(queries, 10_000)[1].shape == (7, 500)
