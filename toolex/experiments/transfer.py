"""Choosing the offline judge across sources: leave-one-source-out, reported on data no fitting or choice saw.

Four public sources carry a one-to-many ground truth (:data:`SOURCES`): the original SGD (substitutes
share their intent names), SGD-X (each API once, in a wording other people wrote, so a tool's alternatives are
other services), two-tool SGD-X queries (Stages 1 and 3 meet people too) and ETOM, a real MCP registry with
reviewed equivalence sets. Each has a calibration part and a report part (SGD: other domains, and for SGD-X
and the pairs wordings, v4 and v5, that no calibration pool holds; ETOM: other equivalence sets).

The procedure (:func:`transfer_study`):

1. **Items**: Stages 1 and 2 of ToolEX on every part, each candidate labelled from the part's gold, with the
   judge's features (:func:`load_part`).
2. **Recipes** (:data:`RECIPES`): a feature set (:data:`FEATURE_SETS`: raw similarities, their standing
   within the candidate list and the operation, or both), an L2 penalty and a threshold rule. Features that
   encode how one dataset was built (:data:`CONSTRUCTION_FEATURES`: shared names, same service) never carry a
   decision.
3. **Leave one source out**: for each recipe and each source, fit on the calibration parts of the sources
   of other libraries (each source weighs the same; :data:`LIBRARY`: sources that share a tool pool, SGD-X and
   its two-tool queries, are left out together, or the left-out library would be fitted on) and annotate
   the left-out source's calibration part (for the choice) and its report part (for the report); score
   BM25 and MiniLM against people (recovered share, over- and under-credit at NDCG@10).
4. **Choice**, on the left-out calibration parts only: the recipe that fails the fewest goal cells
   (recovered share in [0.7, 1.3], over- and under-credit ≤ 0.02 per query: 2 NDCG points) over every
   left-out source, then the smallest summed over- and under-credit, then the fewest features. No report
   part takes part in the choice.
5. **Default**: the chosen recipe fitted on every source's calibration part, reported on every report part.

The calibration pools hold every domain's tools (as the SGD pool does), so report-domain tools can appear as
candidates (never alternatives) of calibration queries; no report query, and for SGD-X and the pairs no v4 or
v5 wording, takes part in fitting or choosing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from toolex.annotate.calibration import LabelledItems, balanced_threshold, calibrate, labelled_items
from toolex.annotate.combine import audit_combinations
from toolex.annotate.judges.offline import OfflineSimilarityJudge, platform_audit
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.operating_point import Label, draw, fit_threshold, item_key
from toolex.annotate.pipeline import AnnotateConfig
from toolex.annotate.stage_records import Verdict
from toolex.annotate.verification import verified_sets
from toolex.data.records import Annotation, Benchmark
from toolex.data.registry import load_benchmark, own_gold, own_gold_rule
from toolex.experiments.settings import DEFAULT_RETRIEVERS
from toolex.experiments.workspace import benchmark_runs
from toolex.metrics.measures import HEADLINE
from toolex.validate import validate
from toolex.validate.goals import GOALS, goals_of
from toolex.validate.gold import GoldRecord, benchmark_gold

#: Source → (calibration part, report part).
SOURCES: Mapping[str, tuple[str, str]] = {
    "sgd": ("sgd/calibration", "sgd/report"),
    "sgd-x": ("sgd-x/calibration", "sgd-x/report"),
    "sgd-pairs": ("sgd-pairs/calibration", "sgd-pairs/report"),
    "etom": ("etom/calibration", "etom/report"),
}
#: What kind of library each source is (the validation tables of docs/judge.md name it).
SOURCE_KINDS: Mapping[str, str] = {
    "sgd": "dialogue schemas (original SGD wording)",
    "sgd-x": "dialogue schemas, one wording per API written by other people",
    "sgd-pairs": "dialogue schemas, one wording per API; two-tool queries",
    "etom": "real registry (MCP servers)",
}
#: The library each source's pools hold: ``sgd-x`` and ``sgd-pairs`` share their one-wording pools (the same
#: tools, only the queries differ), so leaving one of them out leaves the other out too.
LIBRARY: Mapping[str, str] = {"sgd": "sgd", "sgd-x": "sgd-x", "sgd-pairs": "sgd-x", "etom": "etom"}
#: Signals that say how a dataset was built (SGD's substitutes share intent names; its services' other
#: intents share the service): never weighed by a default judge.
CONSTRUCTION_FEATURES = ("name_overlap", "same_platform")
#: The goals per left-out source, retriever and NDCG@10.
SHARE_GOAL = (0.7, 1.3)
CREDIT_GOAL = 0.02
METRIC = HEADLINE.key
#: Labelled-sample sizes and seeds of the per-benchmark workflow's study.
LABEL_SIZES = (50, 100, 150)
LABEL_SEEDS = (0, 1, 2, 3, 4)


@dataclass(frozen=True)
class Recipe:
    """How a judge is fitted: the features it may weigh, the L2 penalty and the threshold rule (``pooled``:
    false positives = false negatives over the fitting items, each source weighing the same; ``median``: the
    median over sources of each source's own balanced threshold, in logit; ``adapted``: placed for each
    annotated benchmark's items from the share of alternatives estimated among them,
    :mod:`toolex.annotate.judges.prior_shift`)."""

    features: tuple[str, ...]
    l2: float = 1.0
    threshold: str = "pooled"

    @property
    def name(self) -> str:
        return f"{'+'.join(self.features)} | l2 {self.l2:g} | {self.threshold}"


#: The feature sets the choice weighs: signals on the library's own similarity scale (raw), signals that
#: stand within the candidate list or read the operation (relative), and both.
RAW = ("description_cosine", "documentation_cosine", "subquery_fit")
RELATIVE = ("description_standing", "documentation_standing", "documentation_gap", "retrieval_standing",
            "operation_match")
FEATURE_SETS: Mapping[str, tuple[str, ...]] = {
    "raw": RAW,
    "relative: documentation standing": ("documentation_standing",),
    "relative: standing + operation": ("documentation_standing", "operation_match"),
    "relative": RELATIVE,
    "raw + relative": RAW + RELATIVE,
}
#: The recipe of the former default (chosen across the SGD-family sources alone), and those sources.
FORMER_RECIPE = Recipe(RAW, 1.0, "adapted")
SGD_FAMILY = ("sgd", "sgd-x", "sgd-pairs")
RECIPES: tuple[Recipe, ...] = tuple(
    Recipe(features, l2, rule)
    for features in FEATURE_SETS.values() for l2 in (1.0,) for rule in ("pooled", "median", "adapted"))


@dataclass
class Part:
    """One part of a source: its benchmark, labelled Stage-2 items, human gold and the scored runs."""

    source: str
    benchmark: Benchmark
    items: LabelledItems
    gold: list[GoldRecord]
    runs: dict[str, Any]


def load_part(source: str, name: str, judge: OfflineSimilarityJudge, config: AnnotateConfig,
              retrievers: Sequence[str] = DEFAULT_RETRIEVERS, candidates: Any = None,
              with_runs: bool = True) -> Part:
    """Stages 1 and 2 over the benchmark ``name``, labelled from its own gold; with the runs of
    ``retrievers`` over its queries (report parts)."""
    benchmark = load_benchmark(name)
    items = labelled_items([benchmark], own_gold(benchmark), judge, config, retriever=candidates)
    runs: dict[str, Any] = {}
    if with_runs:
        runs = benchmark_runs(benchmark, retrievers)
    return Part(source, benchmark, items, benchmark_gold(benchmark), runs)


def load_parts(judge: OfflineSimilarityJudge, config: AnnotateConfig, candidates: Any,
               ) -> tuple[dict[str, Part], dict[str, Part]]:
    """Every source's calibration and report part (:data:`SOURCES`), with Stage 2's ``candidates``."""
    calibration, report = {}, {}
    for source, (fit_part, report_part) in SOURCES.items():
        calibration[source] = load_part(source, fit_part, judge, config, candidates=candidates)
        report[source] = load_part(source, report_part, judge, config, candidates=candidates)
    return calibration, report


def fitting_sources(left: str, sources: Sequence[str]) -> list[str]:
    """The sources a model left out of ``left`` is fitted on: those of another library (:data:`LIBRARY`)."""
    return [s for s in sources if LIBRARY.get(s, s) != LIBRARY.get(left, left)]


def source_weights(parts: Sequence[Part]) -> np.ndarray:
    """Item weights under which every part weighs the same in total (mean weight 1)."""
    total = sum(len(p.items.labels) for p in parts)
    return np.concatenate([np.full(len(p.items.labels), total / (len(parts) * len(p.items.labels)))
                           for p in parts])


def fit(recipe: Recipe, parts: Sequence[Part], encoder: str, band_errors: float = 0.9) -> ScoreModel:
    """The score model of ``recipe`` fitted on ``parts`` (each weighing the same)."""
    stacked = LabelledItems([it for p in parts for it in p.items.items],
                            np.vstack([p.items.rows for p in parts]),
                            np.concatenate([p.items.labels for p in parts]),
                            [q for p in parts for q in p.items.query_ids])
    record = {"data": " + ".join(f"{p.benchmark.name} (data sha256 {p.benchmark.checksum[:12]})"
                                 for p in parts),
              "gold": "; ".join(sorted({own_gold_rule(p.benchmark) for p in parts})),
              "recipe": asdict(recipe),
              "quality_note": "quality and share_in_band count items unweighted; the threshold balances the "
                              "source-weighted errors"}
    model = calibrate(stacked, encoder, recipe.l2, band_errors, record, features=recipe.features,
                      weights=source_weights(parts))
    if recipe.threshold == "median":
        model = model.with_threshold(median_threshold(model, parts),
                                     "median over the fitting parts of each part's balanced threshold")
    elif recipe.threshold == "adapted":
        model = model.with_rule("adapted")
    return model


def median_threshold(model: ScoreModel, parts: Sequence[Part]) -> float:
    """The median, in logit, of each part's own balanced threshold under ``model``."""
    logits = []
    for p in parts:
        t = balanced_threshold(model.probability(p.items.rows), p.items.labels)
        t = min(max(t, 1e-9), 1 - 1e-9)
        logits.append(np.log(t / (1 - t)))
    return float(1 / (1 + np.exp(-np.median(logits))))


def annotate_part(model: ScoreModel, part: Part, config: AnnotateConfig,
                  judge: str = "offline") -> list[Annotation]:
    """ToolEX's annotations of ``part`` with ``model``'s verdicts on its items (Stage 3 as the pipeline runs
    it, with the offline judge's platform audit)."""
    probabilities = model.probability(part.items.rows)  # one part is one benchmark: one threshold
    said = probabilities >= decision_threshold(model, probabilities)
    verdicts = [Verdict(bool(s), "", judge) for s in said]
    verified = verified_sets(part.items.decompositions, part.items.hits, part.items.slots, verdicts)
    tools = part.benchmark.tools
    audited, _ = audit_combinations(part.benchmark.queries, part.items.decompositions, verified, tools,
                                    lambda items: platform_audit(items, judge), config.max_combinations,
                                    config.rrf_k)
    return [Annotation(a.query_id, a.category, a.reference, tuple(a.valid)) for a in audited]


class FixedVerdicts:
    """A stand-in score model whose verdicts are given, one per item (the gold: a verifier right on every
    item; a study's own rule), in the shape :func:`annotate_part` and :func:`credit` read."""

    threshold = 0.5

    def __init__(self, said: np.ndarray) -> None:
        self.said = np.asarray(said, dtype=bool)

    def probability(self, rows: np.ndarray) -> np.ndarray:
        return self.said.astype(np.float64)

    def decision_model(self, probabilities: np.ndarray) -> FixedVerdicts:
        return self


def decision_threshold(model: ScoreModel, probabilities: np.ndarray) -> float:
    """The threshold that decides these items (:meth:`ScoreModel.decision_model`)."""
    return model.decision_model(probabilities).threshold


def credit(model: ScoreModel, part: Part, config: AnnotateConfig, k: int = HEADLINE.k,
           bootstrap: int = 0) -> pd.DataFrame:
    """Per retriever at NDCG@``k``: one-to-one, ours, gold, recovered share, over- and under-credit."""
    result = validate(part.gold, annotate_part(model, part, config), part.runs, k=k, bootstrap=bootstrap)
    table = result.table()
    table = table[table["metric"] == f"ndcg@{k}"]
    expansion = result.expansion_summary["combination"]
    return table.assign(expansion_recall=expansion["recall"], expansion_precision=expansion["precision"])


def goals_met(table: pd.DataFrame) -> pd.Series:
    """Per row of a credit table, how many of the three goals it meets (:func:`toolex.report.validation.
    goals_of` with :data:`SHARE_GOAL` and :data:`CREDIT_GOAL`)."""
    goals = goals_of(table, SHARE_GOAL, CREDIT_GOAL)
    return goals[list(GOALS)].sum(axis=1)


def goal_failures(table: pd.DataFrame) -> int:
    """Goal cells failed: recovered share outside :data:`SHARE_GOAL`, over- or under-credit above
    :data:`CREDIT_GOAL` (an undefined share counts as failed)."""
    return int(len(GOALS) * len(table) - goals_met(table).sum())


def leave_one_out(recipe: Recipe, calibration: Mapping[str, Part], report: Mapping[str, Part],
                  encoder: str, config: AnnotateConfig) -> pd.DataFrame:
    """For each source, ``recipe`` fitted on the calibration parts of the other libraries' sources and scored
    on the left-out source's calibration part (``part`` "calibration", what the choice reads) and report
    part ("report")."""
    frames = []
    for left in report:
        fitted = fitting_sources(left, list(calibration))
        model = fit(recipe, [calibration[s] for s in fitted], encoder)
        fitted_on = " + ".join(fitted)
        for part, data in (("calibration", calibration[left]), ("report", report[left])):
            frames.append(credit(model, data, config).assign(
                recipe=recipe.name, fitted_on=fitted_on, reported_on=left, part=part,
                threshold=decision_threshold(model, model.probability(data.items.rows))))
    return pd.concat(frames, ignore_index=True)


def choose(matrix: pd.DataFrame, recipes: Sequence[Recipe]) -> Recipe:
    """The recipe with the fewest failed goal cells over every left-out source's calibration part; ties: the
    smallest summed over- and under-credit, then the fewest features. An ``adapted`` winner stays only where
    it helps on every left-out source: where, on some source, its summed over- and under-credit exceeds that
    of the same features under their best fixed rule, that fixed rule wins instead (the prior-shift estimate
    assumes that alternatives score alike in every library)."""
    by_name = {r.name: r for r in recipes}
    chosen_on = matrix[matrix["part"] == "calibration"] if "part" in matrix else matrix

    def rank(name: str) -> tuple[int, float, int]:
        rows = chosen_on[chosen_on["recipe"] == name]
        return (goal_failures(rows), float((rows["over_credit"] + rows["under_credit"]).sum()),
                len(by_name[name].features))

    best = by_name[min(by_name, key=rank)]
    fixed = [r for r in recipes
             if r.features == best.features and r.l2 == best.l2 and r.threshold != "adapted"]
    if best.threshold != "adapted" or not fixed:
        return best
    rival = min(fixed, key=lambda r: rank(r.name))

    def error(name: str) -> pd.Series:
        rows = chosen_on[chosen_on["recipe"] == name]
        return (rows["over_credit"] + rows["under_credit"]).groupby(rows["reported_on"]).sum()

    return best if bool((error(best.name) <= error(rival.name) + 1e-12).all()) else rival


def transfer_study(calibration: Mapping[str, Part], report: Mapping[str, Part], encoder: str,
                   config: AnnotateConfig, recipes: Sequence[Recipe] = RECIPES,
                   ) -> tuple[pd.DataFrame, Recipe, ScoreModel, pd.DataFrame]:
    """The leave-one-source-out matrix of every recipe, the chosen recipe, its model fitted on every
    calibration part, and that model's credit on every report part."""
    matrix = pd.concat([leave_one_out(r, calibration, report, encoder, config) for r in recipes],
                       ignore_index=True)
    chosen = choose(matrix, recipes)
    model = fit(chosen, list(calibration.values()), encoder)
    final = pd.concat([credit(model, part, config).assign(reported_on=source)
                       for source, part in report.items()], ignore_index=True)
    return matrix, chosen, model, final


def share_estimates(calibration: Mapping[str, Part], report: Mapping[str, Part], recipe: Recipe,
                    encoder: str) -> dict[str, dict[str, Any]]:
    """Per left-out source, where the adapted threshold's estimate of the report part's share of alternatives
    falls against the truth (``recipe``'s features with the adapted rule, fitted on the other sources)."""
    out = {}
    for left, part in report.items():
        model = fit(Recipe(recipe.features, recipe.l2, "adapted"),
                    [calibration[s] for s in fitting_sources(left, list(calibration))], encoder)
        adapted = model.decision_model(model.probability(part.items.rows)).calibration["adapted"]
        out[left] = {"true_share": float(part.items.labels.mean()),
                     "estimated_share": adapted.get("estimated_share"),
                     "fitting_share": adapted["fitting_share"], "kept": adapted.get("kept"),
                     "threshold": adapted["threshold"], "fitted_threshold": adapted["fitted_threshold"]}
    return out


def labelled_model(model: ScoreModel, part: Part, n: int, seed: int = 0) -> ScoreModel:
    """The per-benchmark workflow on a part with gold: draw ``n`` Stage-2 items as ``toolex calibrate --draw``
    does, label them from the gold (standing for people), place the threshold as ``--labels`` does."""
    probabilities = model.probability(part.items.rows)
    drawn = draw(probabilities, model, n, seed)
    keys = [item_key(slot.query_id, part.items.items[i].reference.id, slot.tool_id)
            for i, slot in enumerate(part.items.slots)]
    record = {"benchmark": part.benchmark.name, "items": drawn.record_items(keys, probabilities)}
    slots, items = part.items.slots, part.items.items
    labels = [Label(slots[i].query_id, items[i].reference.id, slots[i].tool_id, bool(part.items.labels[i]))
              for i in drawn.indices]
    return fit_threshold(model, labels, record, source=f"gold of {part.benchmark.name} (simulated labels)")


def label_study(calibration: Mapping[str, Part], report: Mapping[str, Part], recipe: Recipe, encoder: str,
                config: AnnotateConfig, sizes: Sequence[int] = LABEL_SIZES,
                seeds: Sequence[int] = LABEL_SEEDS) -> pd.DataFrame:
    """Per left-out source, labelled-sample size and seed: the leave-one-out model with its threshold placed
    from that many labels of the left-out report part, scored there."""
    frames = []
    for left, part in report.items():
        model = fit(recipe, [calibration[s] for s in fitting_sources(left, list(calibration))], encoder)
        for n in sizes:
            for seed in seeds:
                tuned = labelled_model(model, part, n, seed)
                frames.append(credit(tuned, part, config).assign(reported_on=left, labels=n, seed=seed,
                                                                 threshold=tuned.threshold))
    return pd.concat(frames, ignore_index=True)
