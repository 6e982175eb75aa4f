"""Content checksums of the files a benchmark came from (its provenance)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from toolex import keys


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    with open(path, "rb") as handle:
        return keys.stream_checksum(iter(lambda: handle.read(chunk), b""))


def files_checksum(paths: Iterable[str | Path]) -> str:
    """One SHA-256 over the names and contents of several files (order independent)."""
    return keys.checksum("".join(path.name + file_sha256(path) for path in sorted(Path(p) for p in paths)))


def combine_checksums(checksums: Iterable[str]) -> str:
    return keys.checksum("".join(sorted(checksums)))
