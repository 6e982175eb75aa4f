"""Review items: the accepted query-level combinations of an annotation run (C* itself excluded).

An item carries everything a reviewer sees — the query, its instruction, the sub-queries, the candidate
combination and C* with each tool's documentation, the model's rationale — so that a campaign file is
self-contained. Model scores (fusion score, retrieval ranks and scores) are never copied into an item.

The run is identified by :func:`run_checksum`: the SHA-256 of the three stage files (``subqueries.jsonl``,
``verified.jsonl``, ``query_combo_verified.jsonl``). A rerun from the caches writes byte-identical stage files
and so has the same checksum, while ``manifest.json`` is left out because its ledger and timings change.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.annotate.judges.features import FEATURES
from toolex.annotate.run_folder import COMBINATIONS, SUBQUERIES, VERIFIED, ArtifactFolder
from toolex.data import load_benchmark
from toolex.data.checksum import file_sha256
from toolex.data.readers import iter_jsonl_numbered
from toolex.data.records import Query, Tool
from toolex.errors import InputError, refuse_folder
from toolex.io.artifact import MANIFEST

STAGE_FILES = (SUBQUERIES, VERIFIED, COMBINATIONS)
CHECKSUM_KIND = "sha256 of the stage files subqueries.jsonl, verified.jsonl, query_combo_verified.jsonl"


def run_checksum(folder: str | Path) -> str:
    """SHA-256 over the names and checksums of the run's stage files (those present; Stage 3 is required)."""
    folder = Path(folder)
    if not folder.exists():
        raise InputError(folder, "annotation run folder not found")
    if not folder.is_dir():
        raise InputError(folder, "this is a file; pass the annotation run's folder")
    if not (folder / COMBINATIONS).exists():
        raise InputError(folder / COMBINATIONS, "not an annotation run: the Stage 3 file is missing")
    return keys.checksum("".join(f"{name}\t{file_sha256(folder / name)}\n" for name in STAGE_FILES
                                 if (folder / name).exists()))


def item_id(query_id: str, tools: tuple[str, ...] | list[str]) -> str:
    return f"{query_id}::{'+'.join(tools)}"


@dataclass(frozen=True)
class ReviewItem:
    """One accepted combination to review; ``payload`` is what the review app shows."""

    item_id: str
    run: str
    query_id: str
    category: str
    complexity: int
    tools: tuple[str, ...]
    judge: str
    payload: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def stratum(self) -> str:
        return stratum_label(self.category, self.complexity)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["tools"] = list(self.tools)
        return out

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> ReviewItem:
        return cls(record["item_id"], record["run"], record["query_id"], record["category"],
                   int(record["complexity"]), tuple(record["tools"]), record.get("judge", ""),
                   record.get("payload", {}))


def stratum_label(category: str, complexity: int) -> str:
    return f"{category or 'uncategorised'} · {complexity} tool{'s' if complexity != 1 else ''}"


_TEXT_KEYS = ("category_name", "tool_name", "api_name", "api_description", "required_params",
              "optional_params",
              "return_schema")
_TEXT_FIELD = re.compile(r"(?:^|,\s*)(" + "|".join(_TEXT_KEYS) + r"):")


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _parameters(spec: Any, required: set[str] | None = None) -> list[dict[str, str]]:
    """Parameters as rows ``{name, type, required, description}`` from the shapes benchmarks use."""
    required = required or set()
    rows: list[dict[str, str]] = []
    if isinstance(spec, dict) and isinstance(spec.get("properties"), dict):  # JSON schema
        return _parameters(spec["properties"], set(spec.get("required") or []))
    if isinstance(spec, dict):
        for name, value in spec.items():
            value = value if isinstance(value, dict) else {"description": value}
            rows.append({"name": str(name), "type": _short(value.get("type", ""), 40),
                         "required": "yes" if name in required or value.get("required") is True else "",
                         "description": _short(value.get("description", ""))})
    elif isinstance(spec, list):
        for value in spec:
            if not isinstance(value, dict):
                rows.append({"name": _short(value, 80), "type": "", "required": "", "description": ""})
                continue
            kind = value.get("type") or (value.get("schema") or {}).get("type", "")
            rows.append({"name": str(value.get("name", "")), "type": _short(kind, 40),
                         "required": "yes" if value.get("required") is True or value.get("name") in required
                         else "",
                         "description": _short(value.get("description", ""))})
    elif spec not in (None, "", "N/A"):
        rows.append({"name": _short(spec, 200), "type": "", "required": "", "description": ""})
    return rows


_DEF = re.compile(r"\bdef\s+\w+\s*\((.*?)\)\s*(?:->[^:]*)?:", re.S)


def signature_parameters(code: str) -> list[dict[str, str]]:
    """Parameter rows from the first Python ``def`` of a tool's code (Toolink documents its tools so), read by
    Python's own parser: a parameter without a default is required; ``self``, ``*args`` and ``**kwargs`` are
    left out; a signature that does not parse gives none."""
    found = _DEF.search(code)
    if not found:
        return []
    try:
        args = ast.parse(f"def _({found.group(1)}): pass").body[0].args  # type: ignore[attr-defined]
    except SyntaxError:
        return []
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    return [{"name": a.arg, "type": _short(ast.unparse(a.annotation), 40) if a.annotation else "",
             "required": "" if default is not None else "yes", "description": ""}
            for a, default in [*zip(positional, defaults), *zip(args.kwonlyargs, args.kw_defaults)]
            if a.arg != "self"]


def tool_doc(tool: Tool) -> dict[str, Any]:
    """A tool's documentation in readable parts: name, description, parameters and other fields."""
    doc = tool.documentation
    if isinstance(doc, str):
        fields = dict(zip(*[iter(p.strip() for p in _TEXT_FIELD.split(doc)[1:])] * 2))
        if not fields:
            return {"name": tool.name, "description": doc, "parameters": [], "other": {}}
        params: list[dict[str, str]] = []
        for key, needed in (("required_params", "yes"), ("optional_params", "")):
            try:
                params += [dict(p, required=needed) for p in _parameters(json.loads(fields.get(key) or "[]"))]
            except json.JSONDecodeError:
                params.append({"name": fields[key], "type": "", "required": needed, "description": ""})
        name = " / ".join(v for v in (fields.get("tool_name"), fields.get("api_name")) if v) or tool.name
        other = {k: _short(fields[k]) for k in ("category_name", "return_schema") if fields.get(k)}
        return {"name": name, "description": fields.get("api_description", ""), "parameters": params,
                "other": other}
    if not isinstance(doc, dict):
        return {"name": tool.name, "description": _short(doc, 2000), "parameters": [], "other": {}}
    description = next((doc[k] for k in ("description", "api_description", "func_description") if doc.get(k)),
                       "")
    params = []
    for key in ("parameters", "api_arguments", "required_parameters", "optional_parameters"):
        if key in doc:
            rows = _parameters(doc[key])
            if key == "required_parameters":
                rows = [dict(r, required="yes") for r in rows]
            params += rows
    if not params and isinstance(doc.get("func_description"), str):
        params = signature_parameters(doc["func_description"])  # Toolink: the signature is the code
    used = {"name", "description", "api_description", "parameters", "api_arguments", "required_parameters",
            "optional_parameters"}
    other = {k: _short(v) for k, v in doc.items() if k not in used and v not in (None, "", "N/A", [], {})}
    if doc.get("func_description") and description != doc["func_description"]:
        other["func_description"] = _short(doc["func_description"], 1000)
    elif description == doc.get("func_description"):
        other.pop("func_description", None)
    return {"name": str(doc.get("name") or tool.name), "description": _short(description, 2000).strip('"'),
            "parameters": params, "other": other}


#: Campaign setting (``meta``): ``"shown"`` (default) or ``"hidden"``, the model's rationale on the review
#: screen.
RATIONALE_SETTING = "rationale"
_SCORED = re.compile(r"\bscore\s+-?\d|\b(?:" + "|".join(map(re.escape, FEATURES)) + r")\b")


_CASCADE_PREFIX = re.compile(r"^embedding score [0-9.]+ in the unsure band; ")


def blind(reason: str | None) -> str:
    """A verdict's reason as a reviewer may read it: a rationale in words, or nothing when it carries a
    judge's score, features or confidence (the offline judge's reason is its score and signals; the cascade's
    LLM reason keeps its words without the embedding score before them)."""
    if not reason:
        return ""
    reason = _CASCADE_PREFIX.sub("", reason)
    return "" if _SCORED.search(reason) else reason


def build_items(folder: str | Path | ArtifactFolder, queries: Mapping[str, Query],
                tools: Mapping[str, Tool]) -> tuple[str, list[ReviewItem]]:
    """The run checksum and every accepted, non-reference combination of the run, as review items."""
    folder = folder if isinstance(folder, ArtifactFolder) else ArtifactFolder(folder)
    checksum = run_checksum(folder.folder)
    decompositions = {d.query_id: d
                      for d in folder.decompositions()} if folder.path(SUBQUERIES).exists() else {}
    verified: dict[tuple[str, str], dict[str, str]] = {}  # (query, reference tool) -> candidate -> reason
    if folder.path(VERIFIED).exists():
        for v in folder.verified_sets():
            verified[(v.query_id, v.reference_tool)] = {c.tool_id: c.verdict.reason for c in v.candidates}
    path = folder.path(COMBINATIONS)
    items: list[ReviewItem] = []
    for audited in folder.audited():
        accepted = [c for c in audited.combinations if c.valid and not c.is_reference]
        if not accepted:
            continue
        query = queries.get(audited.query_id)
        if query is None:
            raise InputError(path, "query not found in the run's benchmarks", audited.query_id)
        decomposition = decompositions.get(audited.query_id)
        subqueries = [asdict(s)
                      for s in decomposition.subqueries] if decomposition and decomposition.ok else []
        complexity = len(subqueries) or len(audited.reference)
        for combination in accepted:
            missing = [t for t in (*combination.tools, *audited.reference) if t not in tools]
            if missing:
                raise InputError(path, f"tool {missing[0]} not found in the run's tool pool",
                                 audited.query_id)
            substitutions = []
            for index, (ref, tool) in enumerate(zip(audited.reference, combination.tools)):
                if ref != tool:
                    reason = blind(verified.get((audited.query_id, ref), {}).get(tool, ""))
                    substitutions.append({"index": index, "reference_tool": ref, "tool": tool,
                                          "reason": reason})
            payload = {
                "query": query.text, "instruction": query.instruction, "subqueries": subqueries,
                "tools": list(combination.tools), "reference": list(audited.reference),
                "docs": {t: tool_doc(tools[t])
                         for t in dict.fromkeys((*combination.tools, *audited.reference))},
                "rationale": {"audit": blind(combination.verdict.reason), "substitutions": substitutions},
            }
            items.append(ReviewItem(item_id(audited.query_id, combination.tools), checksum, audited.query_id,
                                    audited.category or query.category, complexity, combination.tools,
                                    combination.verdict.judge, payload))
    return checksum, items


def load_items(folder: str | Path, data_dir: str | Path | None = None) -> tuple[str, list[ReviewItem]]:
    """:func:`build_items` with the queries and tools of the benchmarks named in the run's manifest."""

    art = ArtifactFolder(folder)
    manifest = art.manifest()
    if not manifest.get("benchmarks"):
        raise InputError(art.path(MANIFEST),
                         "no benchmarks recorded; cannot show the queries and tools")
    queries: dict[str, Query] = {}
    tools: dict[str, Tool] = {}
    for entry in manifest["benchmarks"]:
        bench = load_benchmark(entry["name"], data_dir)
        if entry.get("checksum") and entry["checksum"] != bench.checksum:
            raise InputError(art.path(MANIFEST), f"benchmark {entry['name']} changed since the run "
                             f"(checksum {bench.checksum[:12]} != {entry['checksum'][:12]})")
        queries.update(bench.query_by_id)
        tools.update(bench.tools)
    return build_items(art, queries, tools)


def run_verdicts(folder: str | Path) -> dict[str, tuple[str, bool]]:
    """item id -> (judge, valid) for every audited non-reference combination of a run (judge failures left
    out): another judge's verdicts on the same combinations, for the report's per-judge table."""
    out: dict[str, tuple[str, bool]] = {}
    for audited in ArtifactFolder(folder).audited():
        for c in audited.combinations:
            if not c.is_reference and c.verdict.ok:
                out[item_id(audited.query_id, c.tools)] = (c.verdict.judge, c.valid)
    return out


#: ``payload["kind"]`` of a candidate item (one tool in place of the reference for one sub-query).
CANDIDATE = "candidate"


def candidate_item_id(query_id: str, reference: str, candidate: str) -> str:
    return f"{query_id}::{reference}=>{candidate}"


def candidate_items(path: str | Path) -> tuple[str, list[ReviewItem]]:
    """The items ``toolex calibrate --draw`` wrote, as review items (the campaign's run is the file's sha256):
    people say whether the candidate can replace the reference tool for the sub-query."""

    path = Path(path)
    refuse_folder(path, "items file")
    if not path.is_file():
        raise InputError(path, "items file not found (`toolex calibrate --draw` writes it)")
    checksum = file_sha256(path)
    items = []
    for lineno, record in iter_jsonl_numbered(path, "items file"):
        try:
            qid, ref, cand = record["query_id"], record["reference"], record["candidate"]
            docs = {ref: record["reference_documentation"], cand: record["candidate_documentation"]}
        except (KeyError, TypeError) as exc:
            raise InputError(path, f"not a drawn item (missing {exc})", record=f"line {lineno}") from None
        tools = {tid: tool_doc(Tool(tid, str(doc.get("name", tid)) if isinstance(doc, dict) else tid, doc))
                 for tid, doc in docs.items()}
        payload = {"kind": CANDIDATE, "query": record.get("query", ""),
                   "subquery": record.get("subquery", ""), "reference": [ref], "tools": [cand], "docs": tools}
        item = candidate_item_id(qid, ref, cand)
        items.append(ReviewItem(item, checksum, qid, str(record.get("category") or ""), 1, (cand,), "",
                                payload))
    if not items:
        raise InputError(path, "no items to label (empty file)")
    return checksum, items


def labels_of(final: list[dict[str, Any]], items: Mapping[str, ReviewItem]) -> list[dict[str, Any]]:
    """Final decisions on candidate items as a labels file's records (undecided items left out)."""
    out = []
    for row in final:
        item = items.get(row["item_id"])
        if item is None or item.payload.get("kind") != CANDIDATE or row.get("valid") is None:
            continue
        out.append({"query_id": item.query_id, "reference": item.payload["reference"][0],
                    "candidate": item.tools[0], "equivalent": bool(row["valid"])})
    return out
