"""Figure 5: documentation lengths of tools and skills, in tokens, on a log scale.

Tokenizers (:data:`TOKENIZERS`): ``minilm`` counts WordPiece tokens of the all-MiniLM-L6-v2 tokenizer
(``bert-base-uncased`` vocabulary, no special tokens, no truncation: the full length, not what the encoder
keeps); ``regex`` counts words and punctuation marks (``\\w+|[^\\w\\s]``), with no model needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from toolex.data import load_benchmark
from toolex.report.export import save_figure
from toolex.report.figures import set_title
from toolex.report.provenance import footer
from toolex.retrieval.encoders import minilm_path

TOKENIZERS = {
    "minilm": "WordPiece tokens of the all-MiniLM-L6-v2 tokenizer (bert-base-uncased vocabulary, "
              "untruncated)",
    "regex": r"regex tokens (\w+|[^\w\s]): words and punctuation marks",
}
_REGEX = re.compile(r"\w+|[^\w\s]")


def token_lengths(texts: Iterable[str], tokenizer: str = "minilm", batch_size: int = 256) -> np.ndarray:
    """The length in tokens of each text (see :data:`TOKENIZERS`)."""
    texts = list(texts)
    if tokenizer == "regex":
        return np.array([len(_REGEX.findall(t)) for t in texts], dtype=np.int64)
    if tokenizer != "minilm":
        raise ValueError(f"unknown tokenizer {tokenizer!r}; choose one of {', '.join(TOKENIZERS)}")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(minilm_path() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    out: list[int] = []
    for start in range(0, len(texts), batch_size):
        encoded = tok.encode_batch(texts[start:start + batch_size], add_special_tokens=False)
        out.extend(len(e.ids) for e in encoded)
    return np.array(out, dtype=np.int64)


def length_table(groups: Mapping[str, Sequence[str]], tokenizer: str = "minilm") -> pd.DataFrame:
    """One row per document: ``group``, ``tokens`` (e.g. groups ``tools`` and ``skills``)."""
    frames = [pd.DataFrame({"group": name, "tokens": token_lengths(texts, tokenizer)})
              for name, texts in groups.items()]
    return pd.concat(frames, ignore_index=True)


def length_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Count, mean, median, 90th percentile and maximum of the lengths per group."""
    grouped = table.groupby("group", sort=False)["tokens"]
    return pd.DataFrame({"documents": grouped.size(), "mean": grouped.mean().round(1),
                         "median": grouped.median(), "p90": grouped.quantile(0.9).round(0),
                         "max": grouped.max()})


def length_figure(table: pd.DataFrame) -> Any:
    """Histogram (log-spaced bins, log x axis) of each group's lengths, its median dashed; not yet saved."""
    import matplotlib.pyplot as plt

    positive = table[table["tokens"] > 0]
    top = max(int(positive["tokens"].max()), 10)
    low = max(1, int(positive["tokens"].min()))
    bins = np.logspace(np.log10(low) - 0.02, np.log10(top) + 0.05, 50)  # the axis spans the data only
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    for group, part in positive.groupby("group", sort=False):
        median = float(part["tokens"].median())
        ax.hist(part["tokens"], bins=bins.tolist(), alpha=0.55, weights=np.full(len(part), 1 / len(part)),
                label=f"{group} (n={len(part):,}, median {median:,.0f})")
        ax.axvline(median, linestyle="--", linewidth=1, color=ax.patches[-1].get_facecolor()[:3])
    ax.set_xscale("log")
    ax.set_xlim(bins[0], bins[-1])
    ax.set_xlabel("documentation length (tokens, log scale)")
    ax.set_ylabel("share of documents")
    ax.legend(frameon=False, fontsize=8)
    set_title(ax, "Figure 5: documentation length, tools vs skills")
    return fig


def length_footer(data_note: str, tokenizer: str) -> str:
    """The report layer's figure footer naming ``data_note`` (which tools and skills) and the tokenizer."""

    return footer(data_note, note=f"Tokenizer: {TOKENIZERS.get(tokenizer, tokenizer)}")


def figure5(table: pd.DataFrame, tokenizer: str, data_note: str, out_dir: str | Path | None = None,
            stem: str = "07_figure5_doc_lengths") -> dict[str, Any]:
    """:func:`length_figure` saved as PNG and PDF by :func:`toolex.report.export.save_figure` (default folder:
    :func:`toolex.paths.figures_dir`) with :func:`length_footer`. Returns the figure and the paths."""

    fig = length_figure(table)
    return {"figure": fig, "paths": save_figure(fig, stem, length_footer(data_note, tokenizer), out_dir)}


def tool_vs_skill_lengths(skills: Mapping[str, Any], tokenizer: str = "minilm",
                          tools: Mapping[str, Any] | None = None,
                          limit: int | None = None, seed: int = 0) -> tuple[pd.DataFrame, str]:
    """Length table of ToolRet snapshot tools (``tools``, default: ``load_benchmark("toolret")``) and skills.

    ``limit`` samples at most that many documents of each group (the smoke setting). Returns the table and
    the data note for the footer.
    """
    import random

    if tools is None:
        tools = load_benchmark("toolret").tools
    groups = {"tools": [t.text for t in tools.values()], "skills": [s.text for s in skills.values()]}
    if limit is not None:
        rng = random.Random(seed)
        groups = {k: (rng.sample(v, limit) if len(v) > limit else v) for k, v in groups.items()}
    note = (f"{len(groups['tools']):,} tools of the ToolRet snapshot (tool .text: documentation as JSON); "
            f"{len(groups['skills']):,} agent skills (name + description + SKILL.md body)"
            + (f"; sample of {limit:,} per group" if limit is not None else ""))
    return length_table(groups, tokenizer), note
