"""The per-category delta explorer: one-to-one vs ToolEq bars, the per-query scatter, a query list that opens
the selected query in the inspector."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import pandas as pd

from toolex.metrics import NAMES, ONE_TO_ONE, TOOLEQ, Measure, long
from toolex.metrics.long import ALL
from toolex.metrics.measures import HEADLINE, KIND_LABEL
from toolex.report.units import readable
from toolex.style import retriever_colour
from toolex.widgets.data import InspectorData
from toolex.widgets.inspector import QueryInspector
from toolex.widgets.render import ALL_LABEL, category_options, query_label

KS = (1, 3, 5, 10, 20, 50, 100)
NO_RETRIEVER = "<p class='toolex-explorer-empty'><b>Select at least one retriever</b> to see its scores.</p>"


def scores(data: InspectorData, retrievers: Sequence[str], metric: str, k: int,
           category: str = ALL) -> pd.DataFrame:
    """The retrievers' long-form scores (:mod:`toolex.metrics.long`) for one measure at ``k``, restricted to
    ``category`` unless it is ``all``."""
    key = Measure(metric, k).key
    frame = long.concat([data.evaluation(name, k).long(name) for name in retrievers])
    keep = frame["measure"] == key
    if category != ALL:
        keep &= frame["category"] == category
    return frame[keep]


def category_summary(data: InspectorData, retrievers: Sequence[str], metric: str, k: int,
                     category: str = ALL) -> pd.DataFrame:
    """Per retriever: mean one-to-one, ToolEq and Δ (percent) over the category's queries."""
    table = long.means(scores(data, retrievers, metric, k, category), by=["system"], categories=False,
                       pooled=category, scale=100.0)
    return table.rename(columns={"system": "retriever"})[["retriever", "queries", ONE_TO_ONE, TOOLEQ,
                                                          "delta"]]


def query_points(data: InspectorData, retrievers: Sequence[str], metric: str, k: int,
                 category: str = ALL) -> pd.DataFrame:
    """Per retriever and query: the two scores and their gap, largest gap first."""
    pairs = long.paired(scores(data, retrievers, metric, k, category))
    points = pairs.rename(columns={"system": "retriever"})[["retriever", "query_id", ONE_TO_ONE, TOOLEQ]]
    points = points.assign(gap=points[TOOLEQ] - points[ONE_TO_ONE])
    return points.sort_values(["gap", "query_id"], ascending=[False, True],
                              kind="stable").reset_index(drop=True)


#: The explorer's score columns with their unit: scores in percent, their difference in points.
SCORE_HEADERS = {ONE_TO_ONE: "one-to-one (%)", TOOLEQ: "ToolEq (%)", "delta": "Δ (points)"}


def score_table(frame: pd.DataFrame) -> str:
    """One table style for ours and the paper's rows: readable headers, each score column with its unit,
    two decimals."""
    shown = readable(frame.rename(columns=SCORE_HEADERS))
    return shown.to_html(index=False, float_format=lambda v: f"{v:.2f}")


def paper_summary(paper: pd.DataFrame, metric: str, k: int, category: str = ALL) -> pd.DataFrame:
    """The paper's Table 2 rows (query level) for the explorer's selection: per model, Tool-DE (one-to-one),
    ToolEq and Δ; ``all`` shows each model's mean over the paper's categories (its ``Avg``)."""
    rows = paper[(paper["level"] == "query") & (paper["metric"] == Measure(metric, k).key)]
    if category == ALL:
        rows = rows.groupby("model", sort=False)[["tool_de", TOOLEQ]].mean().reset_index()
    else:
        rows = rows[rows["category"].str.lower() == category.lower()]
    table = rows.rename(columns={"tool_de": ONE_TO_ONE})[["model", ONE_TO_ONE, TOOLEQ]].reset_index(drop=True)
    return table.assign(delta=table[TOOLEQ] - table[ONE_TO_ONE])


def query_options(data: InspectorData, points: pd.DataFrame, positive_only: bool = False,
                  ) -> list[tuple[str, tuple[str, str]]]:
    """The query list: one row per query, largest gap first, its label giving every retriever's one-to-one →
    ToolEq (in %; the row's retriever, the one with the largest gap, first); the row opens that retriever.
    ``positive_only``: only queries where some retriever gains."""
    scores: dict[str, list[str]] = {}
    for r in points.itertuples():
        scores.setdefault(str(r.query_id), []).append(
            f"{r.retriever}: {100 * r.one_to_one:.1f} → {100 * r.tooleq:.1f}")
    first = points.drop_duplicates("query_id")
    if positive_only:
        first = first[first["gap"] > 0]
    return [(query_label(data, r.query_id, "; ".join(scores[str(r.query_id)]) + " %"),
             (str(r.query_id), str(r.retriever))) for r in first.itertuples()]


class DeltaExplorer:
    """Pick retrievers, metric, K and category; selecting a query in the list opens it in ``inspector``."""

    def __init__(self, data: InspectorData, inspector: QueryInspector | None = None, k: int = HEADLINE.k,
                 plots: bool = True, paper: pd.DataFrame | None = None) -> None:
        self.data, self.inspector, self.plots, self.paper = data, inspector, plots, paper
        names = list(data.runs)
        self.retrievers = widgets.SelectMultiple(options=names, value=tuple(names), description="retrievers")
        self.metric = widgets.Dropdown(options=list(NAMES), value=HEADLINE.name, description="metric")
        self.k = widgets.Dropdown(options=list(KS), value=k if k in KS else HEADLINE.k, description="K")
        self.k.add_class("toolex-explorer-k")
        self.category = widgets.Dropdown(options=category_options(data), value=ALL, description="category")
        self.positive = widgets.Checkbox(value=False, description="gap > 0 only", indent=False)
        self.positive.add_class("toolex-explorer-positive")
        self.queries = widgets.Select(options=[], rows=8, description="queries",
                                      layout=widgets.Layout(width="95%"))
        self.queries.add_class("toolex-explorer-queries")
        self.table = widgets.HTML()
        self.table.add_class("toolex-explorer-table")
        self.paper_table = widgets.HTML()
        self.paper_table.add_class("toolex-explorer-paper")
        self.bars = widgets.Output()
        self.scatter = widgets.Output()
        self.summary = pd.DataFrame()
        self.points = pd.DataFrame()
        controls = widgets.HBox([self.retrievers, widgets.VBox([self.metric, self.k, self.category,
                                                                self.positive])])
        self.widget = widgets.VBox([widgets.HTML(f"<small>{data.label}</small>"), controls,
                                    widgets.HBox([self.table, self.paper_table]),
                                    widgets.HBox([self.bars, self.scatter]),
                                    widgets.HTML("<b>Queries by ToolEq − one-to-one gap</b> (select one to "
                                                 "inspect it)"),
                                    self.queries])
        for control in (self.retrievers, self.metric, self.k, self.category, self.positive):
            control.observe(self._changed, names="value")
        self.queries.observe(self._selected, names="value")
        self._lead()
        self.refresh()

    def _changed(self, change: dict) -> None:
        self._lead(change.get("owner") is self.category)
        self.refresh()

    def _lead(self, category: bool = False) -> None:
        """The inspector takes the explorer's first selected retriever and K (and, with ``category``, its
        category filter), so that both show the same setting before any row is picked."""
        if self.inspector is None:
            return
        chosen = list(self.retrievers.value)
        self.inspector.follow(self.category.value if category else None, chosen[0] if chosen else None,
                              int(self.k.value))

    def _selected(self, change: dict) -> None:
        """Open the selected row's query in the inspector with the row's retriever and the explorer's K;
        the selection is then cleared, so picking the same row again opens it again."""
        if not change["new"] or self.inspector is None:
            return
        query_id, retriever = change["new"]
        self.inspector.show(query_id, retriever=retriever, k=int(self.k.value))
        self.queries.unobserve(self._selected, names="value")
        self.queries.value = None
        self.queries.observe(self._selected, names="value")

    def refresh(self) -> None:
        names, metric, k, category = list(self.retrievers.value), self.metric.value, int(self.k.value), \
            self.category.value
        if not names:  # emptying the list selects nothing: no query opens
            self.summary, self.points = pd.DataFrame(), pd.DataFrame()
            self.table.value = NO_RETRIEVER
            self.queries.options = []
            for out in (self.bars, self.scatter):
                out.clear_output()
            return
        self.summary = category_summary(self.data, names, metric, k, category)
        self.points = query_points(self.data, names, metric, k, category)
        self.table.value = f"<b>ours</b> <small>(query-weighted)</small>{score_table(self.summary)}"
        self.paper_table.value = self._paper_html(metric, k, category)
        options = query_options(self.data, self.points, self.positive.value)
        self.queries.unobserve(self._selected, names="value")
        self.queries.options = options
        self.queries.value = None
        self.queries.observe(self._selected, names="value")
        if self.plots:
            self._draw(metric, k, category)

    def _paper_html(self, metric: str, k: int, category: str) -> str:
        if self.paper is None:
            return ""
        rows = paper_summary(self.paper, metric, k, category)
        if rows.empty:
            return (f"<p><small>The paper reports no {Measure(metric, k).key} for this category "
                    f"(its Table 2 has K = 10 and the categories Code, Web, Customized).</small></p>")
        return ("<b>reported by the paper</b> <small>(its retrievers, data and LLM judge)</small>"
                + score_table(rows))

    def _draw(self, metric: str, k: int, category: str) -> None:
        import matplotlib.pyplot as plt

        for out in (self.bars, self.scatter):
            out.clear_output(wait=True)
        key = Measure(metric, k).key
        where = ALL_LABEL if category == ALL else category
        with self.bars:
            fig, ax = plt.subplots(figsize=(4.2, 3))
            x = range(len(self.summary))
            colours = [retriever_colour(r) for r in self.summary.retriever]
            low = ax.bar([i - 0.2 for i in x], self.summary.one_to_one, 0.4, color=colours, alpha=0.4,
                         label="one-to-one (light)")
            high = ax.bar([i + 0.2 for i in x], self.summary.tooleq, 0.4, color=colours, label="ToolEq")
            for bars in (low, high):
                ax.bar_label(bars, fmt="%.1f", fontsize=6, padding=1)
            ax.set_xticks(list(x), list(self.summary.retriever), fontsize=8)
            ax.set_ylabel(f"{key} (%)")
            ax.set_ylim(0, 115)
            ax.set_title(f"category: {where}", fontsize=9)
            ax.legend(fontsize=7, loc="upper right")
            fig.tight_layout()
            plt.show()
            plt.close(fig)  # shown: a notebook left open does not keep every drawn figure
        with self.scatter:
            fig, ax = plt.subplots(figsize=(3.4, 3))
            for name, group in self.points.groupby("retriever", sort=False):
                ax.scatter(100 * group.one_to_one, 100 * group.tooleq, s=10, alpha=0.5, label=name,
                           color=retriever_colour(str(name)))
            ax.plot([0, 100], [0, 100], color="0.5", lw=0.7)
            ax.set_xlabel(f"{KIND_LABEL[ONE_TO_ONE]} {key} (%)")
            ax.set_ylabel(f"{KIND_LABEL[TOOLEQ]} {key} (%)")
            ax.legend(fontsize=7)
            fig.tight_layout()
            plt.show()
            plt.close(fig)  # shown: a notebook left open does not keep every drawn figure

    def _ipython_display_(self) -> None:  # pragma: no cover - display hook
        from IPython.display import display

        display(self.widget)
