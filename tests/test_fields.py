"""Key fields: dates (explicit day-first) and booking ids, compared exactly."""

import pytest

from explorer.core.scoring.fields import DateValue, extract_dates, extract_ids, key_field_reason, key_fields_reason_best


@pytest.mark.parametrize("text", ["12 March", "March 12", "12 Mar 2026", "2026-03-12", "12/03/2026", "the 12th of March"])
def test_date_forms_are_one_date(text):
    (d,) = extract_dates(text, day_first=True)
    assert (d.month, d.day) == (3, 12)
    assert d.same_day(DateValue(3, 12, 2026))


def test_day_first_setting_is_explicit():
    assert extract_dates("03/04/2026", day_first=True) == [DateValue(4, 3, 2026)]
    assert extract_dates("03/04/2026", day_first=False) == [DateValue(3, 4, 2026)]
    assert extract_dates("2026-03-04", day_first=True) == [DateValue(3, 4, 2026)]  # ISO is always Y-M-D


def test_impossible_date_is_ignored():
    assert extract_dates("31/02/2026") == []


def test_year_must_agree_when_both_given():
    assert not DateValue(3, 12, 2026).same_day(DateValue(3, 12, 2027))
    assert DateValue(3, 12, None).same_day(DateValue(3, 12, 2027))


def test_ids_case_sensitive():
    assert extract_ids("ref BK-4821 and bk-4821") == ["BK-4821"]
    assert extract_ids("order A-1042", r"\b[A-Z]-\d{4}\b") == ["A-1042"]


def test_reasons():
    ref = "Booked BK-8832 to Rome, 12 March."
    assert key_field_reason("Booked BK-8832 to Rome, 21 March.", ref) == "date 21 March differs from 12 March"
    assert key_field_reason("Booked BK-8832 to Rome, March 12.", ref) == ""
    assert key_field_reason("Booked to Rome, 12 March.", ref) == "booking id BK-8832 missing from answer"
    assert key_field_reason("Booked BK-8832 to Rome.", ref) == "date 12 March missing from answer"
    assert key_field_reason("Booked BK-8832 to Rome, 12 March, back 14 March.", ref) == (
        "answer states date 14 March not in reference"
    )
    assert key_field_reason("Booked BK-8823 to Rome, 12 March.", ref) == "booking id BK-8823 differs from BK-8832"


def test_any_reference_may_agree():
    assert key_fields_reason_best("on 3 April", ["on 4 April", "on 3 April"]) == ""
    assert key_fields_reason_best("on 5 April", ["on 4 April", "on 3 April"]) == "date 5 April differs from 4 April"


def _compare_by_the_rule(kind, ref, ans, same):
    """The comparison rule as written before its short paths (issue 14): values missing from the
    answer, values the answer states that the reference lacks, the first of each named."""
    missing = [r for r in ref if not any(same(a, r) for a in ans)]
    unexpected = [a for a in ans if not any(same(a, r) for r in ref)]
    if missing and unexpected:
        return f"{kind} {unexpected[0]} differs from {missing[0]}"
    if missing:
        return f"{kind} {missing[0]} missing from answer"
    if unexpected:
        return f"answer states {kind} {unexpected[0]} not in reference"
    return ""


def test_compare_short_paths_follow_the_rule():
    # every pair of lists of 0-3 dates drawn from values that are the same day or not in every way
    # (no year vs a year, equal, other day), and of 0-3 ids
    from itertools import product

    from explorer.core.scoring.fields import _compare, _same_day

    days = [DateValue(3, 12, None), DateValue(3, 12, 2026), DateValue(3, 12, 2027), DateValue(3, 21, None)]
    lists = [list(c) for k in range(4) for c in product(days, repeat=k)]
    for ref, ans in product(lists, lists):
        assert _compare("date", ref, ans, _same_day) == _compare_by_the_rule("date", ref, ans, _same_day), (ref, ans)
    ids = [list(c) for k in range(4) for c in product(["BK-1", "BK-2"], repeat=k)]
    for ref, ans in product(ids, ids):
        assert _compare("booking id", ref, ans, str.__eq__) == _compare_by_the_rule("booking id", ref, ans, str.__eq__)
    # by hand: one value each
    assert _compare("date", [DateValue(3, 12, None)], [DateValue(3, 21, None)], _same_day) == "date 21 March differs from 12 March"
    assert _compare("date", [DateValue(3, 12, 2026)], [DateValue(3, 12, None)], _same_day) == ""
    assert _compare("booking id", [], ["BK-1"], str.__eq__) == "answer states booking id BK-1 not in reference"
