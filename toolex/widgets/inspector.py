"""The query inspector: one query, its sub-queries, verdicts, audited combinations and a retriever's
ranking."""

from __future__ import annotations

import ipywidgets as widgets

from toolex.widgets import render
from toolex.widgets.data import InspectorData


class QueryInspector:
    """Pick a query, a retriever and K; every panel follows. ``widget`` is the box to display."""

    def __init__(self, data: InspectorData, retriever: str | None = None, k: int = 10,
                 query_id: str | None = None) -> None:
        self.data = data
        ids = data.query_ids()
        self.query = widgets.Dropdown(options=ids, value=query_id or (ids[0] if ids else None),
                                      description="query")
        self.query.add_class("toolex-query-select")
        self.retriever = widgets.Dropdown(options=list(data.runs), value=retriever or next(iter(data.runs)),
                                          description="retriever")
        self.k = widgets.BoundedIntText(value=k, min=1, max=100, description="K")
        self.header = widgets.HTML()
        self.header.add_class("toolex-inspector-header")
        self.subqueries = widgets.HTML()
        self.combinations = widgets.HTML()
        self.ranking = widgets.HTML()
        self.ranking.add_class("toolex-inspector-ranking")
        tabs = widgets.Tab(children=[self.ranking, self.subqueries, self.combinations])
        for i, title in enumerate(("ranked list", "sub-queries and verdicts", "combinations and audit")):
            tabs.set_title(i, title)
        self.widget = widgets.VBox([widgets.HTML(f"<small>{data.label}</small>"),
                                    widgets.HBox([self.query, self.retriever, self.k]), self.header, tabs])
        for control in (self.query, self.retriever, self.k):
            control.observe(self._changed, names="value")
        self.refresh()

    def _changed(self, _change: dict) -> None:
        self.refresh()

    def show(self, query_id: str) -> None:
        """Open a query (as the explorer does when a query is selected there)."""
        self.query.value = query_id

    def refresh(self) -> None:
        qid = self.query.value
        if qid is None:
            self.header.value = "<p>No annotated query.</p>"
            return
        self.header.value = render.query_html(self.data, qid)
        self.subqueries.value = render.subqueries_html(self.data, qid)
        self.combinations.value = render.combinations_html(self.data, qid)
        self.ranking.value = render.ranking_html(self.data, self.retriever.value, qid, int(self.k.value))

    def _ipython_display_(self) -> None:  # pragma: no cover - display hook
        from IPython.display import display

        display(self.widget)
