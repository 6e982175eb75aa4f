"""Progress lines of long work: counts, rate and time left in the file the runner prints from."""

from __future__ import annotations

import time

from toolex.io import progress
from toolex.io.progress import Tracker, duration, latest


def test_the_line_counts_and_estimates_what_is_left(tmp_path, monkeypatch):
    path = tmp_path / "progress.txt"
    monkeypatch.setenv(progress.ENV, str(path))
    tracker = Tracker("encode (all-mpnet-base-v2)", 1000, "texts", every=0.0)
    assert path.read_text().strip() == "encode (all-mpnet-base-v2): 0/1,000 texts, starting"
    tracker.started -= 10  # 250 texts in 10 s: 25/s, 750 left take 30 s
    tracker.update(250)
    line = latest(path)
    assert line is not None and line.startswith("encode (all-mpnet-base-v2): 250/1,000 texts, 25.")
    assert line.endswith("about 30 s left")
    tracker.update(750)
    assert "1,000/1,000 texts, done in" in path.read_text()


def test_slow_units_read_as_seconds_each_and_nothing_is_written_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(progress.ENV, raising=False)
    tracker = Tracker("fine-tune", 100, "batches", every=0.0)
    tracker.started -= 40
    tracker.update(10)
    assert "4.0 s per batch, about 6 min left" in tracker.line()
    assert not list(tmp_path.iterdir())


def test_a_line_older_than_the_notebook_is_not_shown(tmp_path):
    path = tmp_path / "progress.txt"
    path.write_text("encode: 1/2 texts\n")
    assert latest(path, since=time.time() + 60) is None and latest(tmp_path / "none.txt") is None
    assert latest(path) == "encode: 1/2 texts"
    assert duration(3725) == "1 h 02 min" and duration(42) == "42 s"
