"""Schema-Guided Dialogue (SGD) as a tool-retrieval benchmark with a human one-to-many ground truth.

SGD (Rastogi et al., AAAI 2020; CC BY-SA 4.0, google-research-datasets/dstc8-schema-guided-dialogue) was
designed with several services per domain that offer the same intents, so that a dialogue system can switch
between them. Read as tools:

* **Tools**: each (service, intent) is a tool ``<Service>.<Intent>`` (88 over the 45 services of the three
schema
  files). Its documentation is written from the schema: the intent's description, the service's description,
  the required and optional parameters (slots, with their descriptions) and the returned fields.
  ``name`` is the intent name and ``platform`` the service.
* **Queries**: a user utterance that opens an intent (the first turn of a dialogue whose frame for a service
  carries that active intent). C* is the tool the dialogue used. At most :data:`PER_INTENT` utterances per
  tool and part are kept, drawn with a fixed seed, so every tool weighs about the same.
* **Ground truth** (:func:`acceptable`): the tools of the same domain with the same intent are substitutable,
  which is how the dataset designers built the schemas, with the exceptions the service descriptions call for
  (:data:`NOT_SUBSTITUTABLE`, :data:`DIFFERENT_PURPOSE`, :data:`RENAMED`; the data README lists them as the
  known ones). :data:`GOLD_VERSION` names this mapping in every validation report. Near-synonym intents that
  are not substitutable (one-way vs round-trip flights, renting vs playing a movie, booking a house vs a hotel
  room, a dentist vs a hair stylist, cinema listings vs a film database) are the hard negatives.
* **Parts**: by domain, so that thresholds chosen on one part are reported on domains they never saw. A domain
  belongs to the calibration part when the first byte of ``sha256(domain)`` is even, else to the report part
  (calibration: Buses, Flights, Homes, Messaging, Music, Payment, Services, Trains, Travel, Weather; report:
  Alarm, Banks, Calendar, Events, Hotels, Media, Movies, RentalCars, Restaurants, RideSharing). The tool pool
  of either part is all 88 tools.

Benchmark names: ``sgd/calibration``, ``sgd/report``. Derived data (queries, gold files) are CC BY-SA 4.0 as
well.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.data.checksum import files_checksum
from toolex.data.readers import read_json
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError

PARTS = ("calibration", "report")
SPLITS = ("train", "dev", "test")
DIALOGUES = "dialogues_user_turns.jsonl.gz"
#: Utterances kept per tool and part (seeded draw).
PER_INTENT = 10
SEED = 0
#: Domains whose services, by their own descriptions, serve different kinds of provider: their same-named
#: intents
#: are not substitutable. (The only exception to the same-domain, same-intent rule.)
NOT_SUBSTITUTABLE: Mapping[str, str] = {
    "Services": "hair stylist, dentist, doctor and therapist: a provider of one kind does not serve another",
}
#: Same-named intents that serve another purpose, by their service's description: (service, intent) -> why.
#: Each stands alone (its class is the service itself).
DIFFERENT_PURPOSE: Mapping[tuple[str, str], str] = {
    ("Movies_1", "FindMovies"): "films showing in cinemas at a location (show times and tickets)",
    ("Movies_2", "FindMovies"): "a movie database to discover films by genre, director and actors",
    ("Movies_3", "FindMovies"): "a review-aggregation site (ratings of films and television)",
    ("Media_2", "FindMovies"): "films to rent; Media_1 and Media_3 find films to play on demand",
}
#: Version of the gold mapping (bumped when an exception is added or removed).
GOLD_VERSION = ("2: same domain and intent; exceptions Services, Movies FindMovies, Media_2 FindMovies; "
                "Music_1 renamed")
#: Intents that do the same under another name: (service, intent) -> the name of its equivalence class.
RENAMED: Mapping[tuple[str, str], str] = {
    ("Music_1", "LookupSong"): "LookupMusic",
    ("Music_1", "PlaySong"): "PlayMedia",
}
ATTRIBUTION = ("Schema-Guided Dialogue (Rastogi et al. 2020), CC BY-SA 4.0; queries and gold derived from "
               "its dialogues and schemas")


def domain_of(service: str) -> str:
    return service.rsplit("_", 1)[0]


def part_of(domain: str) -> str:
    """``calibration`` or ``report``: the parity of the first byte of sha256(domain)."""
    return PARTS[keys.text_digest(domain)[0] % 2]


def tool_id(service: str, intent: str) -> str:
    return f"{service}.{intent}"


def equivalence_class(service: str, intent: str) -> tuple[str, str]:
    """The substitutability class of a tool: (domain, intent), per service where the domain says so."""
    domain = domain_of(service)
    if domain in NOT_SUBSTITUTABLE or (service, intent) in DIFFERENT_PURPOSE:
        return (service, intent)
    return (domain, RENAMED.get((service, intent), intent))


def load_schemas(folder: Path) -> dict[str, dict[str, Any]]:
    """Services by name over the three schema files (a service listed in several splits is the same)."""
    services: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        path = folder / f"schema_{split}.json"
        records = read_json(path, "SGD schema file")
        for i, service in enumerate(records):
            if not isinstance(service, dict) or not {"service_name", "intents", "slots"} <= service.keys():
                raise InputError(path, "a service needs service_name, intents and slots", record=i)
            services.setdefault(service["service_name"], service)
    return services


def tool_documentation(service: Mapping[str, Any], intent: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's documentation, ToolRet-style, from the schema."""
    slots = {s["name"]: s for s in service["slots"]}

    def param(name: str) -> dict[str, Any]:
        slot = slots.get(name, {})
        out = {"name": name, "description": slot.get("description", "")}
        if slot.get("is_categorical") and slot.get("possible_values"):
            out["enum"] = list(slot["possible_values"])
        return out

    return {
        "name": intent["name"],
        "description": intent.get("description", ""),
        "service": service["service_name"],
        "service_description": service.get("description", ""),
        "parameters": {
            "required": [param(n) for n in intent.get("required_slots", [])],
            "optional": [param(n) for n in intent.get("optional_slots", {})],
        },
        "returns": list(intent.get("result_slots", [])),
        "transactional": bool(intent.get("is_transactional", False)),
    }


def tools_of(services: Mapping[str, Mapping[str, Any]]) -> dict[str, Tool]:
    tools = {}
    for name in sorted(services):
        for intent in services[name]["intents"]:
            tid = tool_id(name, intent["name"])
            tools[tid] = Tool(tid, intent["name"], tool_documentation(services[name], intent), subset="sgd",
                              category=domain_of(name), platform=name)
    return tools


@dataclass(frozen=True)
class Opening:
    """A user turn that opens an intent."""

    split: str
    dialogue_id: str
    turn: int
    service: str
    intent: str
    utterance: str


def openings(path: Path) -> Iterator[Opening]:
    """Every intent-opening user turn of the dialogues file: a frame whose active intent differs from the one
    the same service had in the dialogue's previous turn (so an intent the user comes back to opens again)."""
    if not path.exists():
        raise InputError(path, "SGD dialogues file not found")
    lineno = 0
    try:
        with gzip.open(path, "rb") as handle:
            for lineno, raw in enumerate(handle, 1):
                try:
                    line = raw.decode("utf-8")
                    if not line.strip():
                        continue
                    dialogue = json.loads(line)
                    active: dict[str, str] = {}
                    for t, turn in enumerate(dialogue["turns"]):
                        for frame in turn["frames"]:
                            intent, service = frame["active_intent"], frame["service"]
                            if intent != "NONE" and active.get(service) != intent:
                                yield Opening(dialogue["split"], dialogue["dialogue_id"], t, service, intent,
                                              str(turn["utterance"]).strip())
                            active[service] = intent
                except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise InputError(path, f"malformed dialogue: {exc!r}", record=f"line {lineno}") from exc
    except (OSError, EOFError) as exc:
        raise InputError(path, f"not a readable gzip file ({exc})", record=f"line {lineno + 1}") from exc


def select(found: Sequence[Opening], part: str, per_intent: int = PER_INTENT,
           seed: int = SEED) -> list[Opening]:
    """At most ``per_intent`` openings per tool of the part's domains, drawn with ``seed``, in a stable
    order."""
    by_tool: dict[str, list[Opening]] = {}
    for o in found:
        if part_of(domain_of(o.service)) == part and o.utterance:
            by_tool.setdefault(tool_id(o.service, o.intent), []).append(o)
    kept = []
    for tid in sorted(by_tool):
        items = sorted(by_tool[tid], key=lambda o: (o.split, o.dialogue_id, o.turn))
        rng = random.Random(f"{seed}:{tid}")
        kept.extend(rng.sample(items, min(per_intent, len(items))))
    return sorted(kept, key=lambda o: (o.split, o.dialogue_id, o.turn, o.service))


def query_id(opening: Opening) -> str:
    """``sgd_<split>_<dialogue>_<turn>``: dialogue ids repeat across SGD's splits."""
    return f"sgd_{opening.split}_{opening.dialogue_id}_{opening.turn}"


def load_sgd(folder: str | Path, part: str, per_intent: int = PER_INTENT, seed: int = SEED) -> Benchmark:
    """The ``part`` (calibration or report) of SGD as a benchmark over all 88 tools."""
    if part not in PARTS:
        raise InputError(None, f"unknown SGD part {part!r}; choose one of {', '.join(PARTS)}")
    folder = Path(folder)
    services = load_schemas(folder)
    tools = tools_of(services)
    queries = []
    for o in select(list(openings(folder / DIALOGUES)), part, per_intent, seed):
        tid = tool_id(o.service, o.intent)
        if tid not in tools:
            raise InputError(folder / DIALOGUES, f"intent {tid} is in no schema", record=o.dialogue_id)
        queries.append(Query(query_id(o), o.utterance, (tid,), "", domain_of(o.service), f"sgd/{part}"))
    seen: set[str] = set()
    for q in queries:
        if q.id in seen:
            raise InputError(folder / DIALOGUES, "two intent openings share one query id", record=q.id)
        seen.add(q.id)
    sources = [folder / f"schema_{s}.json" for s in SPLITS] + [folder / DIALOGUES]
    # the parts share their source files: the checksum covers the part and the draw as well
    checksum = keys.checksum(f"{files_checksum(sources)}:{part}:{per_intent}:{seed}")
    return Benchmark(f"sgd/{part}", queries, tools, checksum, tuple(str(s) for s in sources),
                     {"per_intent": per_intent, "seed": seed, "licence": "CC BY-SA 4.0",
                      "attribution": ATTRIBUTION})


def equivalents(tools: Mapping[str, Tool]) -> dict[str, tuple[str, ...]]:
    """Every tool's substitutable tools, itself included, sorted."""
    classes: dict[tuple[str, str], list[str]] = {}
    for tid, tool in tools.items():
        classes.setdefault(equivalence_class(tool.platform or "", tool.name), []).append(tid)
    return {tid: tuple(sorted(classes[equivalence_class(t.platform or "", t.name)]))
            for tid, t in tools.items()}


def acceptable(benchmark: Benchmark) -> dict[str, list[list[str]]]:
    """The gold combinations of every query: C* first, then every other product of substitutable tools."""
    import itertools

    same = equivalents(benchmark.tools)
    out = {}
    for q in benchmark.queries:
        combos = [list(q.reference)]
        for combo in itertools.product(*(same[t] for t in q.reference)):
            if set(combo) != set(q.reference) and len(set(combo)) == len(combo):
                combos.append(list(combo))
        out[q.id] = combos
    return out
