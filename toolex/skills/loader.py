"""Skill corpora as tool pools: JSON lines of skills or a folder of ``SKILL.md`` files.

A skill becomes a :class:`~toolex.data.records.Tool` whose documentation is ``name``, ``description`` and the
markdown ``body`` (one text), whose ``platform`` is the source repository and whose ``category`` is ``skill``.

Two layouts are read:

* JSON lines (``.jsonl`` / ``.jsonl.gz`` / ``.json`` list) of ``{id, name, description, body}`` (``sha256``
and
  other fields are kept out of the documentation), as in ``skills/agent_skills.jsonl.gz`` of the data folder
  and the SkillRet hub export;
* a folder holding ``**/SKILL.md`` files with a YAML frontmatter (``name``, ``description``) followed by the
  body; the id of a skill is the path of its file relative to the folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from toolex.data.checksum import files_checksum
from toolex.data.readers import iter_jsonl, read_records
from toolex.data.records import Tool
from toolex.errors import InputError
from toolex.paths import data_dir

SKILL_CATEGORY = "skill"
#: Mirror paths look like ``mirrors/repos/<owner>@<repo>/<path>/SKILL.md``.
_REPO = re.compile(r"(?:^|/)repos/([^/@]+)@([^/]+)/")
_FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)


def repository_of(skill_id: str) -> str | None:
    """``owner/repo`` parsed from a mirror path (``mirrors/repos/<owner>@<repo>/...``), else None."""
    match = _REPO.search(skill_id)
    return f"{match.group(1)}/{match.group(2)}" if match else None


def skill_documentation(name: str, description: str, body: str) -> str:
    """The documentation text of a skill: name, description and body, as a retriever indexes it."""
    parts = [f"name: {name}", f"description: {description}"]
    if body.strip():
        parts.append(body.strip())
    return "\n".join(parts)


def skill_tool(record: Mapping[str, Any], path: str | Path | None = None,
               index: int | str | None = None) -> Tool:
    """One skill record ``{id, name, description, body}`` as a Tool; a bad record raises
    :class:`InputError`."""
    if not isinstance(record, Mapping):
        raise InputError(path, f"expected an object, found {type(record).__name__}", record=index)
    where = index
    skill_id = record.get("id")
    if not isinstance(skill_id, str) or not skill_id.strip():
        raise InputError(path, "missing or empty 'id'", record=where)
    where = f"{skill_id}" if index is None else f"{index} ({skill_id})"
    values: dict[str, str] = {}
    for key in ("name", "description"):
        value = record.get(key)
        if not isinstance(value, str) or not value.strip():
            raise InputError(path, f"missing or empty {key!r}", record=where)
        values[key] = value.strip()
    body = record.get("body", "")
    if body is None:
        body = ""
    if not isinstance(body, str):
        raise InputError(path, f"'body' must be text, found {type(body).__name__}", record=where)
    return Tool(
        id=skill_id,
        name=values["name"],
        documentation=skill_documentation(values["name"], values["description"], body),
        subset="skills",
        category=SKILL_CATEGORY,
        platform=repository_of(skill_id),
    )


def parse_frontmatter(text: str, path: str | Path | None = None) -> tuple[dict[str, Any], str]:
    """``(frontmatter fields, body)`` of a ``SKILL.md`` text; raises :class:`InputError` without
    frontmatter."""
    match = _FRONTMATTER.match(text)
    if not match:
        raise InputError(path, "no YAML frontmatter (a '---' block with name and description) at the top")
    import yaml

    try:
        fields = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise InputError(path, f"unreadable YAML frontmatter ({str(exc).splitlines()[0]})") from None
    if not isinstance(fields, dict):
        raise InputError(path, "the frontmatter must be a mapping of fields")
    return fields, match.group(2)


def read_skill_md(path: str | Path, root: str | Path | None = None) -> dict[str, Any]:
    """The record ``{id, name, description, body}`` of one ``SKILL.md`` (id relative to ``root``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason})") from None
    fields, body = parse_frontmatter(text, path)
    skill_id = path.relative_to(root).as_posix() if root is not None else path.as_posix()
    return {"id": skill_id, "name": _text(fields.get("name")),
            "description": _text(fields.get("description")),
            "body": body}


def _text(value: Any) -> Any:
    return value if not isinstance(value, (int, float)) else str(value)


def skill_files(folder: Path) -> list[Path]:
    """Every ``SKILL.md`` under a folder, in a stable order."""
    return sorted(p for p in folder.rglob("SKILL.md") if p.is_file())


def _records(path: Path) -> Iterable[tuple[int | str, dict[str, Any], Path]]:
    if path.is_dir():
        files = skill_files(path)
        if not files:
            raise InputError(path, "no SKILL.md file under this folder")
        for file in files:
            yield file.relative_to(path).as_posix(), read_skill_md(file, path), file
    elif path.name.endswith((".jsonl", ".jsonl.gz")):
        for i, record in enumerate(iter_jsonl(path), 1):
            yield f"line {i}", record, path
    elif path.name == "SKILL.md":
        yield path.name, read_skill_md(path, path.parent), path
    else:
        for i, record in enumerate(read_records(path)):
            yield i, record, path


def load_skills(path: str | Path | None = None, limit: int | None = None) -> dict[str, Tool]:
    """The skills of a file or folder, keyed by id (default: ``skills/agent_skills.jsonl.gz`` of the data
    folder).

    Ids must be unique; a duplicate id or a bad record raises :class:`InputError` naming the file and record.
    ``limit`` keeps the first ``limit`` skills (for quick looks; sampling lives in :mod:`toolex.skills.pool`).
    """
    path = Path(path) if path is not None else default_corpus()
    if not path.exists():
        raise InputError(path, "file or folder not found")
    tools: dict[str, Tool] = {}
    for index, record, source in _records(path):
        tool = skill_tool(record, source, index)
        if tool.id in tools:
            raise InputError(source, f"duplicate skill id {tool.id!r}", record=index)
        tools[tool.id] = tool
        if limit is not None and len(tools) >= limit:
            break
    return tools


def corpus_checksum(path: str | Path | None = None) -> str:
    """Content checksum of a skill file or of every ``SKILL.md`` of a folder (the corpus's provenance)."""
    path = Path(path) if path is not None else default_corpus()
    return files_checksum(skill_files(path) if path.is_dir() else [path])


def default_corpus() -> Path:
    """``<data>/skills/agent_skills.jsonl.gz``."""

    return data_dir() / "skills" / "agent_skills.jsonl.gz"
