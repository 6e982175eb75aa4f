"""Benchmarks by name, and the choice of tool pool.

Names: ``toolret/<subset>`` (``apibank``, ``apigen``, ``gorilla-huggingface``, ``toolink``), ``toolret`` (all
four),
``toollens`` (test split; ``toollens:train`` for the other), ``stabletoolbench`` (all six groups) or
``stabletoolbench/<group>``, ``sgd/calibration`` and ``sgd/report`` (Schema-Guided Dialogue with its
human one-to-many ground truth, see :mod:`toolex.data.sgd`), ``sgd-x/<part>`` and ``sgd-pairs/<part>``
(the same APIs in SGD-X's rewritten wordings, one- and two-tool queries, see :mod:`toolex.data.sgdx`),
``etom/calibration``, ``etom/report`` and ``etom/all`` (a real MCP registry with equivalence sets, see
:mod:`toolex.data.etom`),
``customized/metatool`` and
``customized/toolalpaca`` (two of ToolRet's ``customized`` subsets converted from their source data, see
:mod:`toolex.data.metatool` and :mod:`toolex.data.toolalpaca`) and ``customized`` (both). Several names joined
by ``+`` are merged into one benchmark.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from toolex import keys, paths
from toolex.data.beir import load_beir
from toolex.data.etom import GOLD_RULE as ETOM_GOLD_RULE
from toolex.data.etom import PARTS as ETOM_PARTS
from toolex.data.etom import acceptable as etom_acceptable
from toolex.data.etom import load_etom
from toolex.data.metatool import load_metatool
from toolex.data.records import Benchmark, Tool, merge_benchmarks
from toolex.data.sgd import GOLD_VERSION as SGD_GOLD_VERSION
from toolex.data.sgd import PARTS as SGD_PARTS
from toolex.data.sgd import acceptable as sgd_acceptable
from toolex.data.sgd import load_sgd
from toolex.data.sgdx import GOLD_RULE as SGDX_GOLD_RULE
from toolex.data.sgdx import SOURCES as SGDX_SOURCES
from toolex.data.sgdx import acceptable as sgdx_acceptable
from toolex.data.sgdx import load_sgdx
from toolex.data.stabletoolbench import GROUPS, load_stabletoolbench
from toolex.data.toolalpaca import load_toolalpaca
from toolex.data.toolret import SUBSET_CATEGORY, load_toolret_subset
from toolex.errors import InputError

TOOLRET_SUBSETS = tuple(SUBSET_CATEGORY)
POOLS = ("subset", "category", "all", "smoke")
#: Tools per benchmark in the ``smoke`` pool (every tool a query names, then a seeded draw of the others up to
#: this size; a smaller pool is kept whole), and the seed of that draw.
SMOKE_POOL = 300
SMOKE_POOL_SEED = 0
#: The ``customized`` benchmarks converted from source data.
CUSTOMIZED = ("metatool", "toolalpaca")
#: The benchmarks of the paper-style evaluation, one or more per category of Table 2: four ToolRet subsets
#: (Web, Code), ToolLens test (Web) and the two Customized benchmarks rebuilt from their sources.
DEFAULT_BENCHMARKS = (tuple(f"toolret/{s}" for s in TOOLRET_SUBSETS) + ("toollens",)
                      + tuple(f"customized/{s}" for s in CUSTOMIZED))


def load_benchmark(name: str, data_dir: str | Path | None = None) -> Benchmark:
    """A benchmark by name (see the module docstring) from ``data_dir`` (default:
    :func:`toolex.paths.data_dir`)."""
    root = Path(data_dir) if data_dir else paths.data_dir()
    if "+" in name:
        return merge_benchmarks(name, [load_benchmark(part, root) for part in name.split("+")])
    if not root.exists():
        raise InputError(root, "data folder not found; set TOOLEX_DATA to the benchmark snapshots")
    if name == "toolret":
        return merge_benchmarks(name, [load_benchmark(f"toolret/{s}", root) for s in TOOLRET_SUBSETS])
    if name.startswith("toolret/") and (name.split("/", 1)[1] in TOOLRET_SUBSETS
                                        or (root / "toolret" / name.split("/", 1)[1]).exists()):
        subset = name.split("/", 1)[1]
        return load_toolret_subset(root / "toolret" / subset, subset)
    if name.split(":")[0] == "toollens":
        split = name.split(":", 1)[1] if ":" in name else "test"
        bench = load_beir(root / "toollens", split=split, name="toollens")
        bench.name = name
        return bench
    if name == "stabletoolbench":
        return load_stabletoolbench(root / "stabletoolbench")
    if name.startswith("stabletoolbench/"):
        return load_stabletoolbench(root / "stabletoolbench", tuple(name.split("/", 1)[1].split(",")))
    source, _, part = name.partition("/")
    if source == "sgd" and part in SGD_PARTS:
        return load_sgd(root / "sgd", part)
    if source in SGDX_SOURCES and part in SGD_PARTS:
        return load_sgdx(root / "sgd", source, part)
    if source == "etom" and part in ETOM_PARTS:
        return load_etom(root / "etom", part)
    if name == "customized":
        return merge_benchmarks(name, [load_benchmark(f"customized/{s}", root) for s in CUSTOMIZED])
    if name == "customized/metatool":
        return load_metatool(root / "customized" / "metatool")
    if name == "customized/toolalpaca":
        return load_toolalpaca(root / "customized" / "toolalpaca")
    known = ", ".join(["toolret", *[f"toolret/{s}" for s in TOOLRET_SUBSETS], "toollens", "stabletoolbench",
                       *[f"stabletoolbench/{g}" for g in GROUPS],
                       *[f"{s}/{p}" for s in ("sgd", *SGDX_SOURCES) for p in SGD_PARTS],
                       *[f"etom/{p}" for p in ETOM_PARTS],
                       "customized", *[f"customized/{s}" for s in CUSTOMIZED]])
    close = difflib.get_close_matches(name, known.split(", "), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ";"
    raise InputError(None, f"unknown benchmark {name!r}{hint} known: {known}")


#: Benchmarks that carry a one-to-many ground truth of their own: name prefix → (how to derive it, its rule).
OWN_GOLD = {"sgd/": (sgd_acceptable, f"sgd gold v{SGD_GOLD_VERSION}"),
            **{f"{s}/": (sgdx_acceptable, SGDX_GOLD_RULE) for s in SGDX_SOURCES},
            "etom/": (etom_acceptable, ETOM_GOLD_RULE)}


def _own_gold_source(benchmark: Benchmark) -> tuple[Callable[[Benchmark], dict[str, list[list[str]]]], str]:
    for prefix, source in OWN_GOLD.items():
        if benchmark.name.startswith(prefix):
            return source
    raise InputError(None, f"{benchmark.name} carries no one-to-many ground truth of its own")


def own_gold(benchmark: Benchmark) -> dict[str, list[list[str]]]:
    """The human one-to-many ground truth a benchmark carries (query id → accepted combinations, C* first):
    ``sgd/*``, ``sgd-x/*``, ``sgd-pairs/*`` and ``etom/*`` only; any other benchmark raises
    :class:`InputError`."""
    derive, _rule = _own_gold_source(benchmark)
    return derive(benchmark)


def own_gold_rule(benchmark: Benchmark) -> str:
    """How :func:`own_gold` derives the benchmark's ground truth (its version), for provenance records."""
    return _own_gold_source(benchmark)[1]


def load_benchmarks(names: list[str] | tuple[str, ...],
                    data_dir: str | Path | None = None) -> list[Benchmark]:
    return [load_benchmark(name, data_dir) for name in names]


def smoke_tools(benchmark: Benchmark, size: int = SMOKE_POOL, seed: int = SMOKE_POOL_SEED) -> dict[str, Tool]:
    """A benchmark's pool cut for the smoke setting: every tool one of its queries (all of them, sampled or
    not) names, then a seeded draw of its other tools up to ``size`` (the whole pool when not larger)."""
    import random

    named = {t for q in benchmark.queries for t in q.reference if t in benchmark.tools}
    others = sorted(set(benchmark.tools) - named)
    drawn = set(random.Random(seed).sample(others, min(len(others), max(size - len(named), 0))))
    return {tid: tool for tid, tool in benchmark.tools.items() if tid in named or tid in drawn}


def pool_identity(benchmarks: list[Benchmark], pool: str) -> str:
    """What a key holds of a pool: its name where the benchmarks' checksums decide its tools (``subset``,
    ``category``, ``all``), else the name with a digest of every pool's tool ids."""
    if pool != "smoke":
        return pool
    pools = tool_pools(benchmarks, pool)
    return f"{pool}-" + keys.key(sorted((name, sorted(tools)) for name, tools in pools.items()))


def tool_pools(benchmarks: list[Benchmark], pool: str = "all") -> dict[str, dict[str, Tool]]:
    """The tool pool each benchmark's queries are searched in, keyed by benchmark name.

    ``subset``: the benchmark's own tools; ``category``: the union over benchmarks of the same category;
    ``all``: the union of everything loaded (the Tool-DE evaluation default); ``smoke``: as ``all`` over
    smaller pools (:func:`smoke_tools`), the smoke setting's.
    """
    if pool not in POOLS:
        raise InputError(None, f"unknown pool {pool!r}; choose one of {', '.join(POOLS)}")
    if pool == "subset":
        return {b.name: dict(b.tools) for b in benchmarks}
    if pool in ("all", "smoke"):
        union: dict[str, Tool] = {}
        for bench in benchmarks:
            union.update(smoke_tools(bench) if pool == "smoke" else bench.tools)
        return {b.name: union for b in benchmarks}
    by_category: dict[str, dict[str, Tool]] = {}
    for bench in benchmarks:
        for category in bench.categories:
            by_category.setdefault(category, {}).update(bench.tools)
    out = {}
    for bench in benchmarks:
        merged: dict[str, Tool] = {}
        for category in bench.categories:
            merged.update(by_category[category])
        out[bench.name] = merged
    return out
