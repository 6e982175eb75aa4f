"""File formats: TREC runs and qrels, the ToolEq annotations file."""
