"""What the artifacts folder holds, in words: each cached annotation folder, retriever run, fine-tuned model,
skills benchmark and downstream run with the setting it was made with, read from its manifest alone
(:mod:`toolex.io.artifact`), so that hash names never have to be decoded by hand."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from toolex import paths
from toolex.errors import InputError
from toolex.io.artifact import adopt_sidecar, manifest_path, read_manifest_file, write_manifest

#: The kinds ``toolex cached --kind`` takes, each with the artifact kind of :data:`toolex.io.artifact.KINDS`.
KINDS = {"annotations": "annotations", "runs": "run", "models": "model", "skills": "skills-benchmark",
         "downstream": "downstream"}


def _manifest(path: Path) -> tuple[dict[str, Any], str | None]:
    """The manifest file ``path`` and, where it cannot be read, why (the row says so rather than the listing
    failing)."""
    try:
        return read_manifest_file(path), None
    except InputError as exc:
        return {}, str(exc)


def _state(manifest: dict[str, Any], problem: str | None, complete: bool) -> str:
    if problem:
        return f"unreadable manifest ({problem})"
    status = manifest.get("status")
    if status == "partial" or (status is None and not complete):
        return "incomplete (resumes on the next run)"
    return "complete"


def _folders(root: Path, pattern: str = "*") -> list[Path]:
    """The artifact folders under ``root`` (a folder being written, hidden or ``.tmp-``, left out)."""
    return sorted(p for p in root.glob(pattern) if p.is_dir() and not p.name.startswith(".")
                  and ".tmp-" not in p.name)


def _annotations(root: Path) -> Iterator[dict[str, Any]]:
    for folder in _folders(root / "annotations"):
        manifest, problem = _manifest(manifest_path(folder))
        benchmarks = "+".join(b.get("name", "?") for b in manifest.get("benchmarks", [])) or "?"
        judge = manifest.get("judge", {}).get("name", "?")
        yield {"kind": "annotations", "name": folder.name,
               "setting": f"judge {judge} on {benchmarks} ({manifest.get('queries', '?')} queries)",
               "state": _state(manifest, problem, bool(manifest.get("files")))}


def _runs(root: Path) -> Iterator[dict[str, Any]]:
    for path in sorted((root / "runs").rglob("*.trec")):
        described = adopt_sidecar(path) or manifest_path(path)
        about, problem = _manifest(described)
        # <retriever slug>.<pool or level>[.<key>].trec; a slug may hold dots
        parts = path.name.rsplit(".", 3 if path.parent.name == "report" else 2)
        setting = (f"{about['retriever']} over {about['workspace']}, {about['level']}"
                   if {"retriever", "workspace", "level"} <= set(about)
                   else f"{parts[0]}, {parts[1]} (no description beside it)")
        yield {"kind": "runs", "name": path.relative_to(root / "runs").as_posix(), "setting": setting,
               "state": _state(about, problem, True)}


def _models(root: Path) -> Iterator[dict[str, Any]]:
    for folder in _folders(root / "models"):
        manifest, problem = _manifest(manifest_path(folder))
        labels = manifest.get("labels") or "one-to-one"
        labels = labels.get("rule", "?") if isinstance(labels, dict) else str(labels)
        data = "+".join(sorted(manifest.get("data", {}))) or "?"
        yield {"kind": "models", "name": folder.name,
               "setting": f"{manifest.get('base', '?')} fine-tuned on {labels} labels of {data}",
               "state": "incomplete (no manifest)" if not (manifest or problem)
               else _state(manifest, problem, True)}


def _skills(root: Path) -> Iterator[dict[str, Any]]:
    for folder in _folders(root / "skills", "*/benchmark"):
        manifest, problem = _manifest(manifest_path(folder))
        generator = manifest.get("generator", {}).get("generator", "?")
        counts = manifest.get("counts", {})
        yield {"kind": "skills", "name": folder.parent.name,
               "setting": f"skills benchmark written by {generator} ({counts.get('kept', '?')} queries)",
               "state": _state(manifest, problem, bool(manifest))}


def _downstream(root: Path) -> Iterator[dict[str, Any]]:
    for folder in _folders(root / "downstream"):
        if not manifest_path(folder).exists():
            continue
        manifest, problem = _manifest(manifest_path(folder))
        identity = manifest.get("identity", {})
        settings = ", ".join(identity.get("settings", []))
        yield {"kind": "downstream", "name": folder.name,
               "setting": f"downstream run on {identity.get('benchmark', '?')} "
                          f"({len(identity.get('queries', []))} queries; {settings})",
               "state": _state(manifest, problem, True)}


LISTERS: dict[str, Callable[[Path], Iterator[dict[str, Any]]]] = {
    "annotations": _annotations, "runs": _runs, "models": _models, "skills": _skills,
    "downstream": _downstream}


def cached(kind: str | None = None, root: str | Path | None = None) -> list[dict[str, Any]]:
    """One row per cached artifact (``kind``: one of :data:`KINDS`, or all), with its setting in words."""
    base = Path(root) if root is not None else paths.artifacts_dir()
    return [row for name in ([kind] if kind else KINDS) for row in LISTERS[name](base)]


def describe_run(path: Path, about: dict[str, Any]) -> None:
    """Write the description of a cached run beside it (``<run>.trec.json``, what :func:`cached` shows)."""
    write_manifest(path, "run", about)
