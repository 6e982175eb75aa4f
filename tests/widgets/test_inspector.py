"""The inspector: setting a query, a retriever or K changes what each panel shows."""

from __future__ import annotations

from toolex.data.records import Tool
from toolex.review.items import tool_doc
from toolex.widgets import QueryInspector
from toolex.widgets.data import EQUIVALENT, GROUND_TRUTH
from toolex.widgets.render import COLOURS, documentation_html, tool_html


def test_first_query_is_shown(data):
    inspector = QueryInspector(data)
    assert inspector.query.value == "q1"
    assert "find weather then book a cab" in inspector.header.value
    assert "retrieve tools" in inspector.header.value  # the instruction
    header = inspector.header.value  # C*: ids, names, one-line descriptions, documentation on demand
    assert "<code>a</code> <b>name of a</b> — a" in header and "<code>c</code> <b>name of c</b>" in header
    assert header.count("<details class='toolex-tool-doc'>") == 2


def test_ranked_list_marks_ground_truth_and_equivalents(data):
    inspector = QueryInspector(data, retriever="bm25")
    marks = [(r.tool_id, r.mark) for r in data.ranking("bm25", "q1")]
    assert marks == [("b", EQUIVALENT), ("c", GROUND_TRUTH), ("f", "")]
    html = inspector.ranking.value
    assert COLOURS[EQUIVALENT] in html and COLOURS[GROUND_TRUTH] in html
    # one-to-one misses a (only c of C* retrieved); ToolEq finds {b, c} complete
    scores = data.scores("bm25", "q1")
    assert scores["one_to_one_comp"] == 0.0 and scores["tooleq_comp"] == 1.0
    assert "<td style='padding:2px 6px'>100.0</td>" in html  # in %, as the explorer and every table


def test_changing_retriever_and_k_updates_the_ranking(data):
    inspector = QueryInspector(data, retriever="bm25")
    before = inspector.ranking.value
    inspector.retriever.value = "dense:minilm"
    assert inspector.ranking.value != before and "dense:minilm — top 10" in inspector.ranking.value
    inspector.retriever.value = "bm25"
    inspector.k.value = 1
    # scores header + 3 metrics, list header + 1 row
    assert inspector.ranking.value.count("<tr") == 1 + 1 + 3 + 1


def test_subqueries_verdicts_and_combinations(data):
    inspector = QueryInspector(data)
    subs = inspector.subqueries.value
    assert "get weather: city" in subs and "book cab: airport" in subs
    assert "same weather API" in subs and "a different task" in subs and "judge failed" in subs
    combos = inspector.combinations.value
    assert "3 combinations audited" in combos and "2 valid" in combos
    assert "rejected" in combos and "one tool would serve two operations" in combos


def test_show_switches_query_and_reports_a_failed_decomposition(data):
    inspector = QueryInspector(data)
    inspector.show("q2")
    assert "translate code" in inspector.header.value
    assert "Decomposition failed" in inspector.subqueries.value and "bad JSON" in inspector.subqueries.value


def test_search_and_category_filter_the_picker(data):
    inspector = QueryInspector(data)
    assert [qid for _, qid in inspector.query.options] == ["q1", "q2"]
    assert inspector.query.options[0][0] == "q1 · find weather then book a cab"
    inspector.search.value = "translate"
    assert [qid for _, qid in inspector.query.options] == ["q2"] and inspector.query.value == "q2"
    assert "translate code" in inspector.header.value
    inspector.search.value = ""
    inspector.category.value = "web"
    assert [qid for _, qid in inspector.query.options] == ["q1"]
    inspector.search.value = "no such words"
    assert inspector.query.value is None and "No query matches" in inspector.header.value
    inspector.show("q2")  # opening a query hidden by the filter clears the filter
    assert inspector.query.value == "q2" and inspector.category.value == "all"


def test_explorer_category_drives_the_inspector_filter(data):
    from toolex.widgets import DeltaExplorer

    inspector = QueryInspector(data)
    explorer = DeltaExplorer(data, inspector, plots=False)
    explorer.category.value = "code"
    assert [qid for _, qid in inspector.query.options] == ["q2"]


def test_ranks_panel_places_reference_and_equivalents_in_every_run(data):
    ranks = {e.tool_id: e for e in data.ranks("q1")}
    assert list(ranks) == ["a", "c", "b"]
    assert ranks["a"].ranks == {"bm25": None, "dense:minilm": 1}
    assert ranks["b"].role == "equivalent of sub-query 1"
    assert ranks["b"].ranks == {"bm25": 1, "dense:minilm": None}
    html = QueryInspector(data).ranks.value
    assert "<th style='text-align:left;padding:2px 6px'>dense:minilm</th>" in html
    assert html.count("<tr") == 1 + 3 and "not retrieved" in html


def test_tool_documentation_is_a_parameter_table_as_in_the_review_app(data):
    schema = {"description": "Current weather of a city", "parameters": {
        "type": "object", "required": ["city"],
        "properties": {"city": {"type": "string", "description": "city name"},
                       "units": {"type": "string", "description": "metric or imperial"}}}}
    data.tools["w"] = Tool("w", "weather", schema)
    html = tool_html(data, "w")
    table = html.split("<details><summary>as the benchmark stores it")[0]
    assert "class='toolex-review-params'" in table
    assert "<code>city</code>" in table and "<code>units</code>" in table
    assert "Current weather of a city" in table and "yes" in table  # the required parameter is marked
    assert "font-family:monospace" in html  # the stored form stays one click away, in a fixed-width font
    assert documentation_html("w", tool_doc(data.tools["w"])) in table  # the review app's very rendering
