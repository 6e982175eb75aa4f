"""Shared fixtures: the benchmark snapshots (TOOLEX_DATA) and small real runs over them; and how ``make test``
splits the suite over two processes (pytest-xdist)."""

from __future__ import annotations

import os

import pytest

from toolex import paths
from toolex.data import load_benchmark

#: Tests that keep every artifact in a folder of their own (``TOOLEX_ARTIFACTS`` or an output under
#: ``tmp_path``) and share with the others only what is safe to share between processes: the content-keyed
#: embedding cache (shards written atomically) and the assembled models (assembled under a waiting lock).
#: Under ``make test`` they run on one worker, beside every other test, which run in collection order on the
#: other worker since they share the default artifacts folder (where a second run into a folder another
#: holds fails at once); a test here that names no artifacts folder gets one of its own. Node-id prefixes.
BESIDE = (
    "tests/experiments/test_release.py::test_recomputing_the_smoke_setting_reproduces_its_release",
    "tests/annotate/test_pipeline.py::",
    "tests/skills/",
    "tests/metrics/",
    "tests/retrieval/",
)

if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    # Two workers share 2 cores: one thread each for torch (read when torch is first imported, by this
    # process and by the notebook kernels and commands it starts), so that the two do not oversubscribe
    # the cores.
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Two streams of tests, one per worker: :data:`BESIDE` and the rest, each in collection order
    (pytest-xdist's scope scheduling with the stream as the scope)."""
    from xdist.scheduler import LoadScopeScheduling

    class TwoStreams(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "beside" if nodeid.startswith(BESIDE) else "default-artifacts"

    return TwoStreams(config, log)


@pytest.fixture(autouse=True)
def _beside_tests_own_their_artifacts(request, tmp_path_factory, monkeypatch):
    """A :data:`BESIDE` test never reaches the default artifacts folder the other worker writes."""
    if request.node.nodeid.startswith(BESIDE) and "TOOLEX_ARTIFACTS" not in os.environ:
        monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path_factory.mktemp("artifacts")))


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
