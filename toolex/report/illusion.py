"""Figure 3: the gain of a fine-tuned retriever over its base on one-to-one (Tool-DE) and on ToolEq.

The illusion share is the part of the one-to-one gain that ToolEq does not confirm:
``1 − ToolEq gain / one-to-one gain`` (:func:`toolex.paper.claims.illusion_share`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from toolex.metrics import Measure
from toolex.metrics.long import AVG, QUERY_LEVEL
from toolex.metrics.measures import HEADLINE
from toolex.paper.claims import finetuning_gains, illusion_share


def paper_illusion(table2: pd.DataFrame, metric: str = HEADLINE.key, printed: bool = True) -> pd.DataFrame:
    """The paper's two pairs (0.6B, 4B); with ``printed`` the share comes from the gains rounded to 0.1 point,
    as the paper divides them (30% and 47%), beside the share from unrounded cells."""
    gains = finetuning_gains(table2, metric=metric).reset_index()
    gains = gains.rename(columns={"illusion_share_pct": "illusion_share_unrounded_pct"})
    if printed:
        gains["illusion_share_pct"] = [
            100 * illusion_share(round(de, 1), round(eq, 1))
            for de, eq in zip(gains.tool_de_gain, gains.tooleq_gain)
        ]
    else:
        gains["illusion_share_pct"] = gains.illusion_share_unrounded_pct
    gains["source"] = "reported by the paper"
    return gains


def own_illusion(results: pd.DataFrame, pairs: Sequence[tuple[str, str]], metric: str = HEADLINE.key,
                 level: str = QUERY_LEVEL) -> pd.DataFrame:
    """Gains and illusion share of configured (base, fine-tuned) retriever pairs from our main-results table
    (the ``Avg`` rows: mean over categories)."""
    rows = results[(results.level == level) & (results.category == AVG)
                   & (results.metric == Measure.parse(metric).key)]
    means = rows.set_index("retriever")[["one_to_one", "tooleq"]]
    out = []
    for base, tuned in pairs:
        if base not in means.index or tuned not in means.index:
            raise KeyError(f"pair ({base}, {tuned}): both retrievers must be in the results table")
        gain = means.loc[tuned] - means.loc[base]
        share = illusion_share(gain.one_to_one, gain.tooleq) if gain.one_to_one else float("nan")
        out.append({"size": tuned, "base": base, "fine_tuned": tuned, "tool_de_gain": gain.one_to_one,
                    "tooleq_gain": gain.tooleq, "illusion_share_pct": 100 * share, "source": "ours"})
    return pd.DataFrame(out)


#: Column names as a reader of the tables sees them.
READABLE = {"size": "pair", "base": "base", "fine_tuned": "fine-tuned",
            "tool_de_gain": "gain one-to-one (Tool-DE), points", "tooleq_gain": "gain ToolEq, points",
            "illusion_share_pct": "illusion share, % (from gains rounded as printed)",
            "illusion_share_unrounded_pct": "illusion share, % (unrounded gains)", "source": "source"}


def readable(gains: pd.DataFrame) -> pd.DataFrame:
    """The gains table with :data:`READABLE` column names, for export and display."""
    return gains.rename(columns=READABLE)
