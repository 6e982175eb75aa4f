"""Count prompt tokens: the model's own tokenizer where one is known and installed, a safe estimate otherwise.

``counter_for(settings)`` picks by ``settings.tokenizer``:

* ``estimate``: one token per digit plus one per 3 UTF-8 bytes of everything else, rounded up. Tokenizers of
  the Qwen, Llama and GPT families average 3.5-4.5 characters per token on English and JSON and split digits
  one by one, so this over-counts rather than under-counts (a fitted prompt stays inside the context).
* ``tiktoken:<encoding>``: OpenAI's tokenizer (``pip install tiktoken``; the encoding files must be cached).
* ``hf:<name or path>``: a Hugging Face tokenizer from local files only (no download).
* ``auto`` (default): ``tiktoken:o200k_base`` for OpenAI GPT-4o/4.1/o-series models when tiktoken is
  installed, else the estimate. The local GGUF's tokenizer is not installable offline, so it is estimated.

Example::

    >>> EstimateCounter().count("get weather 2024")
    8
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Protocol

from toolex.llm.settings import SettingsError

MESSAGE_OVERHEAD = 8  # tokens of a chat template around one message (role markers, separators), rounded up
_DIGITS = re.compile(r"[0-9]")
_OPENAI_MODELS = re.compile(r"^(gpt-4o|gpt-4\.1|gpt-5|o[1-9])")


class TokenCounter(Protocol):
    """Anything that counts the tokens of a text; ``name`` goes into manifests."""

    name: str

    def count(self, text: str) -> int: ...


class EstimateCounter:
    """A safe (over-counting) estimate: digits one by one, other text at 3 UTF-8 bytes per token."""

    name = "estimate(digits + utf8 bytes/3)"

    def count(self, text: str) -> int:
        digits = len(_DIGITS.findall(text))
        rest = len(text.encode("utf-8")) - digits
        return digits + math.ceil(rest / 3)


class _EncodeCounter:
    def __init__(self, name: str, encode: Any) -> None:
        self.name, self._encode = name, encode

    def count(self, text: str) -> int:
        return len(self._encode(text))


def counter_for(settings: Any) -> TokenCounter:
    """The token counter of a :class:`~toolex.llm.settings.LLMSettings` (see the module docstring)."""
    spec = getattr(settings, "tokenizer", "auto") or "auto"
    model = str(getattr(settings, "model", ""))
    if spec == "estimate":
        return EstimateCounter()
    if spec == "auto":
        if _OPENAI_MODELS.match(model):
            try:
                return _tiktoken("o200k_base")
            except SettingsError:
                pass
        return EstimateCounter()
    kind, _, arg = spec.partition(":")
    if kind == "tiktoken" and arg:
        return _tiktoken(arg)
    if kind == "hf" and arg:
        try:
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(arg, local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - any failure to load means: not available offline
            raise SettingsError(f"TOOLEX_LLM_TOKENIZER={spec!r}: cannot load it from local files "
                                f"({exc})") from None
        return _EncodeCounter(spec, lambda text: tok.encode(text, add_special_tokens=False))
    raise SettingsError(f"TOOLEX_LLM_TOKENIZER={spec!r}: expected auto, estimate, tiktoken:<enc> or "
                        "hf:<name>")


def _tiktoken(encoding: str) -> TokenCounter:
    try:
        import tiktoken

        enc = tiktoken.get_encoding(encoding)
    except Exception as exc:  # noqa: BLE001 - not installed, or the encoding file is not cached
        raise SettingsError(f"tiktoken encoding {encoding!r} is not available offline ({exc})") from None
    return _EncodeCounter(f"tiktoken:{encoding}", lambda text: enc.encode(text, disallowed_special=()))


def count_messages(counter: TokenCounter, messages: Sequence[dict[str, Any]]) -> int:
    """Prompt tokens of chat messages: their contents plus the template's overhead per message."""
    return sum(counter.count(str(m.get("content", ""))) + MESSAGE_OVERHEAD for m in messages) + 2
