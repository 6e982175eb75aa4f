"""The README's numbers about the default setting come from a kept file: every decimal number between the
``default-numbers`` markers equals, as printed, a value of ``data/expected/paper_default.csv`` or a number of
the paper's own tables and claims (stated beside ours as the paper's)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"<!-- default-numbers: ([^ ]+) -->(.*?)<!-- /default-numbers -->", re.S)
NUMBER = re.compile(r"(?<![\w.])[−+-]?\d+\.\d+")


def documents() -> str:
    """The README and every page of ``docs/``: the numbers follow whichever page states them."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return "\n".join(p.read_text(encoding="utf-8") for p in pages)


def blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(documents())


def stated(text: str) -> list[str]:
    return [n.replace("−", "-") for n in NUMBER.findall(text)]


def kept_as_printed(number: str, values: pd.Series) -> bool:
    """``number`` is one of ``values`` rounded as printed; the kept file holds 4 decimals, so a value on a
    rounding edge (3.5250 kept for 3.525048, printed 3.53) may sit half its last digit away."""
    decimals = len(number.split(".")[1])
    return bool(((values - float(number)).abs() <= 0.5 * 10 ** -decimals + 0.5e-4 + 1e-9).any())


def json_numbers(value: object) -> list[float]:
    """Every number of a JSON document."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in json_numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in json_numbers(v)]
    return [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []


def paper_numbers() -> list[float]:
    """Every number of the paper's Table 1 and claims (the paper's values the README sets beside ours)."""
    from toolex.paper import load_claims, load_table1

    table = load_table1()
    return (json_numbers(load_claims())
            + [float(v) for v in table.to_numpy().ravel() if isinstance(v, int | float)])


def test_the_readme_states_default_numbers_only_from_a_kept_file():
    found = blocks()
    assert found, "README: no default-numbers block"
    for path, text in found:
        values = pd.concat([pd.read_csv(ROOT / path)["value"].astype(float), pd.Series(paper_numbers())])
        numbers = stated(text)
        assert len(numbers) >= 10, f"{path}: the block states almost no numbers"
        missing = [n for n in numbers if not kept_as_printed(n, values)]
        assert not missing, f"README numbers that {path} does not hold: {missing}"


def test_the_check_sees_a_number_no_file_holds():
    values = pd.Series([32.764, 0.96, 60.7859])
    assert kept_as_printed("32.76", values) and kept_as_printed("+0.96", values)
    assert kept_as_printed("60.8", values)
    assert not kept_as_printed("32.77", values) and not kept_as_printed("61.8", values)
    assert stated("BM25 32.76 → 33.72 (+0.96), −0.2 % and 4,886 queries") == ["32.76", "33.72", "+0.96",
                                                                             "-0.2"]


RUN_BLOCK = re.compile(r"<!-- run-numbers: ([^ ]+) -->(.*?)<!-- /run-numbers -->", re.S)


def run_numbers(folder: Path) -> pd.Series:
    """Every number notebook 11 shows of a kept downstream run: pass rates with their intervals and fallback
    shares per group and setting, the paired differences with their intervals and wins, query counts."""
    from toolex.downstream.run import pass_rates, results_frame
    from toolex.report.downstream import differences

    frame = results_frame(folder)
    tables = [pass_rates(frame), differences(frame)]
    return pd.concat([pd.to_numeric(t[c], errors="coerce") for t in tables for c in t.columns]).dropna()


def test_the_readme_states_downstream_numbers_only_from_the_kept_run():
    found = RUN_BLOCK.findall(documents())
    assert found, "README: no run-numbers block"
    for folder, text in found:
        values = pd.concat([run_numbers(ROOT / folder), pd.Series(paper_numbers())])
        numbers = stated(text)
        assert len(numbers) >= 6, f"{folder}: the block states almost no numbers"
        missing = [n for n in numbers if not kept_as_printed(n, values)]
        assert not missing, f"README numbers that the run {folder} does not give: {missing}"


KEPT_BLOCK = re.compile(r"<!-- kept-numbers: ([^ ]+) -->(.*?)<!-- /kept-numbers -->", re.S)


def kept_numbers(path: Path) -> pd.Series:
    """The numbers of a kept study, with what notebook 09 derives from the judge study (the label workflow's
    mean and range over draws)."""
    import json

    document = json.loads(path.read_text(encoding="utf-8"))
    numbers = pd.Series(json_numbers(document))
    credit = pd.Series(credit_numbers(document))
    if path.name == "judge_transfer.json":
        from toolex.report.transfer import kept_study

        labels = kept_study(path)["labels"]
        numbers = pd.concat([numbers, labels.select_dtypes("number").stack().astype(float)])
        credit = pd.concat([credit, *(labels[c] for c in labels.columns if str(c).startswith(CREDIT))])
    return pd.concat([numbers, 100 * credit])  # over- and under-credit are stated in points


CREDIT = ("over_credit", "under_credit")


def credit_numbers(value: object) -> list[float]:
    """The over- and under-credit values of a JSON document (fractions; the README states them in points)."""
    if isinstance(value, dict):
        return [n for k, v in value.items() for n in (json_numbers(v) if k in CREDIT else credit_numbers(v))]
    if isinstance(value, list):
        return [n for v in value for n in credit_numbers(v)]
    return []


def test_the_readme_states_study_numbers_only_from_the_kept_study():
    found = KEPT_BLOCK.findall(documents())
    assert found, "README: no kept-numbers block"
    for path, text in found:
        values = kept_numbers(ROOT / path)
        numbers = stated(text)
        assert len(numbers) >= 3, f"{path}: the block states almost no numbers"
        missing = [n for n in numbers if not kept_as_printed(n, values)]
        assert not missing, f"README numbers that {path} does not hold: {missing}"


def _pair(rows: pd.DataFrame, source: str, column: str, digits: int, scale: float = 1.0) -> str:
    """``BM25 / MiniLM`` of one column for one source, as the README prints it (``scale`` 100: in points)."""
    at = rows[rows["reported_on"] == source].set_index("retriever")[column] * scale
    return f"{at['bm25']:.{digits}f} / {at['dense:minilm']:.{digits}f}"


def test_the_readme_judge_tables_are_the_kept_study():
    """The leave-one-out, chosen-default and label tables of the README, row by row, from the kept study:
    each source named with its kind and share of alternatives."""
    from toolex.report.transfer import kept_study

    study = kept_study(ROOT / "data/validation/judge_transfer.json")
    readme = documents()
    names = {"sgd": "SGD", "sgd-x": "SGD-X", "sgd-pairs": "two-tool SGD-X queries", "etom": "ETOM level 2"}
    assert set(names) == set(study["sources"])
    loo = study["leave_one_out"]
    loo = loo[(loo["recipe"] == study["chosen"]) & (loo["part"] == "report")]
    sources = study["sources"]
    rows = [f"| {names[s]} | {sources[s]['kind']} | {sources[s]['report_equivalent_share']:.3f} "
            f"| {_pair(loo, s, 'recovered', 2)} | {_pair(loo, s, 'over_credit', 1, 100)} | "
            f"{_pair(loo, s, 'under_credit', 1, 100)} |" for s in names]
    default, ceiling, former = study["default"], study["ceiling"], study["former"]
    rows += [f"| {names[s]}, recovered share | {_pair(default, s, 'recovered', 2)} | "
             f"{_pair(former, s, 'recovered', 2)} | {_pair(ceiling, s, 'recovered', 2)} |" for s in names]

    def over_under(rows: pd.DataFrame, source: str) -> str:
        at = rows[rows["reported_on"] == source].set_index("retriever")
        return ", ".join(f"{100 * at.loc[r, 'over_credit']:.1f} / {100 * at.loc[r, 'under_credit']:.1f}"
                         for r in ("bm25", "dense:minilm"))

    rows += [f"| {names[s]}, over / under-credit | {over_under(default, s)} | {over_under(former, s)} | "
             f"{over_under(ceiling, s)} |" for s in names]
    labels = study["labels"]
    for s in names:
        cells = []
        for n in (50, 100, 150):
            at = labels[(labels["reported_on"] == s) & (labels["labels"] == n)].set_index("retriever")
            cells.append(f"{at.loc['bm25', 'recovered mean']:.2f} / "
                         f"{at.loc['dense:minilm', 'recovered mean']:.2f} "
                         f"({at['recovered min'].min():.2f}–{at['recovered max'].max():.2f})")
        rows.append(f"| {names[s]} | " + " | ".join(cells) + " |")
    missing = [row for row in rows if row not in readme]
    assert not missing, f"README judge tables that the kept study does not give: {missing}"
