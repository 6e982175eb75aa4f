"""`make setup`'s bytecode step: installed modules imported, missing packages skipped, failures named."""

from __future__ import annotations

import sys

from toolex.io import warm


def test_installed_modules_are_imported_and_the_rest_skipped_or_named(tmp_path, monkeypatch, capsys):
    (tmp_path / "warm_ok.py").write_text("LOADED = True\n")
    (tmp_path / "warm_broken.py").write_text("raise RuntimeError('needs a display')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("warm_ok", "warm_broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    failed = warm.warm(["warm_ok", "not_installed_anywhere.sub", "warm_broken"])
    assert sys.modules["warm_ok"].LOADED
    assert failed == ["warm_broken: RuntimeError: needs a display"]
    assert warm.main(["warm_broken"]) == 0  # warming only saves time: it never fails setup
    assert "not compiled ahead: warm_broken: RuntimeError" in capsys.readouterr().err
