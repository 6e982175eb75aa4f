"""Judges of the ToolEX stages: LLM endpoint, local LLM, offline similarity — one interface."""

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.judges.factory import JUDGES, build_judge
from toolex.annotate.judges.offline import DEFAULT_THRESHOLDS, OfflineSimilarityJudge, Thresholds

__all__ = ["DEFAULT_THRESHOLDS", "JUDGES", "AuditItem", "DecomposeItem", "Judge", "OfflineSimilarityJudge",
           "Thresholds", "VerifyItem", "build_judge"]
