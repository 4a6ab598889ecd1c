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
