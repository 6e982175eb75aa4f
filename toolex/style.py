"""Fixed colours per retriever, the same in every figure, table and interactive view.

Known retrievers keep their colour whatever else is selected or filtered; any other name gets a colour from
the same palette by a stable hash of the name, so it too never changes between views or runs.
"""

from __future__ import annotations

import zlib

#: matplotlib's tab10, as hex.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
KNOWN = {"bm25": PALETTE[0], "dense:minilm": PALETTE[1], "dense:mpnet": PALETTE[2], "hybrid": PALETTE[3],
         "dense:minilm-ft": PALETTE[4]}
#: The paper's numbers, wherever they stand beside ours.
PAPER = "#7f7f7f"


def retriever_colour(name: str) -> str:
    """The colour of retriever ``name`` (hex)."""
    if name in KNOWN:
        return KNOWN[name]
    return PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]
