"""Measures as small immutable objects: ``NDCG@10``, ``Recall@10``, ``Comp@10``.

They serve as table column keys and cache keys; nobody builds metric names by string concatenation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAMES = ("ndcg", "recall", "comp")
_LABEL = {"ndcg": "NDCG", "recall": "Recall", "comp": "Comp"}


@dataclass(frozen=True, order=True)
class Measure:
    """A cut-off measure; ``name`` is one of ``ndcg``, ``recall``, ``comp``."""

    name: str
    k: int = 10

    def __post_init__(self) -> None:
        if self.name not in NAMES:
            raise ValueError(f"unknown measure {self.name!r}; known: {', '.join(NAMES)}")
        if self.k < 1:
            raise ValueError(f"cut-off must be positive, got {self.k}")

    def __str__(self) -> str:
        return f"{_LABEL[self.name]}@{self.k}"

    @property
    def key(self) -> str:
        """Lower-case column key, as in the paper's tables (``ndcg@10``)."""
        return f"{self.name}@{self.k}"

    @classmethod
    def parse(cls, text: str) -> Measure:
        match = re.fullmatch(r"\s*(ndcg|recall|comp)@(\d+)\s*", text, flags=re.IGNORECASE)
        if not match:
            raise ValueError(f"not a measure: {text!r} (expected e.g. ndcg@10, recall@10, comp@10)")
        return cls(match.group(1).lower(), int(match.group(2)))


def measures_at(k: int) -> tuple[Measure, Measure, Measure]:
    return Measure("ndcg", k), Measure("recall", k), Measure("comp", k)
