"""What every notebook opens first: settings, the loaded workspace, the annotation artifacts, footers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolex import paths
from toolex.experiments.settings import ReportSettings
from toolex.experiments.workspace import Annotated, Workspace, ensure_annotations, runs_cached
from toolex.report.export import display_precision
from toolex.report.provenance import footer, provenance


@dataclass
class Analysis:
    """A notebook's inputs and the provenance helpers bound to them."""

    settings: ReportSettings
    workspace: Workspace
    annotated: Annotated

    @property
    def judge(self) -> str:
        return self.annotated.judge_name

    def header(self) -> str:
        """What a notebook prints under its parameters: the data folder and the footer of its retrievers."""
        return f"data folder: {paths.data_dir()}\n{self.footer(self.settings.retrievers)}"

    def footer(self, retrievers: Sequence[str] = (), note: str = "") -> str:
        """Figure footer: data, retriever(s), judge, toolex version."""
        return footer(self.workspace.describe(), retrievers, self.judge, note)

    def provenance(self, retrievers: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
        """Provenance record of a table of ours."""
        return provenance(self.workspace.describe(), self.workspace.data_checksum, self.settings.as_dict(),
                          self.judge, retrievers, annotation_folder=str(self.annotated.folder.folder),
                          **extra)


def open_analysis(settings: ReportSettings, workspace: Workspace | None = None) -> Analysis:
    """Load the benchmarks (unless ``workspace`` holds them already) and the annotation artifacts (computed
    with the settings' judge when missing); a notebook's tables then print two decimals."""

    display_precision()
    workspace = workspace or Workspace.load(settings)
    return Analysis(settings, workspace, ensure_annotations(workspace))


def open_notebook(parameters: Mapping[str, Any], retrievers: Sequence[str] | None = None) -> Analysis:
    """:func:`open_analysis` of the one settings object a notebook's parameters cell states
    (:meth:`ReportSettings.from_parameters`; ``retrievers`` stands in for ``RETRIEVERS = None``)."""
    return open_analysis(ReportSettings.from_parameters(parameters, retrievers))


def open_cached_notebook(parameters: Mapping[str, Any], retrievers: Sequence[str] | None = None) -> Analysis:
    """:func:`open_notebook` for an app that should start quickly on results that exist: where the parameters
    ask for the default setting (no parameter but the judge changed) but its retrieval runs are not on disk,
    it opens the smoke setting and says so (``make paper`` computes the default's; ``make inspector SMOKE=1``
    asks for the smoke setting outright), and where the smoke setting's runs are not on disk either (a fresh
    clone) it says what it computes first. A setting of one's own opens as asked."""
    settings = ReportSettings.from_parameters(parameters, retrievers)
    if settings.smoke:
        return open_analysis(settings)
    workspace = Workspace.load(settings)
    default = ReportSettings.from_parameters({"SMOKE": False, "JUDGE": settings.judge}, retrievers)
    if runs_cached(settings.retrievers, workspace) or settings != default:  # a setting of one's own: as asked
        return open_analysis(settings, workspace)
    smoke = ReportSettings.from_parameters({**parameters, "SMOKE": True}, retrievers)
    small = Workspace.load(smoke)
    then = (", whose runs are on disk." if runs_cached(smoke.retrievers, small) else
            f", computing the retrieval runs of {', '.join(smoke.retrievers)} over its {len(small.queries)} "
            "queries first (about half a minute on 2 cores).")
    print("The default setting's retrieval runs are not computed yet (`make paper` computes them); this app "
          f"opens the smoke setting{then}", flush=True)
    return open_analysis(smoke, small)
