"""Figure 6 from a kept downstream run: pass rates per group and setting with Wilson intervals, the paired
differences between settings on the same queries, and the paper's stated differences beside ours."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from toolex import paths
from toolex.downstream.run import SETTINGS, pass_rates, results_frame
from toolex.io.artifact import manifest_path, read_manifest
from toolex.paper import load_claims
from toolex.report.figures import set_title
from toolex.report.illusion import interval_text
from toolex.report.provenance import footer, provenance
from toolex.report.significance import bootstrap_ci

#: Where kept downstream runs live (one folder per recorded sample).
KEPT = "downstream"
SETTING_LABELS = {"oracle": "Oracle (C*)", "retrieved": "Retrieved", "expanded": "Expanded (ToolEX)"}
SETTING_COLOURS = {"oracle": "tab:gray", "retrieved": "tab:orange", "expanded": "tab:purple"}
#: The paper's stated differences, points, and the retrieved setting's name there.
PAPER_PAIRS = {("oracle", "expanded"): "expanded_over_oracle_pp",
               ("retrieved", "expanded"): "expanded_over_toolbench_ir_pp"}


def kept_runs(root: str | Path | None = None) -> list[Path]:
    """The kept downstream run folders (``data/downstream/*/`` with a manifest), by name."""
    base = Path(root) if root else paths.ROOT / "data" / KEPT
    return sorted(p for p in base.glob("*") if manifest_path(p).exists())


def paired(frame: pd.DataFrame, a: str, b: str, resamples: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """Setting ``b`` minus setting ``a`` on the queries both ran: the mean difference in pass value (points),
    its paired bootstrap 95 % interval (:func:`toolex.report.significance.bootstrap_ci`), and how many
    queries each wins."""
    wide = frame.pivot_table(index="query_id", columns="setting", values="passed", aggfunc="first")
    if a not in wide or b not in wide:
        return {"a": a, "b": b, "queries": 0}
    both = wide[[a, b]].dropna()
    if both.empty:
        return {"a": a, "b": b, "queries": 0}
    diff = (both[b] - both[a]).to_numpy()
    mean, low, high = bootstrap_ci(both[a].to_numpy(), both[b].to_numpy(), resamples, seed=seed)
    interval = interval_text(100 * low, 100 * high)
    if low == high:  # every resample alike: no interval, not a zero-width certainty
        low = high = float("nan")
    return {"a": a, "b": b, "queries": len(diff), "difference, points": 100 * mean,
            "95% CI low": 100 * low, "95% CI high": 100 * high, "95% interval": interval,
            f"{b} better": int((diff > 0).sum()), f"{a} better": int((diff < 0).sum()),
            "same": int((diff == 0).sum())}


def differences(frame: pd.DataFrame, resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Paired differences of the settings on the same queries (ours), with the paper's stated range."""
    claims = load_claims().get("downstream_toolbench", {})
    rows = []
    for (a, b), claim in PAPER_PAIRS.items():
        ours = paired(frame, a, b, resamples, seed)
        stated = claims.get(claim)
        rows.append({"comparison": f"{SETTING_LABELS[b]} − {SETTING_LABELS[a]}",
                     **{k: v for k, v in ours.items() if k not in ("a", "b")},
                     "paper, points (range over the six groups)": f"{stated[0]} to {stated[1]}" if stated
                     else "not stated"})
    return pd.DataFrame(rows)


def scored(table: pd.DataFrame, group: str, settings: Sequence[str]) -> str:
    """The queries scored in ``group``: ``n=24``, or one count per setting in the bars' order where the
    settings scored different numbers (``n=23/24/24``)."""
    counts = table[table["group"] == group].set_index("setting")["queries"].reindex(settings)
    shown = [str(int(n)) if pd.notna(n) else "0" for n in counts]
    return f"n={shown[0]}" if len(set(shown)) == 1 else "n=" + "/".join(shown)


def pass_rate_bars(table: pd.DataFrame, title: str) -> Any:
    """Grouped bars: pass rate per group and setting with 95 % Wilson intervals (``all`` last)."""
    groups = [g for g in table["group"].unique() if g != "all"] + ["all"]
    settings = [s for s in SETTINGS if s in set(table["setting"])]
    fig, ax = plt.subplots(figsize=(1.4 + 1.1 * len(groups), 3.6))
    width = 0.8 / max(1, len(settings))
    for i, setting in enumerate(settings):
        rows = table[table["setting"] == setting].set_index("group").reindex(groups)
        x = np.arange(len(groups)) + (i - (len(settings) - 1) / 2) * width
        rate = rows["pass rate, %"].to_numpy(dtype=float)
        err = np.vstack([rate - rows["95% CI low"].to_numpy(dtype=float),
                         rows["95% CI high"].to_numpy(dtype=float) - rate])
        ax.bar(x, rate, width, yerr=err, capsize=2, color=SETTING_COLOURS[setting],
               label=SETTING_LABELS[setting], error_kw={"lw": 0.8})
    ax.set_xticks(np.arange(len(groups)), [f"{g.replace('_', ' ')}\n{scored(table, g, settings)}"
                                           for g in groups], fontsize=7)
    ax.set_ylim(0, 105)
    ax.set_ylabel("pass rate, % (95% Wilson interval)")
    ax.set_xlabel("group (n: queries scored; one count per setting, in the bars' order, where they differ)",
                  fontsize=7)
    set_title(ax, title)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    return fig


@dataclass
class KeptRun:
    """A kept downstream run: its identity (sample, settings, models, prompts), per-query results and
    pass-rate table."""

    folder: Path
    identity: dict[str, Any]
    frame: pd.DataFrame
    table: pd.DataFrame
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def models(self) -> str:
        return ", ".join(f"{role}: {model}" for role, model in self.identity["models"].items())

    @property
    def data(self) -> str:
        return (f"{self.identity['benchmark']} (data sha256 {self.identity['data'][:12]}), "
                f"{len(self.identity['queries'])} queries")

    def describe(self) -> str:
        return (f"{self.folder.name}: {len(self.identity['queries'])} queries × "
                f"{len(self.identity['settings'])} settings; {self.models}")

    def provenance(self) -> dict[str, Any]:
        """The record beside every table of ours (:func:`toolex.report.provenance.provenance`): the run's
        data, the ToolEX judge of the expanded setting, its retriever, the run folder, its prompt versions and
        the LLMs of the agent, the simulator and the evaluator."""
        return provenance(self.data, self.identity["data"], {"max_steps": self.identity.get("max_steps")},
                          self.expansion_judge or None, [self.identity["retriever"]],
                          source=paths.portable(self.folder), prompts=self.identity["prompts"],
                          llms=self.identity["models"])

    @property
    def expansion_judge(self) -> str:
        """The ToolEX judge whose annotations the expanded setting offered (the run's manifest)."""
        recorded = self.manifest.get("expansion", {})
        return str(recorded.get("judge", "not recorded")) if "expanded" in self.identity["settings"] else ""

    def footer(self) -> str:
        """Data, retriever, the ToolEX judge of the expanded setting and the agent's models."""
        return footer(self.data, [self.identity["retriever"]], self.expansion_judge or None,
                      f"LLMs: {self.models}")


def open_run(folder: str | Path | None = None) -> KeptRun | None:
    """A kept run (default: the last of :func:`kept_runs`), or None when none was kept."""
    runs = kept_runs()
    chosen = Path(folder) if folder else (runs[-1] if runs else None)
    if chosen is None:
        return None
    manifest = read_manifest(chosen, required=True)
    frame = results_frame(chosen)
    return KeptRun(chosen, manifest["identity"], frame, pass_rates(frame), manifest)
