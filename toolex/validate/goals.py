"""The goals a validation checks per retriever: the recovered share within a range and over- and
under-credit at most a number of points per query."""

from __future__ import annotations

import pandas as pd

#: The goal columns of :func:`goals_of`, each True where the goal is met.
GOALS = ("share_ok", "over_ok", "under_ok")


def goals_of(rows: pd.DataFrame, share: tuple[float, float], credit: float) -> pd.DataFrame:
    """Per row of a credit table: the recovered share within ``share`` (an undefined one is not) and over-
    and under-credit at most ``credit`` per query, as the :data:`GOALS` columns."""
    named = {"retriever": rows["retriever"]} if "retriever" in rows else {}
    return pd.DataFrame({**named, "recovered": rows["recovered"],
                         "share_ok": rows["recovered"].astype(float).between(*share),
                         "over": rows["over_credit"], "over_ok": rows["over_credit"] <= credit,
                         "under": rows["under_credit"],
                         "under_ok": rows["under_credit"] <= credit}).reset_index(drop=True)
