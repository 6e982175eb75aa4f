"""Two runs into one folder: the second fails at once naming the holder; temporary names never collide."""

from __future__ import annotations

import signal
import socket
import threading
from pathlib import Path

from toolex.io.atomic import atomic_writer
from toolex.io.lock import LOCK_NAME

from .conftest import TALLY, spawn
from .fault_server import FaultServer
from .tiny import pipeline, snapshot


def test_second_run_into_the_same_folder_fails_at_once(tiny_data: Path, reference, tmp_path: Path,
                                                       port: int) -> None:
    out, cache = tmp_path / "out", tmp_path / "cache"
    with FaultServer(hang_at=("verify", 3), port=port) as srv:
        first = spawn(tiny_data, out, srv.base_url, cache)
        try:
            assert srv.hanging.wait(30)
            second = spawn(tiny_data, out, srv.base_url, tmp_path / "other-cache")
            _, err = second.communicate(timeout=30)
            assert second.returncode == 2
            assert f"in use by another run (pid {first.pid} on {socket.gethostname()} since" in err
            assert srv.calls == reference.by_stage["decompose"] + 3  # the second run asked nothing
            TALLY["concurrent runs refused"] += 1
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
    with FaultServer(port=port) as srv:  # the kernel dropped the dead holder's lock: the folder is free
        pipeline(tiny_data, out, srv.base_url, cache, refuse_other=True).run()
    assert snapshot(out) == reference.files
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    assert (out / LOCK_NAME).read_text() == ""  # released: no holder recorded


def test_concurrent_writers_of_one_file_never_share_a_temporary_name(tmp_path: Path) -> None:
    target = tmp_path / "annotations.jsonl"
    start = threading.Barrier(8)
    bodies = [f"writer {i}\n" * 2000 for i in range(8)]

    def write(body: str) -> None:
        start.wait()
        with atomic_writer(target) as handle:
            for line in body.splitlines(keepends=True):
                handle.write(line)

    threads = [threading.Thread(target=write, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_text() in bodies  # one writer's whole file, never a mix
    assert [p.name for p in tmp_path.iterdir()] == ["annotations.jsonl"]


def test_the_next_holder_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    from toolex.io.lock import FolderLock

    (tmp_path / ".verified.jsonl.k3j9x.tmp").write_text('{"half": ')  # SIGKILL between write and rename
    (tmp_path / "verified.jsonl").write_text("{}\n")
    with FolderLock(tmp_path) as lock:
        assert lock.removed_temporaries == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_NAME, "verified.jsonl"]


_HOLDER = """
import sys, time
from pathlib import Path
from toolex.io.lock import waiting_lock
lock, ready, done = map(Path, sys.argv[1:4])
with waiting_lock(lock):
    ready.write_text("held")
    time.sleep(0.5)
    done.write_text("done")
"""


def test_a_waiting_lock_makes_the_second_process_wait_for_the_first(tmp_path: Path) -> None:
    """What one process assembles (the mpnet folder) another waits for instead of assembling beside it."""
    import subprocess
    import sys
    import time

    from toolex.io.lock import waiting_lock

    lock, ready, done = tmp_path / ".model.lock", tmp_path / "ready", tmp_path / "done"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), str(ready), str(done)])
    try:
        for _ in range(600):
            if ready.exists() or holder.poll() is not None:
                break
            time.sleep(0.05)
        assert ready.exists(), "the holder never took the lock"
        with waiting_lock(lock):
            assert done.read_text() == "done"  # taken only once the holder had finished and let go
    finally:
        holder.wait(timeout=30)
    assert holder.returncode == 0


def test_mpnet_is_assembled_once_when_two_processes_need_it(tmp_path: Path) -> None:
    """Two processes that find no assembled model at once: one assembles it, the other waits and reuses it."""
    import shutil
    import subprocess
    import sys

    target = tmp_path / "models" / "all-mpnet-base-v2"
    (target.parent / ".mpnet-killed").mkdir(parents=True)  # what a killed assembly leaves
    code = ("import sys; from pathlib import Path; from toolex.retrieval import mpnet\n"
            "assemble = mpnet.assemble\n"
            "def counted(target):\n"
            "    print('ASSEMBLED', flush=True)\n"
            "    assemble(target)\n"
            "mpnet.assemble = counted\n"
            "print(mpnet.ensure_mpnet(Path(sys.argv[1])))")
    runs = [subprocess.Popen([sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    try:
        outputs = [run.communicate(timeout=300)[0].split() for run in runs]
        assert [run.returncode for run in runs] == [0, 0]
        assert [out[-1] for out in outputs] == [str(target)] * 2
        assert sum(out.count("ASSEMBLED") for out in outputs) == 1
        assert (target / ".verified").exists() and (target / "model.safetensors").stat().st_size > 100_000_000
        left = sorted(p.name for p in target.parent.iterdir())
        assert left == [".all-mpnet-base-v2.lock", "all-mpnet-base-v2"]
    finally:
        for run in runs:
            run.kill()
            run.wait()
        shutil.rmtree(target.parent, ignore_errors=True)
