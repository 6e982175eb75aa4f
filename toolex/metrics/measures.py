"""Measures as small immutable objects (after ir_measures): ``NDCG@10``, ``Recall@10``, ``Comp@10``.

They serve as table column keys and cache keys; every name and key of a measure is rendered here and nowhere
else, so nobody builds metric names by string concatenation.

```pycon
>>> m = Measure.parse("nDCG@10")
>>> m, m.key, m.column(TOOLEQ), m.key_of(TOOLEQ)
(Measure(name='ndcg', k=10), 'ndcg@10', 'tooleq_ndcg', 'tooleq_ndcg@10')
>>> [str(m) for m in measures_at(5)]
['NDCG@5', 'Recall@5', 'Comp@5']

```
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The project's measures, in the order of every table (the paper's order).
NAMES = ("ndcg", "recall", "comp")
_LABEL = {"ndcg": "NDCG", "recall": "Recall", "comp": "Comp"}

#: Annotation kinds a run is scored against: C* alone (Tool-DE) and the best over every valid combination.
ONE_TO_ONE = "one_to_one"
TOOLEQ = "tooleq"
KINDS = (ONE_TO_ONE, TOOLEQ)
KIND_LABEL = {ONE_TO_ONE: "one-to-one", TOOLEQ: "ToolEq"}


@dataclass(frozen=True, order=True)
class Measure:
    """A cut-off measure; ``name`` is one of :data:`NAMES`, ``k`` the cut-off."""

    name: str
    k: int

    def __post_init__(self) -> None:
        if self.name not in NAMES:
            raise ValueError(f"unknown measure {self.name!r}; known: {', '.join(NAMES)}")
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ValueError(f"cut-off must be a positive integer, got {self.k!r}")

    def __str__(self) -> str:
        return f"{_LABEL[self.name]}@{self.k}"

    @property
    def key(self) -> str:
        """Lower-case key, as in the paper's tables and our long-form results (``ndcg@10``)."""
        return f"{self.name}@{self.k}"

    def key_of(self, kind: str) -> str:
        """The key of this measure under one annotation kind (``tooleq_ndcg@10``)."""
        return f"{_kind(kind)}_{self.key}"

    def column(self, kind: str) -> str:
        """The per-query column of :class:`toolex.metrics.Evaluation` (``one_to_one_ndcg``); its cut-off is
        the evaluation's ``k``."""
        return f"{_kind(kind)}_{self.name}"

    @classmethod
    def parse(cls, text: str) -> Measure:
        """``ndcg@10``, ``nDCG@10`` or ``Recall@5`` to a measure; anything else raises ``ValueError``."""
        match = re.fullmatch(r"\s*(ndcg|recall|comp)@(\d+)\s*", str(text), flags=re.IGNORECASE)
        if not match:
            raise ValueError(f"not a measure: {text!r} (expected e.g. ndcg@10, recall@10, comp@10)")
        return cls(match.group(1).lower(), int(match.group(2)))


#: The paper's headline measure (its figures and the explorer's first view); its cut-off is the one default
#: cut-off of the package (every ``k`` that is not given is ``HEADLINE.k``).
HEADLINE = Measure("ndcg", 10)


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown annotation kind {kind!r}; known: {', '.join(KINDS)}")
    return kind


def measures_at(k: int) -> tuple[Measure, ...]:
    """The project's measures at cut-off ``k``, in table order."""
    return tuple(Measure(name, k) for name in NAMES)
