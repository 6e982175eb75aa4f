"""The query inspector: one query, its sub-queries, verdicts, audited combinations and a retriever's
ranking."""

from __future__ import annotations

import ipywidgets as widgets

from toolex.metrics.long import ALL
from toolex.metrics.measures import HEADLINE
from toolex.widgets import render
from toolex.widgets.data import InspectorData


class QueryInspector:
    """Pick a query (searchable by id and text, filtered by category), a retriever and K; every panel
    follows. ``widget`` is the box to display."""

    def __init__(self, data: InspectorData, retriever: str | None = None, k: int = HEADLINE.k,
                 query_id: str | None = None) -> None:
        self.data = data
        self.search = widgets.Text(placeholder="id or words of the query", description="search",
                                   continuous_update=True)
        self.search.add_class("toolex-query-search")
        self.category = widgets.Dropdown(options=render.category_options(data), value=ALL,
                                         description="category")
        self.category.add_class("toolex-inspector-category")
        self.query = widgets.Dropdown(options=self.choices(), description="query",
                                      layout=widgets.Layout(width="60%"))
        self.query.add_class("toolex-query-select")
        if query_id is not None:
            self.query.value = query_id
        self.retriever = widgets.Dropdown(options=list(data.runs), value=retriever or next(iter(data.runs)),
                                          description="retriever")
        self.k = widgets.BoundedIntText(value=k, min=1, max=100, description="K")
        self.header = widgets.HTML()
        self.header.add_class("toolex-inspector-header")
        self.subqueries = widgets.HTML()
        self.combinations = widgets.HTML()
        self.ranking = widgets.HTML()
        self.ranking.add_class("toolex-inspector-ranking")
        self.ranks = widgets.HTML()
        self.ranks.add_class("toolex-inspector-ranks")
        tabs = widgets.Tab(children=[self.ranking, self.ranks, self.subqueries, self.combinations])
        titles = ("ranked list", "ranks beyond K", "verdicts", "audit")  # tabs fit ~18 characters
        for i, title in enumerate(titles):
            tabs.set_title(i, title)
        self.widget = widgets.VBox([widgets.HTML(f"<small>{data.label}</small>"),
                                    widgets.HBox([self.search, self.category]),
                                    widgets.HBox([self.query, self.retriever, self.k]), self.header, tabs])
        for control in (self.query, self.retriever, self.k):
            control.observe(self._changed, names="value")
        for control in (self.search, self.category):
            control.observe(self._filtered, names="value")
        self.refresh()

    def choices(self) -> list[tuple[str, str]]:
        """The picker's queries: in the category filter, matching every word of the search box."""
        words = self.search.value.lower().split()
        kept = []
        for qid in self.data.query_ids():
            query = self.data.queries[qid]
            if self.category.value != ALL and query.category != self.category.value:
                continue
            haystack = f"{qid} {query.text}".lower()
            if all(w in haystack for w in words):
                kept.append((render.query_label(self.data, qid), qid))
        return kept

    def _filtered(self, _change: dict) -> None:
        current = self.query.value
        options = self.choices()
        self.query.options = options
        ids = [qid for _, qid in options]
        self.query.value = current if current in ids else (ids[0] if ids else None)
        self.refresh()

    def _changed(self, _change: dict) -> None:
        self.refresh()

    def follow(self, category: str | None = None, retriever: str | None = None, k: int | None = None) -> None:
        """Take the explorer's settings before any row is picked there: filter the picker by ``category``,
        rank with ``retriever`` (one of the inspector's) at ``k``."""
        if category is not None:
            self.category.value = category
        if retriever is not None and retriever in self.retriever.options:
            self.retriever.value = retriever
        if k is not None:
            self.k.value = max(self.k.min, min(self.k.max, k))

    def show(self, query_id: str, retriever: str | None = None, k: int | None = None) -> None:
        """Open a query (as the explorer does when a row is selected there, with the row's retriever and the
        explorer's K); clears a filter hiding it."""
        if query_id not in [qid for _, qid in self.query.options]:
            self.search.value = ""
            self.category.value = ALL
        if retriever is not None and retriever in self.retriever.options:
            self.retriever.value = retriever
        if k is not None:
            self.k.value = max(self.k.min, min(self.k.max, k))
        self.query.value = query_id
        self.refresh()

    def refresh(self) -> None:
        qid = self.query.value
        if qid is None:
            self.header.value = "<p>No query matches the search and category.</p>"
            for panel in (self.subqueries, self.combinations, self.ranking, self.ranks):
                panel.value = ""
            return
        self.header.value = render.query_html(self.data, qid)
        self.subqueries.value = render.subqueries_html(self.data, qid)
        self.combinations.value = render.combinations_html(self.data, qid)
        self.ranking.value = render.ranking_html(self.data, self.retriever.value, qid, int(self.k.value))
        self.ranks.value = render.ranks_html(self.data, qid)

    def _ipython_display_(self) -> None:  # pragma: no cover - display hook
        from IPython.display import display

        display(self.widget)
