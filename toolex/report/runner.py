"""Run the numbered notebooks in order with papermill, headless: ``python -m toolex.report.runner``.

Each ``notebooks/NN_*.ipynb`` runs with the parameters ``SMOKE`` and ``JUDGE`` and its executed copy is
written to ``<build>/notebooks/``. The first failing notebook stops the run with a non-zero exit status.
Timings go to
``<build>/notebooks/runner.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from toolex import paths
from toolex.annotate.judges.factory import JUDGES
from toolex.experiments.settings import flag
from toolex.io import progress
from toolex.report import expected

NOTEBOOK = re.compile(r"^\d\d_.+\.ipynb$")


def notebooks(folder: str | Path | None = None, only: Sequence[str] = ()) -> list[Path]:
    """The numbered notebooks in order (``only``: keep those whose name starts with one of these prefixes)."""
    root = Path(folder) if folder else paths.ROOT / "notebooks"
    found = sorted(p for p in root.glob("*.ipynb") if NOTEBOOK.match(p.name))
    return [p for p in found if not only or any(p.name.startswith(o) for o in only)]


#: Seconds between two "still running" lines of a notebook.
HEARTBEAT_S = 30.0
#: Where a notebook's long stages write their progress line (:mod:`toolex.io.progress`), in the output folder.
PROGRESS_FILE = "progress.txt"


def run_notebook(path: Path, out_dir: Path, parameters: dict, timeout: int | None = None,
                 heartbeat: float | None = None) -> float:
    """Execute one notebook with papermill; returns its wall time in seconds. ``timeout``: seconds a cell may
    run (None: no limit; a first full run annotates for more than an hour in one cell); every ``heartbeat``
    seconds (default :data:`HEARTBEAT_S`) a line says the notebook is still running."""
    import papermill as pm

    out_dir.mkdir(parents=True, exist_ok=True)
    start, since = time.perf_counter(), time.time()
    done, every = threading.Event(), heartbeat or HEARTBEAT_S
    progress_file = out_dir / PROGRESS_FILE
    before = os.environ.get(progress.ENV)
    os.environ[progress.ENV] = str(progress_file)  # the kernel inherits it: its long stages report there

    def beat() -> None:
        while not done.wait(every):
            doing = progress.latest(progress_file, since)
            print(f"[toolex.report] {path.name} still running ({_elapsed(time.perf_counter() - start)})"
                  + (f": {doing}" if doing else ""), flush=True)

    threading.Thread(target=beat, daemon=True).start()
    try:
        pm.execute_notebook(str(path), str(out_dir / path.name), parameters=parameters, kernel_name="python3",
                            language="python", cwd=str(path.parent), progress_bar=False, log_output=False,
                            execution_timeout=timeout)
    finally:
        done.set()
        if before is None:
            os.environ.pop(progress.ENV, None)
        else:
            os.environ[progress.ENV] = before
    trust(out_dir / path.name)
    return time.perf_counter() - start


def _elapsed(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def trust(path: Path) -> None:
    """Sign an executed copy in Jupyter's trust database (as ``jupyter trust`` does), so it opens with its
    outputs and widget snapshots shown rather than as untrusted text."""
    import nbformat
    from nbformat.sign import NotebookNotary

    notary = NotebookNotary()
    book = nbformat.read(path, as_version=4)
    notary.sign(book)


def run_all(smoke: bool = False, judge: str = "offline", only: Sequence[str] = (),
            folder: str | Path | None = None, out_dir: str | Path | None = None,
            cell_timeout: int | None = None) -> dict:
    """Run every numbered notebook; raises on the first failure (after recording the timings so far)."""
    out = Path(out_dir) if out_dir else paths.build_dir() / "notebooks"
    out.mkdir(parents=True, exist_ok=True)
    os.environ["SMOKE"], os.environ["JUDGE"] = ("1" if smoke else "0"), judge
    os.environ[paths.PAPER_RUN] = "1"  # the kernels it starts write figures/ and tables/
    os.environ.setdefault("TQDM_DISABLE", "1")  # no progress bars frozen at 0 % in the executed copies
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    parameters = {"SMOKE": smoke, "JUDGE": judge}
    record: dict = {"smoke": smoke, "judge": judge, "notebooks": {}, "ok": False}
    started = time.perf_counter()
    try:
        for path in notebooks(folder, only):
            print(f"[toolex.report] {path.name} ...", flush=True)
            seconds = run_notebook(path, out, parameters, cell_timeout)
            record["notebooks"][path.name] = round(seconds, 1)
            print(f"[toolex.report] {path.name} done in {seconds:.1f} s", flush=True)
        record["ok"] = True
        record["expected"] = grade_run(smoke, partial=bool(only))
    finally:
        record["total_s"] = round(time.perf_counter() - started, 1)
        (out / "runner.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def grade_run(smoke: bool, partial: bool = False) -> dict | None:
    """The run's tables against the kept expected numbers of its setting (:mod:`toolex.report.expected`),
    printed as ``paper-check`` prints its claims; None when the setting keeps none. ``partial``: some
    notebooks were left out (``--only``), so a table they write is skipped, not missing."""
    setting = "smoke" if smoke else "default"
    if not (paths.expected_dir() / expected.FILES[setting]).exists():
        return None
    graded = expected.grade(setting, paths.tables_dir(), partial)
    for line in graded["not OK"]:  # type: ignore[union-attr]
        print(f"[toolex.report] expected number: {line}", flush=True)
    print(f"[toolex.report] expected numbers ({expected.FILES[setting]}): {graded['OK']} OK, "
          f"{graded['OKISH']} OKISH, {graded['FAIL']} FAIL, {graded['SKIPPED']} SKIPPED (judge-dependent, "
          "another annotation folder, or a table of a notebook not run)", flush=True)
    return graded


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", default="0", help="1: the fast smoke setting (sampled queries)")
    parser.add_argument("--judge", default="offline", choices=JUDGES)
    parser.add_argument("--only", nargs="*", default=[], help="notebook name prefixes, e.g. 04 06")
    parser.add_argument("--cell-timeout", type=int, default=0,
                        help="seconds a cell may run (default 0: no limit)")
    args = parser.parse_args(argv)
    smoke = flag(args.smoke)
    try:
        record = run_all(smoke, args.judge, args.only, cell_timeout=args.cell_timeout or None)
    except Exception as exc:  # papermill raises PapermillExecutionError with the failing cell
        print(f"[toolex.report] FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(f"[toolex.report] {len(record['notebooks'])} notebooks in {record['total_s']} s "
          f"(smoke={smoke}, judge={args.judge}); executed copies in {paths.build_dir() / 'notebooks'}")
    return 1 if (record.get("expected") or {}).get("FAIL") else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
