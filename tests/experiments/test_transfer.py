"""The cross-source study: its in-memory Stage 3 equals the pipeline's, and its goal count and choice."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from tests.annotate.fakes import BagOfWords, tiny_benchmark
from toolex.annotate.calibration import labelled_items
from toolex.annotate.judges.features import FEATURES
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.experiments import bounds, transfer
from toolex.report.transfer import KEPT, kept_study
from toolex.validate.gold import GoldRecord

GOLD = {"q1": [["a", "b"], ["n", "b"]], "q2": [["n", "t"], ["n", "m"]], "q3": [["n", "s", "m"]]}
CONFIG = AnnotateConfig(retriever="bow", top_k=6, max_combinations=8)


def _part() -> transfer.Part:
    bench = tiny_benchmark()
    judge = OfflineSimilarityJudge(BagOfWords(), ScoreModel.untrained("bow"))
    items = labelled_items([bench], GOLD, judge, CONFIG, retriever=BagOfWords())
    gold = [GoldRecord(q, tuple(c[0]), tuple(tuple(x) for x in c)) for q, c in GOLD.items()]
    runs = {"r": {"q1": {"n": 3.0, "b": 2.0, "a": 1.0}, "q2": {"n": 2.0, "m": 1.5}, "q3": {"s": 1.0}}}
    return transfer.Part("tiny", bench, items, gold, runs)


def _model(threshold: float) -> ScoreModel:
    weights = (4.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0) + (0.0,) * (len(FEATURES) - 7)
    return ScoreModel("bow", weights, -3.0, threshold, (0.0, 1.0), FEATURES, {})


def test_in_memory_annotations_equal_the_pipelines(tmp_path):
    part = _part()
    sizes = set()
    for threshold in (0.3, 0.5, 0.7):
        model = _model(threshold)
        ours = transfer.annotate_part(model, part, CONFIG, judge="offline-similarity(bow-64)")
        judge = OfflineSimilarityJudge(BagOfWords(), model)
        pipeline = ToolEX([part.benchmark], judge, tmp_path / str(threshold), CONFIG, retriever=BagOfWords(),
                          progress=False).run()
        assert [(a.query_id, sorted(map(sorted, a.combinations))) for a in ours] == [
            (a.query_id, sorted(map(sorted, a.combinations))) for a in pipeline]
        sizes.add(sum(len(a.combinations) for a in ours))
    assert len(sizes) > 1  # the thresholds make different annotations


def test_credit_reports_the_three_numbers_and_expansion():
    table = transfer.credit(_model(0.3), _part(), CONFIG)
    assert list(table["retriever"]) == ["r"]
    assert {"recovered", "over_credit", "under_credit", "expansion_recall"} <= set(table.columns)


def test_goal_failures_count_cells_and_undefined_shares():
    table = pd.DataFrame({"recovered": [1.0, 0.5, np.nan], "over_credit": [0.0, 0.03, 0.0],
                          "under_credit": [0.0, 0.0, 0.05]})
    assert transfer.goal_failures(table) == 4  # 0.5 and NaN shares, one over, one under


def test_choose_prefers_fewer_failures_then_less_error_then_fewer_features():
    a = transfer.Recipe(("description_cosine",))
    b = transfer.Recipe(("description_cosine", "subquery_fit"))
    rows = lambda name, over: pd.DataFrame({"recipe": [name], "recovered": [1.0],  # noqa: E731
                                            "over_credit": [over], "under_credit": [0.0]})
    assert transfer.choose(pd.concat([rows(a.name, 0.03), rows(b.name, 0.01)]), [a, b]) == b
    assert transfer.choose(pd.concat([rows(a.name, 0.01), rows(b.name, 0.01)]), [a, b]) == a
    assert transfer.choose(pd.concat([rows(a.name, 0.015), rows(b.name, 0.01)]), [a, b]) == b


def test_an_adapted_winner_stays_only_where_it_helps_on_every_left_out_source():
    features = ("documentation_standing",)
    adapted, pooled = transfer.Recipe(features, threshold="adapted"), transfer.Recipe(features)
    rows = lambda name, source, over, under: pd.DataFrame({  # noqa: E731
        "recipe": [name], "reported_on": [source], "recovered": [1.0], "over_credit": [over],
        "under_credit": [under]})
    # adapted: fewer failures (one against two), but worse than the fixed rule on source b
    matrix = pd.concat([rows(adapted.name, "a", 0.0, 0.01), rows(adapted.name, "b", 0.03, 0.0),
                        rows(pooled.name, "a", 0.03, 0.0), rows(pooled.name, "b", 0.021, 0.0)])
    assert transfer.choose(matrix, [adapted, pooled]) == pooled
    better = pd.concat([rows(adapted.name, "a", 0.0, 0.01), rows(adapted.name, "b", 0.0, 0.03),
                        rows(pooled.name, "a", 0.03, 0.0), rows(pooled.name, "b", 0.021, 0.02)])
    assert transfer.choose(better, [adapted, pooled]) == adapted


def test_choice_reads_the_calibration_parts_only():
    a = transfer.Recipe(("description_cosine",))
    b = transfer.Recipe(("description_cosine", "subquery_fit"))
    rows = lambda name, over, part: pd.DataFrame({"recipe": [name], "recovered": [1.0], "part": [part],  # noqa: E731
                                                  "over_credit": [over], "under_credit": [0.0]})
    matrix = pd.concat([rows(a.name, 0.0, "calibration"), rows(b.name, 0.05, "calibration"),
                        rows(a.name, 0.05, "report"), rows(b.name, 0.0, "report")])
    assert transfer.choose(matrix, [a, b]) == a  # the report rows would pick b


def test_sources_weigh_the_same_and_construction_features_never_decide():
    part = _part()
    small = dataclasses.replace(part, items=dataclasses.replace(
        part.items, labels=part.items.labels[:5], rows=part.items.rows[:5]))
    weights = transfer.source_weights([part, small])
    n = len(part.items.labels)
    assert weights[:n].sum() == pytest.approx(weights[n:].sum()) and weights.mean() == pytest.approx(1.0)
    assert all(not set(r.features) & set(transfer.CONSTRUCTION_FEATURES) for r in transfer.RECIPES)


def test_labelled_model_moves_only_the_threshold():
    part = _part()
    model = _model(0.5)
    tuned = transfer.labelled_model(model, part, n=10, seed=0)
    assert tuned.weights == model.weights and tuned.bias == model.bias
    assert tuned.calibration["per_benchmark"]["labels"] == min(10, len(part.items.labels))


def test_sources_that_share_a_pool_are_left_out_together():
    """SGD-X and its two-tool queries hold the same pools: a model left out of one never saw the other."""
    sources = list(transfer.SOURCES)
    assert transfer.fitting_sources("sgd-x", sources) == ["sgd", "etom"]
    assert transfer.fitting_sources("sgd-pairs", sources) == ["sgd", "etom"]
    assert transfer.fitting_sources("etom", sources) == ["sgd", "sgd-x", "sgd-pairs"]
    assert transfer.fitting_sources("sgd", sources) == ["sgd-x", "sgd-pairs", "etom"]
    assert transfer.fitting_sources("mine", [*sources, "mine"]) == sources


def test_the_kept_study_fits_no_left_out_library():
    from toolex import paths

    study = kept_study(paths.validation_dir() / KEPT)
    for row in study["leave_one_out"].itertuples():
        fitted = row.fitted_on.split(" + ")
        assert transfer.LIBRARY[row.reported_on] not in {transfer.LIBRARY[s] for s in fitted}


def test_the_best_threshold_of_a_perfect_score_is_a_perfect_verifier_and_of_a_reversed_one_is_worse():
    part = _part()
    labels = part.items.labels
    perfect = transfer.credit(transfer.FixedVerdicts(labels), part, CONFIG)
    best = bounds.best_threshold(labels.astype(float), part, CONFIG)
    assert best["over_credit"].tolist() == perfect["over_credit"].tolist() == [0.0]
    assert best["under_credit"].tolist() == perfect["under_credit"].tolist()
    assert bool(best["goal_reachable"].iloc[0]) == (transfer.goal_failures(perfect) == 0)
    assert bool(best["credit_reachable"].iloc[0])
    reversed_ = bounds.best_threshold(1.0 - labels, part, CONFIG)
    error = float((reversed_["over_credit"] + reversed_["under_credit"]).sum())
    assert error > float((perfect["over_credit"] + perfect["under_credit"]).sum())
    assert {"threshold", "quantile", "at_edge", "goal_cells_failed"} <= set(best.columns)


def test_the_kept_study_says_no_threshold_meets_the_goals_and_shows_it_beside_the_default():
    from toolex import paths
    from toolex.report.transfer import comparison

    study = kept_study(paths.validation_dir() / KEPT)
    best = study["best_threshold"]
    assert set(best["reported_on"]) == set(transfer.SOURCES) and not best["goal_reachable"].any()
    table = comparison(study)
    oracle = table[table["judge"].str.startswith("chosen score, best threshold")]
    assert len(oracle) == len(best) and oracle["recovered"].notna().all()
