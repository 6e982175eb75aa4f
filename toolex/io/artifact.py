"""One manifest for everything computed: annotation folders, retriever runs, fine-tuned models, skills
benchmarks, downstream runs and release parts (whose ``release.json`` begins with the same envelope).

Every artifact is described by one JSON document, ``manifest.json`` in its folder (a file artifact, such as a
TREC run, has it beside it as ``<file>.json``), whose envelope is the same for every kind:

| field            | holds                                                                         |
|------------------|-------------------------------------------------------------------------------|
| ``kind``         | one of :data:`KINDS`                                                          |
| ``schema``       | :data:`SCHEMA`, the version of this envelope                                  |
| ``toolex_version``| the package version that wrote it                                            |
| ``status``       | ``"partial"`` while its stages run, ``"complete"`` once it holds every file   |
| ``identity``     | what decides reuse: another identity in the same place is refused             |

and the kind's own fields beside them (settings, inputs' checksums, timings). Manifests are written whole
and atomically, read by :func:`read_manifest` alone, and a folder written in full is published by
:func:`publish_folder`. A manifest written before the envelope existed has no ``kind``:
:func:`kind_of` names it from where it lies, and :func:`adopt_sidecar` renames a run description of the
former name.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolex import __version__
from toolex.errors import InputError
from toolex.io.atomic import write_json

#: The file name of every manifest.
MANIFEST = "manifest.json"
#: The version of the envelope below.
SCHEMA = 1
#: Every kind of artifact, with the folder that holds it (in the artifacts folder; releases in data/release).
KINDS: dict[str, str] = {"annotations": "annotations", "run": "runs", "model": "models",
                         "skills-benchmark": "skills", "downstream": "downstream", "release": "release"}
STATUSES = ("partial", "complete")
#: The fields of the envelope, in the order every manifest begins with them.
ENVELOPE_FIELDS = ("kind", "schema", "toolex_version", "status", "identity")
#: What a file artifact's description adds to the file's name (``bm25.trec`` → ``bm25.trec.json``).
SIDECAR = ".json"
#: The suffixes of file artifacts, so a file not yet written is told from a folder with a dot in its name.
FILE_SUFFIXES = (".trec",)


def manifest_path(artifact: str | Path) -> Path:
    """Where the manifest of ``artifact`` lies: ``<folder>/manifest.json`` for a folder (or a name without a
    suffix), ``<file>.json`` for a file."""
    artifact = Path(artifact)
    if artifact.is_file() or artifact.suffix in FILE_SUFFIXES:
        return Path(str(artifact) + SIDECAR)
    return artifact / MANIFEST


def read_manifest(artifact: str | Path, required: bool = False) -> dict[str, Any]:
    """The manifest of a folder or file artifact: ``{}`` when there is none (an error naming the path with
    ``required``); a manifest that is not a JSON object is an error naming its file."""
    return read_manifest_file(manifest_path(artifact), required)


def read_manifest_file(path: str | Path, required: bool = False) -> dict[str, Any]:
    """:func:`read_manifest` of the manifest file itself (a description under a former name)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise InputError(path, "no manifest: the artifact is missing or was never completed") from None
        return {}
    except OSError as exc:
        raise InputError(path, f"unreadable manifest ({exc.strerror or exc})") from None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InputError(path, f"manifest is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise InputError(path, f"manifest is a JSON {type(value).__name__}, not an object")
    return value


def envelope(kind: str, status: str = "complete",
             identity: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The fields every manifest begins with (see the module's table)."""
    if kind not in KINDS:
        raise ValueError(f"unknown artifact kind {kind!r}; kinds are {', '.join(KINDS)}")
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}; statuses are {', '.join(STATUSES)}")
    head: dict[str, Any] = {"kind": kind, "schema": SCHEMA, "toolex_version": __version__, "status": status}
    if identity is not None:
        head["identity"] = _plain(identity)
    return head


def write_manifest(artifact: str | Path, kind: str, record: Mapping[str, Any], status: str = "complete",
                   identity: Mapping[str, Any] | None = None, indent: int = 2) -> Path:
    """Write the manifest of ``artifact`` atomically: the envelope, then ``record``'s own fields (an
    ``identity`` in ``record`` is kept where none is given)."""
    if identity is None and "identity" in record:
        identity = record["identity"]
    body = {k: v for k, v in record.items() if k not in ENVELOPE_FIELDS}
    return write_json(manifest_path(artifact), {**envelope(kind, status, identity), **body}, indent=indent)


def kind_of(artifact: str | Path, manifest: Mapping[str, Any] | None = None) -> str | None:
    """The kind a manifest names, or, for one written before the envelope, the kind of the folder of the
    artifacts folder it lies in (``None`` when neither tells)."""
    manifest = read_manifest(artifact) if manifest is None else manifest
    named = manifest.get("kind")
    if isinstance(named, str) and named in KINDS:
        return named
    folders = {folder: kind for kind, folder in KINDS.items()}
    return next((folders[p.name] for p in Path(artifact).resolve().parents if p.name in folders), None)


def different_identity(held: Mapping[str, Any] | None, wanted: Mapping[str, Any]) -> list[str]:
    """The fields in which a kept identity differs from the wanted one (empty: the same artifact)."""
    held, wanted = _plain(held or {}), _plain(wanted)
    return sorted(k for k in set(held) | set(wanted) if held.get(k) != wanted.get(k))


def refuse_other(artifact: str | Path, kind: str, identity: Mapping[str, Any], what: str,
                 advice: str = "choose another --out") -> dict[str, Any]:
    """The manifest kept at ``artifact`` (``{}`` when none); an error naming it when it holds another kind or
    another identity (``what``: the artifact in words, as the message names it)."""
    kept = read_manifest(artifact)
    if not kept:
        return kept
    held_kind = kind_of(artifact, kept)
    if held_kind not in (None, kind):
        raise InputError(manifest_path(artifact), f"holds an artifact of kind {held_kind!r}, not {what}; "
                                                  f"{advice}")
    changed = different_identity(kept.get("identity"), identity)
    if changed:
        raise InputError(manifest_path(artifact), f"the folder holds another {what} (differs in "
                                                  f"{', '.join(changed)}); {advice}")
    return kept


def publish_folder(built: Path, target: Path) -> Path:
    """Move a folder written in full at ``built`` (beside ``target``) to ``target``. A former ``target`` is
    moved aside first and removed after the rename, so a reader finds the former or the new folder, except
    for the instant between the two renames; a process killed in that instant leaves the former folder aside,
    and the next publication (or :func:`restore_aside`) puts it back before anything else."""
    restore_aside(target)
    aside = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        os.replace(target, aside)
    try:
        os.replace(built, target)
    except BaseException:
        if aside.exists() and not target.exists():
            os.replace(aside, target)
        raise
    shutil.rmtree(aside, ignore_errors=True)
    return target


def restore_aside(target: Path) -> bool:
    """Put back a former folder that a killed :func:`publish_folder` left aside (``.<name>.old-<pid>``) where
    ``target`` is missing; remove such leftovers where it exists. Returns whether it restored one."""
    leftovers = sorted(target.parent.glob(f".{target.name}.old-*"), key=lambda p: p.stat().st_mtime)
    restored = False
    if leftovers and not target.exists():
        os.replace(leftovers.pop(), target)
        print(f"[toolex] {target}: restored the folder a killed publication left aside", file=sys.stderr)
        restored = True
    for leftover in leftovers:
        shutil.rmtree(leftover, ignore_errors=True)
    return restored


def adopt_sidecar(path: str | Path, former_suffix: str = ".json") -> Path | None:
    """The description of a file artifact, a former name (``bm25.json`` beside ``bm25.trec``) renamed to
    today's (``bm25.trec.json``) with a message; the former name as it is where the folder cannot be
    written; ``None`` when it has neither."""
    path = Path(path)
    today = manifest_path(path)
    if today.exists():
        return today
    former = path.with_suffix(former_suffix)
    if former == today or not former.exists():
        return None
    try:
        os.replace(former, today)
    except OSError:
        return former
    print(f"[toolex] {former}: renamed to {today.name} (the name every run description has now)",
          file=sys.stderr)
    return today


def _plain(value: Mapping[str, Any]) -> dict[str, Any]:
    """A mapping as JSON would give it back (tuples as lists, keys as strings), so that identities compare
    equal before and after a round trip."""
    plain = json.loads(json.dumps(dict(value), default=str))
    assert isinstance(plain, dict)
    return plain
