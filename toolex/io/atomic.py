"""Atomic file output: every writer goes through a unique temporary file in the target folder, fsync, rename.

A reader never sees a half-written file, a killed writer leaves the previous version in place, and two writers
never share a temporary name.

>>> from pathlib import Path; import tempfile
>>> target = Path(tempfile.mkdtemp()) / "out.txt"
>>> with atomic_writer(target) as handle:
...     _ = handle.write("hello\\n")
>>> target.read_text()
'hello\\n'
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from toolex import keys
from toolex.errors import InputError, refuse_folder


def _folder(path: Path, create: bool) -> Path:
    folder = path.parent
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    elif not folder.is_dir():
        raise InputError(path, f"folder {str(folder)!r} does not exist")
    refuse_folder(path, "file")
    return folder


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w", create_folder: bool = True) -> Iterator[IO[Any]]:
    """Open a unique temporary file beside ``path``; on success fsync it and rename it over ``path``.

    On an exception the temporary file is removed and ``path`` is left untouched. ``mode`` is ``"w"``
    (UTF-8 text) or ``"wb"``. With ``create_folder=False`` a missing folder is an :class:`InputError`.
    """
    path = Path(path)
    folder = _folder(path, create_folder)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        opened = os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding="utf-8", newline="")
        with opened as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_text(path: str | Path, text: str, create_folder: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_writer(path, "w", create_folder) as handle:
        handle.write(text)
    return Path(path)


def write_json(path: str | Path, record: Any, indent: int | None = 2) -> Path:
    """One JSON document (NaN refused: it is not JSON), newline-terminated, written atomically."""
    return write_text(path, json.dumps(record, indent=indent, ensure_ascii=False, default=str,
                                       allow_nan=False) + "\n")


def write_jsonl(path: str | Path, records: Iterable[dict[str, Any]]) -> Path:
    """One JSON object per line, written atomically."""
    with atomic_writer(path) as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")
    return Path(path)


def append_line(path: str | Path, line: bytes) -> None:
    """Append one line (ending in a newline) and fsync it before returning; a torn last line, left by a
    killed writer, gets its own line first, so the new record is never glued to it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def file_digest(path: str | Path) -> dict[str, Any]:
    """``{"lines", "bytes", "sha256"}`` of a file, for manifests that must notice truncation."""
    lines = size = 0

    def counted(handle: IO[bytes]) -> Iterator[bytes]:
        nonlocal lines, size
        for block in iter(lambda: handle.read(1 << 20), b""):
            lines += block.count(b"\n")
            size += len(block)
            yield block

    with open(path, "rb") as handle:
        checksum = keys.stream_checksum(counted(handle))
    return {"lines": lines, "bytes": size, "sha256": checksum}
