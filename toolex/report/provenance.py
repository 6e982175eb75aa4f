"""Provenance of our numbers: data checksum, settings, judge, retrievers, toolex version; figure footers."""

from __future__ import annotations

import platform
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from toolex import __version__, paths
from toolex.data.checksum import file_sha256


def provenance(data: str, data_checksum: str, settings: dict[str, Any], judge: str | None = None,
               retrievers: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
    """The record written beside every table of ours (``<stem>.json``)."""
    return {
        "toolex": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "data": data,
        "data_checksum": data_checksum,
        "judge": judge,
        "retrievers": list(retrievers),
        "settings": settings,
        "python": platform.python_version(),
        **extra,
    }


def footer(data: str, retrievers: Sequence[str] = (), judge: str | None = None, note: str = "") -> str:
    """One line naming what produced a figure: data, retriever(s), judge and the toolex version."""
    parts = [f"Data: {data}"]
    if retrievers:
        parts.append(f"Retrievers: {', '.join(retrievers)}")
    if judge:
        parts.append(f"Judge: {judge}")
    if note:
        parts.append(note)
    parts.append(f"toolex {__version__}")
    return " · ".join(parts)


def paper_provenance(filename: str) -> dict[str, Any]:
    """Provenance of a table that only re-arranges the paper's own numbers (a file of the paper folder)."""

    path = paths.paper_dir() / filename
    return provenance(f"reported by the paper ({filename})", file_sha256(path), {"file": filename},
                      "the paper's LLM judge", ())
