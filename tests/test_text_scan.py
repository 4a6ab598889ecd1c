"""Issue 14: the batch scan for dates and ids gives what the one-text functions give.

:func:`explorer.core.scoring.text_scan.scan_key_fields` finds, with numpy over the joined ASCII
texts, where a match can start, and tries the same patterns only there. The reference here is
the one-text code of :mod:`explorer.core.scoring.fields` (``date_spans`` / ``extract_dates`` in
both readings, ``extract_ids``, ``has_numeric_date``), run text by text; the texts are drawn from
pieces that sit on every start condition's edge (digit runs of 1 to 5, ordinals in either case,
month names and look-alikes, separators, ids with 1 to 4 capitals, NUL, non-ASCII digits and
letters).
"""

from __future__ import annotations

import re

from hypothesis import given, settings as hsettings, strategies as st

from explorer.core.scoring import fields
from explorer.core.scoring.text_scan import ascii_join, scan_key_fields

PIECES = [
    "1", "12", "123", "2026", "20261", "3rd", "12TH", "21st", "of", "March", "mar.", "Mar", "MARCH", "Sept", "sep", "May",
    "mayday", "June", "jul", "Decided", "dec", "Octopus", "-", "/", ".", ",", " ", "  ", "\t", "\n", "\x1c", "BK-4821",
    "AB-12", "ABC-123456", "ABCD-1234", "A-1234", "bk-4821", "X", "2026-03-12", "2026-3-1", "12/03/2026", "3.4.2026",
    "31/02/2026", "13/13/2026", "Oct-21-2026", "21-Oct-2026", "21/Oct/2026", "21.Oct.2026", "21-Oct", "_", "a1", "1a",
    "\x00", "é", "١٢", "１２", "ſep", "K", "ǅ",
]
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


def check(batch: list[str], id_pattern: str = fields.DEFAULT_ID_PATTERN) -> None:
    scan = scan_key_fields(batch, re.compile(id_pattern))
    for day_first in (True, False):  # all at once first, then each text (both fill the same cache)
        assert scan.all_dates(day_first) == [fields.extract_dates(text, day_first) for text in batch], day_first
    scan = scan_key_fields(batch, re.compile(id_pattern))
    for i, text in enumerate(batch):
        for day_first in (True, False):
            assert scan.spans(i, day_first) == tuple(fields.date_spans(text, day_first)), (text, day_first)
            assert scan.dates(i, day_first) == fields.extract_dates(text, day_first), (text, day_first)
        assert scan.ids[i] == fields.extract_ids(text, id_pattern), text
        assert scan.numeric[i] == fields.has_numeric_date(text), text


@hsettings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=12))
def test_batch_scan_equals_one_text_at_a_time(batch):
    check(batch)


@hsettings(max_examples=100, deadline=None)
@given(st.lists(texts, max_size=8))
def test_another_id_pattern_is_run_text_by_text(batch):
    check(batch, r"\b[A-Z]-\d{4}\b")
    check(batch, r"(?i)\bbk-\d+")


def test_by_hand():
    # seed 002's forms of one date, ids, and a date that needs the reading
    batch = ["Booked BK-8832 on 12 March.", "on March 12th, 2026 (ref BK-8832)", "03/04/2026", "2026-03-12", "no date", ""]
    scan = scan_key_fields(batch)
    assert [str(d) for d in scan.dates(0, True)] == ["12 March"] and scan.ids[0] == ["BK-8832"]
    assert [str(d) for d in scan.dates(1, True)] == ["12 March 2026"] and scan.ids[1] == ["BK-8832"]
    assert [str(d) for d in scan.dates(2, True)] == ["3 April 2026"] and [str(d) for d in scan.dates(2, False)] == ["4 March 2026"]
    assert scan.numeric == [False, False, True, False, False, False]
    assert scan.dates(4, True) == [] and scan.ids[5] == []


def test_a_text_holding_nul_and_neighbours_stay_apart():
    # no match may run from one text into the next: "12" ends one text, "March" starts the next
    batch = ["flight 12", "March is fine", "x\x0012 March"]
    scan = scan_key_fields(batch)
    assert scan.dates(0, True) == [] and scan.dates(1, True) == []
    assert [str(d) for d in scan.dates(2, True)] == ["12 March"]
    assert scan.spans(2, True)[0][:2] == (2, 10)  # positions within its own text


def test_ascii_join_offsets():
    j = ascii_join(["ab", "é", "", "cd"])
    assert j.index == [0, 2, 3] and j.others == [1]
    assert j.buffer == "ab\x00\x00cd" and j.starts.tolist() == [0, 3, 4, 7]
    assert j.owner(j.starts[:-1]).tolist() == [0, 1, 2]


# The default id pattern and the iso and numeric dates are verified whole with array checks (no
# ``re`` call): pieces on each of their edges (2-4 capitals, lowercase, underscore and digit
# before, 2-7 digits, a letter or underscore after, separators, NUL, a text's start and end,
# overlapping forms, long runs of whitespace before a day or a month, non-ASCII text).
EDGE_PIECES = [
    "AB", "ABC", "ABCD", "Ab", "ab", "Z", "_", "1", "12", "123", "1234", "12345", "123456", "1234567", "2026", "-", "/", ".",
    " ", "     ", "\t\t\t\t\t\t", "\x00", "a", "é", "٣", "BK-4821", "AB-1234567", "2026-03-12", "2026-13-40", "1/2/3/2026",
    "12.12.2026", "Mar", "March", "mar.", "SEPT", "Septembers", "of", " of ", "th", "St", "Oct-", "-21-2026",
]
edge_texts = st.lists(st.sampled_from(EDGE_PIECES), max_size=12).map("".join)


@hsettings(max_examples=400, deadline=None)
@given(st.lists(edge_texts, max_size=10))
def test_array_verified_matches_equal_re_on_edge_texts(batch):
    check(batch)


def test_ids_and_iso_dates_by_hand():
    # \b[A-Z]{2,3}-\d{3,6}\b read by hand: AB-123 and ABC-456789 match; ABCD-123 has no boundary
    # before 2 or 3 of its capitals; AB-1234567 has 7 digits; xAB-123, _AB-123 and 1AB-123 have no
    # boundary before the capitals; AB-123x and AB-123_ none after the digits; ab-123 is small
    text = "AB-123 ABC-456789 ABCD-123 AB-1234567 xAB-123 _AB-123 1AB-123 AB-123x AB-123_ ab-123 AB-123"
    assert scan_key_fields([text]).ids == [["AB-123", "ABC-456789"]]
    # texts side by side: an id at a text's very start and end, next to the NUL between texts
    scan = scan_key_fields(["XY-999", "AB-123", "CD-4567x", "x\x00EF-0001"])
    assert scan.ids == [["XY-999"], ["AB-123"], [], ["EF-0001"]]
    # ISO: 2026-03-12 is 12 March 2026; 2026-3-1x has no boundary after the day; 12026-01-01 and
    # 2026-001-01 have too many digits; in 2026-12-2026-12-12 only the second date has a 4-digit
    # year followed by two 1-2 digit parts; 2026-13-40 matches but is no date
    scan = scan_key_fields(["on 2026-03-12.", "2026-3-1x 12026-01-01 2026-001-01", "2026-12-2026-12-12", "2026-13-40"])
    assert scan.spans(0, True) == ((3, 13, fields.DateValue(3, 12, 2026)),)
    assert scan.dates(1, True) == []
    assert scan.spans(2, True) == ((8, 18, fields.DateValue(12, 12, 2026)),)
    assert scan.dates(3, True) == []
    # numeric: in 1/2/3/2026 the match starts at 2 (3 is no 4-digit year), 2 March 2026 day-first
    scan = scan_key_fields(["1/2/3/2026"])
    assert scan.spans(0, True) == ((2, 10, fields.DateValue(3, 2, 2026)),) and scan.numeric == [True]
    assert scan.spans(0, False) == ((2, 10, fields.DateValue(2, 3, 2026)),)


def test_day_and_month_over_long_whitespace_and_of():
    # the start conditions step over at most a few whitespace characters, then leave the rest to re
    batch = ["12" + " " * 9 + "March", "March" + "\t" * 9 + "12th", "12th of March", "12 of  March 2026", "3rd  of\tmay", "12 off March"]
    check(batch)
    scan = scan_key_fields(batch)
    assert [[str(d) for d in scan.dates(i, True)] for i in range(len(batch))] == [
        ["12 March"], ["12 March"], ["12 March"], ["12 March 2026"], ["3 May"], []]


def test_matches_at_skips_matches_inside_the_previous_one_as_finditer():
    # every position tried: a+ matches at 0, 1 and 2 of "aaa a"; finditer keeps 0-3 and 4-5 only
    from explorer.core.scoring.text_scan import _matches_at

    import numpy as np

    rx = re.compile("a+")
    found, at = _matches_at(rx, "aaa a", np.array([0, 1, 2, 4]))
    assert [m.span() for m in found] == [(0, 3), (4, 5)] == [m.span() for m in rx.finditer("aaa a")] and at == [0, 4]
    found, at = _matches_at(rx, "a a", np.array([0, 1, 2]))  # a position that does not match
    assert [m.span() for m in found] == [(0, 1), (2, 3)] and at == [0, 2]


def test_a_match_text_repeated_with_and_without_a_year():
    # texts with one match each take the value of an earlier match of the same kind and text only
    batch = ["Mar 12", "Mar 12 2026", "on Mar 12", "12 March", "12 March 2026", "x 12 March"]
    scan = scan_key_fields(batch)
    assert [[str(d) for d in dates] for dates in scan.all_dates(True)] == [
        ["12 March"], ["12 March 2026"], ["12 March"], ["12 March"], ["12 March 2026"], ["12 March"]]
