"""Serve the query inspector with Voila on 127.0.0.1: ``python -m toolex.widgets.serve [--port N]``.

Every page load starts a kernel (~450 MB with the inspector's data). A closed tab does not always stop it,
so kernels without a connection are culled after ``--cull-s`` idle seconds (Jupyter's kernel culler).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from toolex import paths

INSPECTOR = paths.ROOT / "notebooks" / "08_query_inspector.ipynb"
#: Idle seconds before a kernel without a connection is shut down.
CULL_S = 120


def voila_command(notebook: Path = INSPECTOR, port: int = 8866, cull_s: int = CULL_S,
                  python: str = sys.executable) -> list[str]:
    """The Voila command line: local only, no browser, idle kernels culled."""
    return [python, "-m", "voila", str(notebook), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
            "--show_tracebacks=True",
            f"--MappingKernelManager.cull_idle_timeout={cull_s}",
            f"--MappingKernelManager.cull_interval={max(1, cull_s // 4)}",
            "--MappingKernelManager.cull_connected=False"]


def main(argv: Sequence[str] | None = None) -> NoReturn:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8866)
    parser.add_argument("--cull-s", type=int, default=CULL_S, help="idle seconds before a kernel is culled")
    parser.add_argument("--notebook", type=Path, default=INSPECTOR)
    args = parser.parse_args(argv)
    command = voila_command(args.notebook.resolve(), args.port, args.cull_s)
    os.chdir(args.notebook.resolve().parent)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
