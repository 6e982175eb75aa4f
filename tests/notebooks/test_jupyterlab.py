"""Opening, running and saving a committed notebook leaves what git sees unchanged.

JupyterLab saves through the Jupyter server's contents API; a real server is started on a copy of the
notebooks, each is opened and saved back, and the bytes must not move. What a kernel and a run add (the
Python version, outputs, counts, timings, widget state) is what the git filter strips.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

from tests.widgets.voila import free_port
from toolex import paths
from toolex.report.notebook_filter import clean

NOTEBOOKS = sorted((paths.ROOT / "notebooks").glob("*.ipynb"))
TOKEN = "toolex-test"


def _request(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Authorization": f"token {TOKEN}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    for path in NOTEBOOKS:
        shutil.copy(path, root / path.name)
    port = free_port()
    log = (root / "server.log").open("w")  # noqa: SIM115 - closed after the server stops
    proc = subprocess.Popen([sys.executable, "-m", "jupyter_server", f"--ServerApp.port={port}",
                             "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}",
                             f"--ServerApp.root_dir={root}", "--ServerApp.open_browser=False",
                             "--allow-root"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                _request(f"{url}/api/status")
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail(f"jupyter server did not start: {(root / 'server.log').read_text()[-2000:]}")
                time.sleep(0.5)
        yield url, root
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        log.close()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_open_and_save_through_the_server_is_byte_identical(server, path):
    url, root = server
    model = _request(f"{url}/api/contents/{path.name}?type=notebook&content=1")
    _request(f"{url}/api/contents/{path.name}", "PUT",
             {"type": "notebook", "format": "json", "content": model["content"]})
    assert (root / path.name).read_bytes() == path.read_bytes()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_form_is_the_filter_fixed_point(path):
    text = path.read_text(encoding="utf-8")
    assert clean(text) == text, f"{path.name}: run `git add` through the filter (make setup) to normalise it"


def test_a_run_notebook_cleans_back_to_the_committed_bytes():
    path = NOTEBOOKS[0]
    book = nbformat.read(path, as_version=4)
    book.metadata["language_info"]["version"] = "3.11.7"  # what the kernel reports on open
    book.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    for count, cell in enumerate((c for c in book.cells if c.cell_type == "code"), 1):
        cell.execution_count = count
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
        cell.metadata["execution"] = {"iopub.execute_input": "2026-01-01T00:00:00Z"}
        cell.metadata["scrolled"] = True
    assert clean(nbformat.writes(book)) == path.read_text(encoding="utf-8")


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=paths.ROOT, capture_output=True, text=True)


@pytest.mark.skipif(not (paths.ROOT / ".git").exists(), reason="not a git checkout")
def test_git_routes_notebooks_through_the_filter_and_ignores_checkpoints():
    attribute = _git("check-attr", "filter", "--", "notebooks/01_decomposition.ipynb").stdout
    assert attribute.strip().endswith("filter: toolex-notebook")
    assert _git("check-ignore", "-q", "notebooks/.ipynb_checkpoints/01_decomposition-checkpoint.ipynb"
                ).returncode == 0


def test_the_filter_runs_as_git_calls_it(tmp_path):
    path = NOTEBOOKS[0]
    run = subprocess.run([sys.executable, "-m", "toolex.report.notebook_filter"], input=path.read_text(),
                         capture_output=True, text=True, check=True)
    assert run.stdout == path.read_text(encoding="utf-8")
    textconv = subprocess.run([sys.executable, "-m", "toolex.report.notebook_filter", str(path)],
                              capture_output=True, text=True, check=True)
    assert textconv.stdout == run.stdout
