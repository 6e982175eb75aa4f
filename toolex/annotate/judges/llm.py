"""The LLM judge: the paper's prompts sent to OpenAI-compatible endpoints through :mod:`toolex.llm`.

One client per stage, as the paper uses one model per stage (DeepSeek-V3.2 decomposes, GPT-4o-mini verifies,
Claude audits): ``TOOLEX_LLM_{DECOMPOSE,VERIFY,AUDIT}_*`` override the common ``TOOLEX_LLM_*`` settings. The
same class serves an API model (OpenAI, DeepSeek, vLLM, Ollama) and the local llama.cpp server.

Tool documentation goes into the prompts whole; a prompt that would not fit its model's context (minus the
answer's ``max_tokens``) is cut by a token budget, and every cut is counted per stage in the ledger.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.prompts import (
    AUDIT_DEPENDENCIES,
    AUDIT_SCHEMA,
    DEFAULT_AUDIT_DEPENDENCY,
    PROMPT_VERSION,
    VERDICT_SCHEMA,
    Doc,
    Fitted,
    Messages,
    audit_messages,
    batch_verdict_schema,
    batch_verification_messages,
    decomposition_messages,
    decomposition_schema,
    fit_prompt,
    prompt_version,
    verification_messages,
)
from toolex.annotate.stage_records import Decomposition, SubQuery, Verdict
from toolex.errors import ToolexError
from toolex.llm import LLMClient, LLMRequest, LLMResult, LLMSettings
from toolex.llm.schema import schema_instruction
from toolex.llm.settings import STAGES
from toolex.llm.tokens import TokenCounter, counter_for

AUDIT_DEPENDENCY_ENV = "TOOLEX_AUDIT_DEPENDENCY"
BUDGET_MARGIN = 16  # tokens kept free beside the prompt and the answer


@dataclass
class Truncation:
    """Prompts of one stage rendered in this run, and how many had documentation cut to fit the context."""

    prompts: int = 0
    truncated_prompts: int = 0
    truncated_docs: int = 0
    over_budget: int = 0

    def add(self, fitted: Fitted) -> None:
        self.prompts += 1
        self.truncated_prompts += fitted.truncated_docs > 0
        self.truncated_docs += fitted.truncated_docs
        self.over_budget += fitted.over_budget


def prompt_budget(settings: LLMSettings, counter: TokenCounter, schema: dict[str, Any]) -> int:
    """Tokens a prompt may take: the context minus the answer, a margin and, where the schema may have to be
    sent in the prompt (``auto``/``prompt``), its instruction."""
    reserve = settings.max_tokens + BUDGET_MARGIN
    if settings.response_format in ("auto", "prompt"):
        reserve += counter.count(schema_instruction(schema)) + 8
    return settings.context_tokens - reserve


def judge_name(models: Mapping[str, str]) -> str:
    """``llm:<model>`` when one model serves every stage, else ``llm:<m1> (decompose), <m2> (verify),
    ...``."""
    if len(set(models.values())) == 1:
        return f"llm:{next(iter(models.values()))}"
    return "llm:" + ", ".join(f"{m} ({s})" for s, m in models.items())


def _verdict(result: LLMResult, judge: str) -> Verdict:
    if not result.ok:
        return Verdict(None, "", judge, error=result.error or "failed", raw=result.raw or "")
    return Verdict(result.data["verdict"] == "yes", result.data["reason"].strip(), judge)


class LLMJudge(Judge):
    """Judges with an LLM per stage; ``mode`` is ``per-candidate`` (the paper's) or ``batched`` (one call per
    sub-query); ``audit_dependency`` is ``runtime`` (the appendix's audit prompt, default) or
    ``same-platform`` (the main text's stricter dependency check), default from ``TOOLEX_AUDIT_DEPENDENCY``.

    ``client`` serves every stage; ``clients`` maps stages to their own clients; otherwise one client per
    stage is built from ``settings`` (default: the environment) with :meth:`LLMSettings.for_stage`.
    """

    kind = "llm"

    def __init__(self, settings: LLMSettings | None = None, client: LLMClient | None = None,
                 mode: str = "per-candidate", progress: bool = True,
                 clients: Mapping[str, LLMClient] | None = None, audit_dependency: str | None = None) -> None:
        if mode not in ("per-candidate", "batched"):
            raise ValueError(f"unknown verification mode {mode!r}")
        dependency = audit_dependency or os.environ.get(AUDIT_DEPENDENCY_ENV) or DEFAULT_AUDIT_DEPENDENCY
        if dependency not in AUDIT_DEPENDENCIES:
            raise ToolexError(f"{AUDIT_DEPENDENCY_ENV}={dependency!r}: choose one of "
                              f"{', '.join(AUDIT_DEPENDENCIES)}")
        self.clients: dict[str, LLMClient] = {}
        base: LLMSettings | None = settings
        for stage in STAGES:
            if clients and stage in clients:
                self.clients[stage] = clients[stage]
            elif client is not None:
                self.clients[stage] = client
            else:
                base = base or LLMSettings.from_env()
                self.clients[stage] = LLMClient(base.for_stage(stage))
        self.client = self.clients["verify"]  # the busiest stage's client (kept for callers of one client)
        self.mode, self.progress, self.audit_dependency = mode, progress, dependency
        self.counters = {s: counter_for(c.settings) for s, c in self.clients.items()}
        self.truncation = {s: Truncation() for s in STAGES}
        self.name = judge_name(self.models())

    # -- description ----------------------------------------------------------------------------------------
    def models(self) -> dict[str, str]:
        """The model of each stage."""
        return {s: c.settings.model for s, c in self.clients.items()}

    def stage_name(self, stage: str) -> str:
        """The name written into the records of one stage: ``llm:<that stage's model>``."""
        return f"llm:{self.clients[stage].settings.model}"

    def prompt_version(self, stage: str) -> str:
        return prompt_version(stage, self.audit_dependency)

    def stage_settings(self, stage: str) -> dict[str, Any]:
        """What decides one stage's answers (its key in the pipeline): model, endpoint, sampling, prompt
        version, context budget and tokenizer (they decide where documentation is cut)."""
        s = self.clients[stage].settings
        out = {"kind": self.kind, "model": s.model, "base_url": s.base_url, "temperature": s.temperature,
               "seed": s.seed, "max_tokens": s.max_tokens, "context_tokens": s.context_tokens,
               "tokenizer": self.counters[stage].name, "prompt_version": self.prompt_version(stage)}
        if stage == "verify":
            out["mode"] = self.mode
        if stage == "audit":
            out["audit_dependency"] = self.audit_dependency
        return out

    def describe(self) -> dict[str, Any]:
        verify = self.clients["verify"].settings
        return {"name": self.name, "kind": self.kind, "mode": self.mode, "prompt_version": PROMPT_VERSION,
                "prompt_versions": {s: self.prompt_version(s) for s in STAGES},
                "audit_dependency": self.audit_dependency, "models": self.models(),
                "stages": {s: {**self.clients[s].settings.public_dict(), "tokenizer": self.counters[s].name}
                           for s in STAGES},
                "llm": verify.public_dict()}

    def usage(self) -> dict[str, Any]:
        """The stages' ledgers merged (each stage's own prices), with the truncation counts per stage."""
        stages: dict[str, Any] = {}
        prices: dict[str, Any] = {}
        seen: set[int] = set()
        for client in self.clients.values():
            if id(client) in seen:
                continue
            seen.add(id(client))
            ledger = client.ledger.to_dict()
            stages.update(ledger["stages"])
            for name in ledger["stages"]:
                prices[name] = ledger["price_per_1m"]
        total: dict[str, Any] = {}
        for row in stages.values():
            for k, v in row.items():
                if k == "cost":
                    continue
                total[k] = round(total.get(k, 0) + v, 3) if k == "latency_s" else total.get(k, 0) + v
        costs = [row["cost"] for row in stages.values()]
        total["cost"] = sum(costs) if costs and None not in costs else None
        if not total:
            total = {"requests": 0, "api_calls": 0, "failures": 0, "cache_hits": 0, "cost": None}
        return {"stages": stages, "total": total, "price_per_1m": prices, "models": self.models(),
                "truncation": {s: {**asdict(t), "context_tokens": self.clients[s].settings.context_tokens,
                                   "tokenizer": self.counters[s].name} for s, t in self.truncation.items()}}

    # -- fitting ---------------------------------------------------------------------------------------------
    def _fit(self, stage: str, build: Callable[[list[Doc]], Messages], docs: Sequence[Any],
             schema: dict[str, Any]) -> Messages:
        counter = self.counters[stage]
        fitted = fit_prompt(build, docs, prompt_budget(self.clients[stage].settings, counter, schema),
                            counter)
        self.truncation[stage].add(fitted)
        return fitted.messages

    def decomposition_request(self, item: DecomposeItem) -> LLMRequest:
        """The Stage 1 request of one query, fitted to the decomposition model's context."""
        q, names = item.query, [t.name for t in item.tools]
        schema = decomposition_schema(len(item.tools))
        messages = self._fit("decompose", lambda ds: decomposition_messages(q.text, q.instruction,
                                                                            list(zip(names, ds))),
                             [t.documentation for t in item.tools], schema)
        return LLMRequest(messages, schema, "decomposition")

    def verification_request(self, item: VerifyItem) -> LLMRequest:
        """The Stage 2 request (per-candidate mode) of one candidate."""
        ref, cand, sub = item.reference, item.candidate, item.subquery.text
        messages = self._fit("verify",
                             lambda ds: verification_messages(sub, (ref.name, ds[0]), (cand.name, ds[1])),
                             [ref.documentation, cand.documentation], VERDICT_SCHEMA)
        return LLMRequest(messages, VERDICT_SCHEMA, "verdict")

    def batch_verification_request(self, members: Sequence[VerifyItem]) -> LLMRequest:
        """The Stage 2 request (batched mode) of the candidates of one sub-query (same reference)."""
        first, names = members[0], [m.candidate.name for m in members]
        schema = batch_verdict_schema(len(members))
        messages = self._fit(
            "verify",
            lambda ds: batch_verification_messages(first.subquery.text, (first.reference.name, ds[0]),
                                                             list(zip(names, ds[1:]))),
            [first.reference.documentation, *(m.candidate.documentation for m in members)], schema)
        return LLMRequest(messages, schema, "verdicts")

    def audit_request(self, item: AuditItem) -> LLMRequest:
        """The Stage 3 request of one combination: instruction, query, sub-queries, C* and the candidate."""
        refs, tools, k = item.references, item.tools, len(item.references)
        own = [i for i, (t, r) in enumerate(zip(tools, refs)) if t.id != r.id]  # candidate tools beyond C*

        def build(ds: list[Doc]) -> Messages:
            cand = list(ds[:k])
            for j, i in enumerate(own):
                cand[i] = ds[k + j]
            return audit_messages(item.query.text, item.query.instruction, [s.text for s in item.subqueries],
                                  [(t.name, d) for t, d in zip(tools, cand)],
                                  [(r.name, d) for r, d in zip(refs, ds[:k])], self.audit_dependency)

        docs = [r.documentation for r in refs] + [tools[i].documentation for i in own]
        return LLMRequest(self._fit("audit", build, docs, AUDIT_SCHEMA), AUDIT_SCHEMA, "audit")

    # -- the three stages ------------------------------------------------------------------------------------
    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        requests = [self.decomposition_request(it) for it in items]
        results = self.clients["decompose"].map_json(requests, stage="decompose", progress=self.progress)
        return [self._decomposition(it, res) for it, res in zip(items, results)]

    def _decomposition(self, item: DecomposeItem, result: LLMResult) -> Decomposition:
        qid, k, name = item.query.id, len(item.tools), self.stage_name("decompose")
        if not result.ok:
            return Decomposition(qid, (), name, ok=False, error=result.error or "failed",
                                 raw=result.raw or "")
        by_index = {s["relevant_tool_id"]: s for s in result.data["sub_queries"]}
        if sorted(by_index) != list(range(1, k + 1)):
            return Decomposition(qid, (), name, ok=False, raw=result.raw or "",
                                 error=f"sub-queries map to tools {sorted(by_index)}, expected 1..{k} once "
                                       "each")
        subs = []
        for i, tool in enumerate(item.tools):
            s = by_index[i + 1]
            text = s["sub_query"].strip()
            if not text:
                return Decomposition(qid, (), name, ok=False, error=f"empty sub-query {i + 1}",
                                     raw=result.raw or "")
            subs.append(SubQuery(i, text, s["functionality"].strip(), s["entity"].strip(), tool.id))
        return Decomposition(qid, tuple(subs), name)

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        if self.mode == "batched":
            return self._verify_batched(items)
        requests = [self.verification_request(it) for it in items]
        name = self.stage_name("verify")
        return [_verdict(r, name) for r in self.clients["verify"].map_json(requests, stage="verify",
                                                                            progress=self.progress)]

    def _verify_batched(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        groups: dict[tuple[str, int, str], list[int]] = {}
        for i, it in enumerate(items):
            groups.setdefault((it.reference.id, it.subquery.index, it.subquery.text), []).append(i)
        keys = list(groups)
        requests = []
        for key in keys:
            requests.append(self.batch_verification_request([items[i] for i in groups[key]]))
        results = self.clients["verify"].map_json(requests, stage="verify-batched", progress=self.progress)
        name = self.stage_name("verify")
        out: list[Verdict | None] = [None] * len(items)
        for key, result in zip(keys, results):
            positions = groups[key]
            answers = {}
            if result.ok:
                answers = {v["candidate"]: v for v in result.data["verdicts"]}
            for j, pos in enumerate(positions, 1):
                if j in answers:
                    v = answers[j]
                    out[pos] = Verdict(v["verdict"] == "yes", v["reason"].strip(), name)
                else:
                    out[pos] = Verdict(None, "", name, error=result.error or f"no verdict for candidate {j}",
                                       raw=result.raw or "")
        return [v for v in out if v is not None]

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        requests = [self.audit_request(it) for it in items]
        name = self.stage_name("audit")
        out = []
        for result in self.clients["audit"].map_json(requests, stage="audit", progress=self.progress):
            if not result.ok:
                out.append(Verdict(None, "", name, error=result.error or "failed", raw=result.raw or ""))
                continue
            d = result.data
            valid = d["verdict"] == "yes"
            out.append(Verdict(bool(valid), d["reason"].strip(), name))
        return out
