"""The settings of the notebooks: which data, retrievers, judge and sample size, and the smoke setting."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from toolex.data import DEFAULT_BENCHMARKS
from toolex.experiments.baselines import DEFAULT_RETRIEVERS
from toolex.metrics.measures import HEADLINE, Measure

__all__ = ["DEFAULT_RETRIEVERS", "PARAMETERS", "SMOKE_BENCHMARKS", "SMOKE_SAMPLE", "TABLE2_RETRIEVERS",
           "ReportSettings", "env_judge", "env_smoke", "flag"]

#: Table 2's retrievers: the two baselines and their RRF hybrid. None shares its model with the default judge
#: (all-mpnet-base-v2). The fine-tuned MiniLM is compared in notebook 05, on the queries that did not train
#: it.
TABLE2_RETRIEVERS = (*DEFAULT_RETRIEVERS, "hybrid")
#: Queries sampled per benchmark in the smoke setting that CI runs.
SMOKE_SAMPLE = 25
#: Benchmarks of the smoke setting: one per category of Table 2 (Web: API-Bank; Code: Toolink; Customized:
#: ToolAlpaca), each with multi-tool queries and short documentation, searched in the ``smoke`` pool
#: (:func:`toolex.data.registry.smoke_tools`: every tool a query names and a seeded draw of the others, 500
#: tools of their 2,004 and of the full setting's 7,179).
SMOKE_BENCHMARKS = ("toolret/apibank", "toolret/toolink", "customized/toolalpaca")


def flag(text: str | bool | None) -> bool:
    """A yes/no setting as the command line or environment gives it: ``1``, ``true``, ``yes`` are true."""
    return str(text).strip().lower() in ("1", "true", "yes")


def env_smoke() -> bool:
    """The smoke flag from the environment (``SMOKE=1``, as ``make paper SMOKE=1`` exports it)."""
    return flag(os.environ.get("SMOKE", "0"))


def env_judge() -> str:
    """The judge from the environment (``JUDGE=offline|local|api``), ``offline`` by default."""
    return os.environ.get("JUDGE", "offline").strip() or "offline"


#: The parameters every analysis notebook shares, by their name in its parameters cell, with the default of
#: each (a callable is called): :meth:`ReportSettings.from_parameters` reads them, so none can be left behind.
PARAMETERS: dict[str, Any] = {"SMOKE": env_smoke, "JUDGE": env_judge, "BENCHMARKS": None, "RETRIEVERS": None,
                              "SAMPLE": None, "SEED": 0, "K": HEADLINE.k}


def parameter_values(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Every name of :data:`PARAMETERS` as a notebook's parameters cell states it (its namespace, as papermill
    left it), the default of each it leaves out: what every notebook's opener reads."""
    return {name: parameters.get(name, default() if callable(default) else default)
            for name, default in PARAMETERS.items()}


@dataclass(frozen=True)
class ReportSettings:
    """What a notebook computes on: benchmarks, retrievers, judge kind, queries per benchmark, cut-off ``k``,
    seed. One object per notebook run, built from its parameters cell; every helper and every provenance
    record reads the cut-off from here."""

    benchmarks: tuple[str, ...] = DEFAULT_BENCHMARKS
    retrievers: tuple[str, ...] = DEFAULT_RETRIEVERS
    judge: str = "offline"
    sample: int | None = None
    k: int = HEADLINE.k
    seed: int = 0
    pool: str = "all"
    smoke: bool = False

    @classmethod
    def make(cls, benchmarks: Sequence[str] | None = None, retrievers: Sequence[str] | None = None,
             judge: str = "offline", sample: int | None = None, smoke: bool = False, k: int = HEADLINE.k,
             seed: int = 0) -> ReportSettings:
        """Settings from notebook parameters; ``smoke`` caps the sample at :data:`SMOKE_SAMPLE` per benchmark
        and, unless benchmarks are given, uses :data:`SMOKE_BENCHMARKS` in the ``smoke`` pool."""
        pool = "all"
        if smoke:
            sample = min(sample, SMOKE_SAMPLE) if sample else SMOKE_SAMPLE
            # the smoke benchmarks in their smoke pool; benchmarks of one's own keep their whole pools
            pool = "smoke" if set(benchmarks or SMOKE_BENCHMARKS) == set(SMOKE_BENCHMARKS) else "all"
            benchmarks = benchmarks or SMOKE_BENCHMARKS
        return cls(tuple(benchmarks or DEFAULT_BENCHMARKS), tuple(retrievers or DEFAULT_RETRIEVERS), judge,
                   sample, k, seed, pool, smoke)

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any],
                        retrievers: Sequence[str] | None = None) -> ReportSettings:
        """The settings a notebook's parameters cell states (its namespace, as papermill left it): every name
        of :data:`PARAMETERS` it holds, the default of each it leaves out; ``retrievers`` stands in for
        ``RETRIEVERS = None``. A name of the cell outside :data:`PARAMETERS` is the notebook's own."""
        given = parameter_values(parameters)
        return cls.make(given["BENCHMARKS"], given["RETRIEVERS"] or retrievers, given["JUDGE"],
                        given["SAMPLE"], flag(given["SMOKE"]), k=int(given["K"]), seed=int(given["SEED"]))

    def measure(self, name: str) -> Measure:
        """The measure ``name`` (``ndcg``, ``recall``, ``comp``) at this run's cut-off."""
        return Measure(name, self.k)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["benchmarks"], out["retrievers"] = list(self.benchmarks), list(self.retrievers)
        return out
