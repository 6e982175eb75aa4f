"""An on-disk embedding cache keyed by model settings and text hash.

Layout: ``<root>/<model slug>-<settings hash>/settings.json`` and ``shard-<hash>.emb`` files. A shard holds
the SHA-256 digests of its texts and their float32 vectors, behind a header with the payload's own SHA-256.
Shards are written to a temporary file and renamed into place (atomic), so a reader sees a whole shard or
none; a shard whose magic, header, length or checksum does not match is deleted and its texts are encoded
again. Every call to :meth:`EmbeddingCache.put` adds one shard (only new texts); many shards are compacted
into one.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toolex import keys, paths
from toolex.io.progress import Tracker

MAGIC = b"TXEMB001"
DIGEST = 32


@dataclass
class CacheStats:
    """Counters since the cache was opened: texts found, texts missing, texts encoded, corrupt shards
    dropped."""

    hits: int = 0
    misses: int = 0
    encoded: int = 0
    corrupt: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def settings_key(settings: dict[str, Any]) -> str:
    return keys.key_of(settings)


def write_shard(path: Path, digests: Sequence[bytes], vectors: np.ndarray) -> None:
    """Write one shard atomically (temporary file in the same folder, fsync, rename)."""
    vectors = np.ascontiguousarray(vectors, dtype="<f4")
    payload = b"".join(digests) + vectors.tobytes()
    header = json.dumps({"n": len(digests), "dim": int(vectors.shape[1]) if vectors.ndim == 2 else 0,
                         "sha256": keys.checksum(payload)}).encode()
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".emb", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(MAGIC + struct.pack("<I", len(header)) + header + payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_shard(path: Path) -> tuple[list[bytes], np.ndarray]:
    """Digests and vectors of a shard; ``ValueError`` when it is truncated or corrupt."""
    data = path.read_bytes()
    if len(data) < len(MAGIC) + 4 or not data.startswith(MAGIC):
        raise ValueError("bad magic")
    (size,) = struct.unpack("<I", data[len(MAGIC):len(MAGIC) + 4])
    start = len(MAGIC) + 4 + size
    try:
        header = json.loads(data[len(MAGIC) + 4:start])
        n, dim, checksum = int(header["n"]), int(header["dim"]), str(header["sha256"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"bad header ({exc})") from None
    payload = data[start:]
    if len(payload) != n * DIGEST + n * dim * 4:
        raise ValueError("truncated")
    if keys.checksum(payload) != checksum:
        raise ValueError("checksum mismatch")
    digests = [payload[i * DIGEST:(i + 1) * DIGEST] for i in range(n)]
    vectors = np.frombuffer(payload, dtype="<f4", offset=n * DIGEST).reshape(n, dim).astype(np.float32)
    return digests, vectors


class EmbeddingCache:
    """Vectors of one encoder configuration, by text."""

    def __init__(self, settings: dict[str, Any], root: str | Path | None = None,
                 compact_after: int = 32) -> None:
        if root is None:
            root = paths.cache_dir() / "embeddings"
        self.settings = dict(settings)
        slug = keys.slug(str(settings.get("model", "model")))[-60:] or "model"
        self.folder = keys.adopt(Path(root) / f"{slug}-{settings_key(self.settings)}")
        self.compact_after = compact_after
        self.stats = CacheStats()
        self._vectors: dict[bytes, np.ndarray] | None = None
        self._read: set[str] = set()  # the shards whose vectors are in memory

    def _load(self) -> dict[bytes, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            self._read_new_shards()
        return self._vectors

    def _read_new_shards(self, passes: int = 3) -> bool:
        """Read into memory the shards not read yet, those another process (or another cache on the same
        folder) wrote since; whether any was. A shard compacted away meanwhile sends it round again, to the
        merged one; a shard that cannot be read now (permissions, I/O) is left for later."""
        store = self._load()  # from _load itself: the empty store it just made
        added = False
        for _ in range(passes):
            gone = False
            for shard in sorted(self.folder.glob("shard-*.emb")):
                if shard.name in self._read:
                    continue
                try:
                    digests, vectors = read_shard(shard)
                except FileNotFoundError:
                    gone = True
                    continue
                except ValueError:  # not a whole shard of this format: dropped, its texts encoded again
                    self.stats.corrupt += 1
                    shard.unlink(missing_ok=True)
                    continue
                except OSError:
                    continue
                store.update(zip(digests, vectors))
                self._read.add(shard.name)
                added = True
            if not gone:
                break
        return added

    def __len__(self) -> int:
        return len(self._load())

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """The cached vector of each text, or None; counts hits and misses."""
        store = self._load()
        digests = [keys.text_digest(t) for t in texts]
        found = [store.get(d) for d in digests]
        if any(v is None for v in found) and self._read_new_shards():
            found = [store.get(d) for d in digests]
        hits = sum(v is not None for v in found)
        self.stats.hits += hits
        self.stats.misses += len(texts) - hits
        return found

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store vectors of new texts as one new shard."""
        store = self._load()
        fresh = {}
        for text, vector in zip(texts, vectors):
            digest = keys.text_digest(text)
            if digest not in store:
                fresh[digest] = vector
        if not fresh:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        settings_file = self.folder / "settings.json"
        if not settings_file.exists():
            settings_file.write_text(json.dumps(self.settings, indent=1, sort_keys=True, default=str))
        digests = list(fresh)
        matrix = np.stack([fresh[d] for d in digests])
        name = keys.key_of_bytes(b"".join(digests))
        write_shard(self.folder / f"shard-{name}.emb", digests, matrix)
        self._read.add(f"shard-{name}.emb")
        store.update(fresh)
        if len(list(self.folder.glob("shard-*.emb"))) > self.compact_after:
            self.compact()

    def compact(self) -> None:
        """Merge every shard into one (written before the old ones are removed), another process's too."""
        store = self._load()
        self._read_new_shards()
        old = [p for p in sorted(self.folder.glob("shard-*.emb")) if p.name in self._read]  # those it merges
        if len(old) <= 1 or not store:
            return
        digests = sorted(store)
        name = keys.key_of_bytes(b"".join(digests))
        target = self.folder / f"shard-{name}.emb"
        write_shard(target, digests, np.stack([store[d] for d in digests]))
        self._read.add(target.name)
        for shard in old:
            if shard != target:
                shard.unlink(missing_ok=True)

    def embed(self, texts: Sequence[str], encode: Callable[[list[str]], np.ndarray], batch_size: int = 512,
              progress: bool = False, desc: str = "encode") -> np.ndarray:
        """Vectors of ``texts``: cached ones read, the others encoded (each distinct text once, longest first,
        so that a batch holds texts of similar length and pads little) and stored chunk by chunk."""
        found = self.get(texts)
        missing = sorted(dict.fromkeys(t for t, v in zip(texts, found) if v is None), key=len, reverse=True)
        computed: dict[str, np.ndarray] = {}
        if missing:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(missing), desc=desc, disable=not progress, unit="text")
            model = str(self.settings.get("model", "encoder")).rstrip("/").split("/")[-1]
            tracker = Tracker(f"{desc} ({model})", len(missing), "texts")
            for start in range(0, len(missing), batch_size):
                chunk = missing[start:start + batch_size]
                vectors = np.asarray(encode(chunk), dtype=np.float32)
                self.stats.encoded += len(chunk)
                self.put(chunk, vectors)
                computed.update(zip(chunk, vectors))
                bar.update(len(chunk))
                tracker.update(len(chunk))
            bar.close()
        rows = [v if v is not None else computed[t] for t, v in zip(texts, found)]
        if not rows:
            return np.zeros((0, 0), np.float32)
        return np.stack(rows).astype(np.float32)
