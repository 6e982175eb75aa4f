"""toolex: equivalence-aware tool-retrieval evaluation (ToolEX annotation, ToolEq metrics)."""

__version__ = "0.1.0"
