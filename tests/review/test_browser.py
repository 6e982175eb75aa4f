"""Voila serves the review app on 127.0.0.1; headless Chromium drives two reviewer sessions (separate pages,
separate kernels) and an adjudication round, then the report is read from the campaign file.

Needs Debian's chromium (``make browser-deps``): skipped without it, a failure when TOOLEX_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import os

import pytest

from tests.requirements import skip_unless_required
from tests.review.conftest import records, write_run
from tests.widgets.test_browser import ARGS, CHROMIUM
from tests.widgets.voila import serve
from toolex import paths
from toolex.review.campaign_report import campaign_report
from toolex.review.database import Campaign
from toolex.review.items import build_items

pytestmark = pytest.mark.browser
SMALL = {"q1": ("code", ["t1"], [(["t2"], True), (["t3"], True)]), "q4": ("web", ["w1"], [(["w2"], True)])}


@pytest.fixture(autouse=True)
def _chromium():
    if not CHROMIUM.exists():
        skip_unless_required("/usr/bin/chromium is missing: run `make browser-deps`",
                             "TOOLEX_REQUIRE_BROWSER")


@pytest.fixture
def served(tmp_path):
    run, items = build_items(write_run(tmp_path / "run", SMALL), *records(SMALL))
    with Campaign.create(tmp_path / "c.sqlite", run) as campaign:
        campaign.add_items(items)
    env = {**os.environ, "TOOLEX_REVIEW_CAMPAIGN": str(tmp_path / "c.sqlite")}
    with serve(paths.ROOT / "notebooks" / "review_app.ipynb", env, tmp_path / "voila.log") as served:
        yield served.url, tmp_path / "c.sqlite"


CURRENT = "() => (document.querySelector('.toolex-review-item h3') || {}).innerText || ''"


def _login(page, url: str, name: str) -> None:
    page.goto(url, timeout=60_000)
    box = page.locator(".toolex-review-name input")
    box.wait_for(timeout=240_000)
    box.fill(name)
    box.press("Enter")


def _answer_all(page, answers: dict[str, str]) -> list[str]:
    """Answer every item the app offers (quick entry + Enter); returns the item ids in order."""
    seen = []
    page.wait_for_selector(".toolex-review-item h3", timeout=60_000)
    while True:
        current = page.evaluate(CURRENT)
        if not current:
            break
        seen.append(current)
        quick = page.locator(".toolex-review-quick input")
        quick.fill(answers.get(current, "v"))
        quick.press("Enter")
        page.wait_for_function(f"c => ({CURRENT})() !== c", arg=current, timeout=30_000)
    assert "Nothing left to review" in page.locator(".toolex-review-empty").inner_text()
    return seen


def test_two_reviewers_and_an_adjudication(served):
    from playwright.sync_api import sync_playwright

    url, campaign_file = served
    shots = paths.build_dir() / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            ann, bob = (browser.new_page(viewport={"width": 1400, "height": 1600}) for _ in range(2))
            _login(ann, url, "ann")
            _login(bob, url, "bob")
            text = ann.locator(".toolex-review-item").inner_text()
            assert "Candidate combination" in text and "Reference combination C*" in text and "name_t" in text
            ann.screenshot(path=str(shots / "review_app.png"), full_page=True)
            assert _answer_all(ann, {"q1::t2": "i2 searches, does not book"}) == \
                _answer_all(bob, {}) != []
            assert "ann" in bob.locator(".toolex-review-progress").inner_text()
            cat = browser.new_page(viewport={"width": 1400, "height": 1600})
            _login(cat, url, "cat")
            cat.locator(".toolex-review-mode button", has_text="adjudicate").click()
            cat.wait_for_selector(".toolex-review-reviews", timeout=30_000)
            options = [o.replace("\xa0", " ")
                       for o in cat.locator(".toolex-review-disputes option").all_inner_texts()]
            assert options == ["• q1::t2 (validity)"]
            assert "searches, does not book" in cat.locator(".toolex-review-reviews").inner_text()
            quick = cat.locator(".toolex-review-quick input")
            quick.fill("i2 agree with ann")
            quick.press("Enter")
            cat.wait_for_function("() => document.querySelector('.toolex-review-status').innerText"
                                  ".includes('Saved q1::t2')", timeout=30_000)
            cat.screenshot(path=str(shots / "review_adjudication.png"), full_page=True)
        finally:
            browser.close()
    with Campaign(campaign_file) as campaign:
        summary = campaign_report(campaign).summary()
    assert (summary["items"], summary["decided"], summary["valid"], summary["adjudicated"]) == (3, 3, 2, 1)
    assert summary["raw_agreement"] == pytest.approx(100 * 2 / 3)


def test_the_review_screen_is_blind_to_the_judge(tmp_path):
    """Reviewers see no judge score, feature or confidence, even where the run's verdict reasons are the
    offline judge's score and signals; a campaign that hides the rationale shows none at all."""
    import json

    from playwright.sync_api import sync_playwright

    from toolex.annotate.judges.features import FEATURES
    from toolex.review.items import RATIONALE_SETTING

    folder = write_run(tmp_path / "run", SMALL)
    lines = [json.loads(line) for line in (folder / "verified.jsonl").read_text().splitlines()]
    for line in lines:
        for candidate in line["candidates"]:
            candidate["reason"] = "score 0.488 >= 0.451 (description_cosine 0.78)"
    (folder / "verified.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    run, items = build_items(folder, *records(SMALL))
    texts = {}
    for setting in ("shown", "hidden"):
        path = tmp_path / f"{setting}.sqlite"
        with Campaign.create(path, run, {RATIONALE_SETTING: setting}) as campaign:
            campaign.add_items(items)
        env = {**os.environ, "TOOLEX_REVIEW_CAMPAIGN": str(path)}
        app = paths.ROOT / "notebooks" / "review_app.ipynb"
        with serve(app, env, tmp_path / f"{setting}.log") as served, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1600})
                _login(page, served.url, "ann")
                texts[setting] = page.locator(".toolex-review-item").inner_text()
            finally:
                browser.close()
    for text in texts.values():
        assert "Candidate combination" in text
        assert "0.488" not in text and not any(f in text for f in FEATURES) and "score" not in text.lower()
    assert "Model's rationale" in texts["shown"] and "Model's rationale" not in texts["hidden"]


def test_the_calibration_loop_in_the_browser(tmp_path, monkeypatch, capsys):
    """Draw → review in the app with one labeller → export the labels → calibrate → annotate: the loop a
    researcher runs to place the judge on their own library, its review step driven in Chromium (the
    benchmark the tiny one, the judge's encoder and retriever a bag of words)."""
    from playwright.sync_api import sync_playwright

    from tests.annotate.fakes import BagOfWords, tiny_benchmark
    from tests.annotate.test_calibrate_command import MODEL, export_calibrate_annotate
    from toolex.annotate.judges import OfflineSimilarityJudge
    from toolex.annotate.pipeline import AnnotateConfig
    from toolex.cli import main
    from toolex.experiments import calibrate

    monkeypatch.setattr(calibrate, "load_benchmark", lambda name, data=None: tiny_benchmark())
    monkeypatch.setattr(calibrate, "default_model", lambda: MODEL)
    monkeypatch.setattr(calibrate.JudgeOptions, "judge", lambda options, model, data_dir=None: (
        OfflineSimilarityJudge(BagOfWords(), model), AnnotateConfig(retriever="bow", top_k=4), BagOfWords()))
    drawn, campaign_file = tmp_path / "to_label.jsonl", tmp_path / "c.sqlite"
    assert main(["calibrate", "--benchmark", "tiny", "--draw", "6", "--out", str(drawn)]) == 0
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(campaign_file)]) == 0
    env = {**os.environ, "TOOLEX_REVIEW_CAMPAIGN": str(campaign_file)}
    answered: list[str] = []
    with serve(paths.ROOT / "notebooks" / "review_app.ipynb", env, tmp_path / "voila.log") as served, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            _login(page, served.url, "ann")
            page.wait_for_selector(".toolex-review-item h3", timeout=60_000)
            assert "Can the candidate tool replace the reference tool" in page.locator(
                ".toolex-review-item").inner_text()
            while current := page.evaluate(CURRENT):
                answered.append(current)
                quick = page.locator(".toolex-review-quick input")
                quick.fill("v" if len(answered) % 2 else "i2 does another thing")
                quick.press("Enter")
                page.wait_for_function(f"c => ({CURRENT})() !== c", arg=current, timeout=30_000)
            assert "Nothing left to review" in page.locator(".toolex-review-empty").inner_text()
        finally:
            browser.close()
    assert len(answered) == 6  # one labeller decides every drawn item
    export_calibrate_annotate(tmp_path, campaign_file, capsys)
