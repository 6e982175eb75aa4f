"""A layout check for figures fit to print: no text leaves the canvas, no two texts overlap.

Every figure goes through :func:`toolex.report.export.save_figure`, which runs this check after the footer
is placed: a problem is printed, and raises :class:`FigureLayoutError` when ``TOOLEX_STRICT_LAYOUT=1`` (the
smoke run of the tests sets it, so a crowded figure fails CI).
"""

from __future__ import annotations

import itertools
import os
from typing import Any

STRICT = "TOOLEX_STRICT_LAYOUT"
#: Pixels two boxes may share, or a box may pass the edge, before it counts (anti-aliasing, rounding).
SLACK = 1.0


class FigureLayoutError(ValueError):
    """A figure whose texts overlap or leave the canvas."""


def _drawn_texts(fig: Any) -> list[Any]:
    """The texts the renderer draws: visible, non-empty, tick labels only for ticks inside the view."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    hidden: set[int] = set()  # labels of ticks outside the view: kept by matplotlib, never drawn
    for axis in fig.findobj(Axis):
        low, high = sorted(axis.get_view_interval())
        for tick in axis.get_major_ticks() + axis.get_minor_ticks():
            loc = tick.get_loc()
            if loc is None or not low - 1e-9 <= loc <= high + 1e-9:
                hidden.update((id(tick.label1), id(tick.label2)))
    texts = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in hidden:
            continue
        if text.axes is not None and not text.axes.get_visible():
            continue
        texts.append(text)
    return texts


def _name(text: Any) -> str:
    content = " ".join(text.get_text().split())
    return repr(content if len(content) <= 40 else content[:39] + "…")


def layout_problems(fig: Any) -> list[str]:
    """What a reader would see as broken: a text cut by the canvas edge, or two texts on top of each other."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    boxes = []
    for text in _drawn_texts(fig):
        box = text.get_window_extent(renderer)
        if box.width <= 0 or box.height <= 0:
            continue
        boxes.append((text, box))
    problems = []
    for text, box in boxes:
        if (box.x0 < canvas.x0 - SLACK or box.y0 < canvas.y0 - SLACK or box.x1 > canvas.x1 + SLACK
                or box.y1 > canvas.y1 + SLACK):
            problems.append(f"{_name(text)} leaves the canvas")
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        width = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
        height = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
        if width > SLACK and height > SLACK:
            problems.append(f"{_name(a)} overlaps {_name(b)}")
    return problems


def check_layout(fig: Any, stem: str) -> list[str]:
    """Run :func:`layout_problems`; print each, and raise when the strict setting is on."""
    import sys

    problems = layout_problems(fig)
    for problem in problems:
        print(f"[toolex] figure {stem}: {problem}", file=sys.stderr)
    if problems and os.environ.get(STRICT) == "1":
        raise FigureLayoutError(f"figure {stem}: " + "; ".join(problems))
    return problems
