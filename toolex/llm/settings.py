"""Connection and sampling settings of the LLM endpoint.

The API key is never a field: it is read from the environment (``TOOLEX_LLM_API_KEY``, then
``OPENAI_API_KEY``) when the HTTP client is built, so it cannot reach a cache key, a manifest, a log or a
``repr``.

Each ToolEX stage, and each role of the downstream experiment (``AGENT``, ``SIMULATOR``, ``EVALUATOR``), may
use its own model and endpoint: ``TOOLEX_LLM_{DECOMPOSE,VERIFY,AUDIT}_<FIELD>`` (any
field below, e.g. ``TOOLEX_LLM_AUDIT_MODEL``, ``TOOLEX_LLM_VERIFY_BASE_URL``) and
``TOOLEX_LLM_<STAGE>_API_KEY`` override the common ``TOOLEX_LLM_*`` values for that stage only
(:meth:`LLMSettings.for_stage`).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from toolex.errors import ToolexError

KEY_ENV_VARS = ("TOOLEX_LLM_API_KEY", "OPENAI_API_KEY")
STAGES = ("decompose", "verify", "audit")  # ToolEX's three stages
DOWNSTREAM_STAGES = ("agent", "simulator", "evaluator")  # the downstream experiment's three roles
KNOWN_STAGES = (*STAGES, *DOWNSTREAM_STAGES)
API_CONTEXT_TOKENS = 128_000  # default context of an API model (a setting: TOOLEX_LLM_CONTEXT_TOKENS)
LOCAL_CONTEXT_TOKENS = 4096  # what ``toolex.llm.local up`` starts the server with (TOOLEX_LLM_N_CTX)
RESPONSE_FORMATS = ("auto", "json_schema", "json_object", "prompt")

LOCAL_MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct-q4_k_m"
LOCAL_HOST = "127.0.0.1"
LOCAL_DEFAULT_PORT = 8012


class SettingsError(ToolexError, ValueError):
    """An LLM setting is missing or malformed (names the environment variable)."""


def local_port() -> int:
    """Port of the local llama.cpp server (``TOOLEX_LLM_PORT``, default 8012)."""
    return int(os.environ.get("TOOLEX_LLM_PORT", LOCAL_DEFAULT_PORT))


@dataclass(frozen=True)
class LLMSettings:
    """Where to send requests and how to sample.

    ``response_format`` picks how JSON output is requested: ``json_schema`` (OpenAI structured output,
    vLLM, recent llama.cpp), ``json_object`` (``{"type": "json_object", "schema": ...}``, llama-cpp-python
    server and DeepSeek), ``prompt`` (schema only in the prompt) or ``auto`` (try ``json_schema`` and step
    down when the server rejects it). ``price_prompt`` / ``price_completion`` are currency units per one
    million tokens; when both are set the ledger reports cost. ``context_tokens`` is the model's context
    window (prompt + answer), which prompts are fitted into; ``tokenizer`` counts their tokens (``auto``,
    ``estimate``, ``tiktoken:<encoding>`` or ``hf:<name or path>``, see :mod:`toolex.llm.tokens`).
    ``stage`` names the ToolEX stage these settings serve (its own API key variable is read first);
    ``stages`` holds the per-stage overrides read from the environment.
    """

    base_url: str = f"http://{LOCAL_HOST}:{LOCAL_DEFAULT_PORT}/v1"
    model: str = LOCAL_MODEL_ALIAS
    temperature: float = 0.0
    max_tokens: int = 256
    timeout: float = 120.0
    max_retries: int = 4
    malformed_retries: int = 1
    backoff: float = 1.0
    concurrency: int = 2
    seed: int | None = 0
    offline: bool = False
    response_format: str = "auto"
    price_prompt: float | None = None
    price_completion: float | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    context_tokens: int = API_CONTEXT_TOKENS
    tokenizer: str = "auto"
    stage: str | None = None
    stages: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.response_format not in RESPONSE_FORMATS:
            raise SettingsError(
                f"response_format must be one of {RESPONSE_FORMATS}, got {self.response_format!r}"
            )
        if self.concurrency < 1 or self.max_retries < 0 or self.malformed_retries < 0:
            raise SettingsError("concurrency must be >= 1 and retry counts >= 0")
        if self.context_tokens <= self.max_tokens:
            raise SettingsError(f"context_tokens ({self.context_tokens}) must exceed max_tokens "
                                f"({self.max_tokens})")
        unknown = set(self.stages) - set(KNOWN_STAGES)
        if unknown or (self.stage is not None and self.stage not in KNOWN_STAGES):
            raise SettingsError(f"unknown stage(s) {sorted(unknown) or [self.stage]}; stages are "
                                f"{KNOWN_STAGES}")

    @classmethod
    def local(cls, port: int | None = None, **overrides: Any) -> LLMSettings:
        """Settings for the local llama-cpp-python server started by ``toolex.llm.local up``."""
        base: dict[str, Any] = dict(
            base_url=f"http://{LOCAL_HOST}:{port or local_port()}/v1",
            model=LOCAL_MODEL_ALIAS,
            response_format="json_object",
            concurrency=2,
            seed=0,
            timeout=300.0,
            context_tokens=_local_context(),
        )
        base.update(overrides)
        return cls(**base)

    @classmethod
    def local_from_env(cls, **overrides: Any) -> LLMSettings:
        """The local preset with the ``TOOLEX_LLM_*`` tuning variables applied (concurrency, timeout, ...)
        and each stage's or role's own (``TOOLEX_LLM_<STAGE>_*``); every ``BASE_URL`` and ``MODEL`` is
        ignored: the local server is always the target."""
        endpoint = ("base_url", "model")
        values = {k: v for k, v in cls._env_values().items() if k not in endpoint}
        stages = {s: own for s in KNOWN_STAGES if (own := {k: v for k, v in cls._env_values(
            f"TOOLEX_LLM_{s.upper()}_").items() if k not in endpoint})}
        return cls.local(**{**values, "stages": stages, **overrides})

    @classmethod
    def _env_values(cls, prefix: str = "TOOLEX_LLM_") -> dict[str, Any]:
        env = os.environ
        values: dict[str, Any] = {}
        for name, kind in _ENV_FIELDS.items():
            var = f"{prefix}{name.upper()}"
            raw = env.get(var)
            if raw is None or raw == "":
                continue
            try:
                values[name] = _parse(raw, kind)
            except ValueError as exc:
                raise SettingsError(f"{var}={raw!r}: {exc}") from None
        return values

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMSettings:
        """Settings from ``TOOLEX_LLM_*`` variables; without ``TOOLEX_LLM_BASE_URL`` the local preset.

        An endpoint without a model is refused (the local model's name would label, and be sent to, the API);
        so is a per-stage model without an endpoint for it. Per-stage overrides go to ``stages``.
        """
        values = {**cls._env_values(), **overrides}
        stages = {s: v for s in KNOWN_STAGES if (v := cls._env_values(f"TOOLEX_LLM_{s.upper()}_"))}
        if "base_url" in values and "model" not in values:
            raise SettingsError("TOOLEX_LLM_BASE_URL is set but TOOLEX_LLM_MODEL is not: name the model to "
                                "ask at that endpoint")
        for stage, own in stages.items():
            var = f"TOOLEX_LLM_{stage.upper()}"
            if "base_url" in own and "model" not in own and "model" not in values:
                raise SettingsError(f"{var}_BASE_URL is set but neither {var}_MODEL nor TOOLEX_LLM_MODEL is")
            if "model" in own and "base_url" not in own and "base_url" not in values:
                raise SettingsError(f"{var}_MODEL={own['model']!r} needs an endpoint: set "
                                    f"TOOLEX_LLM_BASE_URL or {var}_BASE_URL")
        values.setdefault("stages", stages)
        if "base_url" not in values:
            return cls.local(**values)
        return cls(**values)

    def for_stage(self, stage: str) -> LLMSettings:
        """The settings of one ToolEX stage: the common ones with that stage's overrides applied."""
        if stage not in KNOWN_STAGES:
            raise SettingsError(f"unknown stage {stage!r}; stages are {KNOWN_STAGES}")
        return dataclasses.replace(self, **{**self.stages.get(stage, {}), "stage": stage, "stages": {}})

    def replace(self, **changes: Any) -> LLMSettings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def api_key(self) -> str | None:
        """The key from the environment, or None (never stored on the settings); a stage's own
        ``TOOLEX_LLM_<STAGE>_API_KEY`` comes first."""
        own = (f"TOOLEX_LLM_{self.stage.upper()}_API_KEY",) if self.stage else ()
        for var in (*own, *KEY_ENV_VARS):
            if os.environ.get(var):
                return os.environ[var]
        return None

    def public_dict(self) -> dict[str, Any]:
        """Everything needed to describe a run in a manifest (the key is not a field, so never here)."""
        out = dataclasses.asdict(self)
        out["api_key_set"] = self.api_key() is not None
        return out


_ENV_FIELDS: dict[str, str] = {
    "base_url": "str",
    "model": "str",
    "temperature": "float",
    "max_tokens": "int",
    "timeout": "float",
    "max_retries": "int",
    "malformed_retries": "int",
    "backoff": "float",
    "concurrency": "int",
    "seed": "optint",
    "offline": "bool",
    "response_format": "str",
    "price_prompt": "float",
    "price_completion": "float",
    "context_tokens": "int",
    "tokenizer": "str",
}


def _local_context() -> int:
    """The context the local server is started with (``TOOLEX_LLM_N_CTX``, as :mod:`toolex.llm.local`)."""
    raw = os.environ.get("TOOLEX_LLM_N_CTX", "")
    try:
        return int(raw) if raw else LOCAL_CONTEXT_TOKENS
    except ValueError:
        raise SettingsError(f"TOOLEX_LLM_N_CTX={raw!r}: expected an integer") from None


def _parse(raw: str, kind: str) -> Any:
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    if kind == "optint":
        return None if raw.lower() in ("none", "null", "") else int(raw)
    if kind == "bool":
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected a boolean (1/0, true/false)")
    return raw
