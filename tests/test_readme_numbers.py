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


def blocks() -> list[tuple[str, str]]:
    return BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def stated(text: str) -> list[str]:
    return [n.replace("−", "-") for n in NUMBER.findall(text)]


def kept_as_printed(number: str, values: pd.Series) -> bool:
    """``number`` is one of ``values`` rounded as printed; the kept file holds 4 decimals, so a value on a
    rounding edge (3.5250 kept for 3.525048, printed 3.53) may sit half its last digit away."""
    decimals = len(number.split(".")[1])
    return bool(((values - float(number)).abs() <= 0.5 * 10 ** -decimals + 0.5e-4 + 1e-9).any())


def paper_numbers() -> list[float]:
    """Every number of the paper's Table 1 and claims (the paper's values the README sets beside ours)."""
    from toolex.paper import load_claims, load_table1

    def walk(value: object) -> list[float]:
        if isinstance(value, dict):
            return [n for v in value.values() for n in walk(v)]
        if isinstance(value, list):
            return [n for v in value for n in walk(v)]
        return [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []

    table = load_table1()
    return walk(load_claims()) + [float(v) for v in table.to_numpy().ravel() if isinstance(v, int | float)]


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
    found = RUN_BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found, "README: no run-numbers block"
    for folder, text in found:
        values = pd.concat([run_numbers(ROOT / folder), pd.Series(paper_numbers())])
        numbers = stated(text)
        assert len(numbers) >= 6, f"{folder}: the block states almost no numbers"
        missing = [n for n in numbers if not kept_as_printed(n, values)]
        assert not missing, f"README numbers that the run {folder} does not give: {missing}"
