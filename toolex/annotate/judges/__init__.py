"""Judges of the ToolEX stages: LLM endpoint, local LLM, offline similarity — one interface."""

from toolex.annotate.judges.base import AuditItem, DecomposeItem, Judge, VerifyItem
from toolex.annotate.judges.factory import JUDGES, build_judge
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel

__all__ = ["JUDGES", "AuditItem", "DecomposeItem", "Judge", "OfflineSimilarityJudge", "ScoreModel",
           "VerifyItem", "build_judge"]
