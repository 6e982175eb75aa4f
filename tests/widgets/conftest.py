"""The widget tests run on the toy annotation run of :mod:`toolex.widgets.demo`."""

from __future__ import annotations

import pytest

from toolex.widgets.data import InspectorData
from toolex.widgets.demo import toy_data


@pytest.fixture
def data() -> InspectorData:
    return toy_data()
