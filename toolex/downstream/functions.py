"""StableToolBench APIs as the agent sees them: function names, JSON-schema parameters and argument checks.

ToolBench names a function ``<api>_for_<tool>`` in lower snake case (at most 64 characters); its parameters
come from ``required_parameters`` / ``optional_parameters`` (``{name, type, description, default}``), typed
``STRING``, ``NUMBER``, ``BOOLEAN``, ``ARRAY``, ``OBJECT`` or free text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolex.data.records import Tool

#: The agent's answer function, as ToolBench names it.
FINISH = "Finish"
_JSON_TYPES = {"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
               "ARRAY": "array", "OBJECT": "object", "ENUM": "string", "DATE (YYYY-MM-DD)": "string",
               "TIME (24-HOUR HH:MM)": "string"}


def _snake(text: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", text.lower())).strip("_")


def function_name(tool: Tool) -> str:
    """``<api>_for_<tool>`` in lower snake case, at most 64 characters (ToolBench's naming)."""
    doc = tool.documentation if isinstance(tool.documentation, Mapping) else {}
    api = _snake(str(doc.get("api_name", tool.name)))
    owner = _snake(str(doc.get("tool_name", tool.platform or "")))
    name = f"{api}_for_{owner}" if owner else api
    return (name or "api")[:64]


def _parameters(tool: Tool) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    doc = tool.documentation if isinstance(tool.documentation, Mapping) else {}
    required = [p for p in doc.get("required_parameters") or [] if isinstance(p, Mapping) and p.get("name")]
    optional = [p for p in doc.get("optional_parameters") or [] if isinstance(p, Mapping) and p.get("name")]
    return required, optional


def function_spec(tool: Tool) -> dict[str, Any]:
    """The function as an OpenAI tool definition (name, description, JSON-schema parameters)."""
    doc = tool.documentation if isinstance(tool.documentation, Mapping) else {}
    required, optional = _parameters(tool)
    properties = {}
    for param in (*required, *optional):
        kind = _JSON_TYPES.get(str(param.get("type", "STRING")).upper(), "string")
        entry: dict[str, Any] = {"type": kind, "description": str(param.get("description") or "")[:300]}
        if param.get("default") not in (None, ""):
            entry["example_value"] = param["default"]
        properties[str(param["name"])] = entry
    description = str(doc.get("api_description") or tool.description or "")
    owner = doc.get("tool_name")
    return {"name": function_name(tool),
            "description": f"{description} (API {doc.get('api_name', tool.name)} of {owner})"[:500]
            if owner else description[:500],
            "parameters": {"type": "object", "properties": properties,
                           "required": [str(p["name"]) for p in required]}}


def finish_spec() -> dict[str, Any]:
    """ToolBench's ``Finish``: give the final answer, or give up."""
    return {"name": FINISH,
            "description": "Call when the task is done: give_answer with the final answer, or give_up when "
                           "the tools cannot solve it.",
            "parameters": {"type": "object", "required": ["return_type"],
                           "properties": {"return_type": {"type": "string",
                                                          "enum": ["give_answer", "give_up"]},
                                          "final_answer": {"type": "string"}}}}


def normalise(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments in one canonical form (sorted keys, stripped strings, whole floats as integers), so that two
    calls that mean the same hit the same cached response."""
    def one(value: Any) -> Any:
        if isinstance(value, str):
            return value.strip()
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, Mapping):
            return {str(k): one(v) for k, v in sorted(value.items())}
        if isinstance(value, list):
            return [one(v) for v in value]
        return value
    return {str(k): one(v) for k, v in sorted(arguments.items())}


def argument_error(tool: Tool, arguments: Any) -> str | None:
    """Why a call's arguments are invalid for ``tool`` (as the API would refuse them), or None."""
    if not isinstance(arguments, Mapping):
        return f"arguments must be a JSON object, got {json.dumps(arguments)[:80]}"
    required, optional = _parameters(tool)
    known = {str(p["name"]) for p in (*required, *optional)}
    missing = [str(p["name"]) for p in required if arguments.get(str(p["name"])) in (None, "")]
    unknown = sorted(set(map(str, arguments)) - known)
    problems = []
    if missing:
        problems.append(f"missing required parameter(s) {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown parameter(s) {', '.join(unknown)}")
    for param in (*required, *optional):
        name, kind = str(param["name"]), str(param.get("type", "")).upper()
        value = arguments.get(name)
        if value is None:
            continue
        if kind == "NUMBER" and not _number(value):
            problems.append(f"{name} must be a number, got {json.dumps(value)[:40]}")
        if kind == "BOOLEAN" and not isinstance(value, bool) and str(value).lower() not in ("true", "false"):
            problems.append(f"{name} must be true or false, got {json.dumps(value)[:40]}")
    return "; ".join(problems) or None


def _number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def functions_of(tools: Sequence[Tool]) -> dict[str, Tool]:
    """Function name → tool for a tool list (a repeated name gets ``_2``, ``_3``...)."""
    out: dict[str, Tool] = {}
    for tool in tools:
        name, n = function_name(tool), 2
        while name in out:
            name, n = f"{function_name(tool)[:60]}_{n}", n + 1
        out[name] = tool
    return out
