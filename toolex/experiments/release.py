"""A ToolEq release: the default setting's expanded annotations as data, with a manifest and a datasheet.

A release folder (``data/release/tooleq/`` for the default setting; ``data/release/skilleq/`` and
``data/release/sgd-report/`` for the other annotation folders ``make paper`` reads, :func:`releases`) holds

- ``annotations.jsonl.gz``: per query, its id, category, C* and every valid combination (ToolEq);
- ``subqueries.jsonl.gz``, ``verified.jsonl.gz``, ``query_combo_verified.jsonl.gz``: the other stage files
  of the annotation folder, so that ``make paper`` can start from them;
- ``manifest.json``: the annotation folder's own manifest (judge, settings, data checksums);
- ``release.json``: the release record, in the envelope every manifest shares (kind ``release``; identity: the
  annotation folder's name and key parts), then the settings, each file's size and sha256 (format 2; a record
  of format 1, without the envelope, is read as it is);
- ``DATASHEET.md``: what it is, how it was made, its validation, licences and known limits.

Files are gzip-compressed deterministically (no name, no time), so a rebuild from the same folder gives the
same bytes. :func:`verify` checks every checksum and says whether the current judge, data and package would
produce the same annotation folder (its name is the key); :func:`restore` unpacks a release into the artifact
folder the notebooks would otherwise compute, only when the names agree.
"""

from __future__ import annotations

import gzip
import io
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolex import __version__, keys, paths
from toolex.annotate.pipeline import STAGE_FILES as STAGE_FILE_OF
from toolex.annotate.run_folder import ANNOTATIONS, ArtifactFolder
from toolex.errors import InputError
from toolex.io.artifact import ENVELOPE_FIELDS, MANIFEST, envelope, read_manifest, read_manifest_file
from toolex.io.atomic import atomic_writer, write_json
from toolex.io.lock import FolderLock

#: 2: the record begins with the artifact envelope (:func:`toolex.io.artifact.envelope`).
FORMAT = 2
RELEASE_FILE = "release.json"
DATASHEET = "DATASHEET.md"
#: The annotation folder's files a release carries, compressed (the manifest is kept as it is).
STAGE_FILES = (ANNOTATIONS, *STAGE_FILE_OF.values())
#: Set to 1 to compute the annotations even where a release matches (``make paper FROM_SCRATCH=1``).
FROM_SCRATCH_ENV = "TOOLEX_FROM_SCRATCH"


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
    if not source.complete():
        raise InputError(str(folder), "not a complete annotation folder (no manifest files or annotations)")
    out = Path(out)
    staging = out.with_name(out.name + ".building")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        files: dict[str, dict[str, Any]] = {}
        recorded = stage_sha256(manifest)
        for name in STAGE_FILES:
            raw = source.path(name).read_bytes()
            if recorded.get(name) not in (None, keys.checksum(raw)):
                raise InputError(str(source.path(name)), "differs from its manifest's sha256: the folder is "
                                                         "not the one its manifest describes")
            packed = gzip_bytes(raw)
            (staging / f"{name}.gz").write_bytes(packed)
            files[name] = {"sha256": keys.checksum(raw), "bytes": len(raw),
                           "gz_sha256": keys.checksum(packed), "gz_bytes": len(packed)}
        shutil.copyfile(source.path(MANIFEST), staging / MANIFEST)
        record = release_record(about, source.folder.name, keys.checksum((staging / MANIFEST).read_bytes()),
                                files)
        write_json(staging / RELEASE_FILE, record, indent=1)
        (staging / DATASHEET).write_text(datasheet, encoding="utf-8")
        checked = verify(staging)
        if not checked.ok:
            raise InputError(str(staging), "; ".join(checked.problems))
        # swap: the old release stays whole until the new one is in place
        old = out.with_name(out.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            out.rename(old)
        staging.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def release_record(about: Mapping[str, Any], folder: str, manifest_sha256: str,
                   files: Mapping[str, Any]) -> dict[str, Any]:
    """``release.json``: the envelope (identity: the folder and its key parts), ``about`` and the files."""
    identity = {"folder": folder, "key_parts": dict(about.get("key_parts", {}))}
    own = {k: v for k, v in about.items() if k not in ENVELOPE_FIELDS}
    return {**envelope("release", "complete", identity), **own, "format": FORMAT, "folder": folder,
            "manifest_sha256": manifest_sha256, "files": dict(files)}


def stage_sha256(manifest: Mapping[str, Any]) -> dict[str, str]:
    """The sha256 an annotation manifest records for each stage file (``stages.<stage>.artifact``) and for
    the export (``artifacts``)."""
    out = {}
    for stage, name in STAGE_FILE_OF.items():
        artifact = manifest.get("stages", {}).get(stage, {}).get("artifact") or {}
        if artifact.get("sha256"):
            out[name] = artifact["sha256"]
    for name, entry in (manifest.get("artifacts") or {}).items():
        if isinstance(entry, Mapping) and entry.get("sha256"):
            out[name] = entry["sha256"]
    return out


def read(release: str | Path) -> dict[str, Any]:
    """The release record (``release.json``), read by the one manifest reader."""
    path = Path(release) / RELEASE_FILE
    record = read_manifest_file(path, required=True)
    if record.get("kind", "release") != "release":
        raise InputError(str(path), f"not a ToolEq release (a manifest of kind {record['kind']!r})")
    if isinstance(record.get("format"), int) and record["format"] > FORMAT:
        raise InputError(str(path), f"a release of format {record['format']}, newer than this package reads "
                                    f"({FORMAT}): update toolex")
    return record


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
    files = record.get("files")
    if not isinstance(files, Mapping) or "folder" not in record:
        result.problems.append(f"{RELEASE_FILE}: no folder or files listed")
        return result
    missing = [name for name in STAGE_FILES if name not in files]
    if missing:
        result.problems.append(f"{RELEASE_FILE}: lists no {', '.join(missing)}")
    stage_sums: dict[str, str] = {}
    try:
        if keys.checksum((release / MANIFEST).read_bytes()) != record.get("manifest_sha256"):
            result.problems.append(f"{MANIFEST}: its sha256 differs from {RELEASE_FILE}")
        stage_sums = stage_sha256(read_manifest(release, required=True))
    except (OSError, InputError, AttributeError) as exc:
        result.problems.append(f"{MANIFEST}: missing or unreadable ({exc})")
    for name, entry in files.items():
        path = release / f"{name}.gz"
        try:
            packed = path.read_bytes()
            if keys.checksum(packed) != entry["gz_sha256"] or len(packed) != entry["gz_bytes"]:
                result.problems.append(f"{path.name}: compressed bytes differ from {RELEASE_FILE}")
                continue
            raw = gzip.decompress(packed)
        except (OSError, EOFError, KeyError, TypeError, gzip.BadGzipFile) as exc:
            result.problems.append(f"{path.name}: missing or unreadable ({exc})")
            continue
        if keys.checksum(raw) != entry.get("sha256") or len(raw) != entry.get("bytes"):
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
        return keys.key_of(value)

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
    with FolderLock(target):
        for name in STAGE_FILES:
            with atomic_writer(target / name, "wb") as out:
                out.write(gzip.decompress((release / f"{name}.gz").read_bytes()))
        # the manifest last: a folder counts as complete only once its manifest lists its files
        with atomic_writer(target / MANIFEST, "wb") as out:
            out.write((release / MANIFEST).read_bytes())
    return True


def default_release() -> Path:
    return paths.release_dir() / "tooleq"


def releases(root: str | Path | None = None) -> list[Path]:
    """Every release folder under ``root`` (default :func:`toolex.paths.release_dir`): the ToolEq release of
    the default setting and the other annotation folders ``make paper`` reads (SkillEq, the validation)."""
    root = Path(root) if root else paths.release_dir()
    return sorted(p.parent for p in root.glob(f"*/{RELEASE_FILE}"))


def holding(folder_name: str, root: str | Path | None = None) -> Path | None:
    """The release that holds the annotation folder ``folder_name``, if one does (an unreadable release
    record holds nothing)."""
    for candidate in releases(root):
        try:
            if read(candidate).get("folder") == folder_name:
                return candidate
        except InputError:
            continue
    return None
