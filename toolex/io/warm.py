"""Import modules so that Python writes their bytecode (``make setup``): ``python -m toolex.io.warm M ...``.

A module whose top-level package is not installed is skipped; one that fails to import is named on stderr and
skipped, since warming only saves later runs the compile.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys


def warm(modules: list[str]) -> list[str]:
    """Import each installed module; the ones that failed, each with its error."""
    failed = []
    for name in modules:
        if importlib.util.find_spec(name.split(".")[0]) is None:
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - any failure only means no bytecode ahead of time
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    return failed


def main(argv: list[str] | None = None) -> int:
    for line in warm(sys.argv[1:] if argv is None else argv):
        print(f"[toolex] not compiled ahead: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
