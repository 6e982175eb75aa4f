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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from toolex.data.records import Tool

FEATURES = ("description_cosine", "documentation_cosine", "name_overlap", "parameter_overlap",
            "required_overlap", "same_platform", "subquery_fit")
#: The sign each feature's weight must have: more alike means more likely equivalent (+1), a shared platform
#: less likely (-1). Calibration drops a feature whose fitted weight comes out the other way (a collinear or
#: data-specific effect that would not transfer) and refits.
EXPECTED_SIGNS = {"description_cosine": 1, "documentation_cosine": 1, "name_overlap": 1,
                  "parameter_overlap": 1,
                  "required_overlap": 1, "same_platform": -1, "subquery_fit": 1}
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


def feature_matrix(encoder: TextEncoder, candidates: Sequence[Tool], references: Sequence[Tool],
                   subqueries: Sequence[str]) -> np.ndarray:
    """One row per item, the columns of :data:`FEATURES`; tools are encoded once each."""
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
    return rows
