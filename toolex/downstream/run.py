"""A downstream run: a fixed sample of StableToolBench queries, each solved by the agent in every setting and
judged by the pass-rate evaluator, recorded one JSON line per (setting, query) as each finishes.

Settings (:data:`SETTINGS`): ``oracle`` offers the query's relevant APIs (C*); ``retrieved`` the top-|C*| of a
retriever over the group's API pool (StableToolBench's retrieval setting keeps the relevant set's size);
``expanded`` replaces C* by the first audited combination of a ToolEX run other than C* (falling back to C*
where there is none; the share that fell back is reported beside the pass rate).

``<folder>/manifest.json`` names the sample, settings, models and prompt versions;
``<folder>/<setting>.jsonl`` holds the results. A killed run starts again where it stopped (finished queries
are skipped, and the LLM response cache replays every call made before the kill); a query whose agent or
evaluator failed is not recorded and is tried again by the next run, which then exits non-zero if it still
fails.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from toolex.data.records import Annotation, Benchmark, Query
from toolex.downstream import agent, evaluator, simulator
from toolex.downstream.agent import Agent
from toolex.downstream.evaluator import PassRateEvaluator
from toolex.errors import InputError
from toolex.io.artifact import refuse_other, write_manifest
from toolex.io.atomic import append_line
from toolex.metrics.intervals import wilson
from toolex.sampling import round_robin

SETTINGS = ("oracle", "retrieved", "expanded")
PROMPT_VERSIONS = {"agent": agent.PROMPT_VERSION, "simulator": simulator.PROMPT_VERSION,
                   "evaluator": evaluator.PROMPT_VERSION}


@dataclass(frozen=True)
class ToolChoice:
    """The tools a setting offers one query, and whether ``expanded`` fell back to C*."""

    tools: tuple[str, ...]
    fallback: bool = False


def sample_queries(benchmark: Benchmark, n: int, seed: int = 0) -> list[Query]:
    """``n`` queries spread over the groups (``Query.subset``): a seeded shuffle per group, then one query per
    group in turn, so every group is represented as evenly as ``n`` allows."""
    groups: dict[str, list[Query]] = {}
    for query in benchmark.queries:
        groups.setdefault(query.subset, []).append(query)
    rng = random.Random(seed)
    for name in sorted(groups):
        rng.shuffle(groups[name])
    # one query per group in turn, each group's from the end of its shuffle
    return round_robin([groups[name][::-1] for name in sorted(groups)], n)


def tool_choices(setting: str, queries: Sequence[Query], run: Mapping[str, Mapping[str, float]] | None = None,
                 annotations: Mapping[str, Annotation] | None = None) -> dict[str, ToolChoice]:
    """The tools each query is offered under ``setting`` (``run``: the retriever's ranking per query;
    ``annotations``: a ToolEX run over the queries)."""
    if setting == "oracle":
        return {q.id: ToolChoice(q.reference) for q in queries}
    if setting == "retrieved":
        if run is None:
            raise InputError(None, "the retrieved setting needs a retriever run")
        out = {}
        for q in queries:
            ranked = sorted((run.get(q.id) or {}).items(), key=lambda item: (-item[1], item[0]))
            out[q.id] = ToolChoice(tuple(tool for tool, _ in ranked[:len(q.reference)]))
        return out
    if setting == "expanded":
        if annotations is None:
            raise InputError(None, "the expanded setting needs the annotations of a ToolEX run")
        out = {}
        for q in queries:
            found = annotations.get(q.id)
            combinations = found.combinations if found else ()
            other = next((c for c in combinations if set(c) != set(q.reference)), None)
            out[q.id] = ToolChoice(tuple(other), False) if other else ToolChoice(q.reference, True)
        return out
    raise InputError(None, f"unknown setting {setting!r}; settings are {', '.join(SETTINGS)}")


class RunFolder:
    """The results of one downstream run; refuses a folder that holds another run."""

    def __init__(self, folder: str | Path, identity: Mapping[str, Any]) -> None:
        self.folder, self.identity = Path(folder), dict(identity)
        kept = refuse_other(self.folder, "downstream", self.identity, "downstream run")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.manifest = {**kept, "identity": self.identity}
        write_manifest(self.folder, "downstream", self.manifest)

    def record_expansion(self, judge: str, source: str) -> None:
        """Name, beside the identity, the ToolEX judge whose annotations the expanded setting offers and where
        they came from (a run's figures name it; the identity keeps naming what decides reuse)."""
        self.manifest = {**self.manifest, "expansion": {"judge": judge, "annotations": source}}
        write_manifest(self.folder, "downstream", self.manifest)

    def path(self, setting: str) -> Path:
        return self.folder / f"{setting}.jsonl"

    def records(self, setting: str) -> list[dict[str, Any]]:
        """The finished results of a setting (a torn last line, left by a kill, is skipped)."""
        return read_records(self.path(setting))

    def append(self, setting: str, record: Mapping[str, Any]) -> None:
        """One finished result, written and flushed to disk before the next query starts."""
        append_line(self.path(setting), json.dumps(record, ensure_ascii=False).encode() + b"\n")


def read_records(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of a results file, a torn line skipped (none when the file is missing)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def run_setting(folder: RunFolder, setting: str, queries: Sequence[Query],
                choices: Mapping[str, ToolChoice], tools: Mapping[str, Any], solver: Agent,
                judge: PassRateEvaluator,
                progress: Callable[[str], None] = lambda line: None) -> list[str]:
    """Solve and judge every query of ``setting`` not yet recorded; the ids that failed (not recorded)."""
    done = {r["query_id"] for r in folder.records(setting)}
    failed = []
    for query in queries:
        if query.id in done:
            continue
        choice = choices[query.id]
        trajectory = solver.solve(query, [tools[t] for t in choice.tools])
        verdict = judge.evaluate(query, trajectory) if trajectory.complete else None
        if verdict is None:
            failed.append(query.id)
            progress(f"{setting} {query.id}: {'agent' if not trajectory.complete else 'evaluator'} failed "
                     f"({trajectory.error or 'no answer'}); asked again next run")
            continue
        folder.append(setting, {"query_id": query.id, "group": query.subset, "setting": setting,
                                "tools": list(choice.tools), "fallback": choice.fallback,
                                "trajectory": trajectory.to_json(),
                                "evaluation": {"status": verdict.status, "reason": verdict.reason,
                                               "asked": verdict.asked, "passed": verdict.passed}})
        progress(f"{setting} {query.id}: {verdict.status} ({len(trajectory.steps)} steps, "
                 f"{trajectory.finish})")
    return failed


def results_frame(folder: str | Path) -> pd.DataFrame:
    """One row per recorded (setting, query): group, status, pass value, fallback, steps, finish."""
    rows = []
    for setting in SETTINGS:
        for r in read_records(Path(folder) / f"{setting}.jsonl"):
            rows.append({"setting": r["setting"], "group": r["group"], "query_id": r["query_id"],
                         "status": r["evaluation"]["status"], "passed": r["evaluation"]["passed"],
                         "fallback": r["fallback"], "steps": len(r["trajectory"]["steps"]),
                         "finish": r["trajectory"]["finish"]})
    return pd.DataFrame(rows, columns=["setting", "group", "query_id", "status", "passed", "fallback",
                                       "steps", "finish"])


def pass_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Per group (and ``all``) and setting: queries, pass rate (%) with its 95 % Wilson interval, and the
    share of queries whose expanded tools fell back to C*."""
    rows = []
    for group in [*sorted(frame["group"].unique()), "all"]:
        part = frame if group == "all" else frame[frame["group"] == group]
        for setting in SETTINGS:
            cell = part[part["setting"] == setting]
            if cell.empty:
                continue
            low, high = wilson(float(cell["passed"].sum()), len(cell))
            rows.append({"group": group, "setting": setting, "queries": len(cell),
                         "pass rate, %": 100 * cell["passed"].mean(), "95% CI low": 100 * low,
                         "95% CI high": 100 * high, "fell back to C*, %": 100 * cell["fallback"].mean()})
    return pd.DataFrame(rows)
