"""Progress of long work (encodings, fine-tuning) for whoever watches a log rather than a terminal.

A :class:`Tracker` keeps one line, ``"<what>: 1,024/7,000 texts, 6.5/s, about 15 min left"``, in the file
that the environment variable :data:`ENV` names, rewritten at most every few seconds. ``make paper``'s runner
sets it and prints the line with its heartbeat, so the runner's log says what a notebook is doing, not only
that it runs; without the variable nothing is written (a terminal keeps its tqdm bars).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from toolex.io.atomic import atomic_writer

#: The environment variable naming the progress file.
ENV = "TOOLEX_PROGRESS"


def duration(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"1 h 05 min"``."""
    if seconds < 60:
        return f"{max(seconds, 0):.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def one(unit: str) -> str:
    """The singular of a plural unit (``texts`` → ``text``, ``batches`` → ``batch``)."""
    if unit.endswith(("ches", "shes", "xes")):
        return unit[:-2]
    return unit[:-1] if unit.endswith("s") else unit


class Tracker:
    """Counts done units of ``total`` and writes the line: at the start, then every ``every`` seconds and at
    the end."""

    def __init__(self, what: str, total: int, unit: str, every: float = 2.0) -> None:
        self.what, self.total, self.unit, self.every = what, total, unit, every
        self.done = 0
        self.started = time.perf_counter()
        self.written = float("-inf")
        self.path = os.environ.get(ENV)
        self._write()

    def line(self) -> str:
        elapsed = time.perf_counter() - self.started
        text = f"{self.what}: {self.done:,}/{self.total:,} {self.unit}"
        if self.done >= self.total:
            return f"{text}, done in {duration(elapsed)}"
        if not self.done or elapsed <= 0:
            return f"{text}, starting"
        rate = self.done / elapsed
        left = (self.total - self.done) / rate
        shown = f"{rate:.1f}/s" if rate >= 1 else f"{1 / rate:.1f} s per {one(self.unit)}"
        return f"{text}, {shown}, about {duration(left)} left"

    def update(self, count: int = 1) -> None:
        self.done += count
        if self.done >= self.total or time.perf_counter() - self.written >= self.every:
            self._write()

    def _write(self) -> None:
        self.written = time.perf_counter()
        if not self.path:
            return
        with atomic_writer(self.path) as f:
            f.write(self.line() + "\n")


def latest(path: str | Path, since: float = 0.0) -> str | None:
    """The line of the progress file at ``path`` when it was written after ``since`` (a ``time.time()``)."""
    file = Path(path)
    try:
        if file.stat().st_mtime < since:
            return None
        return file.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
