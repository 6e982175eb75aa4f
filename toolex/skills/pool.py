"""The evaluation pool of skills and which skills may seed a query.

The pool is the whole corpus or a reproducible uniform sample of it (``size`` skills drawn with
``random.Random(seed)``); near duplicates stay in, as they are in SkillRet, since finding them is what the
expanded annotation is for. Seeds are drawn from the pool's *eligible* skills only: English descriptions
(at least 90 % ASCII letters among the letters) of at least six words, so the written requests are English.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from toolex.data.records import Tool
from toolex.skills.text import description_of


def sample_pool(skills: Mapping[str, Tool], size: int | None = None, seed: int = 0) -> dict[str, Tool]:
    """All skills (``size`` None or at least the corpus size) or ``size`` of them, in id order."""
    ids = sorted(skills)
    if size is not None and size < len(ids):
        ids = sorted(random.Random(seed).sample(ids, size))
    return {i: skills[i] for i in ids}


def is_eligible(tool: Tool, min_words: int = 6, ascii_share: float = 0.9) -> bool:
    """Whether a skill may seed a query (an English description of ``min_words`` words or more)."""
    description = description_of(tool)
    letters = [c for c in description if c.isalpha()]
    if len(description.split()) < min_words or not letters:
        return False
    return sum(c.isascii() for c in letters) / len(letters) >= ascii_share


def eligible(pool: Mapping[str, Tool]) -> dict[str, Tool]:
    """The eligible skills of a pool."""
    return {i: t for i, t in pool.items() if is_eligible(t)}
