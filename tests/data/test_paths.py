"""Paths written into committed files stay portable: ``$TOOLEX_DATA/...`` instead of a machine path."""

from __future__ import annotations

from pathlib import Path

from toolex import paths


def test_portable_and_resolve_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_DATA", str(tmp_path / "snapshots"))
    inside = tmp_path / "snapshots" / "skills" / "agent_skills.jsonl.gz"
    assert paths.portable(inside) == "$TOOLEX_DATA/skills/agent_skills.jsonl.gz"
    assert paths.resolve(paths.portable(inside)) == inside
    outside = tmp_path / "elsewhere" / "corpus.jsonl"
    assert paths.portable(outside) == str(outside) and paths.resolve(str(outside)) == outside
    monkeypatch.setenv("TOOLEX_DATA", str(tmp_path / "moved"))
    assert paths.resolve("$TOOLEX_DATA/skills/agent_skills.jsonl.gz") == Path(tmp_path / "moved" / "skills"
                                                                              / "agent_skills.jsonl.gz")
