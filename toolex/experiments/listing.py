"""What the artifacts folder holds, in words: each cached annotation folder, retriever run and fine-tuned
model with the setting it was made with, read from its manifest (a run from the description beside it), so
that hash names never have to be decoded by hand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolex import paths
from toolex.annotate.run_folder import ArtifactFolder
from toolex.io.atomic import write_json

KINDS = ("annotations", "runs", "models")
#: The description written beside a cached run (``<run>.trec`` → ``<run>.json``).
RUN_ABOUT = ".json"


def _read(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _annotations(root: Path) -> Iterator[dict[str, Any]]:
    for folder in sorted(p for p in (root / "annotations").glob("*") if p.is_dir()):
        manifest = ArtifactFolder(folder).manifest()
        benchmarks = "+".join(b.get("name", "?") for b in manifest.get("benchmarks", [])) or "?"
        judge = manifest.get("judge", {}).get("name", "?")
        yield {"kind": "annotations", "name": folder.name,
               "setting": f"judge {judge} on {benchmarks} ({manifest.get('queries', '?')} queries)",
               "state": "complete" if manifest.get("files") else "incomplete (resumes on the next run)"}


def _runs(root: Path) -> Iterator[dict[str, Any]]:
    for path in sorted((root / "runs").rglob("*.trec")):
        about = _read(path.with_suffix(RUN_ABOUT))
        # <retriever slug>.<pool or level>[.<key>].trec; a slug may hold dots
        parts = path.name.rsplit(".", 3 if path.parent.name == "report" else 2)
        setting = (f"{about['retriever']} over {about['workspace']}, {about['level']}" if about else
                   f"{parts[0]}, {parts[1]} (no description beside it)")
        yield {"kind": "runs", "name": path.relative_to(root / "runs").as_posix(), "setting": setting,
               "state": "complete"}


def _models(root: Path) -> Iterator[dict[str, Any]]:
    for folder in sorted(p for p in (root / "models").glob("*") if p.is_dir()):
        manifest = _read(folder / "manifest.json")
        labels = manifest.get("labels") or "one-to-one"
        labels = labels.get("rule", "?") if isinstance(labels, dict) else str(labels)
        data = "+".join(sorted(manifest.get("data", {}))) or "?"
        yield {"kind": "models", "name": folder.name,
               "setting": f"{manifest.get('base', '?')} fine-tuned on {labels} labels of {data}",
               "state": "complete" if manifest else "incomplete (no manifest)"}


def cached(kind: str | None = None, root: str | Path | None = None) -> list[dict[str, Any]]:
    """One row per cached artifact (``kind``: one of :data:`KINDS`, or all), with its setting in words."""
    base = Path(root) if root is not None else paths.artifacts_dir()
    makers = {"annotations": _annotations, "runs": _runs, "models": _models}
    return [row for name in ([kind] if kind else KINDS) for row in makers[name](base)]


def describe_run(path: Path, about: dict[str, Any]) -> None:
    """Write the description of a cached run beside it (what :func:`cached` shows)."""
    write_json(path.with_suffix(RUN_ABOUT), about)
