"""A hand-made five-query benchmark in the ToolRet layout and the ToolEX run over it used by the suite.

The LLM judge talks to a :class:`~tests.reliability.fault_server.FaultServer`; Stage 2 candidates come from
BM25, so no model is loaded and a whole run takes well under a second of compute.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolex.annotate.run_folder import ANNOTATIONS, COMBINATIONS, SUBQUERIES, VERIFIED

FILES = (SUBQUERIES, VERIFIED, COMBINATIONS, ANNOTATIONS)  # the files a resume must reproduce byte for byte
NAME = "toolret/tiny"

TOOLS = {
    "t_weather_forecast": "Get the weather forecast for a city for the next days",
    "t_weather_current": "Current weather conditions of a city",
    "t_forecast_daily": "Daily forecast of temperature and rain for a location",
    "t_currency_convert": "Convert an amount of money from one currency to another",
    "t_currency_rates": "Exchange rates of a currency against the others",
    "t_convert_units": "Convert measurements between units",
    "t_stock_quote": "Latest stock quote of a ticker symbol",
    "t_stock_price": "Stock price history of a company",
    "t_email_send": "Send an email to a recipient",
    "t_email_read": "Read the emails in an inbox",
    "t_send_sms": "Send a text message to a phone number",
    "t_translate_text": "Translate a text into another language",
    "t_text_summarize": "Summarize a long text in a few sentences",
    "t_news_search": "Search news articles about a topic",
    "t_search_web": "Search the web for pages about a topic",
}
QUERIES = [
    ("q_weather", "What will the weather be like in Paris tomorrow?", ["t_weather_forecast"]),
    ("q_money", "Convert 10 USD to EUR and email the result to Ann", ["t_currency_convert", "t_email_send"]),
    ("q_stock", "Give me the latest stock quote for ACME", ["t_stock_quote"]),
    ("q_text", "Translate this paragraph into French, then summarize it",
     ["t_translate_text", "t_text_summarize"]),
    ("q_news", "Find news articles about electric cars", ["t_news_search"]),
]


def make_benchmark(data_dir: Path) -> Path:
    """Write the benchmark under ``data_dir/toolret/tiny``; returns ``data_dir``."""
    folder = data_dir / "toolret" / "tiny"
    folder.mkdir(parents=True, exist_ok=True)
    tools = [{"id": tid, "documentation": {"name": tid[2:], "description": text}}
             for tid, text in TOOLS.items()]
    queries = [{"id": qid, "query": text, "labels": [{"id": t, "relevance": 1} for t in labels]}
               for qid, text, labels in QUERIES]
    (folder / "tools.json").write_text(json.dumps(tools, indent=1))
    (folder / "queries.json").write_text(json.dumps(queries, indent=1))
    return data_dir


def llm_settings(base_url: str, timeout: float = 10.0) -> Any:
    from toolex.llm import LLMSettings

    return LLMSettings(base_url=base_url, model="rule-model", response_format="json_object", concurrency=1,
                       max_retries=2, malformed_retries=1, timeout=timeout, backoff=0.01, seed=0)


def pipeline(data_dir: Path, out: Path, base_url: str, cache_root: Path, refuse_other: bool = False,
             top_k: int = 15, timeout: float = 10.0) -> Any:
    """The ToolEX run of the suite (not started): LLM judge over ``base_url``, BM25 candidates (every tool of
    the pool, so that the multi-tool queries have admissible combinations with distinct tools to audit). The
    request timeout is generous (a loaded machine must not add retries to the exact call counts the tests
    check); the
    ``slow`` fault runs with a short one."""
    from toolex.annotate.judges.llm import LLMJudge
    from toolex.annotate.pipeline import AnnotateConfig, ToolEX
    from toolex.data import load_benchmark
    from toolex.llm import LLMClient, ResponseCache
    from toolex.retrieval import build_retriever

    bench = load_benchmark(NAME, data_dir)
    judge = LLMJudge(client=LLMClient(llm_settings(base_url, timeout), cache=ResponseCache(cache_root)),
                     progress=False)
    config = AnnotateConfig(retriever="bm25", pool="subset", top_k=top_k, max_combinations=8)
    return ToolEX([bench], judge, out, config, retriever=build_retriever("bm25"), progress=False,
                  refuse_other=refuse_other)


def snapshot(out: Path) -> dict[str, bytes]:
    return {f: (out / f).read_bytes() for f in FILES}
