"""The LLM judge: the paper's prompts sent to any OpenAI-compatible endpoint through :mod:`toolex.llm`.

The same class serves an API model (OpenAI, DeepSeek, vLLM, Ollama) and the local llama.cpp server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.prompts import (
    AUDIT_SCHEMA,
    PROMPT_VERSION,
    VERDICT_SCHEMA,
    audit_messages,
    batch_verdict_schema,
    batch_verification_messages,
    decomposition_messages,
    decomposition_schema,
    verification_messages,
)
from toolex.annotate.records import Decomposition, SubQuery, Verdict
from toolex.llm import LLMClient, LLMRequest, LLMResult, LLMSettings


def _doc(tool) -> Any:
    return tool.documentation


def _verdict(result: LLMResult, judge: str) -> Verdict:
    if not result.ok:
        return Verdict(None, "", judge, error=result.error or "failed", raw=result.raw or "")
    return Verdict(result.data["verdict"] == "yes", result.data["reason"].strip(), judge)


class LLMJudge(Judge):
    """Judges with an LLM; ``mode`` is ``per-candidate`` (the paper's) or ``batched`` (one call per sub-query)."""

    kind = "llm"

    def __init__(self, settings: LLMSettings | None = None, client: LLMClient | None = None,
                 mode: str = "per-candidate", progress: bool = True) -> None:
        if mode not in ("per-candidate", "batched"):
            raise ValueError(f"unknown verification mode {mode!r}")
        self.client = client or LLMClient(settings or LLMSettings.from_env())
        self.mode, self.progress = mode, progress
        self.name = f"llm:{self.client.settings.model}"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "mode": self.mode, "prompt_version": PROMPT_VERSION,
                "llm": self.client.settings.public_dict()}

    def usage(self) -> dict[str, Any]:
        return self.client.ledger.to_dict()

    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        requests = [
            LLMRequest(decomposition_messages(it.query.text, it.query.instruction,
                                              [(t.name, _doc(t)) for t in it.tools]),
                       decomposition_schema(len(it.tools)), "decomposition")
            for it in items
        ]
        results = self.client.map_json(requests, stage="decompose", progress=self.progress)
        return [self._decomposition(it, res) for it, res in zip(items, results)]

    def _decomposition(self, item: DecomposeItem, result: LLMResult) -> Decomposition:
        qid, k = item.query.id, len(item.tools)
        if not result.ok:
            return Decomposition(qid, (), self.name, ok=False, error=result.error or "failed", raw=result.raw or "")
        by_index = {s["tool_index"]: s for s in result.data["sub_queries"]}
        if sorted(by_index) != list(range(1, k + 1)):
            return Decomposition(qid, (), self.name, ok=False, raw=result.raw or "",
                                 error=f"sub-queries map to tools {sorted(by_index)}, expected 1..{k} once each")
        subs = []
        for i, tool in enumerate(item.tools):
            s = by_index[i + 1]
            text = s["sub_query"].strip()
            if not text:
                return Decomposition(qid, (), self.name, ok=False, error=f"empty sub-query {i + 1}",
                                     raw=result.raw or "")
            subs.append(SubQuery(i, text, s["functionality"].strip(), s["entity"].strip(), tool.id))
        return Decomposition(qid, tuple(subs), self.name)

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        if self.mode == "batched":
            return self._verify_batched(items)
        requests = [
            LLMRequest(verification_messages(it.subquery.text, (it.reference.name, _doc(it.reference)),
                                             (it.candidate.name, _doc(it.candidate))), VERDICT_SCHEMA, "verdict")
            for it in items
        ]
        return [_verdict(r, self.name) for r in self.client.map_json(requests, stage="verify",
                                                                      progress=self.progress)]

    def _verify_batched(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        groups: dict[tuple[str, int, str], list[int]] = {}
        for i, it in enumerate(items):
            groups.setdefault((it.reference.id, it.subquery.index, it.subquery.text), []).append(i)
        keys = list(groups)
        requests = []
        for key in keys:
            members = [items[i] for i in groups[key]]
            first = members[0]
            requests.append(LLMRequest(
                batch_verification_messages(first.subquery.text, (first.reference.name, _doc(first.reference)),
                                            [(m.candidate.name, _doc(m.candidate)) for m in members]),
                batch_verdict_schema(len(members)), "verdicts"))
        results = self.client.map_json(requests, stage="verify-batched", progress=self.progress)
        out: list[Verdict | None] = [None] * len(items)
        for key, result in zip(keys, results):
            positions = groups[key]
            answers = {}
            if result.ok:
                answers = {v["candidate"]: v for v in result.data["verdicts"]}
            for j, pos in enumerate(positions, 1):
                if j in answers:
                    v = answers[j]
                    out[pos] = Verdict(v["verdict"] == "yes", v["reason"].strip(), self.name)
                else:
                    out[pos] = Verdict(None, "", self.name, error=result.error or f"no verdict for candidate {j}",
                                       raw=result.raw or "")
        return [v for v in out if v is not None]

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        requests = [
            LLMRequest(audit_messages(it.query.text, [s.text for s in it.subqueries],
                                      [(t.name, _doc(t)) for t in it.tools]), AUDIT_SCHEMA, "audit")
            for it in items
        ]
        out = []
        for result in self.client.map_json(requests, stage="audit", progress=self.progress):
            if not result.ok:
                out.append(Verdict(None, "", self.name, error=result.error or "failed", raw=result.raw or ""))
                continue
            d = result.data
            valid = d["verdict"] == "yes" and d["covers_all_operations"] and d["dependencies_consistent"]
            out.append(Verdict(bool(valid), d["reason"].strip(), self.name))
        return out
