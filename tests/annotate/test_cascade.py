"""The cascade judge: routing by the score model's unsure band and the budget, LLM answers in place of the
embedding verdicts, failures passed through, and the embedding judge alone (said so) without an LLM."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.judges.cascade import CascadeJudge
from toolex.annotate.judges.features import FEATURES
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.stage_records import Decomposition, SubQuery, Verdict
from toolex.data.records import Tool

from .fakes import BagOfWords


class ScriptedOffline(OfflineSimilarityJudge):
    """The offline judge with given scores (one per item, by candidate id)."""

    def __init__(self, scores: dict[str, float]) -> None:
        model = ScoreModel("bow", (0.0,) * len(FEATURES), 0.0, 0.5, (0.2, 0.8), FEATURES, {"data": "test"})
        super().__init__(BagOfWords(), model)
        self.given = scores

    def scored_verdicts(self, items: Sequence[VerifyItem]) -> tuple[list[Verdict], np.ndarray, ScoreModel]:
        p = np.array([self.given[it.candidate.id] for it in items])
        return [Verdict(bool(s >= 0.5), f"score {s}", self.name) for s in p], p, self.model


class CountingLLM(Judge):
    """Says "equivalent" to everything (or fails on ``fail``), counting the items it is asked."""

    kind = "llm"

    def __init__(self, fail: Sequence[str] = ()) -> None:
        self.name, self.asked, self.fail = "llm:fake", [], set(fail)

    def describe(self) -> dict:
        return {"name": self.name, "kind": self.kind}

    def stage_settings(self, stage: str) -> dict:
        return {"model": "fake", "stage": stage}

    def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        self.asked.extend(it.candidate.id for it in items)
        return [Verdict(None, "", self.name, error="timeout") if it.candidate.id in self.fail
                else Verdict(True, "same operation", self.name) for it in items]

    def decompose(self, items: Sequence[DecomposeItem]) -> list[Decomposition]:
        raise AssertionError("the cascade decomposes with the embedding judge")

    def audit(self, items: Sequence[AuditItem]) -> list[Verdict]:
        raise AssertionError("the cascade audits with the embedding judge")


SCORES = {"sure_no": 0.01, "low": 0.3, "edge_low": 0.45, "edge_high": 0.55, "high": 0.75, "sure_yes": 0.999}


def _items() -> list[VerifyItem]:
    ref = Tool("ref", "ref", {"name": "ref", "description": "reference"})
    sub = SubQuery(0, "do it", "do", "it", "ref")
    return [VerifyItem(sub, ref, Tool(tid, tid, {"name": tid, "description": tid})) for tid in SCORES]


def test_routes_the_band_most_unsure_first_within_the_budget():
    llm = CountingLLM()
    cascade = CascadeJudge(ScriptedOffline(SCORES), llm, budget=2)
    verdicts = cascade.verify(_items())
    assert llm.asked == ["edge_low", "edge_high"]  # closest to the threshold first
    by_id = dict(zip(SCORES, verdicts))
    assert by_id["edge_low"].equivalent is True and by_id["edge_low"].judge == "llm:fake"
    assert "unsure band" in by_id["edge_low"].reason
    assert by_id["low"].equivalent is False and by_id["low"].judge.startswith("offline-similarity")
    assert by_id["sure_yes"].equivalent is True and by_id["sure_no"].equivalent is False
    assert cascade.usage()["routing"] == {"items": 6, "in_band": 4, "sent_to_llm": 2, "kept_over_budget": 2,
                                          "llm_failures": 0}


def test_no_budget_sends_the_whole_band_and_beyond_band_routing_reaches_sure_items():
    llm = CountingLLM()
    CascadeJudge(ScriptedOffline(SCORES), llm).verify(_items())
    assert sorted(llm.asked) == ["edge_high", "edge_low", "high", "low"]
    wide = CountingLLM()
    CascadeJudge(ScriptedOffline(SCORES), wide, budget=5, within_band=False).verify(_items())
    assert len(wide.asked) == 5 and "sure_yes" not in wide.asked  # the surest item stays with the embedding


def test_an_llm_failure_stays_a_failure():
    cascade = CascadeJudge(ScriptedOffline(SCORES), CountingLLM(fail=["edge_high"]))
    verdicts = dict(zip(SCORES, cascade.verify(_items())))
    assert not verdicts["edge_high"].ok and verdicts["edge_high"].error == "timeout"
    assert cascade.usage()["routing"]["llm_failures"] == 1


def test_without_an_llm_it_is_the_embedding_judge_and_says_so(capsys):
    offline = ScriptedOffline(SCORES)
    cascade = CascadeJudge(offline, None, budget=10, unavailable="endpoint refused")
    assert "embedding verdicts only" in capsys.readouterr().err
    assert [v.equivalent for v in cascade.verify(_items())] == [v.equivalent
                                                                for v in offline.verify(_items())]
    assert cascade.name.endswith(", none)")
    assert cascade.describe()["llm"] == "unavailable: endpoint refused"
    assert cascade.usage()["routing"]["sent_to_llm"] == 0


def test_stage_settings_key_the_llm_and_budget_on_verification_only():
    offline = ScriptedOffline(SCORES)
    a, b = CascadeJudge(offline, CountingLLM(), budget=1), CascadeJudge(offline, CountingLLM(), budget=2)
    assert a.stage_settings("decompose") == b.stage_settings("decompose")
    assert a.stage_settings("audit") == b.stage_settings("audit")
    assert a.stage_settings("verify") != b.stage_settings("verify")
    with pytest.raises(ValueError):
        CascadeJudge(offline, None, budget=-1)


def test_factory_degrades_when_the_endpoint_cannot_be_reached(monkeypatch, capsys):
    import socket

    from toolex.annotate.judges import factory

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("TOOLEX_LLM_MODEL", "any")
    monkeypatch.setenv("TOOLEX_CASCADE_LLM", "api")
    monkeypatch.setattr(factory, "offline_judge", lambda embedder=None: ScriptedOffline(SCORES))
    judge = factory.build_judge("cascade", budget=3)
    assert isinstance(judge, CascadeJudge) and judge.llm is None and judge.budget == 3
    assert "cannot be reached" in judge.describe()["llm"]
    assert "embedding verdicts only" in capsys.readouterr().err
