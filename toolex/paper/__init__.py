"""The paper's own numbers: its tables as data and the analysis that re-derives its headline claims."""

from toolex.paper.claims import Check, check_claims
from toolex.paper.tables import load_claims, load_table1, load_table2, load_table3

__all__ = ["Check", "check_claims", "load_claims", "load_table1", "load_table2", "load_table3"]
