"""A strict validator for the subset of JSON Schema the annotation prompts use.

Supported keywords: ``type`` (a name or a list of names), ``properties``, ``required``,
``additionalProperties`` (bool or schema), ``enum``, ``const``, ``items``, ``minItems``, ``maxItems``,
``minLength``, ``maxLength``, ``minimum``, ``maximum``. An unknown keyword raises, so a schema never
silently checks less than it says.
"""

from __future__ import annotations

import json
import re
from typing import Any

_KNOWN = {
    "type", "properties", "required", "additionalProperties", "enum", "const", "items",
    "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum",
    "description", "title", "$schema",
}  # fmt: skip

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


class SchemaViolation(ValueError):
    """The value does not match the schema; the message names the JSON path at fault."""


def _is_type(value: Any, name: str) -> bool:
    if name not in _TYPES:
        raise SchemaViolation(f"unsupported schema type {name!r}")
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> None:
    """Raise :class:`SchemaViolation` unless ``value`` matches ``schema``."""
    unknown = set(schema) - _KNOWN
    if unknown:
        raise SchemaViolation(f"{path}: unsupported schema keyword(s) {sorted(unknown)}")
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, n) for n in names):
            raise SchemaViolation(f"{path}: expected {'/'.join(names)}, got {type(value).__name__}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaViolation(f"{path}: {value!r} is not one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        raise SchemaViolation(f"{path}: {value!r} != {schema['const']!r}")
    if isinstance(value, dict):
        _validate_object(value, schema, path)
    elif isinstance(value, list):
        _validate_array(value, schema, path)
    elif isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise SchemaViolation(f"{path}: string shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise SchemaViolation(f"{path}: string longer than {schema['maxLength']}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaViolation(f"{path}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise SchemaViolation(f"{path}: {value} > {schema['maximum']}")


def _validate_object(value: dict[str, Any], schema: dict[str, Any], path: str) -> None:
    props: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            raise SchemaViolation(f"{path}: missing required property {name!r}")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in props:
            validate(item, props[name], f"{path}.{name}")
        elif extra is False:
            raise SchemaViolation(f"{path}: unexpected property {name!r}")
        elif isinstance(extra, dict):
            validate(item, extra, f"{path}.{name}")


def _validate_array(value: list[Any], schema: dict[str, Any], path: str) -> None:
    if len(value) < schema.get("minItems", 0):
        raise SchemaViolation(f"{path}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise SchemaViolation(f"{path}: more than {schema['maxItems']} items")
    if "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], f"{path}[{i}]")


def is_valid(value: Any, schema: dict[str, Any]) -> bool:
    """True when ``value`` matches ``schema``."""
    try:
        validate(value, schema)
    except SchemaViolation:
        return False
    return True


class MalformedAnswer(Exception):
    """An answer that is not JSON, violates its schema or was cut off."""


def parse_json_answer(text: str, finish_reason: str | None, schema: dict[str, Any]) -> Any:
    """Parse and validate one answer; raise :class:`MalformedAnswer` with the reason otherwise."""
    if finish_reason == "length":
        raise MalformedAnswer("truncated answer (finish_reason == 'length'); raise max_tokens")
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, flags=re.DOTALL)
    if fenced:
        body = fenced.group(1)
    try:
        value = json.loads(body)
    except ValueError as exc:
        raise MalformedAnswer(f"invalid JSON: {exc}") from None
    try:
        validate(value, schema)
    except SchemaViolation as exc:
        raise MalformedAnswer(f"schema violation: {exc}") from None
    return value


def schema_instruction(schema: dict[str, Any]) -> str:
    """The instruction added to the prompt when the server cannot constrain output by schema."""
    return (
        "Answer with a single JSON object and nothing else (no prose, no code fence). "
        f"It must validate against this JSON schema:\n{json.dumps(schema, sort_keys=True)}"
    )
