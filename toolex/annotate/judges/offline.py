"""The offline similarity judge: a deterministic, embedding-based stand-in for the LLM judge.

In the spirit of one-shot labelling (MacAvaney & Soldaini, SIGIR 2023), a candidate is judged by its
similarity to a known relevant item — here the ground-truth reference tool — and to the need it must serve:

* **Decompose (template)**: the query is split into clauses; each reference tool takes the clause closest to
  it in embedding space as its entity, and the first sentence of its own description (with its name removed)
  as its functionality; the sub-query is ``"<functionality>: <entity>"``.
* **Verify (similarity)**: equivalent when ``cos(candidate, reference) >= ref_threshold`` and the candidate
  serves the sub-query about as well as the reference: ``cos(candidate, sub-query) >= cos(reference,
  sub-query) - subquery_margin``. Thresholds are documented in :data:`DEFAULT_THRESHOLDS` and can be
  re-calibrated with :func:`toolex.annotate.calibration.calibrate_offline_judge`.
* **Audit (platform rule)**: every operation must be served by its own tool, and positions whose reference
  tools share a platform (they pass values to each other) must keep a single shared platform.

It is named ``offline-similarity(<encoder>)`` in every artifact and figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.records import Decomposition, SubQuery, Verdict
from toolex.data.records import Tool

_CLAUSE = re.compile(r"(?<=[.?!;])\s+|,\s+(?:and\s+|then\s+)?|\s+and\s+(?:then\s+|also\s+)?|\s+then\s+|\s+also\s+",
                     flags=re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DESCRIPTION_KEYS = ("description", "api_description", "functionality", "func_description", "summary")


@dataclass(frozen=True)
class Thresholds:
    ref_threshold: float = 0.80
    subquery_margin: float = 0.05


#: Documented defaults (all-MiniLM-L6-v2): see ``docs`` in the calibration module and the README.
DEFAULT_THRESHOLDS = Thresholds()


def tool_description(tool: Tool) -> str:
    """The free-text description of a tool (its documentation text when there is no description field)."""
    doc = tool.documentation
    if isinstance(doc, dict):
        for key in _DESCRIPTION_KEYS:
            value = doc.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return tool.text


def functionality(tool: Tool, limit: int = 200) -> str:
    """First sentence of a tool's description with the tool's own name removed (sub-queries never name tools)."""
    text = re.sub(r'^\s*description\s*=\s*"?', "", tool_description(tool)).strip().strip('"')
    first = _SENTENCE.split(text, maxsplit=1)[0]
    for name in {tool.name, tool.name.replace("_", " ")}:
        if len(name) >= 3:
            first = re.sub(re.escape(name), "", first, flags=re.IGNORECASE)
    first = re.sub(r"\s+", " ", re.sub(r"\bAPI\b", "", first)).strip(" .,:;-")
    return first[:limit] or "perform the needed operation"


def clauses(text: str) -> list[str]:
    parts = [p.strip(" ,.;") for p in _CLAUSE.split(text) if p and len(p.split()) >= 3]
    return parts or [text.strip()]


def platform_of(tool: Tool) -> str | None:
    return tool.platform.strip().lower() if tool.platform else None


class OfflineSimilarityJudge(Judge):
    """Embedding similarity judge; ``embedder`` is a :class:`toolex.retrieval.dense.DenseRetriever`."""

    kind = "offline"

    def __init__(self, embedder: Any, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> None:
        self.embedder, self.thresholds = embedder, thresholds
        model = embedder.encoder.settings().get("model", "encoder")
        short = "minilm" if "minilm" in str(model).lower() else str(model).rstrip("/").split("/")[-1]
        self.name = f"offline-similarity({short})"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "method": "one-shot similarity to the reference tool",
                "thresholds": asdict(self.thresholds), "encoder": self.embedder.encoder.settings(),
                "decomposer": "template: reference-tool functionality + closest query clause",
                "audit": "platform rule: distinct tools; shared-platform positions keep one platform"}

    # -- embeddings ------------------------------------------------------------------------------------
    def _tools(self, tools: Sequence[Tool]) -> np.ndarray:
        fmt = self.embedder.format
        return self._normalise(self.embedder.embed([fmt.doc(t.text) for t in tools], desc="judge: tools"))

    def _texts(self, texts: Sequence[str]) -> np.ndarray:
        fmt = self.embedder.format
        return self._normalise(self.embedder.embed([fmt.query(t, "") for t in texts], desc="judge: texts"))

    @staticmethod
    def _normalise(vectors: np.ndarray) -> np.ndarray:
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(vectors) == 0:
            return vectors
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    # -- the three stages ------------------------------------------------------------------------------
    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        # embed every tool and clause of every multi-tool query in two batches, then pick per query
        parts = [clauses(it.query.text) if len(it.tools) > 1 else [] for it in items]
        tool_rows = self._tools([t for it, p in zip(items, parts) if p for t in it.tools])
        clause_rows = self._texts([c for p in parts for c in p])
        out, t_at, c_at = [], 0, 0
        for item, part in zip(items, parts):
            if not part:
                picks = [item.query.text.strip()]
            else:
                tools = tool_rows[t_at:t_at + len(item.tools)]
                sims = tools @ clause_rows[c_at:c_at + len(part)].T  # tools x clauses
                t_at, c_at = t_at + len(item.tools), c_at + len(part)
                picks = [part[int(np.argmax(row))] for row in sims]
            subs = tuple(
                SubQuery(i, f"{functionality(tool)}: {entity}", functionality(tool), entity, tool.id)
                for i, (tool, entity) in enumerate(zip(item.tools, picks))
            )
            out.append(Decomposition(item.query.id, subs, self.name))
        return out

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        if not items:
            return []
        cand = self._tools([it.candidate for it in items])
        ref = self._tools([it.reference for it in items])
        sub = self._texts([it.subquery.text for it in items])
        to_ref = np.sum(cand * ref, axis=1)
        cand_sub, ref_sub = np.sum(cand * sub, axis=1), np.sum(ref * sub, axis=1)
        t = self.thresholds
        out = []
        for r, cs, rs in zip(to_ref, cand_sub, ref_sub):
            equivalent = bool(r >= t.ref_threshold and cs >= rs - t.subquery_margin)
            reason = (f"cos(candidate, reference) = {r:.3f} {'>=' if r >= t.ref_threshold else '<'} "
                      f"{t.ref_threshold:.2f}; cos(candidate, sub-query) = {cs:.3f} vs reference {rs:.3f} "
                      f"(margin {t.subquery_margin:.2f})")
            out.append(Verdict(equivalent, reason, self.name))
        return out

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        out = []
        for item in items:
            chosen = [t.id for t in item.tools]
            if len(set(chosen)) < len({t.id for t in item.references}):
                out.append(Verdict(False, "one tool would serve two operations: not every operation is covered",
                                   self.name))
                continue
            groups: dict[str, list[int]] = {}
            for i, ref in enumerate(item.references):
                if platform_of(ref):
                    groups.setdefault(platform_of(ref), []).append(i)
            broken = []
            for platform, positions in groups.items():
                if len(positions) < 2:
                    continue
                picked = {platform_of(item.tools[i]) for i in positions}
                if len(picked) != 1 or None in picked:
                    broken.append(f"sub-queries {', '.join(str(i + 1) for i in positions)} share platform "
                                  f"{platform!r} in C* but the combination uses {sorted(p or '?' for p in picked)}")
            if broken:
                out.append(Verdict(False, "dependent tools from different platforms: " + "; ".join(broken),
                                   self.name))
            else:
                out.append(Verdict(True, "every operation has its own tool; dependent tools keep one platform",
                                   self.name))
        return out
