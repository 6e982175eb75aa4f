"""Content checksums of the files a benchmark came from (its provenance)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def files_checksum(paths: Iterable[str | Path]) -> str:
    """One SHA-256 over the names and contents of several files (order independent)."""
    digest = hashlib.sha256()
    for path in sorted(Path(p) for p in paths):
        digest.update(path.name.encode())
        digest.update(file_sha256(path).encode())
    return digest.hexdigest()


def combine_checksums(checksums: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for checksum in sorted(checksums):
        digest.update(checksum.encode())
    return digest.hexdigest()
