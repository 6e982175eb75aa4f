"""Where outputs go: `make paper` writes figures/ and tables/, a hand-run notebook build/interactive/."""

from __future__ import annotations

import sys
import types

from toolex import paths


def test_outside_a_kernel_outputs_go_to_the_repository_folders(monkeypatch):
    monkeypatch.delenv("TOOLEX_FIGURES", raising=False)
    monkeypatch.delenv("TOOLEX_TABLES", raising=False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    assert paths.figures_dir() == paths.ROOT / "figures" and paths.tables_dir() == paths.ROOT / "tables"


def test_a_hand_run_kernel_writes_under_build_interactive_and_says_so(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("TOOLEX_FIGURES", raising=False)
    monkeypatch.delenv(paths.PAPER_RUN, raising=False)
    monkeypatch.setenv("TOOLEX_BUILD", str(tmp_path))
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    monkeypatch.setattr(paths, "_warned", set())
    assert paths.figures_dir() == tmp_path / "interactive" / "figures"
    assert "interactive run: figures go to" in capsys.readouterr().err
    paths.figures_dir()
    assert capsys.readouterr().err == ""  # said once
    monkeypatch.setenv(paths.PAPER_RUN, "1")  # the runner's kernels write the paper's folders
    assert paths.figures_dir() == paths.ROOT / "figures"
    monkeypatch.delenv(paths.PAPER_RUN)
    monkeypatch.setenv("TOOLEX_FIGURES", str(tmp_path / "mine"))  # an explicit folder always wins
    assert paths.figures_dir() == tmp_path / "mine"
