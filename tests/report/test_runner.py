"""The runner finds the numbered notebooks in order and fails loudly when one fails."""

from __future__ import annotations

import os

import nbformat

from toolex.report import runner


def test_numbered_notebooks_in_order():
    names = [p.name for p in runner.notebooks()]
    assert names == sorted(names)
    assert [n[:2] for n in names][:8] == ["01", "02", "03", "04", "05", "06", "07", "08"]
    assert [p.name[:2] for p in runner.notebooks(only=["04", "06"])] == ["04", "06"]


def _write(folder, name, source):
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell("SMOKE = False\nJUDGE = 'offline'"),
                  nbformat.v4.new_code_cell(source)]
    book.cells[0].metadata["tags"] = ["parameters"]
    nbformat.write(book, folder / name)


def test_a_failing_notebook_stops_the_run_with_a_non_zero_status(tmp_path, monkeypatch, capsys):
    notebooks, build = tmp_path / "notebooks", tmp_path / "build"
    notebooks.mkdir()
    _write(notebooks, "01_ok.ipynb", "assert SMOKE is True and JUDGE == 'local'")
    _write(notebooks, "02_fails.ipynb", "raise RuntimeError('boom')")
    _write(notebooks, "03_never.ipynb", "pass")
    monkeypatch.setenv("TOOLEX_BUILD", str(build))
    monkeypatch.setattr(runner.paths, "ROOT", tmp_path)
    assert runner.main(["--smoke", "1", "--judge", "local"]) == 1
    assert "FAILED" in capsys.readouterr().err
    assert (build / "notebooks" / "01_ok.ipynb").exists()
    assert not (build / "notebooks" / "03_never.ipynb").exists()
    assert runner.main(["--smoke", "1", "--judge", "local", "--only", "01"]) == 0


def test_executed_copies_are_trusted_and_their_kernels_write_the_paper_folders(tmp_path, monkeypatch):
    from nbformat.sign import NotebookNotary

    for name in ("SMOKE", "JUDGE", runner.paths.PAPER_RUN, "TQDM_DISABLE", "HF_HUB_DISABLE_PROGRESS_BARS"):
        monkeypatch.delenv(name, raising=False)  # restored after the test: the runner sets them
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))  # a private trust database
    notebooks, build = tmp_path / "notebooks", tmp_path / "build"
    notebooks.mkdir()
    _write(notebooks, "01_where.ipynb", "from toolex import paths\n"
                                       "assert paths.figures_dir() == paths.ROOT / 'figures'\n"
                                       "print('figures', paths.figures_dir())")
    monkeypatch.setenv("TOOLEX_BUILD", str(build))
    monkeypatch.setattr(runner.paths, "ROOT", tmp_path)
    assert runner.main(["--smoke", "1"]) == 0
    executed = nbformat.read(build / "notebooks" / "01_where.ipynb", as_version=4)
    assert NotebookNotary().check_signature(executed)


def test_a_long_notebook_says_it_is_still_running_and_has_no_cell_limit(tmp_path, monkeypatch, capsys):
    notebooks, build = tmp_path / "notebooks", tmp_path / "build"
    notebooks.mkdir()
    _write(notebooks, "01_slow.ipynb", "import time\ntime.sleep(2.5)")
    monkeypatch.setenv("TOOLEX_BUILD", str(build))
    monkeypatch.setattr(runner.paths, "ROOT", tmp_path)
    monkeypatch.setattr(runner, "HEARTBEAT_S", 1.0)
    assert runner.main(["--smoke", "1"]) == 0
    out = capsys.readouterr().out
    assert "01_slow.ipynb still running (1 s)" in out and "01_slow.ipynb done in" in out
    _write(notebooks, "01_slow.ipynb", "import time\ntime.sleep(5)")
    assert runner.main(["--smoke", "1", "--cell-timeout", "1"]) == 1


def test_the_heartbeat_says_what_a_long_stage_is_doing(tmp_path, monkeypatch, capsys):
    notebooks, build = tmp_path / "notebooks", tmp_path / "build"
    notebooks.mkdir()
    _write(notebooks, "01_encodes.ipynb",
           "import time\nfrom toolex.io.progress import Tracker\n"
           "tracker = Tracker('encode (all-mpnet-base-v2)', 6, 'texts', every=0.0)\n"
           "for _ in range(6):\n    time.sleep(0.8)\n    tracker.update()")
    monkeypatch.setenv("TOOLEX_BUILD", str(build))
    monkeypatch.delenv(runner.progress.ENV, raising=False)
    monkeypatch.setattr(runner.paths, "ROOT", tmp_path)
    monkeypatch.setattr(runner, "HEARTBEAT_S", 1.0)
    assert runner.main(["--smoke", "1"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "01_encodes.ipynb still running" in line]
    assert any(": encode (all-mpnet-base-v2): " in line and "/6 texts" in line for line in lines), lines
    assert runner.progress.ENV not in os.environ  # the runner restores the environment it changed
