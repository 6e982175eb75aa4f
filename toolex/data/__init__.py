"""Benchmark records and loaders."""

from toolex.data.records import Benchmark, Query, Tool, merge_benchmarks
from toolex.data.registry import DEFAULT_BENCHMARKS, POOLS, load_benchmark, load_benchmarks, tool_pools

__all__ = [
    "DEFAULT_BENCHMARKS",
    "POOLS",
    "Benchmark",
    "Query",
    "Tool",
    "load_benchmark",
    "load_benchmarks",
    "merge_benchmarks",
    "tool_pools",
]
