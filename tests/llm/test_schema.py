from __future__ import annotations

import pytest

from toolex.llm import SchemaViolation, is_valid, validate

from .conftest import VERDICT

LIST = {
    "type": "object",
    "required": ["tools"],
    "additionalProperties": False,
    "properties": {"tools": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}},
}


def test_valid_verdict() -> None:
    validate({"verdict": "yes", "reason": "fits"}, VERDICT)


@pytest.mark.parametrize(
    "value, fragment",
    [
        ({"verdict": "maybe", "reason": ""}, "not one of"),
        ({"verdict": "yes"}, "missing required property 'reason'"),
        ({"verdict": "yes", "reason": "x", "extra": 1}, "unexpected property 'extra'"),
        ({"verdict": True, "reason": "x"}, "expected string"),
        (["yes"], "expected object"),
    ],
)
def test_violations_name_the_fault(value: object, fragment: str) -> None:
    with pytest.raises(SchemaViolation, match=fragment):
        validate(value, VERDICT)


def test_arrays_and_integers() -> None:
    assert is_valid({"tools": [1, 2]}, LIST)
    assert not is_valid({"tools": []}, LIST)
    assert not is_valid({"tools": [1, 2, 3, 4]}, LIST)
    assert not is_valid({"tools": [True]}, LIST)  # a bool is not an integer
    assert not is_valid({"tools": ["1"]}, LIST)


def test_unknown_keyword_is_refused() -> None:
    with pytest.raises(SchemaViolation, match="unsupported schema keyword"):
        validate("x", {"type": "string", "pattern": "^x$"})
