"""The offline similarity judge: a deterministic, embedding-based stand-in for the LLM judge.

In the spirit of one-shot labelling (MacAvaney & Soldaini, SIGIR 2023), a candidate is judged by its
similarity to a known relevant item — here the ground-truth reference tool — and to the need it must serve:

* **Decompose (query spans)**: a one-tool query's sub-query is the query itself (its need, without the
  instruction); a multi-tool query is cut into clauses and each reference tool takes one clause, distinct
  where the query has enough, by embedding similarity. A sub-query is always text of its query: no tool's
  name, parameters or description enters it (the paper's LLM writes sub-queries; this split only cuts).
* **Verify (calibrated score)**: the signals of :mod:`toolex.annotate.judges.features` (how alike the two
  tools' descriptions and documentation read, how well the candidate serves the sub-query compared with the
  reference, how far each similarity stands above the other candidates of the same sub-query, the
  candidate's retrieval rank, whether the two tools do the same kind of operation; name, parameter and
  platform overlap are recorded) are weighed by a logistic score
  (:class:`~toolex.annotate.judges.scoring.ScoreModel`) whose weights and threshold are fitted on labelled
  calibration data; equivalent when the score reaches the threshold (with an ``adapted`` threshold rule,
  placed for each run's items: :mod:`~toolex.annotate.judges.prior_shift`). The standing and rank signals
  read Stage 2's candidate list, so the default model holds for the list it was fitted on (``dense:mpnet``,
  top 20).
* **Audit (platform rule)**: every operation must be served by its own tool, and positions whose reference
  tools share a platform (they pass values to each other) must keep a single shared platform.

The encoder is all-mpnet-base-v2 by default, a model none of the scored retrievers uses, so the judge does not
credit a retriever's own neighbours. It is named ``offline-similarity(<encoder>)`` in every artifact and
figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.judges.features import FEATURES, feature_matrix, name_and_description, tool_description
from toolex.annotate.judges.scoring import Decision, ScoreModel, default_model
from toolex.annotate.stage_records import Decomposition, SubQuery, Verdict
from toolex.data.records import Tool
from toolex.retrieval.base import Embedder

_CLAUSE = re.compile(r"(?<=[.?!;])\s+|,\s+(?:and\s+|then\s+)?|\s+and\s+(?:then\s+|also\s+)?"
                     r"|\s+then\s+|\s+also\s+",
                     flags=re.IGNORECASE)

__all__ = ["OfflineSimilarityJudge", "RetrieverEncoder", "assign_spans", "clauses", "platform_of",
           "tool_description"]


class RetrieverEncoder:
    """A dense retriever's encoder as the judge sees it: unit vectors of documents and of queries, through the
    retriever's embedding cache and prompt format."""

    def __init__(self, retriever: Embedder) -> None:
        self.retriever = retriever
        model = retriever.encoder.settings().get("model", "encoder")
        lowered = str(model).lower()
        self.short = ("minilm" if "minilm" in lowered else "mpnet" if "mpnet" in lowered
                      else str(model).rstrip("/").split("/")[-1])
        settings = self.settings()
        #: the encoder's name in the judge's: the model, and the runtime where it is not the model's own
        runtime = f", openvino {settings.get('precision')}" if settings.get("kind") == "openvino" else ""
        self.label = f"{self.short}{runtime}"

    def settings(self) -> dict[str, Any]:
        return dict(self.retriever.encoder.settings())

    def documents(self, texts: Sequence[str]) -> np.ndarray:
        fmt = self.retriever.format
        return _unit(self.retriever.embed([fmt.doc(t) for t in texts], desc="judge: tools"))

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        fmt = self.retriever.format
        return _unit(self.retriever.embed([fmt.query(t, "") for t in texts], desc="judge: texts"))


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if len(vectors) == 0:
        return vectors
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def clauses(text: str) -> list[str]:
    """The query's clauses (sentences, and parts joined by "and", "then", "also" or a comma) of three words
    or more, as written; the whole query when it has no such cut."""
    parts = [p.strip(" ,.;") for p in _CLAUSE.split(text) if p and len(p.split()) >= 3]
    return parts or [text.strip()]


def assign_spans(similarity: np.ndarray) -> list[int]:
    """For each tool (row), the clause (column) it takes: distinct clauses that maximise the summed
    similarity where there are at least as many clauses as tools; else each tool its most similar clause."""
    tools, spans = similarity.shape
    if spans < tools or tools < 2:
        return [int(np.argmax(row)) for row in similarity]
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(-similarity)
    picked = dict(zip(rows.tolist(), cols.tolist()))
    return [picked[i] for i in range(tools)]


def platform_of(tool: Tool) -> str | None:
    return tool.platform.strip().lower() if tool.platform else None


class OfflineSimilarityJudge(Judge):
    """Embedding judge; ``embedder``: a :class:`toolex.retrieval.dense.DenseRetriever` (or a
    :class:`RetrieverEncoder`); ``model``: the score model (default: the calibrated one for mpnet)."""

    kind = "offline"

    def __init__(self, embedder: Embedder | RetrieverEncoder, model: ScoreModel | None = None) -> None:
        self.encoder = embedder if isinstance(embedder, RetrieverEncoder) else RetrieverEncoder(embedder)
        self.model = model or default_model()
        self.name = f"offline-similarity({self.encoder.label})"
        #: where the last verification's thresholds were placed per benchmark (an adapted rule's estimates)
        self.operating_point: dict[str, Any] = {}

    def describe(self) -> dict[str, Any]:
        calibration = self.model.calibration
        return {"name": self.name, "kind": self.kind,
                "method": "logistic score over the candidate's similarity to the reference tool, its "
                          "standing among the sub-query's candidates and the kind of operation",
                "score_model": self.model.identity(),
                "calibrated_on": calibration.get("data", "not recorded"),
                "encoder": self.encoder.settings(),
                "decomposer": "query spans: the query itself for one tool; one clause per reference tool, "
                              "assigned by similarity (no tool text)",
                "audit": "platform rule: distinct tools; shared-platform positions keep one platform"}

    def usage(self) -> dict[str, Any]:
        return {"operating_point": dict(self.operating_point)} if self.operating_point else {}

    def features(self, items: Sequence[VerifyItem]) -> np.ndarray:
        """The :data:`FEATURES` rows of verification items."""
        return feature_matrix(self.encoder, [it.candidate for it in items], [it.reference for it in items],
                              [it.subquery.text for it in items], [it.candidate_list for it in items],
                              [it.rank for it in items])

    def scores(self, items: Sequence[VerifyItem]) -> np.ndarray:
        """The score model's probability that each candidate can replace its reference."""
        return self.model.probability(self.features(items))

    def _tools(self, tools: Sequence[Tool]) -> np.ndarray:
        return self.encoder.documents([t.text for t in tools])

    def _texts(self, texts: Sequence[str]) -> np.ndarray:
        return self.encoder.queries(texts)

    # -- the three stages ------------------------------------------------------------------------------
    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        """Sub-queries in the query's own words: a one-tool query's sub-query is the query itself; a
        multi-tool query is cut into clauses and each reference tool takes a clause by similarity
        (:func:`assign_spans`). No text of any tool enters a sub-query; the tools only choose among spans."""
        parts = [clauses(it.query.text) if len(it.tools) > 1 else [] for it in items]
        tool_rows = self.encoder.documents([name_and_description(t) for it, p in zip(items, parts) if p
                                            for t in it.tools])
        clause_rows = self._texts([c for p in parts for c in p])
        out, t_at, c_at = [], 0, 0
        for item, part in zip(items, parts):
            if not part:
                picks = [item.query.text.strip()] * len(item.tools)
            else:
                tools = tool_rows[t_at:t_at + len(item.tools)]
                sims = tools @ clause_rows[c_at:c_at + len(part)].T  # tools x clauses
                t_at, c_at = t_at + len(item.tools), c_at + len(part)
                picks = [part[j] for j in assign_spans(sims)]
            subs = tuple(SubQuery(i, span, span, "", tool.id)
                         for i, (tool, span) in enumerate(zip(item.tools, picks)))
            out.append(Decomposition(item.query.id, subs, self.name))
        return out

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        return self.scored_verdicts(items)[0]

    def scored_verdicts(self, items: Sequence[VerifyItem]) -> tuple[list[Verdict], np.ndarray, Decision]:
        """The verdicts, the scores behind them and how they were decided (with an adapted rule, a threshold
        placed per benchmark: the items' ``group``), from one computation of the features."""
        rows = self.features(items)
        probabilities = self.model.probability(rows)
        decision = self.model.decide(probabilities, [it.group for it in items])
        self.operating_point = decision.adapted()
        out = []
        for row, p, threshold in zip(rows, probabilities, decision.thresholds):
            signals = ", ".join(f"{name} {value:.2f}" for name, value in zip(FEATURES, row))
            reason = f"score {p:.3f} {'>=' if p >= threshold else '<'} {threshold:.3f} ({signals})"
            out.append(Verdict(bool(p >= threshold), reason, self.name))
        return out, probabilities, decision

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        return platform_audit(items, self.name)


def platform_audit(items: Sequence[AuditItem], judge: str) -> list[Verdict]:
    """The platform rule: every operation has its own tool, and positions whose reference tools share a
    platform keep one shared platform."""
    out = []
    for item in items:
        chosen = [t.id for t in item.tools]
        if len(set(chosen)) < len({t.id for t in item.references}):
            out.append(Verdict(False,
                               "one tool would serve two operations: not every operation is covered",
                               judge))
            continue
        groups: dict[str, list[int]] = {}
        for i, ref in enumerate(item.references):
            if platform := platform_of(ref):
                groups.setdefault(platform, []).append(i)
        broken = []
        for platform, positions in groups.items():
            if len(positions) < 2:
                continue
            picked = {platform_of(item.tools[i]) for i in positions}
            if len(picked) != 1 or None in picked:
                broken.append(f"sub-queries {', '.join(str(i + 1) for i in positions)} share platform "
                              f"{platform!r} in C* but the combination uses "
                              f"{sorted(p or '?' for p in picked)}")
        if broken:
            out.append(Verdict(False, "dependent tools from different platforms: " + "; ".join(broken),
                               judge))
        else:
            out.append(Verdict(True,
                               "every operation has its own tool; dependent tools keep one platform",
                               judge))
    return out
