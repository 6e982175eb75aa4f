"""Per-stage accounting of LLM use: requests, HTTP calls, tokens, cache hits, failures and cost."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class StageCounts:
    """Counters of one stage. Token counts of cache hits are kept apart from tokens spent in this run;
    ``gave_up`` counts requests not asked again because they failed in too many runs already."""

    requests: int = 0
    api_calls: int = 0
    retries: int = 0
    cache_hits: int = 0
    failures: int = 0
    gave_up: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    latency_s: float = 0.0

    def add(self, other: StageCounts) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


class Ledger:
    """Thread-safe ledger; ``to_dict()`` goes into annotation manifests as is."""

    def __init__(self, price_prompt: float | None = None, price_completion: float | None = None) -> None:
        self.price_prompt = price_prompt
        self.price_completion = price_completion
        self._stages: dict[str, StageCounts] = {}
        self._lock = threading.Lock()

    def _stage(self, stage: str) -> StageCounts:
        return self._stages.setdefault(stage, StageCounts())

    def record_call(self, stage: str, prompt_tokens: int, completion_tokens: int, latency_s: float) -> None:
        """One HTTP call that returned an answer (well formed or not): its tokens were spent."""
        with self._lock:
            s = self._stage(stage)
            s.api_calls += 1
            s.prompt_tokens += prompt_tokens
            s.completion_tokens += completion_tokens
            s.latency_s += latency_s

    def record_retry(self, stage: str) -> None:
        with self._lock:
            self._stage(stage).retries += 1

    def record_result(self, stage: str, ok: bool, cached: bool, usage: dict[str, int] | None = None) -> None:
        """One finished request (after its retries), from the cache or not."""
        with self._lock:
            s = self._stage(stage)
            s.requests += 1
            s.failures += 0 if ok else 1
            if cached:
                s.cache_hits += 1
                s.cached_prompt_tokens += (usage or {}).get("prompt_tokens", 0)
                s.cached_completion_tokens += (usage or {}).get("completion_tokens", 0)

    def record_gave_up(self, stage: str) -> None:
        """A request left unasked: its failures across runs reached the client's bound (a failure, no
        call)."""
        with self._lock:
            s = self._stage(stage)
            s.requests += 1
            s.failures += 1
            s.gave_up += 1

    def cost(self, counts: StageCounts) -> float | None:
        """Cost of the tokens spent in this run, or None without a price table."""
        if self.price_prompt is None or self.price_completion is None:
            return None
        return (
            counts.prompt_tokens * self.price_prompt + counts.completion_tokens * self.price_completion
        ) / 1e6

    def stage(self, stage: str) -> StageCounts:
        """A copy of one stage's counters (zeros when unseen)."""
        with self._lock:
            return StageCounts(**asdict(self._stages.get(stage, StageCounts())))

    def total(self) -> StageCounts:
        with self._lock:
            out = StageCounts()
            for counts in self._stages.values():
                out.add(counts)
            return out

    def to_dict(self) -> dict[str, Any]:
        """``{"stages": {stage: counters+cost}, "total": counters+cost, "price_per_1m": ...}``."""
        with self._lock:
            stages = {name: StageCounts(**asdict(c)) for name, c in sorted(self._stages.items())}
        total = StageCounts()
        for counts in stages.values():
            total.add(counts)

        def row(c: StageCounts) -> dict[str, Any]:
            return {**asdict(c), "latency_s": round(c.latency_s, 3), "cost": self.cost(c)}

        return {
            "stages": {name: row(c) for name, c in stages.items()},
            "total": row(total),
            "price_per_1m": {"prompt": self.price_prompt, "completion": self.price_completion},
        }

    def summary(self) -> str:
        """A plain-text table, one line per stage and a total."""
        data = self.to_dict()
        cols = [
            "requests",
            "api_calls",
            "retries",
            "cache_hits",
            "failures",
            "prompt_tokens",
            "completion_tokens",
        ]
        head = f"{'stage':<20}" + "".join(f"{c:>18}" for c in cols) + f"{'cost':>12}"
        lines = [head]
        for name, r in [*data["stages"].items(), ("TOTAL", data["total"])]:
            cost = "-" if r["cost"] is None else f"{r['cost']:.4f}"
            lines.append(f"{name:<20}" + "".join(f"{r[c]:>18}" for c in cols) + f"{cost:>12}")
        return "\n".join(lines)
