"""Seed skill sets of a SkillRet-style benchmark: one to three skills that plausibly serve one request.

A single-skill seed is a skill drawn at random. A multi-skill seed starts from a random anchor and adds
partners that go with it: first skills of the same repository (skills of one collection are written to be
combined), the closest by description-word overlap among a random sample; when the repository has too few
skills with other names, the closest skills of the whole pool (``similar`` strategy). Skills of one seed
always have distinct names. Everything is drawn from ``random.Random(seed)``, so seeds are reproducible.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolex.data.records import Tool
from toolex.skills.text import description_of

#: Share of seeds with one, two and three skills.
DEFAULT_SIZES: tuple[float, float, float] = (0.5, 0.35, 0.15)
_WORD = re.compile(r"[a-z][a-z0-9]{2,}")
_STOP = frozenset([
    "the", "and", "for", "with", "use", "this", "that", "when", "you", "your", "are", "from", "into",
    "any", "not", "can", "will", "its", "all"
])


@dataclass(frozen=True)
class Seed:
    """A seed skill set: ``skills`` become C* of the query written for it; ``strategy`` says how it was
    picked."""

    skills: tuple[str, ...]
    strategy: str  # "single", "same-repository" or "similar"


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


class SeedSampler:
    """Draws seed sets from a skill pool (see the module docstring)."""

    def __init__(self, pool: Mapping[str, Tool], sizes: Sequence[float] = DEFAULT_SIZES,
                 candidates: int = 60) -> None:
        if not pool:
            raise ValueError("cannot draw seeds from an empty skill pool")
        self.pool = pool
        self.ids = sorted(pool)
        self.sizes = tuple(sizes)
        self.candidates = candidates
        self.by_repo: dict[str, list[str]] = {}
        for skill_id in self.ids:
            self.by_repo.setdefault(pool[skill_id].platform or "", []).append(skill_id)
        self._words: dict[str, frozenset[str]] = {}

    def words(self, skill_id: str) -> frozenset[str]:
        if skill_id not in self._words:
            tool = self.pool[skill_id]
            self._words[skill_id] = _words(f"{tool.name} {description_of(tool)}")
        return self._words[skill_id]

    def _partners(self, anchor: str, n: int, rng: random.Random, group: Sequence[str]) -> list[str]:
        names = {self.pool[anchor].name.lower()}
        options = [s for s in group if s != anchor]
        if len(options) > self.candidates:
            options = rng.sample(options, self.candidates)
        options.sort(key=lambda s: (-_jaccard(self.words(anchor), self.words(s)), s))
        picked: list[str] = []
        for skill_id in options:
            name = self.pool[skill_id].name.lower()
            if name in names:
                continue
            picked.append(skill_id)
            names.add(name)
            if len(picked) == n:
                break
        return picked

    def draw(self, n: int, seed: int = 0, exclude: set[tuple[str, ...]] | None = None) -> list[Seed]:
        """``n`` seeds with distinct skill sets (none of ``exclude``, sets given as sorted id tuples)."""
        rng = random.Random(seed)
        taken = set(exclude or ())
        anchors = list(self.ids)
        rng.shuffle(anchors)
        out: list[Seed] = []
        for anchor in anchors:
            if len(out) >= n:
                break
            size = rng.choices((1, 2, 3), weights=self.sizes)[0]
            skills, strategy = [anchor], "single"
            if size > 1:
                repo = self.pool[anchor].platform or ""
                partners = self._partners(anchor, size - 1, rng, self.by_repo.get(repo, [])) if repo else []
                strategy = "same-repository"
                if len(partners) < size - 1:
                    partners = self._partners(anchor, size - 1, rng, self.ids)
                    strategy = "similar"
                if len(partners) < size - 1:
                    continue
                skills += partners
            key = tuple(sorted(skills))
            if key in taken:
                continue
            taken.add(key)
            out.append(Seed(tuple(skills), strategy))
        return out
