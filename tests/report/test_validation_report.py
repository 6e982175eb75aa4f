"""The validation report layer: gold from a benchmark's own labels, the goals table, kept validations read
back, and the cascade's kept trade-off curve and ceiling."""

from __future__ import annotations

import json

import pytest

from toolex import paths
from toolex.data.records import Annotation, Benchmark, Query, Tool
from toolex.report.validation import (
    ceiling_frame,
    credit_frame,
    goal_check,
    recorded_validations,
    tradeoff_frame,
)
from toolex.validate import validate
from toolex.validate.gold import benchmark_gold


def _sgd_like() -> Benchmark:
    tools = {tid: Tool(tid, tid.split(".")[1], {"name": tid}, "sgd/x", "Travel", tid.split(".")[0])
             for tid in ("Travel_1.FindAttractions", "Travel_2.FindAttractions", "Travel_1.Other")}
    queries = [Query("q1", "find me something to see", ("Travel_1.FindAttractions",), "", "Travel", "sgd/x"),
               Query("q2", "other thing", ("Travel_1.Other",), "", "Travel", "sgd/x")]
    return Benchmark("sgd/x", queries, tools, "c" * 64)


def test_benchmark_gold_lists_same_intent_services_and_keeps_only_asked_queries():
    gold = benchmark_gold(_sgd_like(), ["q1"])
    assert [g.query_id for g in gold] == ["q1"]
    assert gold[0].reference == ("Travel_1.FindAttractions",) and gold[0].category == "Travel"
    assert set(gold[0].acceptable) == {("Travel_1.FindAttractions",), ("Travel_2.FindAttractions",)}
    with pytest.raises(ValueError):
        benchmark_gold(Benchmark("toolret/x", [], {}, "d" * 64), [])


def _result(ours_extra: bool):
    bench = _sgd_like()
    gold = benchmark_gold(bench, ["q1", "q2"])
    combos = (("Travel_1.FindAttractions",), ("Travel_2.FindAttractions",)) if ours_extra else \
        (("Travel_1.FindAttractions",),)
    ours = [Annotation("q1", "Travel", ("Travel_1.FindAttractions",), combos),
            Annotation("q2", "Travel", ("Travel_1.Other",),
                       (("Travel_1.Other",), ("Travel_1.FindAttractions",)))]
    run = {"q1": {"Travel_2.FindAttractions": 2.0, "Travel_1.FindAttractions": 1.0},
           "q2": {"Travel_1.FindAttractions": 2.0, "Travel_1.Other": 1.0}}
    return validate(gold, ours, {"bm25": run}, k=10, bootstrap=0)


def test_goal_check_reads_the_credit_table():
    goals = goal_check(_result(True))
    row = goals.iloc[0]
    assert row["retriever"] == "bm25"
    # q2 is over-credited (our added combination is not in gold): over-credit > 0.01 fails the goal
    assert row["over"] > 0.01 and not row["over_ok"] and row["under"] == 0 and row["under_ok"]
    missed = goal_check(_result(False)).iloc[0]
    assert missed["under"] > 0 and not missed["under_ok"]


def test_recorded_validations_round_trip(tmp_path):
    result = _result(True)
    (tmp_path / "sgd_report_fake_sample2.json").write_text(json.dumps({"label": "fake judge, 2 queries",
                                                                       **result.summary()}))
    (tmp_path / "sgd_report_offline.json").write_text(json.dumps(result.summary()))  # no label: not recorded
    recorded = recorded_validations(tmp_path)
    assert list(recorded) == ["fake judge, 2 queries"]
    table = credit_frame(recorded)
    original = result.table()
    for column in ("one_to_one", "ours", "gold", "over_credit", "under_credit"):
        assert table[column].tolist() == pytest.approx(original[column].tolist())
    assert set(table["judge"]) == {"fake judge, 2 queries"}


def test_tradeoff_frame(tmp_path):
    path = tmp_path / "curve.json"
    path.write_text(json.dumps({"items": 4, "curve": [{"budget": 0, "share_sent": 0.0, "agreement": 0.5,
                                                       "rule": "most unsure first"}]}))
    curve, meta = tradeoff_frame(path)
    assert len(curve) == 1 and meta == {"items": 4}


def test_ceiling_frame_rows_per_variant_and_retriever(tmp_path):
    block = {"one_to_one": 0.5, "ours": 0.7, "gold": 0.6, "recovered": 2.0, "over_credit": 0.1,
             "under_credit": 0.0}
    path = tmp_path / "ceiling.json"
    path.write_text(json.dumps({"benchmark": "sgd/x", "rows": [
        {"variant": "embedding judge alone", "routing": None, "expansion": {"recall": 0.5, "precision": 0.4},
         "ndcg@10": {"bm25": block, "dense:minilm": block}},
        {"variant": "perfect", "routing": {"sent_to_llm": 7}, "expansion": {"recall": 1.0, "precision": 1.0},
         "ndcg@10": {"bm25": block}}]}))
    frame, meta = ceiling_frame(path)
    assert meta == {"benchmark": "sgd/x"}
    assert frame[["variant", "retriever", "sent"]].values.tolist() == [
        ["embedding judge alone", "bm25", 0], ["embedding judge alone", "dense:minilm", 0],
        ["perfect", "bm25", 7]]
    assert frame.recovered.tolist() == [2.0, 2.0, 2.0]


def test_kept_ceiling_a_verifier_right_on_every_item_matches_people():
    frame, meta = ceiling_frame()
    everywhere = frame[frame.variant == "perfect verifier on every item"]
    assert set(everywhere.retriever) == set(meta["retrievers"])
    # it never over-credits; what it misses is what Stage 2's candidates miss, as the judge study measured
    assert (everywhere.over_credit == 0).all() and (everywhere.recovered <= 1 + 1e-9).all()
    study = json.loads((paths.validation_dir() / "judge_transfer.json").read_text(encoding="utf-8"))
    ceiling = {r["retriever"]: r["recovered"] for r in study["perfect_verifier"] if r["reported_on"] == "sgd"}
    assert dict(zip(everywhere.retriever, everywhere.recovered)) == pytest.approx(ceiling, abs=1e-6)
    band = frame[frame.variant.str.endswith("in the unsure band")]
    assert band.sent.nunique() == 1 and 0 < band.sent.iloc[0] < everywhere.sent.iloc[0]
