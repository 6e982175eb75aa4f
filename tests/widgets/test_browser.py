"""Voila serves the inspector notebook on 127.0.0.1; headless Chromium changes the query and the view follows.

Part of the default run; needs Debian's chromium (``make browser-deps``): skipped without it, a failure when
TOOLEX_REQUIRE_BROWSER=1 (CI). ``make test-browser`` runs it alone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.requirements import skip_unless_required
from tests.widgets.voila import free_port, serve
from toolex import paths

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _chromium():
    if not CHROMIUM.exists():
        skip_unless_required("/usr/bin/chromium is missing: run `make browser-deps`",
                             "TOOLEX_REQUIRE_BROWSER")


_free_port = free_port


@pytest.fixture
def voila(tmp_path):
    env = {**os.environ, "SMOKE": "1", "JUDGE": "offline"}
    with serve(paths.ROOT / "notebooks" / "08_query_inspector.ipynb", env, tmp_path / "voila.log") as url:
        yield url


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
            page.wait_for_function("q => document.querySelector('.toolex-inspector-header')"
                                   ".innerText.includes(q)",
                                   arg=labels[3], timeout=30_000)
            assert labels[0] not in header.locator("h3").inner_text()
            # 2. a query selected in the explorer's list opens in the inspector
            listed = page.locator(".toolex-explorer-queries select")
            choice = listed.locator("option").nth(0).inner_text().split()[0]
            listed.select_option(index=0)
            page.wait_for_function("q => document.querySelector('.toolex-inspector-header h3').innerText === "
                                   "q",
                                   arg=choice, timeout=30_000)
            ranking = page.locator(".toolex-inspector-ranking").inner_text()
            assert "one-to-one" in ranking and "ToolEq" in ranking
            page.screenshot(path=str(shots / "query_inspector.png"), full_page=True)
        finally:
            browser.close()
    assert (shots / "query_inspector.png").stat().st_size > 10_000
