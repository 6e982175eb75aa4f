"""A run as arrays, and every query's top-K tools in trec_eval order.

trec_eval (and so pytrec_eval, the ToolRet / Tool-DE reference) sorts a query's tools by score descending and
breaks ties by tool id descending (``strcmp``). Here tool ids are numbered in lexicographic order, so sorting
by (score, code) descending reproduces that order. Only the top K of each query is sorted: a partition finds
each query's K-th score first, and only the candidates at or above it (ties included) are ordered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from toolex.errors import InputError
from toolex.io.trec import read_run


@dataclass(frozen=True)
class RunArrays:
    """A run in columnar form: entry ``i`` gives tool ``tool_ids[tools[i]]`` score ``scores[i]`` for query
    ``query_ids[rows[i]]``; ``tool_ids`` is sorted, ``rows`` non-decreasing."""

    query_ids: tuple[str, ...]
    rows: np.ndarray
    tools: np.ndarray
    tool_ids: np.ndarray
    scores: np.ndarray

    @classmethod
    def from_dict(cls, run: Mapping[str, Mapping[str, float]]) -> RunArrays:
        """From ``{query: {tool: score}}`` (the form pytrec_eval takes); a NaN score is refused, since
        trec_eval's ordering of it is undefined (it compares false with every score)."""
        query_ids = tuple(run)
        counts = np.fromiter((len(run[q]) for q in query_ids), dtype=np.int64, count=len(query_ids))
        code: dict[str, int] = {}
        setdefault = code.setdefault
        first_seen: list[int] = []
        scores: list[float] = []
        for qid in query_ids:
            docs = run[qid]
            first_seen.extend(setdefault(tool, len(code)) for tool in docs)
            scores.extend(docs.values())
        if scores and np.isnan(np.asarray(scores, dtype=np.float64)).any():
            qid, tool = next((q, t) for q in query_ids for t, v in run[q].items() if v != v)
            raise InputError(None, f"score of tool {tool!r} for query {qid!r} is NaN")
        names = np.array(list(code), dtype=object)
        order = np.argsort(names)  # lexicographic rank of every first-seen code
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return cls(
            query_ids,
            np.repeat(np.arange(len(query_ids), dtype=np.int64), counts),
            rank[np.asarray(first_seen, dtype=np.int64)] if first_seen else np.zeros(0, dtype=np.int64),
            names[order],
            np.asarray(scores, dtype=np.float64),
        )

    @classmethod
    def from_trec(cls, path: str | Path) -> RunArrays:
        """From a TREC run file, parsed in C by pandas (checked like :func:`toolex.io.trec.read_run`: a file
        with a NaN score, a missing column or bytes that are not UTF-8 goes to that reader, which names the
        line)."""
        import pandas as pd

        try:
            frame = pd.read_csv(path, sep=r"\s+", header=None, dtype={0: str, 2: str}, engine="c",
                                names=["qid", "q0", "docid", "rank", "score", "tag"], usecols=[0, 2, 4])
        except Exception:  # malformed: let the strict reader name the line
            return cls.from_dict(read_run(path))
        if frame.isna().any().any() or frame.duplicated(["qid", "docid"]).any():
            return cls.from_dict(read_run(path))
        rows, query_ids = pd.factorize(frame["qid"], sort=False)
        tools, tool_ids = pd.factorize(frame["docid"], sort=True)
        order = np.argsort(rows, kind="stable")
        return cls(tuple(query_ids), rows[order].astype(np.int64), tools[order].astype(np.int64),
                   np.asarray(tool_ids, dtype=object), frame["score"].to_numpy(np.float64)[order])

    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """Scores and tool codes as ``len(query_ids) × depth`` matrices (padding: ``-inf`` and ``-1``)."""
        n_rows = len(self.query_ids)
        counts = np.bincount(self.rows, minlength=n_rows)
        depth = int(counts.max()) if n_rows and len(self.rows) else 0
        if depth and (counts == depth).all():  # every query ranks the same number of tools: a reshape
            return self.scores.reshape(n_rows, depth), self.tools.reshape(n_rows, depth)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        column = np.arange(len(self.rows)) - starts[self.rows]
        scores = np.full((n_rows, depth), -np.inf)
        tools = np.full((n_rows, depth), -1, dtype=np.int64)
        scores[self.rows, column] = self.scores
        tools[self.rows, column] = self.tools
        return scores, tools

    def top_k(self, k: int) -> np.ndarray:
        """``len(query_ids) × k`` tool codes in trec_eval order, ``-1`` where a ranking is shorter than
        ``k``."""
        scores, tools = self.matrices()
        return top_k_in_trec_eval_order(scores, tools, k)


def _sort_rows(scores: np.ndarray, tools: np.ndarray) -> np.ndarray:
    """Each row's tools ordered by score descending, then tool code descending (padding ``-1`` last)."""
    order = np.lexsort((-tools, -scores), axis=1)
    return np.take_along_axis(tools, order, axis=1)


def _top_k_of_candidates(scores: np.ndarray, tools: np.ndarray, k: int) -> np.ndarray:
    """Exact top-K when ties straddle the K-th score: every tool at or above it is ordered."""
    n_rows, depth = scores.shape
    kth = np.partition(scores, depth - k, axis=1)[:, depth - k]
    r, c = np.nonzero((scores >= kth[:, None]) & (tools >= 0))
    order = np.lexsort((-tools[r, c], -scores[r, c], r))
    r, ranked = r[order], tools[r, c][order]
    position = np.arange(len(r)) - np.searchsorted(r, np.arange(n_rows))[r]
    out = np.full((n_rows, k), -1, dtype=np.int64)
    inside = position < k
    out[r[inside], position[inside]] = ranked[inside]
    return out


def top_k_in_trec_eval_order(scores: np.ndarray, tools: np.ndarray, k: int) -> np.ndarray:
    """Top-K tool codes of each row of a score matrix (ties: tool code descending), ``-1``-padded to ``k``.

    A partition picks K tools per row and only those are sorted; rows where tools tied with the K-th score
    were left out of the partition are redone exactly.
    """
    n_rows, depth = scores.shape
    out = np.full((n_rows, k), -1, dtype=np.int64)
    if depth == 0 or n_rows == 0:
        return out
    if depth <= k:
        out[:, :depth] = _sort_rows(scores, tools)
        return out
    picked = np.argpartition(scores, depth - k, axis=1)[:, depth - k:]
    top_scores = np.take_along_axis(scores, picked, axis=1)
    out[:] = _sort_rows(top_scores, np.take_along_axis(tools, picked, axis=1))
    kth = top_scores.min(axis=1, keepdims=True)
    straddling = (scores == kth).sum(axis=1) > (top_scores == kth).sum(axis=1)
    if straddling.any():
        out[straddling] = _top_k_of_candidates(scores[straddling], tools[straddling], k)
    return out
