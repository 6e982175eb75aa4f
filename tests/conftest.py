"""Shared fixtures: the benchmark snapshots (TOOLEX_DATA) and small real runs over them."""

from __future__ import annotations

import pytest

from toolex import paths
from toolex.data import load_benchmark


@pytest.fixture(scope="session")
def data_dir():
    root = paths.data_dir()
    if not (root / "toolret").exists():
        pytest.fail(f"benchmark snapshots not found at {root}; set TOOLEX_DATA")
    return root


@pytest.fixture(scope="session")
def toolret(data_dir):
    return load_benchmark("toolret", data_dir)


@pytest.fixture(scope="session")
def apigen(data_dir):
    return load_benchmark("toolret/apigen", data_dir)
