"""``python -m toolex.skills``: the same command as ``toolex skills`` (:mod:`toolex.commands.skills`)."""

from __future__ import annotations

from toolex.cli import main as cli_main


def main(argv: list[str] | None = None) -> int:
    """Run ``toolex skills`` with ``argv`` (default: the process arguments)."""
    import sys

    return cli_main(["skills", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
