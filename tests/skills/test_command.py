"""``toolex skills`` and its alias ``python -m toolex.skills``: one parser, one run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolex import cli
from toolex.commands import skills as command
from toolex.skills import SkillSettings

from .conftest import TINY_POOL, TINY_QUERIES


@pytest.fixture
def seen(monkeypatch):
    """Replace the command's run by a recorder of the parsed options."""
    calls: list = []
    monkeypatch.setattr(command, "run", lambda args: calls.append(args) or 0)
    return calls


def test_subcommand_and_alias_parse_alike(seen, monkeypatch):
    from toolex.skills.__main__ import main as alias

    monkeypatch.delenv("SMOKE", raising=False)
    monkeypatch.delenv("JUDGE", raising=False)
    argv = ["--smoke", "1", "--generator", "offline", "--judge", "cascade", "--pool-size", "0", "--no-table3"]
    assert cli.main(["skills", *argv]) == 0
    assert alias(argv) == 0
    assert len(seen) == 2 and vars(seen[0]) == vars(seen[1])
    args = seen[0]
    assert (args.smoke, args.generator, args.judge, args.no_table3, args.record) == (1, "offline", "cascade",
                                                                                    True, False)
    assert command.settings_of(args) == SkillSettings.for_smoke(pool_size=None)


def test_defaults_come_from_the_environment(seen, monkeypatch):
    monkeypatch.setenv("SMOKE", "true")
    monkeypatch.setenv("JUDGE", "local")
    assert cli.main(["skills"]) == 0
    args = seen[0]
    assert (args.smoke, args.judge, args.generator) == (1, "local", "auto")
    assert command.settings_of(args) == SkillSettings.for_smoke()
    monkeypatch.setenv("SMOKE", "0")
    assert cli.main(["skills", "--n-queries", "20"]) == 0
    assert command.settings_of(seen[1]) == SkillSettings(n_queries=20)


def test_unknown_judge_is_refused(seen, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["skills", "--judge", "oracle"])
    assert exc.value.code == 2 and not seen
    assert "invalid choice: 'oracle'" in capsys.readouterr().err


def test_module_alias_runs_the_command(isolated, corpus_path):
    """``python -m toolex.skills`` end to end in a tiny setting without Table 3: summary written, exit 0."""
    from toolex.skills import skills_dir

    done = subprocess.run([sys.executable, "-m", "toolex.skills", "--smoke", "1", "--generator", "offline",
                           "--judge", "offline", "--n-queries", str(TINY_QUERIES),
                           "--pool-size", str(TINY_POOL), "--no-table3"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((skills_dir() / "smoke-offline-template" / "summary-offline.json").read_text())
    assert summary["benchmark"]["kept"] == TINY_QUERIES
    assert summary["table1"]["all"]["queries"] == TINY_QUERIES and "table3" not in summary
    assert summary["skilleq"].startswith(str(skills_dir().parent / "annotations" / "skilleq-smoke-"))
