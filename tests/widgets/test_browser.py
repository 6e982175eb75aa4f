"""Voila serves the inspector notebook on 127.0.0.1; headless Chromium changes the query and the view follows.

Part of the default run; needs Debian's chromium (``make browser-deps``): skipped without it, a failure when
TOOLEX_REQUIRE_BROWSER=1 (CI). ``make test-browser`` runs it alone.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.requirements import skip_unless_required
from toolex import paths

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _chromium():
    if not CHROMIUM.exists():
        skip_unless_required("/usr/bin/chromium is missing: run `make browser-deps`", "TOOLEX_REQUIRE_BROWSER")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def voila(tmp_path):
    port = _free_port()
    env = {**os.environ, "SMOKE": "1", "JUDGE": "offline"}
    log = open(tmp_path / "voila.log", "w")  # noqa: SIM115 - closed after the server stops
    proc = subprocess.Popen(
        [sys.executable, "-m", "voila", str(paths.ROOT / "notebooks" / "08_query_inspector.ipynb"), "--no-browser",
         f"--port={port}", "--Voila.ip=127.0.0.1", "--show_tracebacks=True"],
        cwd=paths.ROOT / "notebooks", env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "api", timeout=2)
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"voila exited: {(tmp_path / 'voila.log').read_text()[-2000:]}")
            time.sleep(0.5)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def test_selecting_a_query_changes_the_inspector(voila):
    from playwright.sync_api import sync_playwright

    shots = paths.build_dir() / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            page.goto(voila, timeout=60_000)
            select = page.locator(".toolex-query-select select")
            select.wait_for(timeout=240_000)
            header = page.locator(".toolex-inspector-header")
            labels = select.locator("option").all_inner_texts()
            assert len(labels) > 3
            assert labels[0] in header.inner_text()
            # 1. the inspector's own query picker
            select.select_option(label=labels[3])
            page.wait_for_function("q => document.querySelector('.toolex-inspector-header').innerText.includes(q)",
                                   arg=labels[3], timeout=30_000)
            assert labels[0] not in header.locator("h3").inner_text()
            # 2. a query selected in the explorer's list opens in the inspector
            listed = page.locator(".toolex-explorer-queries select")
            choice = listed.locator("option").nth(0).inner_text().split()[0]
            listed.select_option(index=0)
            page.wait_for_function("q => document.querySelector('.toolex-inspector-header h3').innerText === q",
                                   arg=choice, timeout=30_000)
            ranking = page.locator(".toolex-inspector-ranking").inner_text()
            assert "one-to-one" in ranking and "ToolEq" in ranking
            page.screenshot(path=str(shots / "query_inspector.png"), full_page=True)
        finally:
            browser.close()
    assert (shots / "query_inspector.png").stat().st_size > 10_000
