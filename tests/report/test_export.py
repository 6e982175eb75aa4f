"""Tables round-trip through CSV; Markdown and LaTeX carry caption and provenance; figures carry a footer."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from toolex.report.export import (  # noqa: E402
    export_table,
    latex_escape,
    read_table,
    save_figure,
    to_markdown,
)
from toolex.report.provenance import footer, provenance  # noqa: E402

TABLE = pd.DataFrame({"retriever": ["bm25", "dense:minilm"], "category": ["Code", "Web"],
                      "ndcg@10 Δ": [4.25, 7.5], "queries": [10, 20]})


def test_round_trip(tmp_path):
    prov = provenance("toy", "ab" * 32, {"k": 10}, "offline-similarity(minilm)", ["bm25"])
    written = export_table(TABLE, "toy", "A toy table", prov, folder=tmp_path)
    assert set(written) == {"csv", "md", "tex", "json"}
    pd.testing.assert_frame_equal(read_table("toy", tmp_path), TABLE)
    assert json.loads(written["json"].read_text())["judge"] == "offline-similarity(minilm)"
    md = written["md"].read_text()
    assert "**A toy table**" in md and "| bm25 | Code | 4.25 | 10 |" in md and "abababab" in md
    tex = written["tex"].read_text()
    assert r"\caption{A toy table}" in tex and r"ndcg@10 $\Delta$" in tex and "% provenance:" in tex


def test_latex_escape_and_markdown_pipes():
    assert latex_escape("a_b 50% & $x") == r"a\_b 50\% \& \$x"
    assert "a\\|b" in to_markdown(pd.DataFrame({"x": ["a|b"]}))


def test_missing_values_are_blank():
    md = to_markdown(pd.DataFrame({"x": [1.0, float("nan")]}))
    assert md.splitlines()[-1] == "|  |"


def test_figure_footer_names_data_retrievers_and_judge(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    text = footer("toolret/apibank (5 queries)", ["bm25", "dense:minilm"], "offline-similarity(minilm)")
    written = save_figure(fig, "toy", text, folder=tmp_path)
    assert written["png"].stat().st_size > 0 and written["pdf"].read_bytes().startswith(b"%PDF")
    shown = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    for part in ("Data: toolret/apibank", "Retrievers: bm25, dense:minilm",
                 "Judge: offline-similarity(minilm)"):
        assert part in shown
    plt.close(fig)


@pytest.mark.parametrize("digits", [1, 3])
def test_digits(tmp_path, digits):
    export_table(TABLE, "digits", folder=tmp_path, digits=digits)
    assert f"{4.25:.{digits}f}" in (tmp_path / "digits.md").read_text()


def test_counts_stored_as_floats_print_as_whole_numbers():
    import pandas as pd

    from toolex.report.export import to_latex, to_markdown

    table = pd.DataFrame({"statistic": ["queries", "sub_queries"], "ours": [3975.0, 6120.0],
                          "mean": [1.5, 2.25], "with_gap": [3.0, float("nan")]})
    markdown = to_markdown(table)
    assert "| queries | 3975 | 1.50 | 3 |" in markdown and "| sub_queries | 6120 | 2.25 |  |" in markdown
    assert r"queries & 3975 & 1.50 & 3 \\" in to_latex(table)


def test_count_rows_of_a_statistics_table_print_whole():
    import pandas as pd

    from toolex.report.export import to_markdown

    table = pd.DataFrame({"statistic": ["queries", "avg_combinations_per_query", "valid_combinations"],
                          "ours": [3975.0, 1.45, 5759.0], "paper": [7360.0, 5.3, 39087.0]})
    markdown = to_markdown(table)
    assert "| queries | 3975 | 7360 |" in markdown
    assert "| avg_combinations_per_query | 1.45 | 5.30 |" in markdown
    assert "| valid_combinations | 5759 | 39087 |" in markdown
