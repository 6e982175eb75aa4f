"""LLM layer of ToolEX: schema-constrained JSON answers from any OpenAI-compatible endpoint.

Typical use by an annotation stage::

    from toolex.llm import LLMClient, LLMRequest, LLMSettings

    client = LLMClient(LLMSettings.from_env())          # local llama server unless TOOLEX_LLM_BASE_URL
    schema = {"type": "object", "additionalProperties": False, "required": ["verdict", "reason"],
              "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]},
                             "reason": {"type": "string"}}}
    res = client.complete_json(messages, schema, stage="verify", name="verdict")
    if res.ok:
        res.data["verdict"]                              # validated against the schema
    else:
        res.error, res.raw                              # a failure, never a silent "no"

    results = client.map_json([LLMRequest(m, schema, "verdict") for m in batch], stage="verify")
    manifest["llm"] = {"settings": client.settings.public_dict(), "ledger": client.ledger.to_dict()}

* ``complete_json(messages, schema, stage, name="answer") -> LLMResult``: cached (key = sha256 of model,
  messages and parameters incl. the schema; never the API key), retried with exponential backoff on
  timeouts, 429 and 5xx, retried on malformed/truncated/schema-violating answers, then returned as
  ``LLMResult(ok=False, error=..., raw=...)``. Offline mode (``TOOLEX_LLM_OFFLINE=1``) replays the cache
  and raises :class:`OfflineCacheMiss` (naming stage and key) on a miss. A 401/403/404 raises
  :class:`LLMConfigError`.
* ``map_json(requests, stage, progress=True) -> list[LLMResult]``: bounded thread concurrency
  (``settings.concurrency``), tqdm progress bar, results in input order.
* For OpenAI ``strict`` structured output, object schemas need ``additionalProperties: false`` and every
  property listed in ``required``. Describe the expected fields in the prompt too: only the ``prompt``
  response format adds the schema to the messages.
* The local server: ``python -m toolex.llm.local {install,up,down,status}`` (``make llm-install``,
  ``llm-up``, ``llm-down``, ``llm-status``).
"""

from toolex.llm.cache import OfflineCacheMiss, ResponseCache, request_key
from toolex.llm.client import LLMClient, LLMConfigError, LLMRequest, LLMResult
from toolex.llm.ledger import Ledger, StageCounts
from toolex.llm.schema import SchemaViolation, is_valid, parse_json_answer, validate
from toolex.llm.settings import LLMSettings, SettingsError

__all__ = [
    "LLMClient",
    "LLMConfigError",
    "LLMRequest",
    "LLMResult",
    "LLMSettings",
    "Ledger",
    "OfflineCacheMiss",
    "ResponseCache",
    "SchemaViolation",
    "SettingsError",
    "StageCounts",
    "is_valid",
    "parse_json_answer",
    "request_key",
    "validate",
]
