"""Interactive views (ipywidgets): the per-category delta explorer and the query inspector.

The logic (what is shown for a selection) lives in :mod:`toolex.widgets.data` and :mod:`toolex.widgets.render`
as plain functions, so it is tested without a browser.
"""

from toolex.widgets.data import InspectorData
from toolex.widgets.explorer import DeltaExplorer
from toolex.widgets.inspector import QueryInspector

__all__ = ["DeltaExplorer", "InspectorData", "QueryInspector"]
