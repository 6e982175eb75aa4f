"""A review campaign: one SQLite file (WAL) holding the sampled items, every decision and its history.

Every decision is written in its own transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), so several reviewers in
separate processes lose nothing, and a killed server keeps every answered item. A revised decision replaces
the current one and both stay in ``history``. The campaign records the annotation run it samples (its
checksum, :func:`toolex.review.items.run_checksum`) and refuses items of another run.

Roles: ``review`` (independent reviewers per item: the first people to answer it, two by default, the
paper's protocol; a campaign may ask for one, :data:`REVIEWERS_SETTING`) and ``adjudicate`` (a third person,
on items where two reviews disagree).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from toolex.errors import ToolexError, refuse_folder
from toolex.review.items import ReviewItem
from toolex.review.taxonomy import check_bucket

SCHEMA_VERSION = "1"
REVIEW, ADJUDICATE = "review", "adjudicate"
REVIEWERS_PER_ITEM = 2
#: Campaign setting (``meta``): independent reviews an item needs, 1 or 2 (default
#: :data:`REVIEWERS_PER_ITEM`).
REVIEWERS_SETTING = "reviewers_per_item"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    item_id TEXT PRIMARY KEY, run TEXT NOT NULL, position INTEGER NOT NULL, query_id TEXT NOT NULL,
    category TEXT NOT NULL, complexity INTEGER NOT NULL, stratum TEXT NOT NULL, tools TEXT NOT NULL,
    judge TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (
    item_id TEXT NOT NULL REFERENCES items(item_id), reviewer TEXT NOT NULL, role TEXT NOT NULL,
    valid INTEGER NOT NULL, bucket TEXT NOT NULL, note TEXT NOT NULL, revision INTEGER NOT NULL,
    decided_at TEXT NOT NULL, PRIMARY KEY (item_id, reviewer, role));
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY AUTOINCREMENT, item_id TEXT NOT NULL, reviewer TEXT NOT NULL, role TEXT NOT NULL,
    valid INTEGER NOT NULL, bucket TEXT NOT NULL, note TEXT NOT NULL, revision INTEGER NOT NULL,
    decided_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS judge_verdicts (
    item_id TEXT NOT NULL REFERENCES items(item_id), judge TEXT NOT NULL, valid INTEGER NOT NULL,
    source TEXT NOT NULL, PRIMARY KEY (item_id, judge));
"""


class CampaignError(ToolexError):
    """A request the campaign refuses (another run's items, a third reviewer, a self-adjudication, …)."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Campaign:
    """One review campaign file. ``Campaign.create`` makes it; ``Campaign(path)`` opens an existing one."""

    def __init__(self, path: str | Path, timeout: float = 60.0) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise CampaignError(f"{self.path}: no such campaign (create it with `toolex review sample`)")
        refuse_folder(self.path, "campaign file")
        self._db = self._connect(self.path, timeout)
        try:
            version = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise CampaignError(f"{self.path}: not a review campaign ({exc})") from None
        if version is None:
            raise CampaignError(f"{self.path}: not a review campaign (no schema version)")

    @staticmethod
    def _connect(path: Path, timeout: float) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        return db

    @classmethod
    def create(cls, path: str | Path, run: str, meta: dict[str, Any] | None = None) -> Campaign:
        """A new campaign for the annotation run ``run``; an existing file of the same run is opened
        instead."""
        path = Path(path)
        if path.exists():
            campaign = cls(path)
            campaign.check_run(run)
            return campaign
        path.parent.mkdir(parents=True, exist_ok=True)
        db = cls._connect(path, 60.0)
        with _transaction(db):
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            values = {"schema_version": SCHEMA_VERSION, "run": run, "created": _now(), **(meta or {})}
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                           [(k, json.dumps(v)) for k, v in values.items()])
        db.close()
        return cls(path)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Campaign:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- metadata and items ---------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        return {row["key"]: json.loads(row["value"])
                for row in self._db.execute("SELECT key, value FROM meta")}

    @property
    def run(self) -> str:
        return json.loads(self._db.execute("SELECT value FROM meta WHERE key='run'").fetchone()[0])

    @property
    def reviewers_per_item(self) -> int:
        """Independent reviews an item needs before it is decided (:data:`REVIEWERS_SETTING`)."""
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (REVIEWERS_SETTING,)).fetchone()
        return int(json.loads(row[0])) if row else REVIEWERS_PER_ITEM

    def check_reviewers(self, asked: int | None) -> None:
        """Refuse a number of reviewers per item other than the campaign's (``None``: not asked): a campaign
        keeps the rule its first items were decided by."""
        if asked is not None and asked != self.reviewers_per_item:
            raise CampaignError(f"{self.path}: the campaign asks for {self.reviewers_per_item} review(s) per "
                                f"item, refusing --reviewers {asked}; start another campaign file")

    def check_run(self, run: str, what: str = "this annotation run") -> None:
        if run != self.run:
            raise CampaignError(f"{self.path}: campaign samples run {self.run[:16]}…, refusing {what} "
                                f"(run {run[:16]}…); start another campaign file")

    def set_meta(self, **values: Any) -> None:
        with _transaction(self._db):
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                 [(k, json.dumps(v)) for k, v in values.items()])

    def add_items(self, items: Iterable[ReviewItem]) -> int:
        """Add items (in review order) of the campaign's run; returns how many were new. Items of another run
        are refused before anything is written."""
        items = list(items)
        for item in items:
            self.check_run(item.run, f"item {item.item_id}")
        with _transaction(self._db):
            start = self._db.execute("SELECT COALESCE(MAX(position), -1) FROM items").fetchone()[0] + 1
            added = 0
            for item in items:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (item.item_id, item.run, start + added, item.query_id, item.category, item.complexity,
                     item.stratum, json.dumps(list(item.tools)), item.judge, json.dumps(item.payload)))
                added += cursor.rowcount
                if cursor.rowcount:
                    self._db.execute("INSERT OR REPLACE INTO judge_verdicts VALUES (?, ?, 1, 'sampled run')",
                                     (item.item_id, item.judge))
        return added

    def add_judge_verdicts(self, verdicts: Iterable[tuple[str, str, bool]], source: str) -> int:
        """Another judge's verdicts ``(item_id, judge, valid)`` on campaign items (unknown items are
        skipped)."""
        known = set(self.item_ids())
        rows = [(i, j, int(bool(v)), source) for i, j, v in verdicts if i in known]
        with _transaction(self._db):
            self._db.executemany("INSERT OR REPLACE INTO judge_verdicts VALUES (?, ?, ?, ?)", rows)
        return len(rows)

    def judge_verdicts(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._db.execute("SELECT * FROM judge_verdicts ORDER BY judge, item_id")]

    def item_ids(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT item_id FROM items ORDER BY position")]

    def item(self, item_id: str) -> ReviewItem:
        row = self._db.execute("SELECT * FROM items WHERE item_id=?", (item_id,)).fetchone()
        if row is None:
            raise CampaignError(f"{self.path}: no item {item_id!r}")
        return _item(row)

    def items(self) -> list[ReviewItem]:
        return [_item(r) for r in self._db.execute("SELECT * FROM items ORDER BY position")]

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM items").fetchone()[0]

    # -- decisions --------------------------------------------------------------------------------------
    def decide(self, item_id: str, reviewer: str, valid: bool, bucket: str | None = None, note: str = "",
               role: str = REVIEW, decided_at: str | None = None) -> int:
        """Record (or revise) one decision in its own transaction; returns its revision number (1 = first)."""
        reviewer = reviewer.strip()
        if not reviewer:
            raise CampaignError("a decision needs a reviewer name")
        if role not in (REVIEW, ADJUDICATE):
            raise CampaignError(f"unknown role {role!r}")
        try:
            bucket = check_bucket(bucket, valid)
        except ValueError as exc:
            raise CampaignError(str(exc)) from None
        with _transaction(self._db):
            if not self._db.execute("SELECT 1 FROM items WHERE item_id=?", (item_id,)).fetchone():
                raise CampaignError(f"{self.path}: no item {item_id!r}")
            reviews = {r["reviewer"]: r for r in self._db.execute(
                "SELECT * FROM decisions WHERE item_id=? AND role=?", (item_id, REVIEW))}
            needed = self.reviewers_per_item
            if role == REVIEW and reviewer not in reviews and len(reviews) >= needed:
                raise CampaignError(f"item {item_id} already has {needed} review{'s' * (needed > 1)}")
            if role == ADJUDICATE:
                if reviewer in reviews:
                    raise CampaignError(f"{reviewer} reviewed item {item_id} and cannot adjudicate it")
                if not _disagree(list(reviews.values())):
                    raise CampaignError(f"item {item_id} has no disagreement to adjudicate")
            previous = self._db.execute(
                "SELECT revision FROM decisions WHERE item_id=? AND reviewer=? AND role=?",
                (item_id, reviewer, role)).fetchone()
            revision = previous[0] + 1 if previous else 1
            row = (item_id, reviewer, role, int(valid), bucket, note.strip(), revision, decided_at or _now())
            self._db.execute("INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
            self._db.execute("INSERT INTO history (item_id, reviewer, role, valid, bucket, note, revision, "
                             "decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
        return revision

    def decisions(self, role: str | None = None) -> list[dict[str, Any]]:
        """Current decisions (latest revision), in item order."""
        sql = ("SELECT d.* FROM decisions d JOIN items i USING (item_id)"
               + (" WHERE d.role=?" if role else "") + " ORDER BY i.position, d.role DESC, d.decided_at")
        return [_decision(r) for r in self._db.execute(sql, (role,) if role else ())]

    def history(self, item_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM history" + (" WHERE item_id=?" if item_id else "") + " ORDER BY id"
        return [_decision(r) for r in self._db.execute(sql, (item_id,) if item_id else ())]

    def decision(self, item_id: str, reviewer: str, role: str = REVIEW) -> dict[str, Any] | None:
        row = self._db.execute("SELECT * FROM decisions WHERE item_id=? AND reviewer=? AND role=?",
                               (item_id, reviewer.strip(), role)).fetchone()
        return None if row is None else _decision(row)

    def reviews(self, item_id: str) -> list[dict[str, Any]]:
        return [_decision(r) for r in self._db.execute(
            "SELECT * FROM decisions WHERE item_id=? AND role=? ORDER BY decided_at", (item_id, REVIEW))]

    def next_item(self, reviewer: str, after: str | None = None) -> str | None:
        """The first item (in review order, after ``after`` when given) that ``reviewer`` has not reviewed and
        that still needs a review."""
        position = -1
        if after is not None:
            row = self._db.execute("SELECT position FROM items WHERE item_id=?", (after,)).fetchone()
            position = row[0] if row else -1
        row = self._db.execute(
            "SELECT i.item_id FROM items i WHERE i.position > ? AND NOT EXISTS (SELECT 1 FROM decisions d "
            "WHERE d.item_id=i.item_id AND d.role=? AND d.reviewer=?) AND (SELECT COUNT(*) FROM decisions d "
            "WHERE d.item_id=i.item_id AND d.role=?) < ? ORDER BY i.position LIMIT 1",
            (position, REVIEW, reviewer.strip(), REVIEW, self.reviewers_per_item)).fetchone()
        if row is None and after is not None:
            return self.next_item(reviewer)
        return None if row is None else row[0]

    def reviewed_by(self, reviewer: str) -> list[str]:
        return [r[0] for r in self._db.execute(
            "SELECT d.item_id FROM decisions d JOIN items i USING (item_id) WHERE d.reviewer=? AND d.role=? "
            "ORDER BY i.position", (reviewer.strip(), REVIEW))]

    def disagreements(self) -> list[dict[str, Any]]:
        """Items whose two reviews disagree (validity, or the bucket of two rejections), with their
        adjudication when there is one."""
        by_item: dict[str, list[dict[str, Any]]] = {}
        adjudicated: dict[str, dict[str, Any]] = {}
        for d in self.decisions():
            if d["role"] == REVIEW:
                by_item.setdefault(d["item_id"], []).append(d)
            else:
                adjudicated[d["item_id"]] = d
        out = []
        for item_id, reviews in by_item.items():
            kind = _disagree(reviews)
            if kind:
                out.append({"item_id": item_id, "kind": kind, "reviews": reviews,
                            "adjudication": adjudicated.get(item_id)})
        return out

    def progress(self) -> dict[str, Any]:
        """Per reviewer: reviews and adjudications made; overall: items, fully reviewed, disagreements."""
        people: dict[str, dict[str, int]] = {}
        for row in self._db.execute("SELECT reviewer, role, COUNT(*) n FROM decisions GROUP BY reviewer, "
                                    "role"):
            people.setdefault(row["reviewer"], {REVIEW: 0, ADJUDICATE: 0})[row["role"]] = row["n"]
        counts = [r[0] for r in self._db.execute(
            "SELECT (SELECT COUNT(*) FROM decisions d WHERE d.item_id=i.item_id AND d.role=?) FROM items i",
            (REVIEW,))]
        open_ = self.disagreements()
        return {"items": len(counts), "complete": sum(c >= self.reviewers_per_item for c in counts),
                "reviews": sum(counts), "disagreements": len(open_),
                "adjudicated": sum(d["adjudication"] is not None for d in open_), "reviewers": people}


def _disagree(reviews: list[dict[str, Any]] | list[sqlite3.Row]) -> str:
    """``validity`` / ``bucket`` when two reviews disagree on that, else empty."""
    if len(reviews) < REVIEWERS_PER_ITEM:
        return ""
    a, b = reviews[0], reviews[1]
    if bool(a["valid"]) != bool(b["valid"]):
        return "validity"
    return "bucket" if not a["valid"] and a["bucket"] != b["bucket"] else ""


def _item(row: sqlite3.Row) -> ReviewItem:
    return ReviewItem(row["item_id"], row["run"], row["query_id"], row["category"], row["complexity"],
                      tuple(json.loads(row["tools"])), row["judge"], json.loads(row["payload"]))


def _decision(row: sqlite3.Row) -> dict[str, Any]:
    out = dict(row)
    out["valid"] = bool(out["valid"])
    return out


@contextmanager
def _transaction(db: sqlite3.Connection, attempts: int = 50) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` (retried while another writer holds the lock), then COMMIT or ROLLBACK."""
    for attempt in range(attempts):
        try:
            db.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def campaign_path(value: str | Path | None = None) -> Path | None:
    """The campaign a notebook shows: ``value`` when given, else ``$TOOLEX_REVIEW_CAMPAIGN``, else None."""
    import os

    chosen = value or os.environ.get("TOOLEX_REVIEW_CAMPAIGN") or None
    return Path(chosen).expanduser() if chosen else None
