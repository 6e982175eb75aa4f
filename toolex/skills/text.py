"""Text helpers for skills: the description of a skill, its name variants and leaked-name tests."""

from __future__ import annotations

import re
from collections.abc import Iterable

from toolex.data.records import Tool

_DESCRIPTION = re.compile(r"^description: (.*)$", re.MULTILINE)
_SPLIT = re.compile(r"[\s_\-./:]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def description_of(tool: Tool) -> str:
    """The ``description`` line of a skill's documentation (the whole text when there is none)."""
    match = _DESCRIPTION.search(tool.text)
    return match.group(1).strip() if match else tool.text


def name_parts(name: str) -> list[str]:
    """The words of a skill name: split on spaces, hyphens, underscores, dots, slashes and camelCase."""
    return [p.lower() for p in _SPLIT.split(_CAMEL.sub(" ", name.strip())) if p]


def name_pattern(name: str) -> re.Pattern[str] | None:
    """A case-insensitive pattern matching the name in running text, whatever joins its words.

    ``pdf-editor`` matches ``pdf-editor``, ``PDF editor``, ``pdf_editor`` and ``pdfeditor``; the match must
    not sit inside a longer word. None for names without a word.
    """
    parts = name_parts(name)
    if not parts:
        return None
    body = r"[\s_\-./]*".join(re.escape(p) for p in parts)
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])", re.IGNORECASE)


def leaked_names(text: str, names: Iterable[str]) -> list[str]:
    """The names (of ``names``) that appear in ``text`` in any of their variants."""
    out = []
    for name in names:
        pattern = name_pattern(name)
        if pattern is not None and pattern.search(text):
            out.append(name)
    return out


def strip_names(text: str, names: Iterable[str]) -> str:
    """``text`` with every variant of every name removed (whitespace and stray punctuation tidied)."""
    for name in names:
        pattern = name_pattern(name)
        if pattern is not None:
            text = pattern.sub(" ", text)
    text = re.sub(r"\(\s*\)|\[\s*\]|`\s*`|\"\s*\"|'\s*'", " ", text)
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip(" ,;:-")


def normalise(text: str) -> str:
    """The duplicate key of a query: lowercase words and digits only."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
