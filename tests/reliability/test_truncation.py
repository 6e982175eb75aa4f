"""Each artifact truncated (at a line boundary, mid-line, emptied, removed): the rerun notices it by the line
count and sha256 the manifest recorded, redoes that stage and the later ones from the LLM cache, and exports
the same bytes -- never a subset."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolex.annotate.run_folder import ANNOTATIONS, COMBINATIONS, SUBQUERIES, TIMINGS, VERIFIED
from toolex.io.annotations import read_annotations
from toolex.io.artifact import MANIFEST

from .conftest import TALLY
from .fault_server import FaultServer
from .tiny import QUERIES, pipeline, snapshot

ARTIFACTS = (SUBQUERIES, VERIFIED, COMBINATIONS, ANNOTATIONS, MANIFEST, TIMINGS)


def _drop_last_line(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))


def _cut_mid_line(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - len(data.splitlines()[-1]) // 2 - 1])


CUTS = {"last-line": _drop_last_line, "mid-line": _cut_mid_line, "emptied": lambda p: p.write_bytes(b""),
        "removed": Path.unlink}


@pytest.fixture(scope="module")
def finished(tiny_data: Path, tmp_path_factory: pytest.TempPathFactory, port: int) -> Path:
    work = tmp_path_factory.mktemp("finished")
    with FaultServer(port=port) as srv:
        pipeline(tiny_data, work / "out", srv.base_url, work / "cache").run()
    return work


@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("artifact", ARTIFACTS)
def test_truncated_artifact_is_redone_not_trusted(finished: Path, tiny_data: Path, reference, tmp_path: Path,
                                                  port: int, artifact: str, cut: str) -> None:
    out = tmp_path / "out"
    shutil.copytree(finished / "out", out)
    CUTS[cut](out / artifact)
    with FaultServer(port=port) as srv:
        pipeline(tiny_data, out, srv.base_url, finished / "cache", refuse_other=True).run()
        assert srv.calls == 0  # redone from the LLM cache
    assert snapshot(out) == reference.files
    assert len(read_annotations(out / ANNOTATIONS)) == len(QUERIES)
    TALLY["artifacts truncated and redone byte-identical"] += 1


def test_timings_live_apart_and_a_skipped_stage_keeps_its_own(finished: Path, tiny_data: Path, tmp_path: Path,
                                                               port: int) -> None:
    import json

    out = tmp_path / "out"
    shutil.copytree(finished / "out", out)
    before = json.loads((out / TIMINGS).read_text())
    assert set(before) == {"decompose", "verify", "audit"}
    assert "timings_s" not in json.loads((out / MANIFEST).read_text())
    (out / COMBINATIONS).unlink()
    with FaultServer(port=port) as srv:
        pipeline(tiny_data, out, srv.base_url, finished / "cache", refuse_other=True).run()
    after = json.loads((out / TIMINGS).read_text())
    assert {k: after[k] for k in ("decompose", "verify")} == {k: before[k] for k in ("decompose", "verify")}
    assert set(after) == set(before)
