"""The git filter that keeps committed notebooks as committed: ``python -m toolex.report.notebook_filter``.

``make setup`` registers it as the ``clean`` filter of ``notebooks/*.ipynb`` (see ``.gitattributes``). It
reads a notebook on stdin and writes it without outputs, execution counts and what JupyterLab adds when it
opens or runs one (the Python version in ``language_info``, cell timings, widget state, the trust
signature), so opening, running or autosaving a notebook leaves ``git status`` clean. Cell ids are kept:
ours are stable names (``04-03``), not random ones.
"""

from __future__ import annotations

import sys

import nbformat

#: Metadata that differs between machines or runs, stripped on top of nbstripout's own defaults.
EXTRA_KEYS = (
    "metadata.signature",
    "metadata.widgets",
    "metadata.language_info.version",
    "metadata.papermill",
    "cell.metadata.collapsed",
    "cell.metadata.scrolled",
    "cell.metadata.execution",
    "cell.metadata.ExecuteTime",
    "cell.metadata.papermill",
    "cell.metadata.jupyter",
    "cell.metadata.heading_collapsed",
    "cell.metadata.hidden",
)


def clean(text: str) -> str:
    """The notebook ``text`` as it is committed: nbformat's own layout, one trailing newline."""
    from nbstripout import strip_output

    book = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    stripped = strip_output(book, keep_output=False, keep_count=False, keep_id=True,
                            extra_keys=list(EXTRA_KEYS))
    return nbformat.writes(stripped) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Clean stdin to stdout (git's ``clean`` filter), or the file named (git's ``textconv``)."""
    args = sys.argv[1:] if argv is None else argv
    if args:
        with open(args[0], encoding="utf-8") as handle:
            text = handle.read()
    else:
        text = sys.stdin.read()
    sys.stdout.write(clean(text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
