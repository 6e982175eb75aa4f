"""ToolEq metrics: NDCG / Recall / Comp@K against C* (one-to-one) and the best over every valid
combination."""

from toolex.metrics.measures import KINDS, NAMES, ONE_TO_ONE, TOOLEQ, Measure, measures_at
from toolex.metrics.ranking import RunArrays
from toolex.metrics.tooleq import Combinations, Evaluation, GroundTruth, evaluate

__all__ = ["KINDS", "NAMES", "ONE_TO_ONE", "TOOLEQ", "Combinations", "Evaluation", "GroundTruth", "Measure",
           "RunArrays", "evaluate", "measures_at"]
