"""ToolEq metrics: NDCG / Recall / Comp@K against C* (one-to-one) and the best over every valid combination."""

from toolex.metrics.measures import NAMES, Measure, measures_at
from toolex.metrics.ranking import RunArrays
from toolex.metrics.tooleq import Combinations, Evaluation, GroundTruth, evaluate

__all__ = ["NAMES", "Combinations", "Evaluation", "GroundTruth", "Measure", "RunArrays", "evaluate", "measures_at"]
