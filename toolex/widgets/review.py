"""The review app of a human-validation campaign (ipywidgets; ``toolex review serve`` serves it with Voila).

A reviewer types a name, gets the next item that still needs a review and decides: valid, or invalid with a
failure bucket, plus a note. Keyboard: the quick-entry box takes ``v`` (valid) or ``i1`` … ``i5`` (invalid
with that bucket), optionally followed by a note, then Enter. The adjudication view lists only the
disagreements the current person did not review, with both reviews (decisions, buckets, notes). Model scores
and, while reviewing, the other reviewer's decision are never shown. Every decision is one transaction in the
campaign file (:class:`toolex.review.database.Campaign`).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from toolex.review.database import ADJUDICATE, REVIEW, Campaign, CampaignError
from toolex.review.items import CANDIDATE, RATIONALE_SETTING, ReviewItem, blind
from toolex.review.taxonomy import BUCKETS
from toolex.widgets.render import documentation_html

KEYS = {f"i{n}": bucket for n, bucket in enumerate(BUCKETS, 1)}
HELP = ("Quick entry: <code>v</code> valid, " + ", ".join(f"<code>{k}</code> {escape(BUCKETS[b])}"
                                                          for k, b in KEYS.items())
        + "; a note may follow (<code>i2 both look up weather, but one only forecasts</code>); Enter saves.")


def parse_quick(text: str) -> tuple[bool, str | None, str]:
    """``"v"`` / ``"i3 note …"`` -> (valid, bucket, note); raises ValueError on anything else."""
    head, _, note = text.strip().partition(" ")
    head = head.lower()
    if head in ("v", "valid"):
        return True, None, note.strip()
    if head in KEYS:
        return False, KEYS[head], note.strip()
    raise ValueError(f"type v or one of {', '.join(KEYS)} (then a note), not {text.strip()[:20]!r}")


def item_html(item: ReviewItem, rationale_shown: bool = True) -> str:
    """What a reviewer sees: query, instruction, sub-queries, candidate and C* with documentation, and the
    model's rationale in words unless the campaign hides it. Never a judge's score, features or confidence
    (:func:`toolex.review.items.blind`): the labels of this app calibrate judges and must not be anchored by
    them."""
    p = item.payload
    if p.get("kind") == CANDIDATE:
        return candidate_html(item)
    subs = "".join(f"<li>{escape(s['text'])} <small>(functionality: {escape(s['functionality'])}; entity: "
                   f"{escape(s['entity'])}; C* tool <code>{escape(s['reference_tool'])}</code>)</small></li>"
                   for s in p.get("subqueries", []))
    docs = p.get("docs", {})
    candidate = "".join(documentation_html(t, docs.get(t, {})) for t in p.get("tools", []))
    reference = "".join(documentation_html(t, docs.get(t, {})) for t in p.get("reference", []))
    rationale = p.get("rationale", {})
    swaps = "".join(f"<li>sub-query {s['index'] + 1}: <code>{escape(s['reference_tool'])}</code> → "
                    f"<code>{escape(s['tool'])}</code>"
                    + (f": {escape(blind(s['reason']) or '—')}" if rationale_shown else "") + "</li>"
                    for s in rationale.get("substitutions", []))
    said = (f"<h4>Model's rationale</h4><p>audit: {escape(blind(rationale.get('audit')) or '—')}</p>"
            if rationale_shown else "<h4>Substitutions</h4>")
    return (f"<div class='toolex-review-item'><h3>{escape(item.item_id)}</h3>"
            f"<p><b>Query:</b> {escape(p.get('query', ''))}</p>"
            f"<p><b>Task instruction:</b> {escape(p.get('instruction') or '—')}</p>"
            f"<p><b>Category:</b> {escape(item.category)} · <b>sub-queries:</b> {item.complexity}</p>"
            f"<h4>Sub-query breakdown</h4><ol>{subs or '<li><i>no decomposition recorded</i></li>'}</ol>"
            "<div style='display:flex;gap:12px'>"
            f"<div style='flex:1'><h4>Candidate combination</h4>{candidate}</div>"
            f"<div style='flex:1'><h4>Reference combination C*</h4>{reference}</div></div>"
            f"{said}<ul>{swaps}</ul></div>")


def candidate_html(item: ReviewItem) -> str:
    """A candidate item: can this tool replace the reference tool for the sub-query? Both documentations."""
    p = item.payload
    docs = p.get("docs", {})
    reference, candidate = p["reference"][0], p["tools"][0]
    return (f"<div class='toolex-review-item'><h3>{escape(item.item_id)}</h3>"
            f"<p><b>Query:</b> {escape(p.get('query', ''))}</p>"
            f"<p><b>Sub-query:</b> {escape(p.get('subquery', ''))}</p>"
            "<p><b>Can the candidate tool replace the reference tool for this sub-query?</b> valid: it "
            "performs the same core operation and returns what the sub-query needs; invalid: pick the "
            "bucket.</p><div style='display:flex;gap:12px'>"
            "<div style='flex:1'><h4>Candidate tool</h4>"
            f"{documentation_html(candidate, docs.get(candidate, {}))}</div>"
            "<div style='flex:1'><h4>Reference tool</h4>"
            f"{documentation_html(reference, docs.get(reference, {}))}</div></div></div>")


def reviews_html(reviews: list[dict[str, Any]]) -> str:
    """Both reviewers' decisions, buckets and notes (the adjudicator's view)."""
    rows = "".join(f"<tr><td>{escape(r['reviewer'])}</td><td>{'valid' if r['valid'] else 'invalid'}</td>"
                   f"<td>{escape(BUCKETS.get(r['bucket'], ''))}</td><td>{escape(r['note'] or '—')}</td></tr>"
                   for r in reviews)
    return ("<div class='toolex-review-reviews'><h4>The two reviews</h4><table style='font-size:12px'>"
            "<tr><th align=left>reviewer</th><th align=left>decision</th><th align=left>bucket</th>"
            f"<th align=left>rationale</th></tr>{rows}</table></div>")


def progress_html(progress: dict[str, Any]) -> str:
    """Per reviewer: reviews and adjudications; overall: items complete, disagreements, adjudicated."""
    rows = "".join(f"<tr><td>{escape(name)}</td><td>{c[REVIEW]} / "
                   f"{progress['items']}</td><td>{c[ADJUDICATE]}</td>"
                   "</tr>" for name, c in sorted(progress["reviewers"].items()))
    return (f"<div class='toolex-review-progress'><p>{progress['complete']} of {progress['items']} items "
            f"have two reviews · {progress['disagreements']} disagreements, {progress['adjudicated']} "
            "adjudicated</p>"
            "<table style='font-size:12px'><tr><th align=left>reviewer</th><th align=left>reviewed</th>"
            f"<th align=left>adjudicated</th></tr>{rows}</table></div>")


class ReviewApp:
    """The whole app for one campaign file; ``widget`` is the box to display."""

    def __init__(self, campaign: Campaign | str | Path, reviewer: str = "") -> None:
        self.campaign = campaign if isinstance(campaign, Campaign) else Campaign(campaign)
        self.current: str | None = None
        meta = self.campaign.meta()
        self.rationale_shown = meta.get(RATIONALE_SETTING, "shown") != "hidden"
        self.name = widgets.Text(value=reviewer, description="reviewer", placeholder="your name, then Enter",
                                 continuous_update=False)
        self.name.add_class("toolex-review-name")
        self.mode = widgets.ToggleButtons(options=[("review", REVIEW), ("adjudicate", ADJUDICATE)],
                                          value=REVIEW)
        self.mode.add_class("toolex-review-mode")
        self.progress = widgets.HTML()
        self.status = widgets.HTML()
        self.status.add_class("toolex-review-status")
        self.item = widgets.HTML()
        self.item.add_class("toolex-review-item-panel")
        self.others = widgets.HTML()
        self.disputes = widgets.Select(options=[], rows=6, description="disagreements",
                                       layout=widgets.Layout(width="95%"))
        self.disputes.add_class("toolex-review-disputes")
        self.mine = widgets.Dropdown(options=[("—", None)], value=None, description="revise")
        self.mine.add_class("toolex-review-mine")
        self.verdict = widgets.ToggleButtons(options=[("valid", True), ("invalid", False)], value=None)
        self.verdict.add_class("toolex-review-verdict")
        self.bucket = widgets.Dropdown(options=[("— bucket —", None)] + [(f"{k}: {BUCKETS[b]}", b)
                                                                         for k, b in KEYS.items()],
                                       value=None, description="bucket", layout=widgets.Layout(width="420px"))
        self.bucket.add_class("toolex-review-bucket")
        self.note = widgets.Textarea(placeholder="rationale / note", layout=widgets.Layout(width="95%"))
        self.note.add_class("toolex-review-note")
        self.save = widgets.Button(description="save and next", button_style="primary")
        self.save.add_class("toolex-review-save")
        self.skip = widgets.Button(description="skip")
        self.skip.add_class("toolex-review-skip")
        self.quick = widgets.Text(placeholder="v | i1 … i5 [note], Enter", description="quick",
                                  continuous_update=False, layout=widgets.Layout(width="95%"))
        self.quick.add_class("toolex-review-quick")
        controls = widgets.VBox([self.quick, widgets.HTML(f"<small>{HELP}</small>"),
                                 widgets.HBox([self.verdict, self.bucket]), self.note,
                                 widgets.HBox([self.save, self.skip, self.mine])])
        self.widget = widgets.VBox([
            widgets.HTML(f"<small>Campaign {escape(self.campaign.path.name)} · run "
                         f"{escape(str(meta.get('run', ''))[:12])} · {len(self.campaign)} items</small>"),
            widgets.HBox([self.name, self.mode]), self.progress, self.status, self.disputes, self.others,
            self.item, controls])
        self.widget.add_class("toolex-review-app")
        self.name.observe(lambda _: self.refresh(), names="value")
        self.mode.observe(lambda _: self.refresh(), names="value")
        self.disputes.observe(self._dispute_picked, names="value")
        self.mine.observe(self._mine_picked, names="value")
        self.save.on_click(lambda _: self.submit())
        self.skip.on_click(lambda _: self._skip())
        self.quick.observe(self._quick, names="value")
        self.refresh()

    @property
    def reviewer(self) -> str:
        return self.name.value.strip()

    def refresh(self, message: str = "") -> None:
        """Reload progress, the disagreement list and the current item for the reviewer and mode."""
        self.progress.value = progress_html(self.campaign.progress())
        self.status.value = f"<p>{escape(message)}</p>" if message else ""
        adjudicating = self.mode.value == ADJUDICATE
        self.disputes.layout.display = None if adjudicating else "none"
        self.mine.layout.display = "none" if adjudicating else None
        if not self.reviewer:
            self._show(None, "Type your name (then Enter) to start.")
            return
        if adjudicating:
            open_ = [d for d in self.campaign.disagreements()
                     if self.reviewer not in {r["reviewer"] for r in d["reviews"]}]
            options = [(f"{'✓' if d['adjudication'] else '•'} {d['item_id']} ({d['kind']})", d["item_id"])
                       for d in open_]
            wanted = next((d["item_id"] for d in open_ if not d["adjudication"]),
                          options[0][1] if options else None)
            self.disputes.unobserve(self._dispute_picked, names="value")
            self.disputes.options = options
            self.disputes.value = wanted
            self.disputes.observe(self._dispute_picked, names="value")
            self._show(wanted, "" if options else "No disagreement to adjudicate.")
            return
        mine = self.campaign.reviewed_by(self.reviewer)
        self.mine.unobserve(self._mine_picked, names="value")
        self.mine.options = [("—", None)] + [(i, i) for i in mine]
        self.mine.value = None
        self.mine.observe(self._mine_picked, names="value")
        following = self.campaign.next_item(self.reviewer)
        self._show(following, "" if following else f"Nothing left to review for {self.reviewer}. Thank you.")

    def _show(self, item_id: str | None, empty: str = "") -> None:
        self.current = item_id
        self.verdict.value, self.bucket.value, self.note.value = None, None, ""
        self.others.value = ""
        if item_id is None:
            self.item.value = f"<p class='toolex-review-empty'>{escape(empty)}</p>"
            return
        self.item.value = item_html(self.campaign.item(item_id), self.rationale_shown)
        role = self.mode.value
        if role == ADJUDICATE:
            self.others.value = reviews_html(self.campaign.reviews(item_id))
        previous = self.campaign.decision(item_id, self.reviewer, role) if self.reviewer else None
        if previous:
            self.verdict.value, self.note.value = previous["valid"], previous["note"]
            self.bucket.value = previous["bucket"] or None

    def submit(self, valid: bool | None = None, bucket: str | None = None, note: str | None = None) -> bool:
        """Save the decision on the current item (the controls' values unless given) and move on."""
        valid = self.verdict.value if valid is None else valid
        bucket = self.bucket.value if bucket is None else bucket
        note = self.note.value if note is None else note
        if self.current is None:
            self.status.value = "<p>No item open.</p>"
            return False
        if valid is None:
            self.status.value = "<p>Choose valid or invalid first.</p>"
            return False
        try:
            revision = self.campaign.decide(self.current, self.reviewer, bool(valid), bucket, note,
                                            self.mode.value)
        except CampaignError as exc:
            self.refresh(f"Not saved: {exc}")
            return False
        self.refresh(f"Saved {self.current}" + (f" (revision {revision})" if revision > 1 else "") + ".")
        return True

    def _quick(self, change: dict) -> None:
        text = change["new"]
        if not text.strip():
            return
        try:
            valid, bucket, note = parse_quick(text)
        except ValueError as exc:
            self.status.value = f"<p>{escape(str(exc))}</p>"
            return
        self.quick.value = ""
        self.submit(valid, bucket, note)

    def _skip(self) -> None:
        if self.mode.value == REVIEW and self.reviewer:
            self._show(self.campaign.next_item(self.reviewer, after=self.current), "Nothing else to review.")

    def _dispute_picked(self, change: dict) -> None:
        if change["new"]:
            self._show(change["new"])

    def _mine_picked(self, change: dict) -> None:
        if change["new"]:
            self._show(change["new"])

    def _ipython_display_(self) -> None:  # pragma: no cover - display hook
        from IPython.display import display

        display(self.widget)
