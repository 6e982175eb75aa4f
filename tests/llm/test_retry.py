"""The retry policy alone: each outcome of a request and the state so far -> the decision (no HTTP)."""

from __future__ import annotations

import pytest

from toolex.llm import LLMSettings
from toolex.llm.retry import Action, Outcome, RetryPolicy, RetryState


def policy(**changes: object) -> RetryPolicy:
    fields = {"max_retries": 2, "malformed_retries": 1, "backoff": 1.0, "max_failed": 3, "noise": lambda: 0.0}
    return RetryPolicy(**{**fields, **changes})  # type: ignore[arg-type]


def test_a_valid_answer_is_done():
    state = RetryState(attempts=3, transient=1, malformed=1)
    decision = policy().decide(Outcome.ANSWER, state)
    assert decision.action is Action.DONE and decision.state == state and not decision.retry


def test_a_format_step_down_asks_again_at_once_and_free():
    decision = policy(max_retries=0, malformed_retries=0).decide(Outcome.STEP_DOWN, RetryState(attempts=1))
    assert decision.action is Action.AGAIN and decision.state == RetryState(attempts=1)
    assert not decision.retry and decision.delay == 0.0


def test_transient_failures_wait_with_doubling_backoff_then_give_up():
    p, state, delays = policy(max_retries=3, backoff=0.5), RetryState(), []
    for attempt in range(1, 4):
        decision = p.decide(Outcome.TRANSIENT, RetryState(attempt, state.transient, state.malformed))
        assert decision.action is Action.WAIT and decision.retry
        state = decision.state
        delays.append(decision.delay)
    assert state.transient == 3 and delays == [0.5, 1.0, 2.0]
    last = p.decide(Outcome.TRANSIENT, RetryState(4, state.transient, 0))
    assert last.action is Action.GIVE_UP and not last.retry and last.state.transient == 3


def test_no_transport_retries_gives_up_at_once():
    assert policy(max_retries=0).decide(Outcome.TRANSIENT, RetryState(attempts=1)).action is Action.GIVE_UP


def test_a_rejected_request_gives_up_without_retry():
    decision = policy(max_retries=5).decide(Outcome.REJECTED, RetryState(attempts=1))
    assert decision.action is Action.GIVE_UP and not decision.retry


def test_malformed_answers_are_asked_again_then_fail():
    p = policy(malformed_retries=2)
    first = p.decide(Outcome.MALFORMED, RetryState(attempts=1))
    assert first.action is Action.AGAIN and first.retry and first.state.malformed == 1 and first.delay == 0.0
    second = p.decide(Outcome.MALFORMED, RetryState(2, 0, first.state.malformed))
    assert second.action is Action.AGAIN and second.state.malformed == 2
    third = p.decide(Outcome.MALFORMED, RetryState(3, 0, second.state.malformed))
    assert third.action is Action.FAIL and not third.retry


def test_transport_and_malformed_retries_are_counted_apart():
    p = policy(max_retries=1, malformed_retries=1)
    after_transient = p.decide(Outcome.TRANSIENT, RetryState(attempts=1)).state
    assert p.decide(Outcome.MALFORMED, RetryState(2, after_transient.transient, 0)).action is Action.AGAIN
    assert p.decide(Outcome.TRANSIENT, RetryState(3, 1, 1)).action is Action.GIVE_UP
    assert p.decide(Outcome.MALFORMED, RetryState(3, 1, 1)).action is Action.FAIL


@pytest.mark.parametrize("retries, retry_after, noise, expected", [
    (0, None, 0.0, 1.0),
    (2, None, 0.0, 4.0),
    (2, None, 1.0, 5.0),  # up to a quarter more
    (0, 7.0, 0.0, 7.0),  # the server's Retry-After wins when longer
    (2, 0.5, 0.0, 4.0),  # ... but not when shorter
    (10, None, 0.0, 60.0),  # capped
    (0, 600.0, 0.0, 60.0),
])
def test_backoff_delay(retries, retry_after, noise, expected):
    assert policy().delay(retries, retry_after, noise) == pytest.approx(expected)


def test_the_delay_of_a_wait_uses_retry_after_and_noise():
    decision = policy(noise=lambda: 0.5).decide(Outcome.TRANSIENT, RetryState(attempts=2, transient=1), 1.0)
    assert decision.delay == pytest.approx(2.0 * 1.125)
    assert policy().decide(Outcome.TRANSIENT, RetryState(attempts=1), retry_after=9.0).delay == 9.0


def test_failure_budget_across_runs():
    p = policy(max_failed=2)
    assert not p.exhausted(0) and not p.exhausted(1) and p.exhausted(2) and p.exhausted(5)


def test_policy_from_settings_and_client(tmp_path):
    from toolex.llm import LLMClient, ResponseCache

    settings = LLMSettings(max_retries=6, malformed_retries=2, backoff=0.25)
    p = RetryPolicy.from_settings(settings, max_failed=5)
    assert (p.max_retries, p.malformed_retries, p.backoff, p.max_failed) == (6, 2, 0.25, 5)
    client = LLMClient(settings, ResponseCache(tmp_path), max_failed=4)
    assert client.retry == RetryPolicy.from_settings(settings, 4) and client.max_failed == 4
    custom = policy()
    assert LLMClient(settings, ResponseCache(tmp_path), retry=custom).retry is custom
