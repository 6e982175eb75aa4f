"""The cascade judge: the calibrated embedding judge decides, and asks an LLM judge where it is unsure.

Verification items whose score falls in the score model's unsure band go to the LLM judge, most unsure first
(closest to the threshold), at most ``budget`` of them; every other item keeps the embedding verdict.
Decomposition is the embedding judge's template and the audit its platform rule, so an LLM call is spent only
on the verdicts that move. When no LLM can be reached the cascade is the embedding judge alone and says so in
its name, its manifest entry and on stderr.

``usage()`` records how many items went where (``routing``), next to the LLM's own ledger.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import Decision, ScoreModel
from toolex.annotate.stage_records import Decomposition, Verdict


class CascadeJudge(Judge):
    """``offline`` decides; items in its unsure band go to ``llm`` (None: no LLM, embedding verdicts only),
    at most ``budget`` per run (None: every item in the band); ``within_band=False`` lets the budget reach
    beyond the band, still most unsure first."""

    kind = "cascade"

    def __init__(self, offline: OfflineSimilarityJudge, llm: Judge | None, budget: int | None = None,
                 unavailable: str = "", within_band: bool = True) -> None:
        if budget is not None and budget < 0:
            raise ValueError(f"the LLM budget must be >= 0, got {budget}")
        self.offline, self.llm, self.budget, self.within_band = offline, llm, budget, within_band
        self.unavailable = unavailable or ("" if llm is not None else "no LLM judge given")
        target = llm.name if llm is not None else "none"
        self.name = f"cascade({offline.name}, {target})"
        self.routing = {"items": 0, "in_band": 0, "sent_to_llm": 0, "kept_over_budget": 0, "llm_failures": 0}
        self.clients = dict(getattr(llm, "clients", None) or {})
        self.clients.pop("decompose", None)
        self.clients.pop("audit", None)
        if llm is None:
            print(f"toolex: cascade judge without an LLM ({self.unavailable}): embedding verdicts only",
                  file=sys.stderr)

    def stage_settings(self, stage: str) -> dict[str, Any]:
        """What decides one stage's answers: the embedding judge's, plus for verification the LLM's and the
        budget."""
        offline = {k: v for k, v in self.offline.describe().items() if k != "calibrated_on"}
        if stage != "verify":
            return {"kind": self.kind, "offline": offline}
        llm = self.llm.stage_settings("verify") if self.llm is not None and hasattr(self.llm,
                                                                                    "stage_settings") \
            else (self.llm.describe() if self.llm is not None else None)
        return {"kind": self.kind, "offline": offline, "llm": llm, "budget": self.budget,
                "within_band": self.within_band}

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "offline": self.offline.describe(),
                "llm": self.llm.describe() if self.llm is not None else f"unavailable: {self.unavailable}",
                "budget": self.budget, "band": list(self.offline.model.band), "within_band": self.within_band,
                "routing_rule": "items in the score model's unsure band, most unsure first, up to the budget"}

    def usage(self) -> dict[str, Any]:
        llm = self.llm.usage() if self.llm is not None else {}
        return {**llm, **self.offline.usage(), "routing": dict(self.routing)}

    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        return self.offline.decompose(items)

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        return self.offline.audit(items)

    def route(self, probabilities: np.ndarray, in_band: np.ndarray,
              decision: ScoreModel | Decision | None = None) -> np.ndarray:
        """Indices of the items sent to the LLM: in the band (``in_band``, most unsure first; beyond it with
        ``within_band=False``, by ``decision``, default the offline judge's model), within the budget."""
        decision = decision or self.offline.model
        order = in_band if self.within_band else decision.uncertainty_order(probabilities, False)
        if self.llm is None:
            return order[:0]
        return order if self.budget is None else order[:self.budget]

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        if not items:
            return []
        verdicts, probabilities, decision = self.offline.scored_verdicts(items)
        in_band = decision.uncertainty_order(probabilities)
        sent = self.route(probabilities, in_band, decision)
        self.routing["items"] += len(items)
        self.routing["in_band"] += len(in_band)
        self.routing["sent_to_llm"] += len(sent)
        self.routing["kept_over_budget"] += max(len(in_band) - len(sent), 0)
        if len(sent) and self.llm is not None:
            answers = self.llm.verify([items[i] for i in sent])
            for i, answer in zip(sent, answers):
                self.routing["llm_failures"] += not answer.ok
                score = f"embedding score {probabilities[i]:.3f} in the unsure band; "
                verdicts[i] = Verdict(answer.equivalent, score + answer.reason, answer.judge, answer.error,
                                      answer.raw)
        return verdicts
