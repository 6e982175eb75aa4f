"""Errors that name the file and the record at fault, instead of a stack trace from deep inside."""

from __future__ import annotations

from pathlib import Path


class ToolexError(Exception):
    """Base class of every error toolex raises on purpose."""


class InputError(ToolexError, ValueError):
    """Bad input data: names the file, the record (index or id) and what is wrong."""

    def __init__(self, path: str | Path | None, message: str, record: str | int | None = None) -> None:
        self.path = None if path is None else str(path)
        self.record = record
        where = self.path or "<input>"
        if record is not None:
            where += f", record {record}"
        super().__init__(f"{where}: {message}")


def refuse_folder(path: Path, what: str) -> None:
    """Raise :class:`InputError` when ``path`` is a folder where a file (``what``) is wanted, in the words
    every reader uses."""
    if path.is_dir():
        raise InputError(path, f"this is a folder; pass the {what} inside it")
