"""SGD-X: the SGD APIs documented by other people, and two-tool SGD queries, as benchmarks with a human
one-to-many ground truth.

SGD-X (Lee et al., AAAI 2022; CC BY-SA 4.0, in the SGD repository under ``sgd_x/``) holds five variants of
every SGD schema in which crowd workers rewrote every service, intent and slot name and every description
(v1 closest to the original, v5 furthest). The i-th service, intent and slot of a variant file is the i-th of
the original file, so each variant tool is the same API as its original. Read as tools:

* **Pool**: every SGD API once, in one wording drawn per service (seeded) from the part's variants
  (calibration: :data:`FIT_VARIANTS`; report: :data:`HELD_OUT_VARIANTS`, wordings no fitting ever saw), as
  ``<variant service>.<variant intent>`` (``Banks_13.CheckAccountBalance``); ``platform`` is the variant's
  service. A tool's alternatives are therefore other services written by other people, as in a real library,
  never paraphrases of itself (a pool of every API in four to six wordings made half of Stage 2's candidates
  paraphrases of the reference: no library looks like that).
* **Queries**: the SGD intent openings of :mod:`toolex.data.sgd` (same parts, by domain, same draw). The
  reference of each query is its tool in its service's drawn wording, never the original: the query's own
  wording never names its reference.
* **Two-tool queries** (``sgd-pairs/<part>``): a dialogue that opens intents of two services of two domains
  (a restaurant, then a cab) gives one query, the two opening utterances in order; C* is the two tools, each
  in its service's drawn wording. At most :data:`PER_PAIR` queries per pair of tools, both domains in the
  part.
* **Ground truth**: a tool's equivalents are the pool's tools of its SGD class (:func:`toolex.data.sgd.
  equivalence_class`, gold v2, with its exceptions); a two-tool query accepts the product of each step's
  equivalents.

Benchmark names: ``sgd-x/calibration``, ``sgd-x/report``, ``sgd-pairs/calibration``, ``sgd-pairs/report``.
Derived data (queries, gold) are CC BY-SA 4.0 as well.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.data.checksum import files_checksum
from toolex.data.readers import read_json
from toolex.data.records import Benchmark, Query, Tool
from toolex.data.sgd import (
    DIALOGUES,
    GOLD_VERSION,
    PARTS,
    SEED,
    SPLITS,
    Opening,
    domain_of,
    equivalence_class,
    load_schemas,
    openings,
    part_of,
    query_id,
    select,
    tool_id,
    tools_of,
)
from toolex.errors import InputError

#: Variants whose wording calibration may see; the others are held out of every fitting.
FIT_VARIANTS = ("v1", "v2", "v3")
HELD_OUT_VARIANTS = ("v4", "v5")
VARIANTS = FIT_VARIANTS + HELD_OUT_VARIANTS
#: Queries kept per pair of tools and part (seeded draw).
PER_PAIR = 10
SOURCES = ("sgd-x", "sgd-pairs")
ATTRIBUTION = ("SGD-X (Lee et al. 2022) and Schema-Guided Dialogue (Rastogi et al. 2020), CC BY-SA 4.0; "
               "queries and gold derived from their dialogues and schemas")
GOLD_RULE = (f"sgd-x gold v2: the pool's tools of the SGD class, one wording per service "
             f"(sgd gold v{GOLD_VERSION})")


def part_variants(part: str) -> tuple[str, ...]:
    """The wordings a part's services are drawn from."""
    return FIT_VARIANTS if part == "calibration" else HELD_OUT_VARIANTS


def variant_services(folder: Path, variant: str) -> dict[str, dict[str, Any]]:
    """Original service name → the variant's service record, mapped by position within each schema file (the
    dataset's own mapping); a variant whose structure differs from the original is an input error."""
    out: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        original = read_json(folder / f"schema_{split}.json", "SGD schema file")
        path = folder / "sgd_x" / variant / f"schema_{split}.json"
        rewritten = read_json(path, "SGD-X schema file")
        if len(original) != len(rewritten):
            raise InputError(path, f"{len(rewritten)} services where the original has {len(original)}")
        for i, (o, v) in enumerate(zip(original, rewritten)):
            shapes = [(len(o.get(k, [])), len(v.get(k, []))) for k in ("intents", "slots")]
            if any(a != b for a, b in shapes):
                raise InputError(path, "intents or slots differ in number from the original service",
                                 record=f"service {i} ({v.get('service_name')})")
            out.setdefault(o["service_name"], v)
    return out


def _origin_of(original: Mapping[str, Any], rewritten: Mapping[str, Any]) -> dict[str, str]:
    """Variant tool id → original tool id, intents mapped by position."""
    return {tool_id(rewritten["service_name"], vi["name"]): tool_id(original["service_name"], oi["name"])
            for oi, vi in zip(original["intents"], rewritten["intents"])}


def _slot_renames(original: Mapping[str, Any], rewritten: Mapping[str, Any]) -> dict[str, str]:
    return {o["name"]: v["name"] for o, v in zip(original["slots"], rewritten["slots"])}


def _renamed_service(original: Mapping[str, Any], rewritten: Mapping[str, Any]) -> dict[str, Any]:
    """The variant service with its intents' slot references in the variant's slot names (SGD-X rewrites the
    slot names inside the intents too; this keeps the two consistent whatever the file does)."""
    renames = _slot_renames(original, rewritten)
    intents = []
    for oi, vi in zip(original["intents"], rewritten["intents"]):
        intents.append({**vi,
                        "required_slots": [renames.get(s, s) for s in oi.get("required_slots", [])],
                        "optional_slots": {renames.get(s, s): v
                                           for s, v in oi.get("optional_slots", {}).items()},
                        "result_slots": [renames.get(s, s) for s in oi.get("result_slots", [])]})
    return {**rewritten, "intents": intents}


def wordings(folder: str | Path, variants: Sequence[str]) -> tuple[dict[str, Tool], dict[str, str],
                                                                     dict[tuple[str, str], str]]:
    """The tools of the original and each of ``variants``; the origin of every tool (tool id → original tool
    id); and (original tool id, wording) → that wording's tool id (wording ``""`` is the original)."""
    folder = Path(folder)
    services = load_schemas(folder)
    tools = tools_of(services)
    origin = {tid: tid for tid in tools}
    variant_of = {(tid, ""): tid for tid in tools}
    for variant in variants:
        rewritten = variant_services(folder, variant)
        renamed = {name: _renamed_service(services[name], rewritten[name]) for name in services
                   if name in rewritten}
        for name, service in renamed.items():
            mapped = _origin_of(services[name], service)
            origin.update(mapped)
            variant_of.update({(orig, variant): tid for tid, orig in mapped.items()})
        variant_tools = tools_of({s["service_name"]: s for s in renamed.values()})
        for tid, tool in variant_tools.items():
            if tid in tools:
                raise InputError(folder / "sgd_x" / variant, "a variant tool id repeats another tool's",
                                 record=tid)
            # the domain of a variant service is its original's
            tools[tid] = Tool(tid, tool.name, tool.documentation, subset="sgd-x",
                              category=domain_of(origin[tid].split(".", 1)[0]), platform=tool.platform)
    return tools, origin, variant_of


def _draw(key: str, choices: Sequence[str], seed: int) -> str:
    digest = keys.text_digest(f"{seed}:{key}")
    return choices[int.from_bytes(digest[:8], "big") % len(choices)]


def pair_openings(found: Sequence[Opening], part: str, per_pair: int = PER_PAIR,
                  seed: int = SEED) -> list[tuple[Opening, Opening]]:
    """Per dialogue, its first opening of one service followed by the first later opening of a service of
    another domain; both domains in ``part``; at most ``per_pair`` per pair of tools, drawn with ``seed``."""
    by_dialogue: dict[tuple[str, str], list[Opening]] = {}
    for o in found:
        if o.utterance:
            by_dialogue.setdefault((o.split, o.dialogue_id), []).append(o)
    by_pair: dict[tuple[str, str], list[tuple[Opening, Opening]]] = {}
    for key in sorted(by_dialogue):
        turns = sorted(by_dialogue[key], key=lambda o: (o.turn, o.service))
        first = turns[0]
        second = next((o for o in turns if o.turn > first.turn
                       and domain_of(o.service) != domain_of(first.service)), None)
        if second is None or not all(part_of(domain_of(o.service)) == part for o in (first, second)):
            continue
        pair = (tool_id(first.service, first.intent), tool_id(second.service, second.intent))
        by_pair.setdefault(pair, []).append((first, second))
    kept = []
    for pair in sorted(by_pair):
        rng = random.Random(f"{seed}:{pair[0]}+{pair[1]}")
        kept.extend(rng.sample(by_pair[pair], min(per_pair, len(by_pair[pair]))))
    return sorted(kept, key=lambda p: (p[0].split, p[0].dialogue_id, p[0].turn))


def one_wording_pool(folder: str | Path, part: str, seed: int = SEED
                     ) -> tuple[dict[str, Tool], dict[str, str], dict[str, str]]:
    """Every SGD API once: the tools of each service in the one wording drawn for it from the part's
    variants; their origin (tool id → original tool id); and original tool id → its tool in the pool."""
    every, origin, variant_of = wordings(folder, part_variants(part))
    originals = sorted({o for t, o in origin.items() if t != o})
    services = {o.split(".", 1)[0] for o in originals}
    drawn = {s: _draw(f"{part}:{s}", part_variants(part), seed) for s in services}
    in_pool = {o: variant_of[(o, drawn[o.split(".", 1)[0]])] for o in originals}
    tools = {t: every[t] for t in sorted(in_pool.values())}
    return tools, {t: origin[t] for t in tools}, in_pool


def load_sgdx(folder: str | Path, source: str, part: str, seed: int = SEED) -> Benchmark:
    """``sgd-x/<part>`` (one-tool queries) or ``sgd-pairs/<part>`` (two-tool queries) over the part's pool of
    one wording per service (:func:`one_wording_pool`)."""
    if source not in SOURCES:
        raise InputError(None, f"unknown SGD-X source {source!r}; choose one of {', '.join(SOURCES)}")
    if part not in PARTS:
        raise InputError(None, f"unknown SGD part {part!r}; choose one of {', '.join(PARTS)}")
    folder = Path(folder)
    tools, origin, in_pool = one_wording_pool(folder, part, seed)
    found = list(openings(folder / DIALOGUES))
    name = f"{source}/{part}"
    queries = []
    if source == "sgd-x":
        for o in select(found, part, seed=seed):
            qid = "x" + query_id(o)
            queries.append(Query(qid, o.utterance, (in_pool[tool_id(o.service, o.intent)],), "",
                                 domain_of(o.service), name))
    else:
        for first, second in pair_openings(found, part, seed=seed):
            qid = "p" + query_id(first)
            reference = tuple(in_pool[tool_id(o.service, o.intent)] for o in (first, second))
            text = f"{first.utterance.rstrip()} {second.utterance.strip()}"
            category = f"{domain_of(first.service)}+{domain_of(second.service)}"
            queries.append(Query(qid, text, reference, "", category, name))
    variants = part_variants(part)
    sources = ([folder / f"schema_{s}.json" for s in SPLITS] + [folder / DIALOGUES]
               + [folder / "sgd_x" / v / f"schema_{s}.json" for v in variants for s in SPLITS])
    checksum = keys.checksum(f"{files_checksum(sources)}:{name}:{seed}:one-wording")
    return Benchmark(name, queries, tools, checksum, tuple(str(s) for s in sources),
                     {"seed": seed, "pool_wordings": f"one per service, drawn from {', '.join(variants)}",
                      "reference_wordings": list(variants),
                      "origin": origin, "licence": "CC BY-SA 4.0", "attribution": ATTRIBUTION})


def acceptable(benchmark: Benchmark) -> dict[str, list[list[str]]]:
    """The gold combinations of every query: C* first, then every other product of equivalent tools (the
    pool's tools of the reference's SGD class)."""
    origin: Mapping[str, str] = benchmark.meta["origin"]

    def key(tid: str) -> tuple[str, str]:
        service, intent = origin[tid].split(".", 1)
        return equivalence_class(service, intent)

    classes: dict[tuple[str, str], list[str]] = {}
    for tid in sorted(benchmark.tools):
        classes.setdefault(key(tid), []).append(tid)
    out = {}
    for q in benchmark.queries:
        combos = [list(q.reference)]
        for combo in itertools.product(*(classes[key(t)] for t in q.reference)):
            if set(combo) != set(q.reference) and len(set(combo)) == len(combo):
                combos.append(list(combo))
        out[q.id] = combos
    return out
