"""The package's floors (toolex.layers): imports only go down, no module loop, docs/architecture.md states
them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from toolex import layers

ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


@pytest.fixture(scope="module")
def found():
    return list(layers.imports())


def test_every_package_is_on_a_floor():
    packages = {p.name for p in layers.ROOT.iterdir() if (p / "__init__.py").exists()}
    packages |= {p.stem for p in layers.ROOT.glob("*.py") if p.stem not in ("layers", "__main__")}
    placed = {name for floor in layers.LAYERS for name in floor}
    assert packages - placed == set()


def test_no_upward_or_sideways_import(found):
    assert layers.breaches(found) == []


def test_toolex_imports_sit_at_module_level_but_where_a_reason_is_stated(found):
    assert layers.local_imports(found) == []
    assert layers.local_imports([layers.Import("toolex.report.figures", "toolex.style", 9, True)])


def test_no_import_loop_between_modules(found):
    assert layers.loops(found) == []


def test_the_check_sees_an_upward_import_and_a_loop():
    planted = [layers.Import("toolex.retrieval.dense", "toolex.report.figures", 3, True),
               layers.Import("toolex.data.records", "toolex.data.readers", 1, False),
               layers.Import("toolex.data.readers", "toolex.data.records", 1, True)]
    assert len(layers.breaches(planted)) == 1 and "toolex.report.figures" in layers.breaches(planted)[0]
    assert layers.loops(planted) == [["toolex.data.readers", "toolex.data.records"]]


def test_a_same_floor_import_between_packages_is_a_breach():
    assert layers.breaches([layers.Import("toolex.review.items", "toolex.skills.benchmark_folder", 1, False)])


def test_the_architecture_page_states_the_floors_of_the_contract():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = re.search(r"<!-- layers:[^>]*-->\n```\n(.*?)\n```", text, re.S)
    assert block, "docs/architecture.md: no generated layers block"
    assert block.group(1) == layers.describe()


def _sizes() -> tuple[list[str], list[str]]:
    long_modules, long_functions = [], []
    for path in sorted(layers.ROOT.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(layers.ROOT.parent).as_posix()
        if len(source.splitlines()) > MODULE_LINES:
            long_modules.append(name)
        if name.startswith(CONVERTERS):
            continue
        for node in ast.walk(ast.parse(source)):
            functions = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            if functions and (node.end_lineno or 0) - node.lineno + 1 > FUNCTION_LINES:
                long_functions.append(f"{name}:{node.name}")
    return long_modules, long_functions


#: Size limits of the package's code; the data converters (one loader per benchmark format) may hold longer
#: functions, each a flat reading of one format.
MODULE_LINES, FUNCTION_LINES, CONVERTERS = 400, 60, "toolex/data/"


def test_no_module_over_400_lines_and_no_function_over_60_outside_the_data_converters():
    long_modules, long_functions = _sizes()
    assert long_modules == [] and long_functions == []


#: The command layer is thin: parse, call one function of a lower layer, print.
COMMAND_LINES = 40


def test_every_command_function_is_thin():
    """No function of :mod:`toolex.commands` is longer than :data:`COMMAND_LINES` lines (the work lives one
    floor down; :func:`test_layers` keeps the imports going down)."""
    long = []
    for path in sorted((layers.ROOT / "commands").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and (node.end_lineno or 0) - node.lineno + 1 > COMMAND_LINES:
                long.append(f"{path.name}:{node.name}")
    assert long == []
