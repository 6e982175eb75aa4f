"""Retriever specs, the ``toolex retrieve`` command and the baseline table."""

from __future__ import annotations

import json

import pytest

from toolex.cli import main
from toolex.errors import InputError
from toolex.io.trec import read_run
from toolex.retrieval import parse_spec
from toolex.retrieval.spec import RetrieverSpec


@pytest.mark.parametrize("spec,parsed", [
    ("bm25", RetrieverSpec("bm25")),
    ("dense:minilm", RetrieverSpec("dense", "minilm")),
    ("dense:intfloat/e5-base-v2", RetrieverSpec("dense", "intfloat/e5-base-v2")),
    ("dense:/models/local-encoder", RetrieverSpec("dense", "/models/local-encoder")),
    ("openai:Qwen/Qwen3-Embedding-8B@http://gpu-node:8000/v1",
     RetrieverSpec("openai", "Qwen/Qwen3-Embedding-8B", "http://gpu-node:8000/v1")),
    ("openai:text-embedding-3-small", RetrieverSpec("openai", "text-embedding-3-small")),
])
def test_parse_spec(spec, parsed):
    assert parse_spec(spec) == parsed
    assert str(parsed) == spec


@pytest.mark.parametrize("bad", ["", "bm25:x", "dense", "dense:", "openai:", "openai:@http://x", "tfidf"])
def test_bad_spec(bad):
    with pytest.raises(InputError):
        parse_spec(bad)


def test_retrieve_command_writes_a_run(data_dir, tmp_path, capsys):
    out = tmp_path / "bm25.trec"
    code = main(["retrieve", "--data", str(data_dir), "--benchmark", "toolret/apibank", "toolret/toolink",
                 "--retriever", "bm25", "--pool", "subset", "--out", str(out), "--k", "20", "--quiet"])
    assert code == 0
    run = read_run(out)
    assert len(run) == 101 + 497
    assert all(len(v) == 20 for v in run.values())
    assert all(t.startswith("apibank_") for t in run["apibank_query_0"])
    meta = json.loads((tmp_path / "bm25.trec.json").read_text())
    assert meta["kind"] == "run" and meta["status"] == "complete"
    assert meta["identity"]["retriever"]["k1"] == 1.5 and meta["identity"]["pool"] == "subset"
    assert meta["level"] == "query level, top 20" and meta["queries"] == 101 + 497


def test_retrieve_command_bad_spec(data_dir, tmp_path, capsys):
    code = main(["retrieve", "--data", str(data_dir), "--benchmark", "toolret/apibank", "--retriever",
                 "tfidf",
                 "--out", str(tmp_path / "x.trec")])
    assert code == 2
    assert "unknown retriever spec" in capsys.readouterr().err


def test_baselines_table_with_provenance(data_dir, tmp_path):
    from toolex.experiments.baselines import run_baselines

    table = run_baselines(["bm25"], ["toolret/apibank", "toolret/toolink"], data_dir=data_dir,
                          out_dir=tmp_path,
                          progress=False)
    assert list(table["level"]) == ["subset", "subset", "category", "category", "all"]
    assert set(table["name"]) >= {"toolret/apibank", "code", "web", "all"}
    results = tmp_path / "results"
    provenance = json.loads((results / "baselines.json").read_text())
    assert provenance["retrievers"]["bm25"]["k1"] == 1.5 and len(provenance["data_checksum"]) == 64
    assert "| retriever |" in (results / "baselines.md").read_text()
    assert (tmp_path / "runs" / "baselines" / "bm25.all.trec").exists()


class _CountingRetriever:
    """Records every pool it indexes; ranks a pool's tools in id order."""

    name = "counting"

    def __init__(self) -> None:
        self.indexed: list[list[str]] = []
        self.pool: list[str] = []

    def index(self, tools) -> None:
        self.pool = sorted(tools)
        self.indexed.append(self.pool)

    def search(self, texts, k=10, instructions=None):
        return [[(tid, 1.0 / (i + 1)) for i, tid in enumerate(self.pool[:k])] for _ in texts]


def test_each_pool_is_indexed_once_and_the_runs_merge():
    from toolex.data.records import Query, Tool
    from toolex.retrieval import retrieve_over_pools

    shared = {t: Tool(t, t, t) for t in ("a", "b")}
    own = {"c": Tool("c", "c", "c")}
    groups = [(shared, [Query("q1", "x", ("a",))]), (shared, [Query("q2", "y", ("b",))]),
              (own, [Query("q3", "z", ("c",))])]
    retriever = _CountingRetriever()
    run = retrieve_over_pools(retriever, groups, k=5)  # type: ignore[arg-type]
    assert retriever.indexed == [["a", "b"], ["c"]]
    assert run == {"q1": {"a": 1.0, "b": 0.5}, "q2": {"a": 1.0, "b": 0.5}, "q3": {"c": 1.0}}
