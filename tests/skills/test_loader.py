"""The skill loader: the real corpus, a SKILL.md folder and clear errors for bad records."""

from __future__ import annotations

import gzip
import json

import pytest

from toolex.errors import InputError
from toolex.skills import load_skills, repository_of
from toolex.skills.loader import SKILL_CATEGORY, corpus_checksum


def test_real_corpus(skills):
    assert len(skills) == 10_852
    tool = skills["mirrors/repos/AgentTeam-TaichuAI@ScienceClaw/ScienceClaw/backend/builtin_skills/docx/"
                  "SKILL.md"]
    assert tool.name == "docx"
    assert tool.category == SKILL_CATEGORY
    assert tool.platform == "AgentTeam-TaichuAI/ScienceClaw"
    assert tool.text.startswith("name: docx\ndescription: Use this skill whenever")
    assert "# DOCX creation" in tool.text
    assert all(t.platform for t in skills.values())
    assert len({t.platform for t in skills.values()}) > 300


def test_repository_of():
    assert repository_of("mirrors/repos/owner@repo/a/b/SKILL.md") == "owner/repo"
    assert repository_of("skills/pdf/SKILL.md") is None


def write_skill(folder, name, description, body="# Steps\n\nDo it.\n"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}",
                                     encoding="utf-8")


def test_skill_md_folder(tmp_path):
    write_skill(tmp_path / "pdf-tools", "pdf-tools", "Extract text and tables from PDF files.")
    write_skill(tmp_path / "nested" / "csv-clean", "csv-clean",
                '"Clean messy CSV files: dedupe, trim, retype."')
    (tmp_path / "README.md").write_text("not a skill", encoding="utf-8")
    tools = load_skills(tmp_path)
    assert sorted(tools) == ["nested/csv-clean/SKILL.md", "pdf-tools/SKILL.md"]
    pdf = tools["pdf-tools/SKILL.md"]
    assert pdf.name == "pdf-tools" and pdf.category == "skill" and pdf.platform is None
    assert "Extract text and tables" in pdf.text and "# Steps" in pdf.text
    assert tools["nested/csv-clean/SKILL.md"].text.splitlines()[1] == (
        "description: Clean messy CSV files: dedupe, trim, retype.")
    assert len(corpus_checksum(tmp_path)) == 64


def test_skill_md_without_frontmatter(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "SKILL.md").write_text("# no frontmatter\n", encoding="utf-8")
    with pytest.raises(InputError, match="broken/SKILL.md.*no YAML frontmatter"):
        load_skills(tmp_path)


def test_skill_md_missing_description(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "SKILL.md").write_text("---\nname: x\n---\nbody\n", encoding="utf-8")
    with pytest.raises(InputError, match="record x/SKILL.md.*missing or empty 'description'"):
        load_skills(tmp_path)


def test_empty_folder(tmp_path):
    with pytest.raises(InputError, match="no SKILL.md"):
        load_skills(tmp_path)


def _jsonl(path, records):
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for r in records:
            handle.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
    return path


def test_jsonl_errors(tmp_path):
    good = {"id": "a", "name": "a", "description": "does a", "body": ""}
    with pytest.raises(InputError, match="line 2.*missing or empty 'name'"):
        load_skills(_jsonl(tmp_path / "1.jsonl.gz", [good, {"id": "b", "description": "d"}]))
    with pytest.raises(InputError, match="line 2.*duplicate skill id 'a'"):
        load_skills(_jsonl(tmp_path / "2.jsonl.gz", [good, good]))
    with pytest.raises(InputError, match="line 1.*'body' must be text"):
        load_skills(_jsonl(tmp_path / "3.jsonl.gz", [{**good, "body": 3}]))
    with pytest.raises(InputError, match="line 1.*unreadable JSON"):
        load_skills(_jsonl(tmp_path / "4.jsonl.gz", ["{not json"]))
    with pytest.raises(InputError, match="not found"):
        load_skills(tmp_path / "missing.jsonl")
    assert list(load_skills(_jsonl(tmp_path / "5.jsonl.gz", [good]))) == ["a"]
