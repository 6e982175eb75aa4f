"""Validation of expanded annotations against a human one-to-many ground truth ("gold").

Expansion quality (recall of the gold alternatives, precision of what we added) and, with runs, how much of
the underestimation that gold reveals our annotations recover, with per-query over- and under-credit.
Imports only metrics, io, data and errors.

>>> from toolex.validate import validate
>>> result = validate("gold.jsonl", "annotations.jsonl", {"bm25": "bm25.trec"}, k=10)  # doctest: +SKIP
>>> result.summary(), result.table(), result.per_query, result.examples("under", 3)  # doctest: +SKIP
"""

from toolex.validate.core import load_run, validate
from toolex.validate.credit import Share, recovered_share
from toolex.validate.gold import GoldRecord, gold_annotations, read_gold, write_gold
from toolex.validate.pairing import Paired, pair
from toolex.validate.result import ValidationResult, jsonable

__all__ = ["GoldRecord", "Paired", "Share", "ValidationResult", "gold_annotations", "jsonable", "load_run",
           "pair",
           "read_gold", "recovered_share", "validate", "write_gold"]
