"""Every location the project reads or writes, in one place.

Each location can be moved with an environment variable, so notebooks, scripts and the command line never
hold literal paths:

| variable            | default                          | holds                                         |
|---------------------|----------------------------------|-----------------------------------------------|
| ``TOOLEX_DATA``     | ``<repo>/../shared/data``        | the benchmark snapshots (read only)           |
| ``TOOLEX_PAPER``    | ``<repo>/../shared/paper``       | the paper's tables and claims as data         |
| ``TOOLEX_CACHE``    | ``<repo>/.cache``                | embedding and LLM response caches             |
| ``TOOLEX_ARTIFACTS``| ``<repo>/data/artifacts``        | retrieval runs and annotation artifacts       |
| ``TOOLEX_BUILD``    | ``<repo>/build``                 | executed notebooks                            |
| ``TOOLEX_FIGURES``  | ``<repo>/figures``               | generated figures (PNG, PDF)                  |
| ``TOOLEX_TABLES``   | ``<repo>/tables``                | generated tables (CSV, Markdown, LaTeX)       |

``figures/`` and ``tables/`` hold what ``make paper`` made. A notebook run by hand in Jupyter (a kernel that
the runner did not start, with no ``TOOLEX_FIGURES`` / ``TOOLEX_TABLES`` set) writes under
``build/interactive/`` instead, and says so, so exploring with other parameters never overwrites them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env_path(name: str, default: Path) -> Path:
    value = os.environ.get(name)
    return Path(value).expanduser().resolve() if value else default


def data_dir() -> Path:
    """Folder of the benchmark snapshots (``toolret/``, ``toollens/``, ``stabletoolbench/``, ``skills/``)."""
    return _env_path("TOOLEX_DATA", ROOT.parent / "shared" / "data")


def paper_dir() -> Path:
    """Folder of the paper's tables and claims transcribed as data."""
    return _env_path("TOOLEX_PAPER", ROOT.parent / "shared" / "paper")


def cache_dir() -> Path:
    """Root of the on-disk caches (embeddings, LLM responses)."""
    return _env_path("TOOLEX_CACHE", ROOT / ".cache")


def artifacts_dir() -> Path:
    """Retrieval runs, annotation artifacts and result tables with provenance."""
    return _env_path("TOOLEX_ARTIFACTS", ROOT / "data" / "artifacts")


def build_dir() -> Path:
    """Executed notebooks and other build products."""
    return _env_path("TOOLEX_BUILD", ROOT / "build")


#: Set by ``make paper``'s runner in the kernels it starts: their outputs are the paper's.
PAPER_RUN = "TOOLEX_PAPER_RUN"
_warned: set[str] = set()


def interactive() -> bool:
    """True inside a Jupyter kernel that ``make paper`` did not start."""
    return "ipykernel" in sys.modules and os.environ.get(PAPER_RUN) != "1"


def _output_dir(variable: str, name: str) -> Path:
    if os.environ.get(variable) or not interactive():
        return _env_path(variable, ROOT / name)
    folder = build_dir() / "interactive" / name
    if name not in _warned:
        _warned.add(name)
        print(f"[toolex] interactive run: {name} go to {folder}, not {ROOT / name} (make paper writes those)",
              file=sys.stderr)
    return folder


def figures_dir() -> Path:
    return _output_dir("TOOLEX_FIGURES", "figures")


def tables_dir() -> Path:
    return _output_dir("TOOLEX_TABLES", "tables")


DATA_PREFIX = "$TOOLEX_DATA/"


def portable(path: str | Path) -> str:
    """``path`` as written into committed files: ``$TOOLEX_DATA/<rest>`` when under :func:`data_dir`."""
    path = Path(path)
    if not path.is_relative_to(data_dir()):
        return str(path)
    return f"{DATA_PREFIX}{path.relative_to(data_dir()).as_posix()}"


def resolve(text: str) -> Path:
    """The inverse of :func:`portable`: a leading ``$TOOLEX_DATA/`` means :func:`data_dir`."""
    return data_dir() / text.removeprefix(DATA_PREFIX) if text.startswith(DATA_PREFIX) else Path(text)


def recorded_dir() -> Path:
    """LLM-written artifacts kept with the project (annotation samples, skill benchmarks): slow to redo."""
    return ROOT / "data"


def validation_dir() -> Path:
    """Kept validations of the judges against human labels, and the cascade's trade-off curve."""
    return ROOT / "data" / "validation"


def expected_dir() -> Path:
    """Expected numbers of our own pipeline, kept as data and checked with a tolerance."""
    return ROOT / "data" / "expected"


def release_dir() -> Path:
    """Released results kept as data (the ToolEq annotations of the default setting)."""
    return _env_path("TOOLEX_RELEASE", ROOT / "data" / "release")
