"""The validate room imports only metrics, io, data and errors (never llm, annotate, report or widgets)."""

from __future__ import annotations

import ast

from toolex import paths

ALLOWED = ("toolex.metrics", "toolex.io", "toolex.data", "toolex.errors", "toolex.validate")


def test_validate_imports_only_its_allowed_rooms():
    files = sorted((paths.ROOT / "toolex" / "validate").glob("*.py"))
    assert files
    for file in files:
        for node in ast.walk(ast.parse(file.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name.startswith("toolex"):
                    assert name.startswith(ALLOWED), f"{file.name} imports {name}"
