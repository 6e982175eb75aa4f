"""On-disk cache of LLM responses: append-only JSONL, one file per stage, fsync'd per record.

Each response is written the moment it arrives, so a run killed mid-way and started again repeats no
finished call. A torn last line (the process died while writing it) is skipped on load, and the next
append starts on a fresh line. The key is a sha256 over the model, the messages and every sampling
parameter (schema included) -- never the API key or the endpoint address.

Only well-formed answers are answers: a failed request (malformed, truncated or off-schema after its
retries) is appended to ``<stage>.failed.jsonl`` and never replayed as the answer. A later run asks again,
up to a bound of recorded failures per key (see :class:`toolex.llm.client.LLMClient`). Caches written before
this split held failures (``"ok": false``) in the stage file; they are read as failures too.
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.errors import ToolexError
from toolex.io.atomic import append_line
from toolex.paths import cache_dir


class OfflineCacheMiss(ToolexError, LookupError):
    """Offline mode asked for a response that is not in the cache."""

    def __init__(self, stage: str, key: str, name: str = "") -> None:
        self.stage, self.key, self.name = stage, key, name
        label = f" ({name})" if name else ""
        super().__init__(
            f"offline LLM cache miss in stage {stage!r}{label}: key {key} is not cached; "
            "run once online (TOOLEX_LLM_OFFLINE=0) to fill the cache"
        )


class OfflineCacheFailure(OfflineCacheMiss):
    """Offline mode asked for a request whose cache holds only failed answers."""

    def __init__(self, stage: str, key: str, name: str, failures: list[dict[str, Any]]) -> None:
        self.stage, self.key, self.name, self.failures = stage, key, name, failures
        label = f" ({name})" if name else ""
        last = failures[-1].get("error") if failures else None
        ToolexError.__init__(
            self,
            f"offline LLM replay in stage {stage!r}{label}: key {key} holds only {len(failures)} failed "
            f"answer(s) (last: {last}), no answer to replay; run online (TOOLEX_LLM_OFFLINE=0) to ask again",
        )


def request_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of (model, messages, params)."""
    blob = json.dumps(
        {"model": model, "messages": messages, "params": params},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return keys.checksum(blob)


def default_cache_root() -> Path:
    """``cache_dir()/llm``."""
    return cache_dir() / "llm"


_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
FAILED_SUFFIX = ".failed.jsonl"


class ResponseCache:
    """Key -> record store backed by ``<root>/<stage>.jsonl`` files; safe to share between threads."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_root()
        self._lock = threading.Lock()
        self._index: dict[str, dict[str, Any]] | None = None
        self._failed: dict[str, list[dict[str, Any]]] = {}
        self.skipped_lines = 0

    def path_for(self, stage: str, failed: bool = False) -> Path:
        """``<root>/<stage>.jsonl`` (answers) or ``<root>/<stage>.failed.jsonl`` (failures)."""
        return self.root / f"{_SAFE.sub('_', stage) or 'default'}{FAILED_SUFFIX if failed else '.jsonl'}"

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._index is None:
            index: dict[str, dict[str, Any]] = {}
            failed: dict[str, list[dict[str, Any]]] = {}
            for path in sorted(self.root.glob("*.jsonl")) if self.root.is_dir() else []:
                with path.open("rb") as fh:
                    for line in fh:
                        try:
                            record = json.loads(line)
                            key = record["key"]
                            if record.get("ok") is False:
                                failed.setdefault(key, []).append(record)
                            else:
                                index[key] = record
                        except (ValueError, KeyError, TypeError, AttributeError):
                            self.skipped_lines += 1  # torn or foreign line: ignore, never fatal
            self._index, self._failed = index, failed
        return self._index

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer for ``key`` (never a failure), or None."""
        with self._lock:
            return self._load().get(key)

    def failures(self, key: str) -> list[dict[str, Any]]:
        """The failed attempts recorded for ``key`` across runs, oldest first."""
        with self._lock:
            self._load()
            return list(self._failed.get(key, ()))

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        with self._lock:
            return len(self._load())

    def put(self, stage: str, key: str, record: dict[str, Any]) -> None:
        """Append ``record`` under ``key`` to the stage's file (a failure: its ``.failed`` file) and fsync."""
        record = {"key": key, "stage": stage, "stored_at": time.time(), **record}
        line = json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n"
        failed = record.get("ok") is False
        path = self.path_for(stage, failed)
        with self._lock:
            index = self._load()
            append_line(path, line)
            if failed:
                self._failed.setdefault(key, []).append(record)
            else:
                index[key] = record

