"""JSON-by-schema chat completions over any OpenAI-compatible endpoint, cached and accounted.

Works with OpenAI, DeepSeek, vLLM, the llama.cpp / llama-cpp-python servers and Ollama through the
``openai`` package. Every answer is parsed and validated strictly against the schema; a malformed or
truncated answer is retried and then returned as ``LLMResult(ok=False, error=..., raw=...)`` -- never
read as a "no", and never replayed from the cache as an answer (a later run asks again, at most
``max_failed`` times per request in all). ``health_check()`` fails fast on an endpoint that cannot be reached.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any

from toolex.errors import ToolexError
from toolex.llm.cache import OfflineCacheFailure, OfflineCacheMiss, ResponseCache, request_key
from toolex.llm.ledger import Ledger
from toolex.llm.retry import Action, Outcome, RetryPolicy, RetryState, response_body, retry_after
from toolex.llm.schema import MalformedAnswer, parse_json_answer, schema_instruction
from toolex.llm.settings import LOCAL_MODEL_ALIAS, LLMSettings

Message = dict[str, Any]
_MODES = ("json_schema", "json_object", "prompt")
MAX_FAILED = 3  # failed answers recorded for one request across runs before it is no longer asked
HEALTH_TIMEOUT = 10.0


class LLMConfigError(ToolexError, RuntimeError):
    """The endpoint refuses every request (bad key, unknown model, wrong URL): stop, do not retry."""


@dataclass(frozen=True)
class LLMRequest:
    """One request of :meth:`LLMClient.map_json`."""

    messages: list[Message]
    schema: dict[str, Any]
    name: str = "answer"


@dataclass
class LLMResult:
    """Outcome of one request. ``data`` is the validated JSON value when ``ok``; ``raw`` is the text."""

    ok: bool
    data: Any = None
    raw: str | None = None
    error: str | None = None
    cached: bool = False
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    latency: float = 0.0
    key: str = ""
    stage: str = ""
    name: str = ""
    finish_reason: str | None = None
    attempts: int = 0


class LLMUnreachable(LLMConfigError):
    """Nothing answers at the endpoint (refused, unresolvable or timed out)."""


@dataclass
class _Attempt:
    """One HTTP request and how it ended; ``data`` is the validated answer when the outcome is ``answer``."""

    outcome: Outcome
    raw: str = ""
    finish: str | None = None
    error: str = ""
    exc: Exception | None = None
    usage: tuple[int, int] = (0, 0)
    data: Any = None


class LLMClient:
    """Cached, retried, schema-validated chat completions.

    ``complete_json`` answers one request, ``map_json`` many in parallel (results in input order).
    """

    def __init__(
        self,
        settings: LLMSettings | None = None,
        cache: ResponseCache | None = None,
        ledger: Ledger | None = None,
        api_key: str | None = None,
        max_failed: int = MAX_FAILED,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.settings = settings or LLMSettings.from_env()
        self.retry = retry or RetryPolicy.from_settings(self.settings, max_failed)
        self.cache = cache if cache is not None else ResponseCache()
        self.ledger = ledger or Ledger(self.settings.price_prompt, self.settings.price_completion)
        self._explicit_key = api_key
        self._client: Any = None
        self._client_lock = threading.Lock()
        first = self.settings.response_format
        self._mode = "json_schema" if first == "auto" else first
        self._mode_lock = threading.Lock()

    def __repr__(self) -> str:
        s = self.settings
        return f"LLMClient(base_url={s.base_url!r}, model={s.model!r}, offline={s.offline})"

    @property
    def max_failed(self) -> int:
        """Failed answers recorded for one request across runs before it is no longer asked."""
        return self.retry.max_failed

    # -- plumbing -------------------------------------------------------------------------------------
    def _openai(self) -> Any:
        with self._client_lock:
            if self._client is None:
                from openai import OpenAI

                key = self._explicit_key or self.settings.api_key() or "no-key"
                self._client = OpenAI(
                    base_url=self.settings.base_url, api_key=key, timeout=self.settings.timeout, max_retries=0
                )
            return self._client

    @property
    def mode(self) -> str:
        """How JSON output is requested right now (``auto`` steps down on a rejected request)."""
        return self._mode

    def _step_down(self, mode: str) -> bool:
        if self.settings.response_format != "auto" or mode == "prompt":
            return False
        with self._mode_lock:
            if self._mode == mode:
                self._mode = _MODES[_MODES.index(mode) + 1]
        return True

    def key_for(self, messages: list[Message], schema: dict[str, Any], name: str = "answer") -> str:
        """Cache key of a request: model, messages and every parameter that shapes the answer."""
        s = self.settings
        params = {
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "seed": s.seed,
            "response_format": s.response_format,
            "schema": schema,
            "schema_name": name,
            "extra_body": s.extra_body,
        }
        return request_key(s.model, messages, params)

    def _kwargs(
        self, mode: str, messages: list[Message], schema: dict[str, Any], name: str
    ) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
        }
        if s.seed is not None:
            kwargs["seed"] = s.seed
        if mode == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64],
                    "schema": schema,
                    "strict": True,
                },
            }
        elif mode == "json_object":
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        else:
            kwargs["messages"] = [*messages, {"role": "system", "content": schema_instruction(schema)}]
        if s.extra_body:
            kwargs["extra_body"] = s.extra_body
        return kwargs

    # -- health --------------------------------------------------------------------------------------
    def check_model_configured(self) -> None:
        """Refuse an API endpoint (``TOOLEX_LLM_BASE_URL``) whose model was left at the local default."""
        s = self.settings
        if (os.environ.get("TOOLEX_LLM_BASE_URL") == s.base_url and not os.environ.get("TOOLEX_LLM_MODEL")
                and s.model == LOCAL_MODEL_ALIAS):
            raise LLMConfigError(
                f"no model configured for {s.base_url}: set TOOLEX_LLM_MODEL (the default {s.model!r} names "
                "the local server's model, not this endpoint's)")

    def health_check(self) -> None:
        """A cheap request (``GET /models``) before any stage: fail fast when the endpoint cannot be reached.

        Raises :class:`LLMUnreachable` (naming URL and model) when no connection is made,
        :class:`LLMConfigError` on refused credentials or an unconfigured API model. Any other HTTP answer
        counts as reachable (not every server lists its models), and so does a connection that answers late (a
        busy local server). Nothing is checked in offline mode.
        """
        import httpx
        import openai

        self.check_model_configured()
        s = self.settings
        if s.offline:
            return
        timeout = httpx.Timeout(min(s.timeout, HEALTH_TIMEOUT), connect=min(s.timeout, HEALTH_TIMEOUT))
        try:
            self._openai().with_options(timeout=timeout, max_retries=0).models.list()
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise LLMConfigError(f"{s.base_url} (model {s.model!r}) refused the credentials: "
                                 f"HTTP {exc.status_code}") from None
        except (openai.APIStatusError, openai.APIResponseValidationError):
            return  # it answered
        except openai.APITimeoutError as exc:
            if not isinstance(exc.__cause__, httpx.ConnectTimeout):
                return  # connected, but busy answering others (a local server generates one answer at a time)
            raise LLMUnreachable(f"LLM endpoint {s.base_url} (model {s.model!r}) cannot be reached: "
                                 f"no connection within {timeout.connect:g} s") from None
        except openai.APIConnectionError as exc:
            raise LLMUnreachable(f"LLM endpoint {s.base_url} (model {s.model!r}) cannot be reached: "
                                 f"{type(exc).__name__}: {exc}") from None

    # -- public API -----------------------------------------------------------------------------------
    def complete_json(
        self, messages: list[Message], schema: dict[str, Any], stage: str, name: str = "answer"
    ) -> LLMResult:
        """Ask for one JSON value matching ``schema``; see :class:`LLMResult`.

        A cached answer is replayed; a cached failure never is: the request is asked again, until
        ``max_failed`` failures are recorded for it across runs, after which the failure is reported
        without a call. Raises :class:`OfflineCacheMiss` in offline mode on a miss
        (:class:`OfflineCacheFailure` when only failures are cached) and :class:`LLMConfigError` when the
        endpoint refuses the credentials, the model or the URL (401/403/404).
        """
        key = self.key_for(messages, schema, name)
        record = self.cache.get(key)
        if record is not None:
            result = LLMResult(
                ok=True, data=record.get("data"), raw=record.get("raw"), error=None,
                cached=True, usage=record.get("usage") or {"prompt_tokens": 0, "completion_tokens": 0},
                latency=0.0, key=key, stage=stage, name=name, finish_reason=record.get("finish_reason"),
                attempts=0,
            )  # fmt: skip
            self.ledger.record_result(stage, True, cached=True, usage=result.usage)
            return result
        failures = self.cache.failures(key)
        if self.settings.offline:
            if failures:
                raise OfflineCacheFailure(stage, key, name, failures)
            raise OfflineCacheMiss(stage, key, name)
        if self.retry.exhausted(len(failures)):
            last = failures[-1]
            self.ledger.record_gave_up(stage)
            return LLMResult(ok=False, raw=last.get("raw"), key=key, stage=stage, name=name, attempts=0,
                             finish_reason=last.get("finish_reason"),
                             error=f"failed in {len(failures)} runs, not asked again (last: "
                                   f"{last.get('error')})")
        result = self._call(messages, schema, stage, name, key)
        self.ledger.record_result(stage, result.ok, cached=False)
        return result

    def _attempt(self, mode: str, messages: list[Message], schema: dict[str, Any], name: str,
                 stage: str) -> _Attempt:
        """One HTTP request and its answer parsed; raises :class:`LLMConfigError` on 401/403/404."""
        import openai

        t0 = time.monotonic()
        try:
            response = self._openai().chat.completions.create(**self._kwargs(mode, messages, schema, name))
        except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError) as exc:
            return _Attempt(Outcome.TRANSIENT, error=f"{type(exc).__name__}: {exc}", exc=exc)
        except openai.APIStatusError as exc:
            status = exc.status_code
            error = f"HTTP {status}: {exc.message}"
            if status in (401, 403, 404):
                raise LLMConfigError(
                    f"{self.settings.base_url} (model {self.settings.model!r}) refused the request "
                    f"({error}); "
                    "check URL, model and key"
                ) from None
            rejected_format = status in (400, 422) or "response_format" in str(exc.message)
            if mode != "prompt" and rejected_format and self._step_down(mode):
                return _Attempt(Outcome.STEP_DOWN, error=error)  # llama-cpp-python answers it with HTTP 500
            outcome = Outcome.TRANSIENT if status == 429 or status >= 500 else Outcome.REJECTED
            return _Attempt(outcome, error=error, exc=exc, raw=response_body(exc) or "")
        except openai.APIResponseValidationError as exc:
            return _Attempt(Outcome.MALFORMED, error=f"unreadable response body: {exc}")
        pt = getattr(getattr(response, "usage", None), "prompt_tokens", 0) or 0
        ct = getattr(getattr(response, "usage", None), "completion_tokens", 0) or 0
        self.ledger.record_call(stage, pt, ct, time.monotonic() - t0)
        choices = getattr(response, "choices", None)
        if isinstance(response, str) or not choices or getattr(choices[0], "message", None) is None:
            return _Attempt(Outcome.MALFORMED, raw=str(response)[:2000], usage=(pt, ct),
                            error="response without choices[0].message (not a chat completion)")
        raw, finish = choices[0].message.content or "", choices[0].finish_reason
        try:
            data = parse_json_answer(raw, finish, schema)
        except MalformedAnswer as exc:
            return _Attempt(Outcome.MALFORMED, raw=raw, finish=finish, error=str(exc), usage=(pt, ct))
        return _Attempt(Outcome.ANSWER, raw=raw, finish=finish, usage=(pt, ct), data=data)

    def _call(
        self, messages: list[Message], schema: dict[str, Any], stage: str, name: str, key: str
    ) -> LLMResult:
        """:meth:`_attempt` until :attr:`retry` says stop; a final malformed answer is cached as a failure, a
        transport failure is not (the next run asks again)."""
        state = RetryState()
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        started = time.monotonic()
        while True:
            a = self._attempt(self._mode, messages, schema, name, stage)
            usage = {"prompt_tokens": usage["prompt_tokens"] + a.usage[0],
                     "completion_tokens": usage["completion_tokens"] + a.usage[1]}
            state = replace(state, attempts=state.attempts + 1)
            decision = self.retry.decide(a.outcome, state, retry_after(a.exc))
            state = decision.state
            if decision.retry:
                self.ledger.record_retry(stage)
            if decision.action is Action.WAIT:
                time.sleep(decision.delay)
            elif decision.action is Action.GIVE_UP:
                error = (a.error if a.outcome is Outcome.REJECTED
                         else f"gave up after {state.attempts} attempt(s): {a.error}")
                return LLMResult(ok=False, error=error, raw=a.raw or None, key=key, stage=stage, name=name,
                                 usage=usage, latency=time.monotonic() - started, attempts=state.attempts)
            elif decision.action is Action.DONE:
                return self._store(stage, key, name, True, a.data, a.raw, None, a.finish, usage, started,
                                   state.attempts)
            elif decision.action is Action.FAIL:
                return self._store(stage, key, name, False, None, a.raw, a.error, a.finish, usage, started,
                                   state.attempts)

    def _store(
        self, stage: str, key: str, name: str, ok: bool, data: Any, raw: str, error: str | None,
        finish: str | None, usage: dict[str, int], started: float, attempts: int,
    ) -> LLMResult:  # fmt: skip
        latency = time.monotonic() - started
        record = {
            "ok": ok, "data": data, "raw": raw, "error": error, "finish_reason": finish, "usage": usage,
            "name": name, "model": self.settings.model, "latency": round(latency, 4), "mode": self._mode,
        }  # fmt: skip
        self.cache.put(stage, key, record)
        return LLMResult(ok=ok, data=data, raw=raw, error=error, usage=usage, latency=latency, key=key,
                         stage=stage, name=name, finish_reason=finish, attempts=attempts)  # fmt: skip

    def map_json(
        self,
        requests: Sequence[LLMRequest | Mapping[str, Any] | tuple[Any, ...]],
        stage: str,
        progress: bool = True,
        desc: str | None = None,
    ) -> list[LLMResult]:
        """Run many requests with at most ``settings.concurrency`` in flight; results in input order.

        Each request is an :class:`LLMRequest`, a mapping with ``messages``/``schema``/``name`` or a tuple
        ``(messages, schema[, name])``. Every answer is cached as it arrives.
        """
        from tqdm.auto import tqdm

        reqs = [_as_request(r) for r in requests]
        results: list[LLMResult | None] = [None] * len(reqs)
        bar = tqdm(total=len(reqs), desc=desc or stage, disable=not progress or not reqs, leave=False)
        pool = ThreadPoolExecutor(max_workers=self.settings.concurrency)
        try:
            futures = {
                pool.submit(self.complete_json, r.messages, r.schema, stage, r.name): i
                for i, r in enumerate(reqs)
            }
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    results[futures[fut]] = fut.result()  # re-raises offline misses and config errors
                    bar.update(1)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            bar.close()
        return [r for r in results if r is not None]


def _as_request(item: LLMRequest | Mapping[str, Any] | tuple[Any, ...]) -> LLMRequest:
    if isinstance(item, LLMRequest):
        return item
    if isinstance(item, Mapping):
        return LLMRequest(list(item["messages"]), dict(item["schema"]), item.get("name", "answer"))
    return LLMRequest(*item)
