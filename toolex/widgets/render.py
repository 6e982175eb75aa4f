"""HTML of the inspector's panels, as plain functions of :class:`toolex.widgets.data.InspectorData`."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from toolex.data.records import one_line
from toolex.metrics import NAMES
from toolex.metrics.long import ALL
from toolex.metrics.measures import HEADLINE
from toolex.review.items import tool_doc
from toolex.widgets.data import EQUIVALENT, GROUND_TRUTH, InspectorData

COLOURS = {GROUND_TRUTH: "#c8f7c5", EQUIVALENT: "#cfe3ff"}
#: The pooled row: every query of the selection counts once (a category with more queries weighs more).
ALL_LABEL = "all (query-weighted)"


def category_options(data: InspectorData) -> list[tuple[str, str]]:
    """The category filters' choices: the pooled row, then each category."""
    return [(ALL_LABEL, ALL), *((c, c) for c in data.categories())]


def query_label(data: InspectorData, query_id: str, note: str = "", width: int = 70) -> str:
    """``<id> · <query text, cut>`` (and ``note``) as a list or picker shows a query."""
    text = one_line(data.queries[query_id].text, width) if query_id in data.queries else ""
    return f"{query_id} · {text}" + (f"  ({note})" if note else "")


def _table(header: list[str], rows: list[list[str]], styles: list[str] | None = None) -> str:
    head = "".join(f"<th style='text-align:left;padding:2px 6px'>{escape(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        style = f" style='background:{styles[i]}'" if styles and styles[i] else ""
        body.append(f"<tr{style}>" + "".join(f"<td style='padding:2px 6px'>{c}</td>" for c in row) + "</tr>")
    return f"<table style='border-collapse:collapse;font-size:12px'><tr>{head}</tr>{''.join(body)}</table>"


def tool_html(data: InspectorData, tool_id: str, documentation: bool = True) -> str:
    """A tool as people judge it: id, name, one-line description and, on demand, the full documentation."""
    tool = data.tools.get(tool_id)
    if tool is None:
        return f"<code>{escape(tool_id)}</code> <i>(not in the tool pool)</i>"
    html = (f"<span class='toolex-tool'><code>{escape(tool_id)}</code> <b>{escape(tool.name)}</b> — "
            f"{escape(tool.summary())}</span>")
    if documentation:
        html += (f"<details class='toolex-tool-doc'><summary>documentation</summary>"
                 f"{documentation_html(tool_id, tool_doc(tool))}<details><summary>as the benchmark stores it"
                 f"</summary><pre style='white-space:pre-wrap;font-size:11px;font-family:monospace'>"
                 f"{escape(_pretty(tool.documentation))}</pre></details></details>")
    return html


def documentation_html(tool_id: str, doc: dict[str, Any]) -> str:
    """A tool's documentation as people read it (:func:`toolex.review.items.tool_doc`'s parts): name, id,
    description, a parameter table and the other fields; the same in the inspector and the review app."""
    params = doc.get("parameters") or []
    rows = "".join(f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p.get('type', ''))}</td>"
                   f"<td>{escape(p.get('required', ''))}</td><td>{escape(p.get('description', ''))}</td></tr>"
                   for p in params)
    table = ("<table class='toolex-review-params' style='font-size:12px;border-collapse:collapse'>"
             "<tr><th align=left>parameter</th><th align=left>type</th><th align=left>required</th>"
             f"<th align=left>description</th></tr>{rows}</table>") if params else (
        "<p><i>no parameters</i></p>")
    other = "".join(f"<li><b>{escape(k)}</b>: {escape(str(v))}</li>"
                    for k, v in (doc.get("other") or {}).items())
    return (f"<div class='toolex-review-tool' style='border:1px solid #ddd;padding:4px 8px;margin:4px 0'>"
            f"<b>{escape(doc.get('name') or tool_id)}</b> <small><code>{escape(tool_id)}</code></small>"
            f"<p>{escape(doc.get('description') or '—')}</p>{table}"
            + (f"<details><summary>other fields</summary><ul>{other}</ul></details>" if other else "")
            + "</div>")


def _pretty(documentation: object) -> str:
    if isinstance(documentation, str):
        return documentation
    return json.dumps(documentation, indent=1, ensure_ascii=False)


def query_html(data: InspectorData, query_id: str) -> str:
    """The query, its instruction, category and C*."""
    q = data.queries[query_id]
    tools = "".join(f"<li>{tool_html(data, t)}</li>" for t in q.reference)
    return (f"<div class='toolex-query-header'><h3>{escape(query_id)}</h3>"
            f"<p><b>Query:</b> {escape(q.text)}</p>"
            f"<p><b>Instruction:</b> {escape(q.instruction or '—')}</p>"
            f"<p><b>Category:</b> {escape(q.category)} · <b>subset:</b> {escape(q.subset or '—')}</p>"
            f"<p><b>C* (ground truth):</b></p><ul>{tools}</ul></div>")


def subqueries_html(data: InspectorData, query_id: str, top: int = 20) -> str:
    """Stage 1 sub-queries and, per sub-query, the ranked candidates of Stage 2 with verdicts and reasons."""
    d = data.decompositions.get(query_id)
    if d is None:
        return "<p>No Stage 1 record for this query.</p>"
    if not d.ok:
        return f"<p><b>Decomposition failed:</b> {escape(d.error)}</p>"
    sets = {v.index: v for v in data.verified.get(query_id, [])}
    parts = []
    for s in d.subqueries:
        parts.append(f"<h4>Sub-query {s.index + 1}: {escape(s.text)}</h4>"
                     f"<p>reference tool {tool_html(data, s.reference_tool, documentation=False)}</p>")
        v = sets.get(s.index)
        if v is None:
            parts.append("<p>No Stage 2 record.</p>")
            continue
        rows, styles = [], []
        for c in sorted(v.candidates, key=lambda c: (c.rank == 0, c.rank))[:top]:
            verdict = ("reference" if c.tool_id == v.reference_tool else "judge failed"
                       if c.verdict.equivalent is None else "equivalent" if c.verdict.equivalent else "no")
            rows.append([str(c.rank or "—"), tool_html(data, c.tool_id), escape(verdict),
                         escape(c.verdict.reason)])
            styles.append(COLOURS[GROUND_TRUTH] if verdict == "reference" else
                          COLOURS[EQUIVALENT] if verdict == "equivalent" else "")
        parts.append(_table(["rank", "candidate", "verdict", "reason"], rows, styles))
    return "".join(parts)


def combinations_html(data: InspectorData, query_id: str) -> str:
    """Stage 3: the combinations considered, their fusion score and audit result."""
    a = data.audited.get(query_id)
    if a is None:
        return "<p>No Stage 3 record for this query.</p>"
    rows, styles = [], []
    for c in a.combinations:
        result = "C*" if c.is_reference else "valid" if c.valid else (
            "judge failed" if c.verdict.equivalent is None else "rejected")
        rows.append(["<br>".join(tool_html(data, t, documentation=False) for t in c.tools), f"{c.rrf:.4f}",
                     escape(result),
                     escape(c.verdict.reason)])
        styles.append(COLOURS[GROUND_TRUTH] if c.is_reference else COLOURS[EQUIVALENT] if c.valid else "")
    summary = (f"<p>{len(a.combinations)} combinations audited (product of verified sets: {a.product_size}); "
               f"{len(a.valid)} valid.</p>")
    return summary + _table(["tools", "RRF", "audit", "reason"], rows, styles)


def ranking_html(data: InspectorData, retriever: str, query_id: str, k: int = HEADLINE.k) -> str:
    """The retriever's top ``k`` with C* and verified equivalents highlighted, and the query's scores."""
    scores = data.scores(retriever, query_id, k)
    score_rows = [[f"{m}@{k}", f"{100 * scores[f'one_to_one_{m}']:.1f}", f"{100 * scores[f'tooleq_{m}']:.1f}"]
                  for m in NAMES]  # in %, as the explorer's bars and every table
    ranking = data.ranking(retriever, query_id, k)
    rows = [[str(r.rank), tool_html(data, r.tool_id), f"{r.score:.4f}", escape(r.mark)] for r in ranking]
    legend = (f"<p><span style='background:{COLOURS[GROUND_TRUTH]}'>&nbsp;ground truth (C*)&nbsp;</span> "
              f"<span style='background:{COLOURS[EQUIVALENT]}'>&nbsp;verified equivalent&nbsp;</span></p>")
    return (f"<div class='toolex-scores'><h4>{escape(retriever)} — scores of this query</h4>"
            + _table(["metric", "one-to-one (%)", "ToolEq (%)"], score_rows) + "</div>"
            + f"<h4>{escape(retriever)} — top {k}</h4>" + legend
            + _table(["rank", "tool", "score", "mark"], rows,
                     [COLOURS.get(r.mark, "") for r in ranking]))


def ranks_html(data: InspectorData, query_id: str) -> str:
    """Where each C* tool and verified equivalent falls in every retriever's whole run (beyond K)."""
    entries = data.ranks(query_id)
    names = list(data.runs)
    rows = [[tool_html(data, e.tool_id, documentation=False), escape(e.role),
             *("—" if e.ranks[n] is None else str(e.ranks[n]) for n in names)] for e in entries]
    styles = [COLOURS[GROUND_TRUTH] if e.role == "C*" else COLOURS[EQUIVALENT] for e in entries]
    note = "<p><small>Rank in each retriever's whole run; — : not retrieved.</small></p>"
    return ("<div class='toolex-ranks'>" + _table(["tool", "role", *names], rows, styles) + note + "</div>")
