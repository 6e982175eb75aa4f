"""The signals the offline judge weighs to decide whether a candidate tool can replace the reference tool.

Each is a number per (candidate, reference, sub-query) item, computed from the tools' documentation and one
sentence encoder; :data:`FEATURES` names them in the order of the judge's weights.

* ``description_cosine``: cosine of the two tools' *name and description* (not the whole documentation, whose
  shared JSON structure makes every pair of tools look alike to an encoder).
* ``documentation_cosine``: cosine of the two tools' full documentation text.
* ``name_overlap``: Jaccard overlap of the word tokens of the two names (``SearchOnewayFlight`` → search,
  oneway, flight).
* ``parameter_overlap`` / ``required_overlap``: Jaccard overlap of the parameter names (all / required only).
* ``same_platform``: 1 when both tools belong to the same platform (API, service, repository): another
endpoint
  of the same API is usually a different operation, not a substitute.
* ``subquery_fit``: cos(candidate, sub-query) − cos(reference, sub-query): how much worse (or better) the
  candidate serves the need the reference was chosen for.

The signals above sit on the scale of one library's documentation (templated schemas read alike, free-text
registries far apart), so a weight or threshold fitted on one library carries its scale into another. The
next ones stand within the item's **candidate list** (the other candidates Stage 2 retrieved for the same
sub-query), which every library has, or read what a tool does:

* ``description_standing`` / ``documentation_standing``: the candidate's description (documentation) cosine
  to the reference, standardised over its candidate list (how many standard deviations it stands above the
  list's mean; 0 for a list of fewer than :data:`MIN_LIST` items).
* ``documentation_gap``: its documentation cosine minus the list's highest (0 for the most similar
  candidate).
* ``retrieval_standing``: 1 / the candidate's retrieval rank for the sub-query (0 when not recorded).
* ``operation_match``: +1 when the two tools do the same kind of operation (read, create, change, delete,
  compute, send, run; :mod:`~toolex.annotate.judges.operations`), -1 different kinds, 0 unknown.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from toolex.annotate.judges.operations import operation_match
from toolex.data.records import Tool

FEATURES = ("description_cosine", "documentation_cosine", "name_overlap", "parameter_overlap",
            "required_overlap", "same_platform", "subquery_fit", "description_standing",
            "documentation_standing", "documentation_gap", "retrieval_standing", "operation_match")
#: Features read on a library's own similarity scale, and those that stand within the candidate list or read
#: the operation (free of that scale).
RAW_FEATURES = FEATURES[:7]
RELATIVE_FEATURES = FEATURES[7:]
#: Fewest items of a candidate list over which a similarity is standardised; the least standard deviation
#: divided by (a list of near-identical scores does not blow up).
MIN_LIST = 3
MIN_SPREAD = 0.02
#: The sign each feature's weight must have: more alike means more likely equivalent (+1), a shared platform
#: less likely (-1). Calibration drops a feature whose fitted weight comes out the other way (a collinear or
#: data-specific effect that would not transfer) and refits.
EXPECTED_SIGNS = {"description_cosine": 1, "documentation_cosine": 1, "name_overlap": 1,
                  "parameter_overlap": 1,
                  "required_overlap": 1, "same_platform": -1, "subquery_fit": 1, "description_standing": 1,
                  "documentation_standing": 1, "documentation_gap": 1, "retrieval_standing": 1,
                  "operation_match": 1}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


class TextEncoder(Protocol):
    """What the judge needs from an encoder: unit vectors for documents and for queries."""

    def documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def queries(self, texts: Sequence[str]) -> np.ndarray: ...


def tool_description(tool: Tool) -> str:
    """The free-text description of a tool (its documentation text when there is no description field)."""
    return tool.description


def words(name: str) -> set[str]:
    """Lower-case word tokens of an identifier or phrase (camelCase, snake_case, kebab-case, spaces)."""
    spaced = _CAMEL.sub(" ", name)
    return {w for w in re.findall(r"[a-z0-9]+", spaced.lower()) if len(w) > 1}


def name_and_description(tool: Tool) -> str:
    """``"<name as words>: <description>"``, the text behind ``description_cosine``."""
    name = " ".join(re.findall(r"[A-Za-z0-9]+", _CAMEL.sub(" ", tool.name)))
    return f"{name}: {tool_description(tool)}"


def _names(entries: Any) -> set[str]:
    if isinstance(entries, Mapping):
        return {str(k).lower() for k in entries}
    if isinstance(entries, Iterable) and not isinstance(entries, str):
        out = set()
        for entry in entries:
            if isinstance(entry, Mapping) and entry.get("name"):
                out.add(str(entry["name"]).lower())
            elif isinstance(entry, str):
                out.add(entry.lower())
        return out
    return set()


def _optional(spec: Any) -> bool:
    """Whether a parameter's spec says it is optional: ``"required": false`` or a type like ``"str,
    optional"``."""
    if not isinstance(spec, Mapping):
        return False
    return spec.get("required") is False or "optional" in str(spec.get("type", "")).lower()


def _is_json_schema(params: Mapping[str, Any]) -> bool:
    """``{"properties": {name: spec, ...}, ...}`` (a parameter that happens to be named ``properties`` is
    not)."""
    properties = params.get("properties")
    if params.get("type") == "object":
        return True
    return isinstance(properties, Mapping) and all(isinstance(v, Mapping) for v in properties.values())


def parameter_names(tool: Tool, required_only: bool = False) -> set[str]:
    """Parameter names from the common documentation layouts: a list of ``{"name": ...}`` (or of names), JSON
    Schema (``properties`` + ``required``), ``{"required": [...], "optional": [...]}``, a mapping of name to
    spec (APIGen, Gorilla's ``api_arguments``) and ToolBench's ``required_parameters`` /
    ``optional_parameters``. A parameter is required unless its layout or spec says it is optional."""
    doc = tool.documentation if isinstance(tool.documentation, Mapping) else {}
    params = next((doc[k] for k in ("parameters", "arguments", "api_arguments") if doc.get(k) is not None),
                  None)
    required: set[str] = _names(doc.get("required_parameters", []))
    optional: set[str] = _names(doc.get("optional_parameters", []))
    if isinstance(params, Mapping) and _is_json_schema(params):
        names = _names(params.get("properties") or {})
        flagged = {str(r).lower() for r in params.get("required", []) or []}
        required |= flagged & names
        optional |= names - flagged
    elif isinstance(params, Mapping) and (isinstance(params.get("required"), list)
                                          or isinstance(params.get("optional"), list)):
        required |= _names(params.get("required", []))
        optional |= _names(params.get("optional", []))
    elif isinstance(params, Mapping):
        for name, spec in params.items():
            (optional if _optional(spec) else required).add(str(name).lower())
    elif isinstance(params, list):
        for entry in params:
            if isinstance(entry, Mapping) and entry.get("name"):
                (optional if _optional(entry) else required).add(str(entry["name"]).lower())
            elif isinstance(entry, str) and entry.strip():
                required.add(entry.strip().lower())
    return required if required_only else required | optional


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _platform(tool: Tool) -> str:
    return tool.platform.strip().lower() if tool.platform else ""


def standing(values: np.ndarray, lists: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Per item, its value standardised within its list (``lists``: the list each item belongs to) and its
    gap to the list's highest value."""
    z, gap = np.zeros(len(values)), np.zeros(len(values))
    members: dict[Hashable, list[int]] = {}
    for i, key in enumerate(lists):
        members.setdefault(key, []).append(i)
    for at in members.values():
        v = values[at]
        gap[at] = v - v.max()
        if len(at) >= MIN_LIST:
            z[at] = (v - v.mean()) / max(float(v.std()), MIN_SPREAD)
    return z, gap


def feature_matrix(encoder: TextEncoder, candidates: Sequence[Tool], references: Sequence[Tool],
                   subqueries: Sequence[str], lists: Sequence[Hashable] | None = None,
                   ranks: Sequence[int] | None = None) -> np.ndarray:
    """One row per item, the columns of :data:`FEATURES`; tools are encoded once each. ``lists``: the
    candidate list of each item (default: its sub-query and reference); ``ranks``: its retrieval rank."""
    if not candidates:
        return np.zeros((0, len(FEATURES)), dtype=np.float64)
    unique = {t.id: t for t in [*candidates, *references]}
    order = {tid: i for i, tid in enumerate(unique)}
    described = encoder.documents([name_and_description(t) for t in unique.values()])
    documented = encoder.documents([t.text for t in unique.values()])
    texts = list(dict.fromkeys(subqueries))
    at = {text: i for i, text in enumerate(texts)}
    asked = encoder.queries(texts)
    c = np.array([order[t.id] for t in candidates])
    r = np.array([order[t.id] for t in references])
    s = np.array([at[text] for text in subqueries])
    rows = np.zeros((len(candidates), len(FEATURES)), dtype=np.float64)
    rows[:, 0] = np.sum(described[c] * described[r], axis=1)
    rows[:, 1] = np.sum(documented[c] * documented[r], axis=1)
    rows[:, 6] = np.sum(documented[c] * asked[s], axis=1) - np.sum(documented[r] * asked[s], axis=1)
    for i, (cand, ref) in enumerate(zip(candidates, references)):
        rows[i, 2] = jaccard(words(cand.name), words(ref.name))
        rows[i, 3] = jaccard(parameter_names(cand), parameter_names(ref))
        rows[i, 4] = jaccard(parameter_names(cand, True), parameter_names(ref, True))
        rows[i, 5] = float(bool(_platform(cand)) and _platform(cand) == _platform(ref))
        rows[i, 11] = operation_match(cand, ref)
    keys = list(lists) if lists is not None else [(s, r.id) for s, r in zip(subqueries, references)]
    rows[:, 7], _ = standing(rows[:, 0], keys)
    rows[:, 8], rows[:, 9] = standing(rows[:, 1], keys)
    if ranks is not None:
        rows[:, 10] = [1.0 / r if r > 0 else 0.0 for r in ranks]
    return rows
