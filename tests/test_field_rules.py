"""Hard field rules (amount, id, date, negation) and per-field expectations."""

import json

import pytest

from explorer.core.io.casefile import case_set_from_data, case_set_to_data
from explorer.core.io.errors import LoadError
from explorer.core.scoring.field_rules import (
    amount_rule,
    date_rule,
    hard_rules_best,
    id_rule,
    negation_rule,
    score_fields,
)
from explorer.core.io.model import ExpectedField as F


@pytest.mark.parametrize(
    "answer, reference",
    [
        ("Your flight is not booked.", "Your flight is booked."),
        ("Your flight is booked.", "Your flight is not booked."),
        ("You cannot cancel online.", "You can cancel online."),
        ("You can’t cancel online.", "You can cancel online."),
        ("No refund is due for this fare.", "A refund is due for this fare."),
    ],
)
def test_negation_mismatch_fails(answer, reference):
    assert negation_rule(answer, reference).passed is False


def test_negation_on_both_sides_or_neither_passes():
    assert negation_rule("There is no refund.", "No refund applies.").passed
    assert negation_rule("It is booked.", "Booking confirmed.").passed
    assert negation_rule("Your flight is not booked.", "Your flight is booked.").reason == 'answer negates ("not"), reference does not'


def test_amounts_compare_values_not_spellings():
    assert amount_rule("Refund of 1,000.00 EUR", "Refund of 1000 EUR").passed
    assert amount_rule("Refund of 1 000 EUR", "Refund of 1000 EUR").passed
    assert amount_rule("Erstattung 1.000,50 EUR", "Erstattung 1000,5 EUR", locale="de").passed
    res = amount_rule("Refund of 120 EUR", "Refund of 150 EUR")
    assert (res.passed, res.reason) == (False, "amount 120 differs from 150")
    assert amount_rule("2 bags", "2 bags and 1 seat").reason == "amount 1 missing from answer"


def test_amounts_ignore_digits_of_dates_and_ids():
    # 12 (date) and 4821 (id) are not amounts: only the 30 is, and it agrees
    assert amount_rule("BK-4821 on 12 March: 30 EUR", "30 EUR, BK-4821, 2026-03-12").passed


def test_ids_and_dates():
    assert id_rule("Ref BK-4821", "Reference BK-4821").passed
    assert id_rule("Ref BK-4812", "Reference BK-4821").reason == "id BK-4812 differs from BK-4821"
    assert date_rule("on 2026-03-12", "on 12 March 2026").passed
    assert date_rule("on 03/04/2026", "on 3 April 2026", day_first=True).passed
    assert not date_rule("on 03/04/2026", "on 3 April 2026", day_first=False).passed
    assert hard_rules_best("TP1351 is booked for 21 March", ["TP1351 is booked for 12 March"]).rule == "date"
    # any reference that agrees is enough
    assert hard_rules_best("It is booked", ["It is not booked", "It is booked"]) is None


FIELDS = (
    F("booking_id", "BK-4821", "id"),
    F("total", "1,250.00", "amount"),
    F("date", "12 March 2026", "date"),
    F("status", "Confirmed", "exact@3"),
    F("note", "flight to Lisbon", "f1", hard=False, weight=2.0),
)


def test_structured_answer_with_keys_reordered_passes():
    expected = {"booking_id": "BK-4821", "total": 1250, "date": "2026-03-12", "status": "confirmed", "note": "flight to Lisbon"}
    reordered = json.dumps(dict(reversed(list(expected.items()))), indent=4)
    verdict = score_fields(reordered, FIELDS)
    assert verdict.passed and verdict.first_failure is None
    assert [r.passed for r in verdict.results] == [True] * 5
    assert verdict.soft_score == 1.0  # "flight to Lisbon" equals the value: F1 = 1


def test_structured_answer_wrong_hard_field_fails():
    answer = json.dumps({"status": "confirmed", "booking_id": "BK-4821", "total": 1205, "date": "2026-03-12", "note": "your flight to Lisbon"})
    verdict = score_fields(answer, FIELDS)
    assert not verdict.passed
    assert verdict.first_failure.name == "total"
    # soft: F1("your flight to lisbon", "flight to lisbon") = 2*3/(4+3)
    assert verdict.soft_score == pytest.approx(6 / 7)


def test_missing_key_fails_its_field():
    verdict = score_fields('{"booking_id": "BK-4821"}', FIELDS[:2])
    assert verdict.first_failure.reason == "total: missing from the structured answer"


def test_text_answer_fields_are_extracted():
    text = "Confirmed: booking BK-4821 on 12/03/2026, total 1 250 EUR."
    verdict = score_fields(text, FIELDS[:4])
    assert verdict.passed and verdict.soft_score is None
    assert not score_fields("Booking BK-4821 on 21/03/2026, total 1 250 EUR. Confirmed", FIELDS[:4]).passed


def _cases(fields):
    return {
        "format": "metric-explorer/cases@1",
        "name": "t",
        "runs": [{"id": "R1", "invocations": [{"expected_calls": [], "actual_calls": [], "answer": "a", "references": ["a"]}], "expected_fields": fields}],
    }


def test_casefile_reads_and_writes_expected_fields():
    fields = [{"name": "booking_id", "value": "BK-4821", "strategy": "id"}, {"name": "note", "value": "x", "strategy": "f1", "hard": False, "weight": 0.5, "threshold": 0.6}]
    cs = case_set_from_data(_cases(fields), "t.json")
    assert cs.runs[0].expected_fields == (F("booking_id", "BK-4821", "id"), F("note", "x", "f1", False, 0.5, 0.6))
    again = case_set_from_data(case_set_to_data(cs), "t.json")
    assert again.runs[0].expected_fields == cs.runs[0].expected_fields


def test_casefile_refuses_unknown_strategy():
    with pytest.raises(LoadError, match=r"t.json: runs\[0\].expected_fields\[0\].strategy"):
        case_set_from_data(_cases([{"name": "x", "value": 1, "strategy": "fuzzy"}]), "t.json")
