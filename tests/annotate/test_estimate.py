"""``toolex annotate --estimate``: calls, tokens and cost per stage before any call; the run's ledger beside
it."""

from __future__ import annotations

import json
import os

import pytest

from toolex.annotate.estimate import ESTIMATE_FILE, compare, estimate_run, load_prices, measured
from toolex.annotate.judges.base import DecomposeItem
from toolex.annotate.judges.llm import LLMJudge
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.cli import main
from toolex.errors import InputError
from toolex.llm import LLMClient, LLMSettings, ResponseCache
from toolex.llm.tokens import count_messages

from .responder import RuleServer
from .test_prompts_stages import FirstTools, _bench


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_CACHE", str(tmp_path / "cache"))
    for var in [v for v in os.environ if v.startswith("TOOLEX_LLM_") or v == "OPENAI_API_KEY"]:
        monkeypatch.delenv(var, raising=False)


def _judge(base_url: str, root) -> LLMJudge:
    s = LLMSettings(base_url=base_url, model="rule-model", response_format="json_object", max_retries=0,
                    timeout=10.0)
    return LLMJudge(client=LLMClient(s, cache=ResponseCache(root)), progress=False)


CONFIG = AnnotateConfig(top_k=3, max_combinations=3)


def test_counts_follow_the_benchmark_and_the_settings(tmp_path):
    bench = _bench()  # 2 queries (2 tools and 1 tool) over a pool of 5
    judge = _judge("http://127.0.0.1:9/v1", tmp_path / "c")  # nothing listens: any call would fail
    est = estimate_run(judge, [bench], bench.queries, CONFIG, prices={"rule-model": (2.0, 10.0)})
    rows = est["stages"]
    assert rows["decompose"]["calls"] == 2 and est["sub_queries"] == 3
    assert (rows["verify"]["calls"], rows["verify"]["calls_max"]) == (3 * 2, 3 * 3)
    assert rows["audit"]["calls"] == min(3, 4**2 - 1) + min(3, 4 - 1)
    # the estimate leaves the run's counts alone
    assert judge.usage()["truncation"]["decompose"]["prompts"] == 0
    actual = sum(count_messages(judge.counters["decompose"], judge.decomposition_request(
        DecomposeItem(q, tuple(bench.tools[t] for t in q.reference))).messages) for q in bench.queries)
    assert rows["decompose"]["prompt_tokens"] == actual
    for row in rows.values():
        assert row["cost"] == pytest.approx((row["prompt_tokens"] * 2 + row["completion_tokens"] * 10) / 1e6,
                                            rel=1e-3)
        assert row["completion_tokens_max"] == row["calls_max"] * 256
    assert est["total"]["calls"] == sum(r["calls"] for r in rows.values())
    assert estimate_run(judge, [bench], bench.queries, CONFIG,
                        prices={"other": (1, 1)})["total"]["cost"] is None
    batched = LLMJudge(client=judge.client, mode="batched", progress=False)
    assert estimate_run(batched, [bench], bench.queries, CONFIG)["stages"]["verify"]["calls"] == 3


def test_the_ledger_reports_the_same_quantities_measured(tmp_path):
    bench = _bench()
    with RuleServer() as server:
        judge = _judge(server.base_url, tmp_path / "c")
        est = estimate_run(judge, [bench], bench.queries, CONFIG)
        ToolEX([bench], judge, tmp_path / "run", CONFIG, retriever=FirstTools(), progress=False).run()
        calls = server.calls
    ledger = json.loads((tmp_path / "run" / "manifest.json").read_text())["ledger"]
    got = measured(ledger)
    assert got["decompose"]["calls"] == est["stages"]["decompose"]["calls"]
    assert got["verify"]["calls"] <= est["stages"]["verify"]["calls_max"]
    assert got["audit"]["calls"] <= est["stages"]["audit"]["calls"]
    assert sum(g["calls"] for g in got.values()) == calls
    assert got["verify"]["prompt_tokens"] == 100 * got["verify"]["calls"]  # what the server reported
    table = compare(est, ledger, {"rule-model": (1.0, 1.0)})
    assert table.loc["decompose", "calls_measured"] == table.loc["decompose", "calls_estimated"] == 2
    assert table.loc["total", "calls_measured"] == calls
    assert table.loc["total",
                     "cost_measured"] == pytest.approx(sum(g["prompt_tokens"] + g["completion_tokens"]
                                                                    for g in got.values()) / 1e6)


def test_price_tables_are_read_and_checked(tmp_path):
    good = tmp_path / "prices.yaml"
    good.write_text("gpt-4o-mini: {prompt: 0.15, completion: 0.6}\n")
    assert load_prices(good) == {"gpt-4o-mini": (0.15, 0.6)}
    bad = tmp_path / "prices.json"
    bad.write_text('{"gpt-4o-mini": {"prompt": 0.15}}')
    with pytest.raises(InputError, match=r"prices\.json, record gpt-4o-mini"):
        load_prices(bad)
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_prices(bad)


def test_the_command_estimates_without_calling(tmp_path, data_dir, capsys):
    out = tmp_path / "est"
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({"qwen2.5-coder-1.5b-instruct-q4_k_m": {"prompt": 1, "completion": 1}}))
    argv = ["annotate", "--data", str(data_dir), "--benchmark", "toolret/apibank", "--sample", "3", "--judge",
            "local", "--top-k", "4", "--estimate", "--prices", str(prices), "--out", str(out)]
    assert main(argv) == 0  # the local server is not needed: nothing is sent
    est = json.loads((out / ESTIMATE_FILE).read_text())
    assert est["stages"]["decompose"]["calls"] == 3 and est["config"]["top_k"] == 4
    assert est["total"]["cost"] is not None and "verify" in capsys.readouterr().out
    assert not (out / "manifest.json").exists()
    assert main([*argv[:8], "offline", "--estimate", "--out", str(out)]) == 2
