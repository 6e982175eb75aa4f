"""A ToolEq release: the default setting's expanded annotations as data, with a manifest and a datasheet.

A release folder (``data/release/tooleq/`` by default, :func:`toolex.paths.release_dir`) holds

- ``annotations.jsonl.gz``: per query, its id, category, C* and every valid combination (ToolEq);
- ``subqueries.jsonl.gz``, ``verified.jsonl.gz``, ``query_combo_verified.jsonl.gz``: the other stage files
  of the annotation folder, so that ``make paper`` can start from them;
- ``manifest.json``: the annotation folder's own manifest (judge, settings, data checksums);
- ``release.json``: the folder's name and key parts, each file's size and sha256;
- ``DATASHEET.md``: what it is, how it was made, its validation, licences and known limits.

Files are gzip-compressed deterministically (no name, no time), so a rebuild from the same folder gives the
same bytes. :func:`verify` checks every checksum and says whether the current judge, data and package would
produce the same annotation folder (its name is the key); :func:`restore` unpacks a release into the artifact
folder the notebooks would otherwise compute, only when the names agree.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolex import __version__, paths
from toolex.annotate.artifacts import (
    ANNOTATIONS,
    COMBINATIONS,
    MANIFEST,
    SUBQUERIES,
    VERIFIED,
    ArtifactFolder,
)
from toolex.errors import InputError
from toolex.io.atomic import atomic_writer, write_json

FORMAT = 1
RELEASE_FILE = "release.json"
DATASHEET = "DATASHEET.md"
#: The annotation folder's files a release carries, compressed (the manifest is kept as it is).
STAGE_FILES = (ANNOTATIONS, SUBQUERIES, VERIFIED, COMBINATIONS)
#: Set to 1 to compute the annotations even where a release matches (``make paper FROM_SCRATCH=1``).
FROM_SCRATCH_ENV = "TOOLEX_FROM_SCRATCH"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def gzip_bytes(data: bytes) -> bytes:
    """Deterministic gzip: no file name, modification time 0, level 9."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(data)
    return buffer.getvalue()


def build(folder: str | Path, out: str | Path, about: Mapping[str, Any], datasheet: str) -> Path:
    """Write a release of the complete annotation folder ``folder`` into ``out`` (replaced whole): its stage
    files compressed, its manifest, ``release.json`` (``about``: settings, workspace, key parts, made by) and
    the datasheet text."""
    source = ArtifactFolder(folder)
    manifest = source.manifest()
    if not manifest.get("files") or not source.annotations_path().exists():
        raise InputError(str(folder), "not a complete annotation folder (no manifest files or annotations)")
    out = Path(out)
    staging = out.with_name(out.name + ".building")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    files: dict[str, dict[str, Any]] = {}
    for name in STAGE_FILES:
        raw = source.path(name).read_bytes()
        packed = gzip_bytes(raw)
        (staging / f"{name}.gz").write_bytes(packed)
        files[name] = {"sha256": sha256(raw), "bytes": len(raw), "gz_sha256": sha256(packed),
                       "gz_bytes": len(packed)}
    shutil.copyfile(source.path(MANIFEST), staging / MANIFEST)
    record = {"format": FORMAT, "folder": source.folder.name, "package_version": __version__, **about,
              "manifest_sha256": sha256((staging / MANIFEST).read_bytes()), "files": files}
    write_json(staging / RELEASE_FILE, record, indent=1)
    (staging / DATASHEET).write_text(datasheet, encoding="utf-8")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return out


def read(release: str | Path) -> dict[str, Any]:
    """The release record (``release.json``)."""
    path = Path(release) / RELEASE_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(str(path), f"not a ToolEq release ({exc})") from exc


@dataclass
class Verification:
    """What :func:`verify` found: checksum problems, and whether the current setup has the release's key."""

    release: str
    problems: list[str] = field(default_factory=list)
    matches: bool | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = [f"{'OK' if self.ok else 'FAIL'}  {self.release}: "
               f"{'every checksum holds' if self.ok else f'{len(self.problems)} problem(s)'}"]
        out += [f"  {p}" for p in self.problems]
        if self.matches is not None:
            out.append(f"{'MATCH' if self.matches else 'OTHER'} {self.reason}")
        return out


def verify(release: str | Path, expected_folder: str | None = None,
           expected_parts: Mapping[str, Any] | None = None) -> Verification:
    """Every file's size and sha256 (compressed and unpacked), the stage files against the annotation
    manifest; with ``expected_folder`` (the folder the current judge and data would write), whether the
    release holds it, and if not which key part differs (``expected_parts``, as :func:`key_parts`)."""
    release = Path(release)
    record = read(release)
    result = Verification(str(release))
    manifest_path = release / MANIFEST
    if not manifest_path.exists() or sha256(manifest_path.read_bytes()) != record.get("manifest_sha256"):
        result.problems.append(f"{MANIFEST}: missing or its sha256 differs from {RELEASE_FILE}")
    stage_sums = {}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        stage_sums = {name: entry.get("sha256") for name, entry in manifest.get("files", {}).items()}
    for name, entry in record.get("files", {}).items():
        path = release / f"{name}.gz"
        if not path.exists():
            result.problems.append(f"{path.name}: missing")
            continue
        packed = path.read_bytes()
        if sha256(packed) != entry["gz_sha256"] or len(packed) != entry["gz_bytes"]:
            result.problems.append(f"{path.name}: compressed bytes differ from {RELEASE_FILE}")
            continue
        raw = gzip.decompress(packed)
        if sha256(raw) != entry["sha256"] or len(raw) != entry["bytes"]:
            result.problems.append(f"{path.name}: unpacked bytes differ from {RELEASE_FILE}")
        elif name in stage_sums and stage_sums[name] != entry["sha256"]:
            result.problems.append(f"{name}: differs from the annotation manifest's sha256")
    if expected_folder is not None:
        result.matches = expected_folder == record["folder"]
        if result.matches:
            result.reason = f"the current judge, data and package would write {expected_folder}"
        else:
            kept = record.get("key_parts", {})
            differing = [k for k, v in (expected_parts or {}).items() if kept.get(k) != v]
            why = ", ".join(differing) if differing else "the key"
            result.reason = (f"the current setup would write {expected_folder}, the release holds "
                             f"{record['folder']} ({why} differ)")
    return result


def key_parts(query_key: str, judge_identity: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, str]:
    """Short digests of what an annotation folder's key covers, to say which differs."""
    def short(value: Any) -> str:
        return sha256(json.dumps(value, sort_keys=True, default=str).encode())[:12]

    return {"queries_and_data": str(query_key), "judge": short(dict(judge_identity)), "config": short(config),
            "package_version": __version__}


def restore(release: str | Path, target: str | Path) -> bool:
    """Unpack the release into ``target`` (an annotation folder path) when ``target``'s name is the
    release's folder and every checksum holds; the files are written whole and atomically. Returns whether
    it restored."""
    release, target = Path(release), Path(target)
    if not (release / RELEASE_FILE).exists():
        return False
    record = read(release)
    if record.get("folder") != target.name:
        return False
    checked = verify(release)
    if not checked.ok:
        raise InputError(str(release), "; ".join(checked.problems))
    target.mkdir(parents=True, exist_ok=True)
    for name in STAGE_FILES:
        with atomic_writer(target / name, "wb") as out:
            out.write(gzip.decompress((release / f"{name}.gz").read_bytes()))
    # the manifest last: a folder counts as complete only once its manifest lists its files
    with atomic_writer(target / MANIFEST, "wb") as out:
        out.write((release / MANIFEST).read_bytes())
    return True


def default_release() -> Path:
    return paths.release_dir() / "tooleq"
