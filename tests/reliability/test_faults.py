"""Faults of the LLM endpoint: 500, 429, malformed, truncated, slow, wrong-schema and not-a-completion answers
in a scripted order, an endpoint that cannot be reached, an API endpoint without a model."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from toolex.cli import main
from toolex.io.artifact import MANIFEST
from toolex.llm import ResponseCache

from .conftest import TALLY
from .fault_server import FAULTS, FaultServer
from .tiny import NAME, pipeline, snapshot

# consumed one per HTTP request (retries included); with 2 transport retries and 1 malformed retry this makes
# request 1 fail after 500, 429, malformed, truncated; request 2 after slow, wrong-schema, not-a-completion;
# request 3 give up on three 500s (not cached); requests 4 and 5 fail on two bad answers each
SCRIPT = ["500", "429", "malformed", "truncated", "slow", "wrong-schema", "not-a-completion", "500", "500",
          "500",
          "malformed", "truncated", "wrong-schema", "not-a-completion"]
# requests answered before the faults start: at the first decomposition, verdict, audit (None: after every
# decomposition and verdict of the reference run)
OFFSETS: dict[str, int | None] = {"decompose": 0, "verify": 5, "audit": None}


@pytest.mark.parametrize("stage", list(OFFSETS))
def test_faults_are_retried_reported_and_repaired_by_the_next_run(tiny_data: Path, reference, tmp_path: Path,
                                                                  port: int, stage: str) -> None:
    assert set(SCRIPT) == set(FAULTS)
    out, cache = tmp_path / "out", tmp_path / "cache"
    offset = OFFSETS[stage]
    if offset is None:
        offset = reference.by_stage["decompose"] + reference.by_stage["verify"]
    assert stage != "audit" or reference.by_stage["audit"] >= 5  # enough audit requests for the script
    with FaultServer(["ok"] * offset + SCRIPT, port=port, slow_s=1.5) as srv:
        run = pipeline(tiny_data, out, srv.base_url, cache, refuse_other=True, timeout=1.0)
        run.run()
        injected = sum(srv.injected.values())
    TALLY["LLM faults injected"] += injected
    ledger = run.judge.usage()["total"]
    failed = min(5, reference.by_stage[stage])  # the script fails the first five requests of the stage
    assert ledger["failures"] >= failed and injected >= 10
    manifest = json.loads((out / MANIFEST).read_text())
    assert sum(s.get("failures", 0) for s in manifest["stages"].values()) >= 1  # reported, not hidden
    answered = len(ResponseCache(cache))
    assert answered < reference.calls
    with FaultServer(port=port) as srv:  # a healthy endpoint: the failures are asked again, nothing else
        pipeline(tiny_data, out, srv.base_url, cache, refuse_other=True).run()
        assert srv.calls == reference.calls - answered
    assert snapshot(out) == reference.files
    TALLY["fault-hit runs repaired byte-identical"] += 1


def _refused_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def _annotate(tiny_data: Path, out: Path) -> list[str]:
    return ["annotate", "--data", str(tiny_data), "--benchmark", NAME, "--judge", "api", "--retriever",
            "bm25",
            "--pool", "subset", "--top-k", "3", "--out", str(out), "--no-progress"]


def test_unreachable_endpoint_fails_fast_and_marks_nothing(tiny_data: Path, tmp_path: Path, capsys,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    url = _refused_url()
    monkeypatch.setenv("TOOLEX_LLM_BASE_URL", url)
    monkeypatch.setenv("TOOLEX_LLM_MODEL", "some-model")
    started = time.monotonic()
    assert main(_annotate(tiny_data, tmp_path / "out")) == 2
    assert time.monotonic() - started < 15
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and url in err and "some-model" in err and "cannot be reached" in err
    manifest = tmp_path / "out" / MANIFEST
    assert not manifest.exists() or not json.loads(manifest.read_text()).get("stages")


def test_api_judge_without_a_model_is_refused(tiny_data: Path, tmp_path: Path, capsys,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with FaultServer() as srv:
        monkeypatch.setenv("TOOLEX_LLM_BASE_URL", srv.base_url)
        assert main(_annotate(tiny_data, tmp_path / "out")) == 2
        assert srv.calls == 0
    assert "TOOLEX_LLM_MODEL" in capsys.readouterr().err
