"""What an LLM-judged ToolEX run will cost, before any call, and the same quantities measured afterwards.

Per stage: the number of calls, prompt and completion tokens and, with a price table, the cost.

* decompositions: one per query; prompt tokens from the actual rendered prompts (fitted to the context).
* verifications: sub-queries x (k - 1) per-candidate calls when each reference is among its candidates,
  k = top_k + reference_k (``calls_max``: sub-queries x k, the upper bound; with reference_k both bound the
  calls from above, since a neighbour the sub-query retrieved already is not added again), or one call per
  sub-query in batched mode; prompt tokens from representative rendered prompts (the sub-query's reference
  tool beside candidates drawn from its pool; the query stands in for its sub-query, which over-counts
  slightly).
* audits: at most ``min(max_combinations, (k + 1)^n - 1)`` per query of n tools (an upper bound: only
  combinations of verified tools are audited); prompt tokens from a representative rendered audit per query.
* completion tokens: a representative answer of each stage's schema (a 20-word reason), counted by the stage's
  tokenizer; ``completion_tokens_max`` is calls x ``max_tokens``.

A price table (``--prices FILE``, JSON or YAML) gives currency units per one million tokens per model::

    {"deepseek-chat": {"prompt": 0.28, "completion": 0.42}, "gpt-4o-mini": {"prompt": 0.15, "completion":
    0.6}}

:func:`measured` reads the same quantities from a finished run's ledger (requests, and tokens whether spent
now or replayed from the cache) and :func:`compare` sets the two side by side.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolex.annotate.judges import build_judge
from toolex.annotate.judges.base import AuditItem, DecomposeItem, VerifyItem
from toolex.annotate.judges.llm import Truncation
from toolex.annotate.pipeline import AnnotateConfig
from toolex.annotate.run_folder import write_json
from toolex.annotate.stage_records import SubQuery
from toolex.data.records import Benchmark, Query, Tool
from toolex.data.registry import tool_pools
from toolex.errors import InputError, refuse_folder
from toolex.llm.settings import STAGES
from toolex.llm.tokens import count_messages

ESTIMATE_FILE = "estimate.json"
_REASON = ("The candidate performs the same operation on the same entity and its output covers the "
           "sub-query's need.")
Prices = dict[str, tuple[float, float]]


def load_prices(path: str | Path) -> Prices:
    """``{model: (prompt, completion)}`` per one million tokens from a JSON or YAML file."""
    path = Path(path)
    refuse_folder(path, "price table file")
    try:
        text = path.read_text()
    except OSError as exc:
        raise InputError(path, f"cannot read the price table ({exc.strerror})") from None
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            import yaml

            raw = yaml.safe_load(text)
        else:
            raw = json.loads(text)
    except Exception as exc:  # noqa: BLE001 - json.JSONDecodeError or yaml.YAMLError
        kind = "YAML" if path.suffix.lower() in (".yaml", ".yml") else "JSON"
        raise InputError(path, f"not valid {kind}: {exc}") from None
    if not isinstance(raw, dict) or not raw:
        raise InputError(path, "expected a mapping {model: {prompt: price, completion: price}}")
    prices: Prices = {}
    for model, entry in raw.items():
        if not isinstance(entry, dict) or set(entry) != {"prompt", "completion"}:
            raise InputError(path, "expected {prompt: price, completion: price} per 1M tokens",
                             record=str(model))
        try:
            prompt, completion = float(entry["prompt"]), float(entry["completion"])
        except (TypeError, ValueError):
            raise InputError(path, "prices must be numbers", record=str(model)) from None
        if prompt < 0 or completion < 0:
            raise InputError(path, "prices must not be negative", record=str(model))
        prices[str(model)] = (prompt, completion)
    return prices


def _cost(prices: Prices | None, model: str, prompt_tokens: float, completion_tokens: float) -> float | None:
    if not prices or model not in prices:
        return None
    p, c = prices[model]
    return (prompt_tokens * p + completion_tokens * c) / 1e6


def _answer(stage: str, k: int = 1, n: int = 1) -> str:
    """A representative answer of a stage (what a terse model writes under the prompt's length rule)."""
    if stage == "decompose":
        return json.dumps({"sub_queries": [
            {"relevant_tool_id": i, "functionality": "retrieve the current weather forecast",
             "entity": "the city of Paris next week",
             "sub_query": "What is the weather forecast for Paris, France for the next seven days?"}
            for i in range(1, k + 1)]})
    if stage == "verify-batched":
        return json.dumps({"verdicts": [{"candidate": i, "verdict": "no", "reason": _REASON}
                                        for i in range(1, n + 1)]})
    if stage == "audit":
        return json.dumps({"verdict": "yes", "reason": _REASON})
    return json.dumps({"reason": _REASON, "verdict": "no"})


def _row(model: str, calls: int, calls_max: int, prompt: float, completion: float, max_tokens: int,
         truncated: int, prices: Prices | None) -> dict[str, Any]:
    return {"model": model, "calls": calls, "calls_max": calls_max, "prompt_tokens": round(prompt),
            "completion_tokens": round(completion), "completion_tokens_max": calls_max * max_tokens,
            "truncated_prompts": truncated, "cost": _cost(prices, model, prompt, completion)}


def estimate_run(judge: Any, benchmarks: Sequence[Benchmark], queries: Sequence[Query], config: Any,
                 prices: Prices | None = None, sample: int = 8, seed: int = 0) -> dict[str, Any]:
    """The calls, tokens and cost per stage of annotating ``queries`` with an LLM ``judge`` (no call is made).

    ``config`` is the run's :class:`~toolex.annotate.pipeline.AnnotateConfig`; ``sample`` candidates per
    sub-query (drawn with ``seed`` from its pool) make the representative Stage 2 prompts.
    """

    pools = tool_pools(list(benchmarks), config.pool)
    bench_of = {q.id: b.name for b in benchmarks for q in b.queries}
    tools: dict[str, Tool] = {}
    for pool in pools.values():
        tools.update(pool)
    rng = random.Random(seed)
    drawn = {name: rng.sample(sorted(pool), min(len(pool), 4 * sample)) for name, pool in pools.items()}
    saved, judge.truncation = judge.truncation, {s: Truncation() for s in STAGES}
    try:
        rows = _estimate(judge, queries, tools, pools, bench_of, drawn, config, prices, sample)
        truncation = {s: vars(t) for s, t in judge.truncation.items()}
    finally:
        judge.truncation = saved
    total = {k: sum(r[k] for r in rows.values()) for k in
             ("calls", "calls_max", "prompt_tokens", "completion_tokens", "completion_tokens_max",
              "truncated_prompts")}
    costs = [r["cost"] for r in rows.values()]
    total["cost"] = None if None in costs else sum(costs)
    return {"stages": rows, "total": total, "truncation": truncation, "queries": len(queries),
            "sub_queries": sum(len(q.reference) for q in queries), "mode": judge.mode,
            "config": {"top_k": config.top_k, "reference_k": config.reference_k,
                       "max_combinations": config.max_combinations, "pool": config.pool},
            "models": judge.models(), "prompt_versions": {s: judge.prompt_version(s) for s in STAGES},
            "prices_per_1m": {m: {"prompt": p, "completion": c} for m, (p, c) in (prices or {}).items()}}


def candidates_per_subquery(config: Any) -> int:
    """Candidates a sub-query can have: its top-K and the reference's added neighbours."""
    return config.top_k + config.reference_k


def _estimate(judge: Any, queries: Sequence[Query], tools: Mapping[str, Tool], pools: Mapping[str, Any],
              bench_of: Mapping[str, str], drawn: Mapping[str, list[str]], config: Any, prices: Prices | None,
              sample: int) -> dict[str, dict[str, Any]]:
    models, counters = judge.models(), judge.counters
    settings = {s: judge.clients[s].settings for s in STAGES}
    rows: dict[str, dict[str, Any]] = {}

    def tokens(stage: str, request: Any) -> int:
        return count_messages(counters[stage], request.messages)

    # Stage 1: the actual prompts
    prompt = completion = 0.0
    for q in queries:
        refs = tuple(tools[t] for t in q.reference)
        prompt += tokens("decompose", judge.decomposition_request(DecomposeItem(q, refs)))
        completion += counters["decompose"].count(_answer("decompose", len(refs)))
    n = len(queries)
    rows["decompose"] = _row(models["decompose"], n, n, prompt, completion, settings["decompose"].max_tokens,
                             judge.truncation["decompose"].truncated_prompts, prices)

    # Stage 2: representative prompts (reference beside candidates of its pool)
    prompt = completion = 0.0
    calls = calls_max = 0
    cursor = 0
    for q in queries:
        pool_ids = drawn[bench_of[q.id]]
        k = min(candidates_per_subquery(config), len(pools[bench_of[q.id]]))
        for i, tid in enumerate(q.reference):
            sub = SubQuery(i, q.text, "", "", tid)
            cands = [tools[c] for c in (pool_ids[(cursor + j) % len(pool_ids)] for j in range(sample))
                     if c != tid] or [tools[tid]]
            cursor += sample
            if judge.mode == "batched":
                shown = [tools[pool_ids[(cursor + j) % len(pool_ids)]] for j in range(max(k - 1, 1))]
                request = judge.batch_verification_request([VerifyItem(sub, tools[tid], c) for c in shown])
                calls, calls_max = calls + 1, calls_max + 1
                prompt += tokens("verify", request)
                completion += counters["verify"].count(_answer("verify-batched", n=len(shown)))
                continue
            mean = sum(tokens("verify", judge.verification_request(VerifyItem(sub, tools[tid], c)))
                       for c in cands) / len(cands)
            calls, calls_max = calls + max(k - 1, 0), calls_max + k
            prompt += mean * max(k - 1, 0)
            completion += counters["verify"].count(_answer("verify")) * max(k - 1, 0)
    truncated = judge.truncation["verify"]
    share = truncated.truncated_prompts / truncated.prompts if truncated.prompts else 0.0
    rows["verify"] = _row(models["verify"], calls, calls_max, prompt, completion,
                          settings["verify"].max_tokens,
                          round(share * calls), prices)

    rows["audit"] = _audit_row(judge, queries, tools, pools, bench_of, drawn, config, prices, cursor)
    return rows


def _audit_row(judge: Any, queries: Sequence[Query], tools: Mapping[str, Tool], pools: Mapping[str, Any],
               bench_of: Mapping[str, str], drawn: Mapping[str, list[str]], config: Any,
               prices: Prices | None, cursor: int) -> dict[str, Any]:
    """Stage 3: one representative audit per query, times its bound (``cursor``: where Stage 2's draw of
    stand-in tools stopped)."""
    counter = judge.counters["audit"]
    prompt = completion = 0.0
    calls = 0
    for q in queries:
        pool_ids = drawn[bench_of[q.id]]
        k = min(candidates_per_subquery(config), len(pools[bench_of[q.id]]))
        bound = min(config.max_combinations, (k + 1) ** len(q.reference) - 1)
        if bound <= 0:
            continue
        refs = tuple(tools[t] for t in q.reference)
        others = tuple(tools[pool_ids[(cursor + j) % len(pool_ids)]] for j in range(len(refs)))
        cursor += len(refs)
        subs = tuple(SubQuery(i, q.text, "", "", t) for i, t in enumerate(q.reference))
        request = judge.audit_request(AuditItem(q, subs, others, refs))
        calls += bound
        prompt += count_messages(counter, request.messages) * bound
        completion += counter.count(_answer("audit")) * bound
    truncated = judge.truncation["audit"]
    share = truncated.truncated_prompts / truncated.prompts if truncated.prompts else 0.0
    return _row(judge.models()["audit"], calls, calls, prompt, completion,
                judge.clients["audit"].settings.max_tokens, round(share * calls), prices)


def measured(ledger: Mapping[str, Any], models: Mapping[str, str] | None = None,
             prices: Prices | None = None) -> dict[str, dict[str, Any]]:
    """The estimate's quantities read from a finished run's ledger (``manifest["ledger"]``): requests, and
    prompt/completion tokens whether spent in this run or replayed from the cache; cost from ``prices`` when
    given, else the ledger's own."""
    models = models or ledger.get("models", {})
    out: dict[str, dict[str, Any]] = {}
    for name, row in ledger.get("stages", {}).items():
        stage = "verify" if name.startswith("verify") else name
        prompt = row.get("prompt_tokens", 0) + row.get("cached_prompt_tokens", 0)
        completion = row.get("completion_tokens", 0) + row.get("cached_completion_tokens", 0)
        model = models.get(stage, "")
        cost = _cost(prices, model, prompt, completion) if prices else row.get("cost")
        out[stage] = {"model": model, "calls": row.get("requests", 0), "api_calls": row.get("api_calls", 0),
                      "prompt_tokens": prompt, "completion_tokens": completion, "cost": cost}
    return out


def compare(estimate: Mapping[str, Any], ledger: Mapping[str, Any], prices: Prices | None = None) -> Any:
    """A pandas DataFrame, one row per stage (and total): estimated and measured calls, tokens and cost."""
    import pandas as pd

    got = measured(ledger, estimate.get("models"), prices)
    rows = []
    for stage in (*STAGES, "total"):
        est = estimate["total"] if stage == "total" else estimate["stages"].get(stage, {})
        if stage == "total":
            costs = [m["cost"] for m in got.values()]
            mes = {k: sum(m[k] for m in got.values())
                   for k in ("calls", "prompt_tokens", "completion_tokens")}
            mes["cost"] = None if not costs or None in costs else sum(costs)
        else:
            mes = got.get(stage, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": None})
        row: dict[str, Any] = {"stage": stage}
        for k in ("calls", "prompt_tokens", "completion_tokens", "cost"):
            row[f"{k}_estimated"], row[f"{k}_measured"] = est.get(k), mes.get(k)
        rows.append(row)
    return pd.DataFrame(rows).set_index("stage")


def format_estimate(estimate: Mapping[str, Any]) -> str:
    """A plain-text table of an estimate, one line per stage and a total."""
    cols = ("calls", "calls_max", "prompt_tokens", "completion_tokens", "completion_tokens_max",
            "truncated_prompts")
    lines = [f"{'stage':<10}{'model':<42}" + "".join(f"{c:>22}" for c in cols) + f"{'cost':>12}"]
    for stage, row in [*estimate["stages"].items(), ("TOTAL", {**estimate["total"], "model": ""})]:
        cost = "-" if row["cost"] is None else f"{row['cost']:.2f}"
        lines.append(f"{stage:<10}{row['model'][:41]:<42}" + "".join(f"{row[c]:>22}"
                                                                     for c in cols) + f"{cost:>12}")
    return "\n".join(lines)


def estimate_command(args: Any, benchmarks: Sequence[Benchmark], queries: Sequence[Query]) -> int:
    """``toolex annotate --estimate``: print the estimate of the run ``args`` describe, write it to
    ``<out>/estimate.json``; no LLM call, no retrieval."""

    if args.judge == "offline":
        raise InputError(None, "--estimate counts LLM calls: use it with --judge local or --judge api")
    prices = load_prices(args.prices) if args.prices else None
    judge = build_judge(args.judge, mode=args.mode, progress=False)
    config = AnnotateConfig(retriever=args.retriever, pool=args.pool, top_k=args.top_k,
                            max_combinations=args.max_combinations, reference_k=args.reference_k)
    result = estimate_run(judge, benchmarks, queries, config, prices)
    print(f"estimate for judge {judge.name} ({len(queries)} queries, {result['sub_queries']} sub-queries; "
          "calls_max: upper bounds; audits are bounded by the combination cap):")
    print(format_estimate(result))
    if prices and result["total"]["cost"] is None:
        missing = sorted(set(result["models"].values()) - set(prices))
        print(f"no price for model(s) {', '.join(missing)} in {args.prices}")
    path = write_json(Path(args.out) / ESTIMATE_FILE, result)
    print(f"written: {path}")
    return 0


def print_comparison(out: str | Path, ledger: Mapping[str, Any], prices_file: str | None = None) -> None:
    """After a run: the estimate of ``<out>/estimate.json`` beside the ledger's measured quantities."""
    path = Path(out) / ESTIMATE_FILE
    if not path.exists() or not ledger.get("stages"):
        return
    prices = load_prices(prices_file) if prices_file else None
    print("estimate vs measured:")
    print(compare(json.loads(path.read_text()), ledger, prices).to_string())
