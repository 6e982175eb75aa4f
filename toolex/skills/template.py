"""The offline query writer: a first-person request built deterministically from the seed skills'
descriptions.

Used when no LLM is configured, so the skill benchmark can always be built; its queries carry the generator
label ``offline-template``. For each skill of the seed, the first sentence of its description (at most
``max_words`` words) is rewritten into a request, after removing every variant of the skill names:

* ``Use (this skill) when/whenever the user wants to X`` -> ``I want to X``; ``Use when X`` -> ``I need help
X``;
  ``Use for X`` -> ``I need help with X``; ``Use to X`` -> ``I want to X``;
* a leading third-person verb (``Creates X``) -> ``Can you help me create X``;
* a leading imperative verb (``Create X``) -> ``Please create X``;
* anything else (a noun phrase) -> ``I need help with this: X``;

``the user`` / ``their`` become ``me`` / ``my``. The requests of a multi-skill seed are joined with ``Then``
and ``Finally``. The same seeds always give the same text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolex.data.records import Tool
from toolex.skills.seeds import Seed
from toolex.skills.text import description_of, strip_names

GENERATOR = "offline-template"
TEMPLATE_VERSION = 2
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(\[])")
_USE = re.compile(
    r"^(?:use|used|invoke|apply|trigger|activate|load)\s+(?:this\s+(?:skill|tool)\s+|it\s+)?"
    r"(?P<how>when|whenever|if|for|to|while|during|before|after|on|in)\s+(?P<rest>.+)$", re.IGNORECASE)
_SUBJECT = re.compile(
    r"^(?:the\s+|a\s+)?(?:user|users|you|someone|claude|the\s+model)\s+(?:explicitly\s+)?"
    r"(?:wants?|needs?|asks?|requests?|would\s+like|is\s+asked|mentions?)\s+(?:to\s+|for\s+|about\s+)?",
    re.IGNORECASE)
_LEAD = re.compile(r"^(?:this\s+skill\s+|a\s+skill\s+(?:that|to|for)\s+|skill\s+(?:for|to)\s+)",
                   re.IGNORECASE)
IMPERATIVES = frozenset(
    [
        "add", "analyze", "analyse", "audit", "automate", "build", "check", "clean", "compare", "configure",
        "convert", "create", "debug", "deploy", "design", "detect", "document", "draft", "edit", "evaluate",
        "explain", "export", "extract", "find", "fix", "format", "generate", "guide", "help", "identify",
        "implement", "improve", "integrate", "manage", "migrate", "monitor", "optimize", "optimise",
        "organize", "parse", "plan", "prepare", "process", "refactor", "render", "review", "run", "scan",
        "scrape", "search", "set", "setup", "summarize", "summarise", "test", "track", "transform",
        "translate", "update", "upload", "validate", "verify", "visualize", "write", "send", "post", "fetch",
        "query", "download", "sync", "schedule", "compose", "publish", "share", "store", "load", "read",
        "call", "connect", "install", "control", "collect", "capture", "record", "simulate", "predict",
        "calculate", "compute", "estimate", "benchmark", "profile", "style", "orchestrate", "coordinate",
        "deliver", "draw", "assess", "measure",
    ])
_PRONOUNS = ((r"\bthe user's\b", "my"), (r"\bthe user\b", "I"), (r"\btheir\b", "my"), (r"\bthey\b", "I"),
             (r"\byour\b", "my"), (r"\bthis skill\b", "this"))


def first_sentence(text: str, max_words: int = 40) -> str:
    """The first sentence of a description, cut at ``max_words`` words, without trailing punctuation."""
    text = re.sub(r"\s+", " ", text).strip().strip("\"'")
    sentence = _SENTENCE.split(text, maxsplit=1)[0]
    words = sentence.split()
    return " ".join(words[:max_words]).rstrip(" .,;:!")


def base_verb(word: str) -> str:
    """``creates`` -> ``create``, ``applies`` -> ``apply``, ``processes`` -> ``process``."""
    lower = word.lower()
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zes")):
        return lower[:-2]
    if lower.endswith("s") and not lower.endswith("ss"):
        return lower[:-1]
    return lower


def _lower_first(text: str) -> str:
    if text[:2] in ("I ", "I'") or text[:1].isupper() and text[1:2].isupper():
        return text
    return text[:1].lower() + text[1:]


def request_from(description: str, names: Sequence[str], max_words: int = 40) -> str:
    """One first-person request from one description (see the module docstring)."""
    text = strip_names(first_sentence(description, max_words), names)
    text = _LEAD.sub("", text).strip()
    text = re.sub(r"^(?:is|are|[-–—:|])\s+", "", text, flags=re.IGNORECASE)
    return _first_person(_rewrite(text))


def _first_person(text: str) -> str:
    for pattern, replacement in _PRONOUNS:
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    return text


def _rewrite(text: str) -> str:
    use = _USE.match(text)
    if use:
        how, rest = use.group("how").lower(), use.group("rest").strip()
        subject = _SUBJECT.match(rest)
        if subject:
            rest = rest[subject.end():]
            if how == "for":
                return f"I need help with {_lower_first(rest)}"
            return f"I want to {_lower_first(rest)}"
        if how == "to":
            return f"I want to {_lower_first(rest)}"
        if how == "for":
            return f"I need help with {_lower_first(rest)}"
        if how in ("when", "whenever", "while", "during"):
            return f"I need help {_lower_first(rest)}"
        return f"I need help {how} {_lower_first(rest)}"
    words = text.split(maxsplit=1)
    if not words:
        return ""
    head, tail = words[0], (words[1] if len(words) > 1 else "")
    if head.lower() in IMPERATIVES:
        return f"Please {head.lower()} {tail}".strip()
    base = base_verb(head)
    if head[:1].isupper() and head.lower().endswith("s") and base in IMPERATIVES | {"provide", "enable",
                                                                                    "offer",
                                                                                     "handle", "assist",
                                                                                     "support",
                                                                                     "perform", "give",
                                                                                     "teach"}:
        return f"Can you help me {base} {tail}".strip()
    return f"I need help with this: {_lower_first(text)}"


def template_query(tools: Sequence[Tool], all_names: Sequence[str] | None = None, max_words: int = 40) -> str:
    """The request of a seed: one request per skill, joined with ``Then`` / ``Finally``."""
    names = list(all_names) if all_names is not None else [t.name for t in tools]
    parts = [request_from(description_of(t), names, max_words) for t in tools]
    parts = [p.rstrip(" .") for p in parts if p]
    if not parts:
        return ""
    joined = parts[0] + "."
    for i, part in enumerate(parts[1:], 1):
        word = "Finally," if i == len(parts) - 1 and len(parts) > 2 else "Then,"
        joined += f" {word} {_lower_first(part)}."
    return joined


class TemplateGenerator:
    """Writes queries with :func:`template_query` (no model, no network)."""

    name = GENERATOR

    def __init__(self, max_words: int = 40) -> None:
        self.max_words = max_words

    def describe(self) -> dict[str, Any]:
        return {"generator": self.name, "template_version": TEMPLATE_VERSION,
                "method": "first description sentence rewritten into a request; "
                "skill names stripped (see toolex.skills.template)", "max_words": self.max_words}

    def generate(self, seeds: Sequence[Seed],
                 pool: Mapping[str, Tool]) -> list[tuple[str | None, str | None]]:
        """``(query, None)`` per seed, or ``(None, reason)`` when nothing usable is left."""
        out: list[tuple[str | None, str | None]] = []
        for seed in seeds:
            text = template_query([pool[s] for s in seed.skills], max_words=self.max_words)
            out.append((text, None) if text else (None, "empty description after removing names"))
        return out
