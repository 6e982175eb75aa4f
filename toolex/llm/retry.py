"""When to ask an LLM endpoint again: the retry policy, apart from the request it governs.

One request (:meth:`toolex.llm.client.LLMClient._attempt`) ends in one :class:`Outcome`;
:meth:`RetryPolicy.decide` turns it and the :class:`RetryState` so far into a :class:`Decision`:

- ``answer`` (valid JSON) -> ``done``;
- ``step_down`` (the server rejected the response format; a simpler one is next) -> ``again`` at once, free;
- ``transient`` (timeout, connection, 429, 5xx) -> ``wait`` with exponential backoff, ``max_retries`` times,
  then ``give_up`` (not cached: the next run asks again);
- ``rejected`` (any other HTTP error) -> ``give_up``;
- ``malformed`` (unparseable, schema-violating or truncated answer) -> ``again``, ``malformed_retries`` times,
  then ``fail`` (cached as a failure).

The failure budget spans runs: a request whose cached failures reach ``max_failed`` is no longer asked
(:meth:`RetryPolicy.exhausted`).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Protocol


class Outcome(str, Enum):
    """How one request ended."""

    ANSWER = "answer"
    STEP_DOWN = "step_down"
    TRANSIENT = "transient"
    REJECTED = "rejected"
    MALFORMED = "malformed"


class Action(str, Enum):
    """What to do after a request."""

    DONE = "done"  # a valid answer: cache and return it
    AGAIN = "again"  # ask again now
    WAIT = "wait"  # ask again after ``Decision.delay`` seconds
    GIVE_UP = "give_up"  # a transport failure: return it, uncached
    FAIL = "fail"  # a malformed answer, retries spent: cache the failure and return it


@dataclass(frozen=True)
class RetryState:
    """Requests made for one call so far, and how many were transport and malformed-answer retries."""

    attempts: int = 0
    transient: int = 0
    malformed: int = 0


@dataclass(frozen=True)
class Decision:
    """The policy's answer: the action, the state after it, and whether it counts as a retry in the ledger."""

    action: Action
    state: RetryState
    retry: bool = False
    delay: float = 0.0


class _RetrySettings(Protocol):
    @property
    def max_retries(self) -> int: ...
    @property
    def malformed_retries(self) -> int: ...
    @property
    def backoff(self) -> float: ...


@dataclass(frozen=True)
class RetryPolicy:
    """Transport retries with backoff, malformed-answer retries and the failure budget of one request."""

    max_retries: int = 4
    malformed_retries: int = 1
    backoff: float = 1.0
    max_delay: float = 60.0
    max_failed: int = 3
    jitter: float = 0.25
    noise: Callable[[], float] = field(default=random.random, compare=False, repr=False)

    @classmethod
    def from_settings(cls, settings: _RetrySettings, max_failed: int = 3) -> RetryPolicy:
        """The policy of :class:`~toolex.llm.settings.LLMSettings` (its retry counts and backoff)."""
        return cls(
            max_retries=settings.max_retries,
            malformed_retries=settings.malformed_retries,
            backoff=settings.backoff,
            max_failed=max_failed,
        )

    def decide(self, outcome: Outcome, state: RetryState, retry_after: float | None = None) -> Decision:
        """The next step after a request that ended in ``outcome`` (``state`` counts it among its attempts).

        ``retry_after`` is the server's Retry-After header in seconds; it matters only for a transient
        failure, whose delay is spread by one draw of ``noise`` (in [0, 1)).
        """
        if outcome is Outcome.ANSWER:
            return Decision(Action.DONE, state)
        if outcome is Outcome.STEP_DOWN:
            return Decision(Action.AGAIN, state)
        if outcome is Outcome.TRANSIENT and state.transient < self.max_retries:
            return Decision(
                Action.WAIT,
                replace(state, transient=state.transient + 1),
                retry=True,
                delay=self.delay(state.transient, retry_after, self.noise()),
            )
        if outcome in (Outcome.TRANSIENT, Outcome.REJECTED):
            return Decision(Action.GIVE_UP, state)
        if state.malformed < self.malformed_retries:
            return Decision(Action.AGAIN, replace(state, malformed=state.malformed + 1), retry=True)
        return Decision(Action.FAIL, state)

    def delay(self, retries: int, retry_after: float | None = None, noise: float = 0.0) -> float:
        """Seconds before transport retry number ``retries + 1``: ``backoff * 2**retries`` spread up by
        ``jitter * noise``, at least the server's Retry-After, at most ``max_delay``."""
        delay = self.backoff * (2**retries) * (1 + self.jitter * noise)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, self.max_delay)

    def exhausted(self, failures: int) -> bool:
        """Whether a request with ``failures`` cached failed answers (across runs) is no longer asked."""
        return failures >= self.max_failed


def retry_after(exc: Exception | None) -> float | None:
    """The Retry-After header (seconds) of a failed HTTP response, if it has a readable one."""
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    with contextlib.suppress(TypeError, ValueError):
        return float(headers.get("retry-after", 0))
    return None


def response_body(exc: Any) -> str | None:
    """The text of a failed HTTP response, if it has one."""
    response = getattr(exc, "response", None)
    try:
        return None if response is None else response.text
    except Exception:  # noqa: BLE001 - the body is best effort
        return None
