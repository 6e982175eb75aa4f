"""TREC run files (``qid Q0 docid rank score tag``) and TREC qrels (``qid 0 docid rel``).

A run is held as ``{query_id: {tool_id: score}}``, the form pytrec_eval takes. Ranks in a file are
informational: as in trec_eval, the order is re-derived from the scores (ties broken by tool id, descending).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from pathlib import Path

from toolex.errors import InputError, refuse_folder
from toolex.io.atomic import atomic_writer

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def ranked(scores: Mapping[str, float], k: int | None = None) -> list[tuple[str, float]]:
    """(tool id, score) pairs in trec_eval order: score descending, then tool id descending."""
    order = sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return order if k is None else order[:k]


def _lines(path: Path, what: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file, decoded line by line so that bad bytes are named by their line."""
    refuse_folder(path, what)
    if not path.is_file():
        raise InputError(path, f"{what} not found")
    with open(path, "rb") as handle:
        for lineno, raw in enumerate(handle, 1):
            try:
                yield lineno, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                                 record=f"line {lineno}") from None


def read_run(path: str | Path) -> Run:
    """Read a TREC run file; a repeated (query, tool) pair or a NaN score is an error naming the line.

    trec_eval ranks a NaN score unpredictably (it compares false with everything), so a run holding one is
    refused rather than scored.
    """
    path = Path(path)
    run: Run = {}
    for lineno, line in _lines(path, "run file"):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            raise InputError(path, f"expected 6 columns 'qid Q0 docid rank score tag', found {len(parts)}",
                             record=f"line {lineno}")
        qid, _, docid, _, score, _ = parts
        try:
            value = float(score)
        except ValueError:
            raise InputError(path, f"score {score!r} is not a number", record=f"line {lineno}") from None
        if math.isnan(value):
            raise InputError(path, f"score {score!r} of tool {docid!r} is NaN", record=f"line {lineno}")
        scores = run.setdefault(qid, {})
        if docid in scores:
            raise InputError(path, f"tool {docid!r} listed twice for query {qid!r}", record=f"line {lineno}")
        scores[docid] = value
    return run


def write_run(run: Mapping[str, Mapping[str, float]], path: str | Path, tag: str = "toolex",
              k: int | None = None) -> Path:
    """Write a run in TREC format atomically, each query's tools in trec_eval order, ranks from 1.

    Ids with white space (they would shift the columns) and NaN scores are refused; on an error the
    previous file, if any, is left as it was.
    """
    path = Path(path)
    tag = "_".join(tag.split()) or "toolex"
    with atomic_writer(path) as handle:
        for qid, scores in run.items():
            if not qid or any(c.isspace() for c in qid):
                raise InputError(path, f"query id {qid!r} is empty or contains white space", record=qid)
            for rank, (docid, score) in enumerate(ranked(scores, k), 1):
                if not docid or any(c.isspace() for c in docid):
                    raise InputError(path, f"tool id {docid!r} is empty or contains white space", record=qid)
                if math.isnan(score):
                    raise InputError(path, f"score of tool {docid!r} is NaN", record=qid)
                handle.write(f"{qid} Q0 {docid} {rank} {score!r} {tag}\n")
    return path


def read_qrels(path: str | Path) -> Qrels:
    path = Path(path)
    qrels: Qrels = {}
    for lineno, line in _lines(path, "qrels file"):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            raise InputError(path, f"expected 4 columns 'qid 0 docid rel', found {len(parts)}",
                             record=f"line {lineno}")
        try:
            qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
        except ValueError:
            raise InputError(path, f"relevance {parts[3]!r} is not an integer",
                             record=f"line {lineno}") from None
    return qrels


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | Path) -> Path:
    path = Path(path)
    with atomic_writer(path) as handle:
        for qid, docs in qrels.items():
            for docid, rel in docs.items():
                handle.write(f"{qid} 0 {docid} {int(rel)}\n")
    return path
