"""Voila serves the inspector notebook on 127.0.0.1; headless Chromium changes the query and the view follows.

Part of the default run; needs Debian's chromium (``make browser-deps``): skipped without it, a failure when
TOOLEX_REQUIRE_BROWSER=1 (CI). ``make test-browser`` runs it alone.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.requirements import skip_unless_required
from tests.widgets.voila import serve
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


CULL_S = 6  # short, so the test sees a closed tab's kernel culled


@pytest.fixture
def voila(tmp_path):
    env = {**os.environ, "SMOKE": "1", "JUDGE": "offline"}
    with serve(paths.ROOT / "notebooks" / "08_query_inspector.ipynb", env, tmp_path / "voila.log",
               cull_s=CULL_S) as served:
        yield served


def _texts(select) -> list[str]:
    """The option labels of a widget's <select> (the widget renders spaces as no-break spaces)."""
    return [t.replace("\xa0", " ") for t in select.locator("option").all_inner_texts()]


def _query_texts() -> dict[str, str]:
    """Query id -> text over the smoke setting's benchmarks, which the served inspector shows."""
    from toolex.data import load_benchmarks
    from toolex.experiments.settings import SMOKE_BENCHMARKS

    return {q.id: q.text for b in load_benchmarks(list(SMOKE_BENCHMARKS)) for q in b.queries}


def _header_shows(page, query_id: str) -> None:
    page.wait_for_function("q => document.querySelector('.toolex-inspector-header h3').innerText === q",
                           arg=query_id, timeout=30_000)


def test_the_inspector_answers_what_people_ask(voila):
    """Picker, search, names, ranks panel, explorer → inspector, empty selection; a closed tab's kernel is
    culled."""
    from playwright.sync_api import sync_playwright

    shots = paths.build_dir() / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            page.goto(voila.url, timeout=60_000)
            select = page.locator(".toolex-query-select select")
            select.wait_for(timeout=240_000)
            assert voila.kernels() == 1
            header = page.locator(".toolex-inspector-header")
            labels = _texts(select)
            assert len(labels) > 3 and all(" · " in label for label in labels)  # id · query text
            ids = [label.split(" · ")[0] for label in labels]
            assert header.locator("h3").inner_text() == ids[0]
            # 0. before any row is picked, the inspector ranks with the explorer's first retriever and its K
            explorer_k = page.locator(".toolex-explorer-k select")
            retrievers = page.locator(".widget-select-multiple select").first
            names = _texts(retrievers)
            assert len(names) > 1
            explorer_k.select_option(label="5")
            retrievers.select_option(label=[names[-1]])
            page.wait_for_function("t => document.querySelector('.toolex-inspector-ranking').innerText"
                                   ".includes(t)", arg=f"{names[-1]} — top 5", timeout=30_000)
            retrievers.select_option(label=names)
            explorer_k.select_option(label="10")
            page.wait_for_function("t => document.querySelector('.toolex-inspector-ranking').innerText"
                                   ".includes(t)", arg=f"{names[0]} — top 10", timeout=30_000)
            # 1. the picker: choosing a query changes every panel
            select.select_option(index=3)
            _header_shows(page, ids[3])
            # 2. tools carry names and one-line descriptions, the documentation opens on demand
            tool = header.locator(".toolex-tool").first
            tool_id = tool.locator("code").inner_text()
            assert " — " in tool.inner_text() and len(tool.inner_text()) > len(tool_id) + 5
            doc = header.locator("details.toolex-tool-doc").first
            doc.locator("summary").first.click()
            assert doc.locator(".toolex-review-tool").is_visible()  # read as a parameter table
            doc.locator("details:has(pre) > summary").click()
            assert doc.locator("pre").is_visible()  # and as the benchmark stores it
            # 3. search by words of the query text
            words = labels[5].split(" · ", 1)[1].split()[:2]
            page.locator(".toolex-query-search input").fill(" ".join(words))
            page.wait_for_function("n => document.querySelectorAll('.toolex-query-select option').length < n",
                                   arg=len(labels), timeout=30_000)
            found = [label.split(" · ")[0] for label in _texts(select)]
            texts = _query_texts()  # labels cut long texts, so check the words against the whole text
            assert found and all(all(w.lower() in texts[q].lower() for w in words) for q in found)
            page.locator(".toolex-query-search input").fill("")
            # 4. the ranks panel places C* and equivalents in every retriever's run
            page.get_by_text("ranks beyond K").click()
            ranks = page.locator(".toolex-inspector-ranks")
            ranks.wait_for(timeout=30_000)
            assert "C*" in ranks.inner_text() and "bm25" in ranks.inner_text()
            page.get_by_text("ranked list").first.click()
            # 5. a query selected in the explorer's list opens in the inspector
            listed = page.locator(".toolex-explorer-queries select")
            choice = _texts(listed)[0].split(" · ")[0]
            listed.select_option(index=0)
            _header_shows(page, choice)
            ranking = page.locator(".toolex-inspector-ranking").inner_text()
            assert "one-to-one" in ranking and "ToolEq" in ranking
            page.screenshot(path=str(shots / "query_inspector.png"), full_page=True)
            # 6. no retriever selected: a message, not a traceback
            retrievers = page.locator(".widget-select-multiple select").first
            retrievers.select_option([])
            page.locator(".toolex-explorer-empty").wait_for(timeout=30_000)
            assert "Traceback" not in page.content() and "AttributeError" not in page.content()
            # 7. closing the tab (no beforeunload) leaves a kernel that the culler stops
            page.close()
            deadline = time.time() + 10 * CULL_S
            while voila.kernels() and time.time() < deadline:
                time.sleep(1)
            assert voila.kernels() == 0
        finally:
            browser.close()
    assert (shots / "query_inspector.png").stat().st_size > 10_000


def test_a_fresh_clone_opens_the_smoke_setting_and_says_what_it_computes_first(tmp_path):
    """``make inspector`` as documented (no SMOKE) on a fresh clone: no artifact computed or unpacked. The
    page says that it opens the smoke setting and computes its retrieval runs first, then shows the smoke
    queries.
    The embedding cache is the suite's own (what decides the message is the artifacts folder, and the smoke
    notebooks' test has encoded the same texts by then)."""
    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if k != "SMOKE"}
    env.update(JUDGE="offline", TOOLEX_ARTIFACTS=str(tmp_path / "artifacts"))
    notebook = paths.ROOT / "notebooks" / "08_query_inspector.ipynb"
    with serve(notebook, env, tmp_path / "voila.log") as served, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            started = time.perf_counter()
            page.goto(served.url, timeout=60_000)
            select = page.locator(".toolex-query-select select")
            select.wait_for(timeout=300_000)
            seconds = time.perf_counter() - started
            text = page.inner_text("body")
            assert "The default setting's retrieval runs are not computed yet" in text
            assert "opens the smoke setting, computing the retrieval runs of" in text
            ids = {label.split(" · ")[0] for label in _texts(select)}
            assert ids and ids <= set(_query_texts())  # the smoke setting's queries
            assert "Traceback" not in page.content()
            print(f"fresh-clone inspector start: {seconds:.1f} s")
        finally:
            browser.close()
