"""TREC run files (``qid Q0 docid rank score tag``) and TREC qrels (``qid 0 docid rel``).

A run is held as ``{query_id: {tool_id: score}}``, the form pytrec_eval takes. Ranks in a file are
informational: as in trec_eval, the order is re-derived from the scores (ties broken by tool id, descending).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from toolex.data.readers import open_text
from toolex.errors import InputError

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def ranked(scores: Mapping[str, float], k: int | None = None) -> list[tuple[str, float]]:
    """(tool id, score) pairs in trec_eval order: score descending, then tool id descending."""
    order = sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return order if k is None else order[:k]


def read_run(path: str | Path) -> Run:
    """Read a TREC run file; a repeated (query, tool) pair is an error."""
    path = Path(path)
    run: Run = {}
    with open_text(path, "run file") as handle:
        for lineno, line in enumerate(handle, 1):
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
            scores = run.setdefault(qid, {})
            if docid in scores:
                raise InputError(path, f"tool {docid!r} listed twice for query {qid!r}", record=f"line {lineno}")
            scores[docid] = value
    return run


def write_run(run: Mapping[str, Mapping[str, float]], path: str | Path, tag: str = "toolex",
              k: int | None = None) -> Path:
    """Write a run in TREC format, each query's tools in trec_eval order, ranks from 1."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tag = "_".join(tag.split()) or "toolex"
    with open(path, "w", encoding="utf-8") as handle:
        for qid, scores in run.items():
            for rank, (docid, score) in enumerate(ranked(scores, k), 1):
                if any(c.isspace() for c in docid):
                    raise InputError(path, f"tool id {docid!r} contains white space", record=qid)
                handle.write(f"{qid} Q0 {docid} {rank} {score!r} {tag}\n")
    return path


def read_qrels(path: str | Path) -> Qrels:
    path = Path(path)
    qrels: Qrels = {}
    with open_text(path, "qrels file") as handle:
        for lineno, line in enumerate(handle, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise InputError(path, f"expected 4 columns 'qid 0 docid rel', found {len(parts)}",
                                 record=f"line {lineno}")
            try:
                qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
            except ValueError:
                raise InputError(path, f"relevance {parts[3]!r} is not an integer", record=f"line {lineno}") from None
    return qrels


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for qid, docs in qrels.items():
            for docid, rel in docs.items():
                handle.write(f"{qid} 0 {docid} {int(rel)}\n")
    return path
