"""The ``toolex`` command line: one sub-command per module of :mod:`toolex.commands`.

Each command module defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``; modules
are imported only when their command runs, so ``toolex evaluate`` never loads torch.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from toolex import __version__
from toolex.errors import ToolexError

COMMANDS = {
    "evaluate": "toolex.commands.evaluate",
    "retrieve": "toolex.commands.retrieve",
    "annotate": "toolex.commands.annotate",
    "agreement": "toolex.commands.agreement",
    "calibrate": "toolex.commands.calibrate",
    "finetune": "toolex.commands.finetune",
    "review": "toolex.commands.review",
    "validate": "toolex.commands.validate",
    "gold": "toolex.commands.gold",
    "paper-check": "toolex.commands.paper_check",
    "skills": "toolex.commands.skills",
    "downstream": "toolex.commands.downstream",
    "release": "toolex.commands.release",
    "cached": "toolex.commands.cached",
}


class StrictParser(argparse.ArgumentParser):
    """A parser that takes no abbreviated option (``--annotation`` is not ``--annotations``); every parser
    under it (each command's, and their sub-commands') is one too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)


def build_parser(load: str | None = None) -> argparse.ArgumentParser:
    parser = StrictParser(prog="toolex", description="Equivalence-aware tool-retrieval evaluation.")
    parser.add_argument("--version", action="version", version=f"toolex {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if load is not None and name != load:
            sub.add_parser(name)
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("toolex.commands"):
                continue
            raise
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def command_parser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The parser of the deepest command ``argv`` names (``toolex review export`` → ``export``'s; the
    top-level parser when it names none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for at, word in enumerate(argv):
                if word in action.choices:
                    return command_parser(action.choices[word], argv[at + 1:])
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    wanted = next((a for a in argv if a in COMMANDS), None)
    parser = build_parser(load=wanted if wanted and not {"-h", "--help"} & set(argv[:1]) else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the command's own usage, not the top level's
        command = command_parser(parser, argv)
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except ToolexError as exc:
        print(f"toolex {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
