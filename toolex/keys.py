"""Every hash the package computes: content keys, row keys and checksums, one function and one length each.

* :func:`key` / :func:`key_of` / :func:`key_of_bytes`: the **content key** that names a folder or a file or
  identifies a setting (annotation folders and their stages, retriever runs, fine-tuned models, embedding
  caches, skills benchmarks, prompt versions): the first :data:`KEY_LENGTH` hex characters of the sha256 of
  the canonical JSON of what decides the content (:func:`canonical`).
* :func:`text_digest` / :func:`checksum` / :func:`stream_checksum`: the whole sha256, where a key must tell
  very many rows apart (one embedded text, one LLM request), check that content is what a record says (data
  files, stage files, weights) or seed a draw that must not depend on Python's hash seed; never shortened.

:func:`slug` makes the readable part of a name (a retriever spec, a judge, an API) safe in a path or an id.

Keys of the earlier 16-character format over the same content begin with today's key: :func:`adopt`
renames such a folder to today's name and says so, so caches on disk keep working and are never mixed.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

#: Hex characters of every content key (48 bits: folders of one kind number in the thousands at most).
KEY_LENGTH = 12
#: The longer length some keys had before (cache folders named with it are adopted, see :func:`adopt`).
LEGACY_LENGTH = 16
_HEX = frozenset("0123456789abcdef")


def _plain(value: Any) -> Any:
    return asdict(value) if is_dataclass(value) and not isinstance(value, type) else value


def canonical(value: Any) -> bytes:
    """The canonical JSON of a value (a dataclass as its fields, keys sorted, anything else as ``str``)."""
    return json.dumps(_plain(value), sort_keys=True, default=str).encode()


def key_of_bytes(data: bytes) -> str:
    """The content key of raw bytes."""
    return hashlib.sha256(data).hexdigest()[:KEY_LENGTH]


def key_of(value: Any) -> str:
    """The content key of one JSON-able value."""
    return key_of_bytes(canonical(value))


def key(*parts: Any) -> str:
    """The content key of several parts (their list; each dataclass as its fields)."""
    return key_of([_plain(p) for p in parts])


def checksum(data: bytes | str) -> str:
    """The whole sha256 (hex) of bytes, or of a text's UTF-8."""
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def stream_checksum(blocks: Iterable[bytes]) -> str:
    """:func:`checksum` of the concatenated ``blocks``, read one at a time."""
    digest = hashlib.sha256()
    for block in blocks:
        digest.update(block)
    return digest.hexdigest()


def text_digest(text: str) -> bytes:
    """The whole sha256 (32 bytes) of a text's UTF-8: the key of one cached row among very many, or the source
    of a seeded draw stable across runs and machines."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def is_legacy_of(name: str, wanted: str) -> bool:
    """Whether ``name`` is ``wanted`` with its trailing key written longer (an earlier key format)."""
    extra = name[len(wanted):]
    return name.startswith(wanted) and len(extra) == LEGACY_LENGTH - KEY_LENGTH and set(extra) <= _HEX


def same_key(recorded: Any, current: str) -> bool:
    """Whether a recorded key is ``current``, in today's format or the earlier longer one."""
    return isinstance(recorded, str) and (recorded == current or is_legacy_of(recorded, current))


def adopt(path: str | Path) -> Path:
    """``path`` (a folder or file whose name ends with a content key); when it is missing and one sibling has
    the same name with a longer key of an earlier format, that sibling is renamed to ``path``, with a message.
    Two such siblings are left alone (the content is computed again)."""
    path = Path(path)
    if path.exists() or not path.parent.is_dir():
        return path
    legacy = [p for p in path.parent.iterdir() if is_legacy_of(p.name, path.name)]
    if len(legacy) == 1:
        rename_former(legacy[0], path)
    return path


def rename_former(former: Path, path: Path) -> None:
    """Rename ``former`` (the name an earlier key format gave this content) to ``path``, with a message;
    a rename that fails (done meanwhile by another process, a read-only cache) leaves the content to be
    computed again."""
    try:
        former.rename(path)
    except OSError as exc:
        print(f"[toolex] {former} not renamed ({exc})", file=sys.stderr)
        return
    print(f"[toolex] {former} renamed to {path.name} (content keys are {KEY_LENGTH} characters now)",
          file=sys.stderr)


def slug(text: str, keep: str = "._-", separator: str = "_", lower: bool = False) -> str:
    """``text`` with every run of characters other than ASCII letters, digits and ``keep`` replaced by
    ``separator``, trimmed of it at both ends, and lower-cased with ``lower`` (``"dense:minilm-ft"`` →
    ``"dense_minilm-ft"``; ``slug("offline-similarity(mpnet)", ".", "-", True)`` →
    ``"offline-similarity-mpnet"``)."""
    out = re.sub(f"[^A-Za-z0-9{re.escape(keep)}]+", separator, text).strip(separator)
    return out.lower() if lower else out
