"""ToolEX: decompose, retrieve & verify, combine & audit — the annotation expansion of the paper."""

from toolex.annotate.pipeline import AnnotateConfig, ToolEX

__all__ = ["AnnotateConfig", "ToolEX"]
