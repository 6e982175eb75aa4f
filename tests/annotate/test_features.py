"""The offline judge's features: word tokens, parameter names over the documentation layouts, the matrix."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

from toolex.annotate.judges.features import (
    FEATURES,
    feature_matrix,
    jaccard,
    name_and_description,
    parameter_names,
    standing,
    tool_description,
    words,
)
from toolex.annotate.judges.operations import operation_match, operation_of
from toolex.data.records import Tool


def _tool(documentation, name: str = "t", tool_id: str | None = None, platform: str | None = None) -> Tool:
    return Tool(tool_id or name, name, documentation, platform=platform)


@pytest.mark.parametrize(("name", "expected"), [
    ("SearchOnewayFlight", {"search", "oneway", "flight"}),
    ("getHTTPResponse2", {"get", "http", "response2"}),
    ("get_user_by_id", {"get", "user", "by", "id"}),
    ("list-all-repos", {"list", "all", "repos"}),
    ("Find a Bus", {"find", "bus"}),  # one-letter words are dropped
    ("", set()),
])
def test_words(name, expected):
    assert words(name) == expected


def test_tool_description_and_name_text():
    tool = _tool({"api_description": '  "Weather now"  ', "description": ""}, "GetWeatherNow")
    assert tool_description(tool) == "Weather now"
    assert name_and_description(tool) == "Get Weather Now: Weather now"
    text = _tool("plain documentation", "snake_name")
    assert tool_description(text) == "plain documentation"
    assert name_and_description(text) == "snake name: plain documentation"


LAYOUTS = {
    "list of dicts": {"parameters": [{"name": "City", "in": "query"}, {"name": "units", "required": False}]},
    "list of names": {"parameters": ["city", {"name": "units", "required": False}]},
    "JSON Schema": {"parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                                    "units": {"type": "string"}},
                                   "required": ["city", "not_a_property"]}},
    "required/optional lists": {"parameters": {"required": [{"name": "city", "description": "x"}],
                                               "optional": ["units"]}},
    "ToolBench": {"required_parameters": [{"name": "city", "type": "STRING"}],
                  "optional_parameters": [{"name": "units", "type": "STRING", "default": "c"}]},
    "name to spec (APIGen)": {"parameters": {"city": {"type": "str", "default": "Paris"},
                                             "units": {"type": "str, optional", "default": "c"}}},
    "arguments key": {"arguments": {"required": ["city"], "optional": ["units"]}},
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_parameter_names_per_layout(layout):
    tool = _tool(LAYOUTS[layout])
    assert parameter_names(tool) == {"city", "units"}
    assert parameter_names(tool, required_only=True) == {"city"}


def test_parameter_names_edge_cases():
    # an APIGen parameter that happens to be named "properties" is a parameter, not a JSON Schema
    tool = _tool({"parameters": {"ids": {"type": "str"}, "properties": {"type": "str, optional"}}})
    assert parameter_names(tool) == {"ids", "properties"}
    assert parameter_names(tool, True) == {"ids"}
    assert parameter_names(_tool({"parameters": {"type": "object", "properties": None}})) == set()
    tool = _tool({"api_arguments": {"pretrained_model_name": "bert"}})
    assert parameter_names(tool) == {"pretrained_model_name"}
    assert parameter_names(_tool({"api_arguments": ["inputs"]})) == {"inputs"}
    assert parameter_names(_tool({"api_arguments": "input_ids, attention_mask"})) == set()
    assert parameter_names(_tool({"parameters": None, "arguments": ["x"]})) == {"x"}
    assert parameter_names(_tool("required_params: city")) == set()  # text documentation: none
    assert parameter_names(_tool({"parameters": "(image: str)"})) == set()
    # ToolBench lists and a parameters block are merged
    both = _tool({"required_parameters": ["a"], "parameters": {"required": ["b"], "optional": ["c"]}})
    assert parameter_names(both) == {"a", "b", "c"} and parameter_names(both, True) == {"a", "b"}


def test_sgd_documentation_layout():
    from toolex.data.sgd import tool_documentation

    service = {"service_name": "Buses_1", "slots": [{"name": "from_location"}, {"name": "fare_type"}]}
    intent = {"name": "FindBus", "required_slots": ["from_location"], "optional_slots": {"fare_type": "x"}}
    tool = _tool(tool_documentation(service, intent), "FindBus")
    assert parameter_names(tool) == {"from_location", "fare_type"}
    assert parameter_names(tool, True) == {"from_location"}


def test_jaccard():
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert jaccard(set(), set()) == 0.0


def _vector(text: str, kind: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(f"{kind}:{text}".encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).normal(size=8)
    return v / np.linalg.norm(v)


class FakeEncoder:
    """Deterministic unit vectors from a hash of the text; documents and queries differ, as in a real
    encoder."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(("documents", list(texts)))
        return np.array([_vector(t, "doc") for t in texts]).reshape(len(texts), 8)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(("queries", list(texts)))
        return np.array([_vector(t, "query") for t in texts]).reshape(len(texts), 8)


def test_feature_matrix_columns_by_hand():
    find_bus = _tool({"description": "Find a bus",
                      "parameters": {"required": ["from", "to"], "optional": ["fare"]}},
                     "FindBus", "Buses_1.FindBus", "Buses_1")
    find_bus2 = _tool({"description": "Search buses", "parameters": {"required": ["origin", "to"]}},
                      "FindBus", "Buses_2.FindBus", "Buses_2")
    buy = _tool({"description": "Buy a bus ticket", "parameters": {"required": ["from", "to", "travelers"]}},
                "BuyBusTicket", "Buses_1.BuyBusTicket", "Buses_1")
    candidates = [find_bus2, buy, find_bus2]
    references = [find_bus, find_bus, buy]
    subqueries = ["bus to Fresno", "bus to Fresno", "tickets please"]
    encoder = FakeEncoder()
    rows = feature_matrix(encoder, candidates, references, subqueries)
    assert rows.shape == (3, len(FEATURES)) == (3, 12)
    # every tool and every distinct sub-query encoded once
    assert encoder.calls[0] == ("documents", [name_and_description(t) for t in (find_bus2, buy, find_bus)])
    assert encoder.calls[1] == ("documents", [t.text for t in (find_bus2, buy, find_bus)])
    assert encoder.calls[2] == ("queries", ["bus to Fresno", "tickets please"])
    for i, (c, r, s) in enumerate(zip(candidates, references, subqueries)):
        col = dict(zip(FEATURES, rows[i]))
        described = _vector(name_and_description(c), "doc") @ _vector(name_and_description(r), "doc")
        assert col["description_cosine"] == pytest.approx(described)
        assert col["documentation_cosine"] == pytest.approx(_vector(c.text, "doc") @ _vector(r.text, "doc"))
        fit = _vector(c.text, "doc") @ _vector(s, "query") - _vector(r.text, "doc") @ _vector(s, "query")
        assert col["subquery_fit"] == pytest.approx(fit)
    # {find, bus} vs {buy, bus, ticket}: one shared word of four
    assert rows[:, FEATURES.index("name_overlap")] == pytest.approx([1.0, 1 / 4, 1 / 4])
    assert rows[:, FEATURES.index("parameter_overlap")] == pytest.approx([1 / 4, 2 / 4, 1 / 4])
    assert rows[:, FEATURES.index("required_overlap")] == pytest.approx([1 / 3, 2 / 3, 1 / 4])
    assert rows[:, FEATURES.index("same_platform")].tolist() == [0.0, 1.0, 0.0]


def test_feature_matrix_edge_cases():
    encoder = FakeEncoder()
    assert feature_matrix(encoder, [], [], []).shape == (0, len(FEATURES)) and not encoder.calls
    a = _tool({"description": "a"}, "Alpha", "a")
    b = _tool({"description": "b"}, "Beta", "b", platform="  ")
    row = feature_matrix(encoder, [a], [b], ["q"])[0]
    assert row[FEATURES.index("same_platform")] == 0.0  # no platform on either side is not the same platform
    assert row[FEATURES.index("parameter_overlap")] == row[FEATURES.index("required_overlap")] == 0.0
    same = feature_matrix(encoder, [a], [a], ["q"])[0]
    assert same[FEATURES.index("description_cosine")] == pytest.approx(1.0)
    assert same[FEATURES.index("subquery_fit")] == pytest.approx(0.0)


def test_standing_is_relative_to_the_candidate_list_and_blind_to_the_scale():
    values = np.array([0.9, 0.8, 0.7, 0.6, 0.3, 0.2, 0.1, 0.0])
    lists = ["a"] * 4 + ["b"] * 4
    z, gap = standing(values, lists)
    # the same shape of list on another scale stands the same
    assert z[:4] == pytest.approx(z[4:]) and gap[:4] == pytest.approx(gap[4:])
    assert gap[0] == 0.0 and gap[3] == pytest.approx(-0.3)
    assert z[0] == pytest.approx((0.9 - 0.75) / np.std([0.9, 0.8, 0.7, 0.6]))
    # a list too short to standardise stands at 0; a flat list does not divide by zero
    assert standing(np.array([0.5, 0.4]), ["c", "c"])[0].tolist() == [0.0, 0.0]
    assert standing(np.full(4, 0.5), ["d"] * 4)[0].tolist() == [0.0] * 4


def test_relative_columns_follow_the_lists_and_ranks_given():
    tools = [_tool({"description": f"tool {i}"}, f"Tool{i}", f"t{i}") for i in range(5)]
    reference = _tool({"description": "reference"}, "Ref", "r")
    rows = feature_matrix(FakeEncoder(), tools, [reference] * 5, ["q"] * 5, lists=["x"] * 5,
                          ranks=[1, 2, 4, 0, 5])
    assert rows[:, FEATURES.index("retrieval_standing")] == pytest.approx([1, 1 / 2, 1 / 4, 0, 1 / 5])
    z = rows[:, FEATURES.index("documentation_standing")]
    assert z.mean() == pytest.approx(0.0, abs=1e-9)
    assert max(rows[:, FEATURES.index("documentation_gap")]) == 0.0


@pytest.mark.parametrize(("candidate", "reference", "match"), [
    ("QueryHealthData", "RecordHealthData", -1.0),  # reading is not recording
    ("add_time", "subtract_time", -1.0),
    ("FindBus", "SearchBuses", 1.0),
    ("delete_file", "remove_document", 1.0),
    ("Weather", "Forecast", 0.0),  # no verb in the name or the description's first words
])
def test_operation_match_reads_the_verbs(candidate, reference, match):
    a = _tool({"description": "A tool."}, candidate, candidate)
    b = _tool({"description": "A tool."}, reference, reference)
    assert operation_match(a, b) == match


def test_operation_falls_back_to_the_description_first_words():
    a = _tool({"description": "Retrieves the weather for a city."}, "Weather", "w")
    assert operation_of(a) == "read"
    late = _tool({"description": "A service for cities and people which can then delete records."}, "X", "x")
    assert operation_of(late) is None
