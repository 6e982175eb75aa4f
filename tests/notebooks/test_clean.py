"""The committed notebooks: no outputs, a parameters cell, no literal data paths, a title."""

from __future__ import annotations

import re

import nbformat
import pytest

from toolex import paths

NOTEBOOKS = sorted((paths.ROOT / "notebooks").glob("*.ipynb"))
LITERAL_PATH = re.compile(r"(/w[o]rk/|\.\./shared|shared/data|shared/paper|/home/|/tmp/)")


def test_every_slot_is_there():
    assert {"01", "02", "03", "04", "05", "06", "07", "08", "09"} <= {p.name[:2] for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has outputs"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_title_and_no_literal_paths(path):
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    assert book.cells[0].cell_type == "markdown" and book.cells[0].source.startswith("# ")
    tagged = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and "SMOKE" in tagged[0].source
    for cell in book.cells:
        assert not LITERAL_PATH.search(cell.source), f"{path.name}: literal path in {cell.source[:60]!r}"
