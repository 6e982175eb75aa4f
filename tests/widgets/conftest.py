"""The widget tests run on the toy annotation run of :mod:`tests.widgets.toy`."""

from __future__ import annotations

import pytest

from tests.widgets.toy import toy_data
from toolex.widgets.data import InspectorData


@pytest.fixture
def data() -> InspectorData:
    return toy_data()
