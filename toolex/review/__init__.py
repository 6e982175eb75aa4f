"""Human validation of ToolEX annotations (the paper's Appendix B): a stratified sample of accepted
combinations, two independent reviewers per item and an adjudicator, stored in a SQLite campaign file, and a
report (precision with Wilson intervals, Cohen's kappa, the failure taxonomy, per-judge comparison).

Reads annotation artifacts; :mod:`toolex.widgets.review` renders it; nothing below imports it.
"""

from toolex.review.campaign_report import CampaignReport, campaign_report, wilson
from toolex.review.database import ADJUDICATE, REVIEW, Campaign, CampaignError
from toolex.review.items import ReviewItem, build_items, load_items, run_checksum
from toolex.review.sample import draw

__all__ = ["ADJUDICATE", "REVIEW", "Campaign", "CampaignError", "CampaignReport", "ReviewItem", "build_items",
           "campaign_report", "draw", "load_items", "run_checksum", "wilson"]
