"""Agreement statistics between two judges."""

from __future__ import annotations

import pytest

from toolex.annotate.agreement import compare


def test_compare_counts_and_kappa():
    ref = [True, True, False, False, None, True]
    other = [True, False, False, True, True, True]
    a = compare(ref, other)
    assert (a.items, a.both_yes, a.both_no, a.reference_yes_only, a.other_yes_only, a.skipped_failures) == \
        (5, 2, 1, 1, 1, 1)
    assert a.agreement == pytest.approx(3 / 5)
    # p_ref = 3/5, p_other = 3/5 -> expected = 0.36 + 0.16 = 0.52
    assert a.kappa == pytest.approx((0.6 - 0.52) / 0.48)


def test_perfect_agreement():
    a = compare([True, False], [True, False])
    assert a.agreement == 1.0 and a.kappa == 1.0
