"""An exclusive lock on an output folder, held for the whole run, and a waiting lock for work that one
process does and the others then reuse.

The lock is ``fcntl.flock`` on ``<folder>/.toolex.lock``; the file holds the holder's pid, host and start
time, so a second run fails at once and says who holds the folder. The kernel releases the lock when the
holder exits, however it exits (a SIGKILL included), so a stale lock file never blocks a later run; the next
holder removes the temporary files a killed writer left.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolex.errors import ToolexError

LOCK_NAME = ".toolex.lock"


class FolderBusy(ToolexError, RuntimeError):
    """Another run holds the folder."""


class FolderLock:
    """``with FolderLock(folder):`` -- exclusive, non-blocking; raises :class:`FolderBusy` naming the
    holder."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._fd: int | None = None
        self.removed_temporaries = 0

    def acquire(self) -> FolderLock:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe(_read_holder(fd))
            os.close(fd)
            raise FolderBusy(f"{self.folder}: in use by another run ({holder}); wait for it or use another "
                             "folder") from None
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        self._fd = fd
        self.removed_temporaries = sweep_temporaries(self.folder)
        return self

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


@contextlib.contextmanager
def waiting_lock(path: str | Path) -> Iterator[None]:
    """``with waiting_lock(path):`` -- exclusive, blocking: a second process waits until the first is done
    (and then finds its result), where :class:`FolderLock` fails at once. Released when the holder exits,
    however it exits."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing drops the flock


def sweep_temporaries(folder: Path) -> int:
    """Remove the temporary files (``.<name>.<random>.tmp``) that a writer killed mid-write left behind; only
    safe while holding the folder's lock. Returns how many were removed."""
    removed = 0
    for path in folder.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    return removed


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        return json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        return {}


def _describe(info: dict[str, Any]) -> str:
    if not info:
        return "holder unknown"
    return f"pid {info.get('pid')} on {info.get('host')} since {info.get('started')}"
