"""Skip a test whose service is missing — or fail it, where CI says the service must be there."""

from __future__ import annotations

import os

import pytest


def skip_unless_required(message: str, variable: str) -> None:
    """``pytest.skip`` normally; ``pytest.fail`` when ``variable`` is set to 1 (CI sets TOOLEX_REQUIRE_LLM,
    TOOLEX_REQUIRE_BROWSER and TOOLEX_REQUIRE_DOCS, so a missing server, browser or site builder cannot pass
    as a skip)."""
    if os.environ.get(variable) == "1":
        pytest.fail(f"{message} ({variable}=1)")
    pytest.skip(message)
