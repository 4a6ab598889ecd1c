"""Key-field check: dates and booking ids stated in an answer must equal the reference's.

Dates are found by pattern and parsed by ``dateutil`` with an explicit day-first / month-first
setting (never a guess); ISO ``YYYY-MM-DD`` is always year-month-day. These forms are one date:
``12 March``, ``March 12``, ``12 Mar 2026``, ``12th of March``, ``12-Mar-2026``, ``12/Mar/2026``,
``Mar-12-2026``, ``2026-03-12``, ``12/03/2026`` (day-first) and ``03/12/2026`` (month-first).
A case set has one reading (``CaseSet.day_first``, or ``Settings.day_first`` over it) and every
check uses it: key fields, the cascade's field rules and rung 4 of the ladder. A date written without a year equals any date with
the same day and month. Booking ids are found by a configurable regex and compared exactly
(case-sensitive).

A check fails when a date or id in the reference is missing or different in the answer, or when
the answer states a date or id the reference does not have (seed 002: "Exact check on dates and
booking ids").
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from dateutil import parser as date_parser

DEFAULT_ID_PATTERN = r"\b[A-Z]{2,3}-\d{3,6}\b"

ID_MATCH_TIMEOUT = 0.5
"""Seconds one search of a case set's own booking-id regex may take on one text before the load
stops (:class:`IdPatternTooSlow`)."""


class IdPatternTooSlow(ValueError):
    """A booking-id regex other than the default took longer than :data:`ID_MATCH_TIMEOUT` on one
    text: it backtracks without end on it (e.g. ``(a|aa)+$`` on thirty ``a`` and a ``!``)."""


class TimedIdPattern:
    """A booking-id regex other than the default, searched with the ``regex`` module (the syntax
    and Unicode rules of Python's ``re``) with a time limit per text, so that a case set uploaded
    with a catastrophically backtracking ``key_fields.id_pattern`` stops its own load with an error
    instead of holding the server's loop for every session (found by the bad-input trial). Gives
    ``finditer`` / ``findall`` / ``search`` (matches made at once, inside the limit),
    ``pattern`` and ``flags``. Raises :class:`IdPatternTooSlow`."""

    def __init__(self, pattern: str) -> None:
        import regex

        self.pattern = pattern
        self._rx = regex.compile(pattern)
        self.flags = self._rx.flags

    def _slow(self) -> IdPatternTooSlow:
        return IdPatternTooSlow(
            f"the booking-id regex {self.pattern!r} took over {ID_MATCH_TIMEOUT} s on one text: it backtracks "
            "without end (nested or overlapping repeats such as (a|aa)+); simplify it"
        )

    def finditer(self, text: str) -> list:
        try:
            return list(self._rx.finditer(text, timeout=ID_MATCH_TIMEOUT))
        except TimeoutError:
            raise self._slow() from None

    def findall(self, text: str) -> list:
        try:
            return self._rx.findall(text, timeout=ID_MATCH_TIMEOUT)
        except TimeoutError:
            raise self._slow() from None

    def search(self, text: str):
        try:
            return self._rx.search(text, timeout=ID_MATCH_TIMEOUT)
        except TimeoutError:
            raise self._slow() from None


class UnusableIdPattern(re.error):
    """A booking-id pattern that is a regular expression but cannot serve: it matches the empty
    string (``""``, ``[A-Z]*``: every answer would hold an empty booking id), or its repeats
    expand past :data:`MAX_EXPANDED` (``a{1000000000}`` held 4 GB for 13 s in ``regex.compile``
    and ended in MemoryError)."""


MAX_EXPANDED = 10_000
"""Most pattern items a booking-id regex may expand to, counting each ``{n}`` / ``{n,m}`` repeat
as its upper bound (its lower bound when unbounded) times what it repeats (nested repeats
multiply): ``regex`` builds them one by one. A booking id is a few characters long."""


def expanded_size(pattern: str) -> int:
    """Items ``pattern`` expands to: 1 per literal, class or anchor; a repeat ``{lo,hi}`` counts
    ``hi`` (``lo`` when unbounded, at least 1) times its item; groups, branches and lookarounds
    the sum of their parts (read from Python's own parse of the pattern, ``re._parser``). Raises
    ``re.error`` when ``pattern`` is not a regular expression."""
    from re import _constants as c, _parser  # type: ignore[attr-defined]

    repeats = {c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)}

    def size(items) -> int:
        total = 0
        for op, av in items:
            if op in repeats:
                lo, hi, item = av
                total += max(lo if hi == c.MAXREPEAT else hi, 1) * size(item)
            elif op is c.SUBPATTERN:
                total += size(av[-1])
            elif op is c.BRANCH:
                total += sum(size(branch) for branch in av[1])
            elif op in (c.ASSERT, c.ASSERT_NOT):
                total += size(av[1])
            elif op is getattr(c, "ATOMIC_GROUP", None):
                total += size(av)
            elif op is c.GROUPREF_EXISTS:
                total += size(av[1]) + (size(av[2]) if av[2] else 0)
            else:
                total += 1
        return total

    return size(_parser.parse(pattern))


def check_id_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled by ``re``. Raises ``re.error`` (its message) when it is not a regular
    expression, :class:`UnusableIdPattern` when it matches the empty string or expands past
    :data:`MAX_EXPANDED` items (:func:`expanded_size`)."""
    rx = re.compile(pattern)
    size = expanded_size(pattern)
    if size > MAX_EXPANDED:
        raise UnusableIdPattern(f"repeats too much: it expands to {size:,} items, over the {MAX_EXPANDED:,} a booking-id "
                                "pattern may (a booking id is a few characters long)")
    if rx.fullmatch(""):
        raise UnusableIdPattern("matches the empty string, so every answer would hold an empty booking id")
    return rx


@functools.lru_cache(maxsize=64)
def compile_id_pattern(pattern: str):
    """The compiled booking-id regex ``pattern`` for matching: the default by Python's ``re``; any
    other (a case set's ``key_fields.id_pattern``, ``--id-pattern``) as a :class:`TimedIdPattern`.
    Raises ``re.error`` as :func:`check_id_pattern` does (the loaders report its message)."""
    check_id_pattern(pattern)
    return re.compile(pattern) if pattern == DEFAULT_ID_PATTERN else TimedIdPattern(pattern)

_MONTHS = (
    "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_ORD = r"(?:st|nd|rd|th)?"
_NUMERIC = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b")
_DATE_PATTERNS = [
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("numeric", _NUMERIC),
    # 12 March, 12th of March 2026, 12 Mar. 2026; or day and month name joined by one separator,
    # the same before the year: 21-Oct-2026, 21/Oct/2026, 21.Oct.2026, 21-Oct (group 2 is that
    # separator, and the conditional picks the year's form)
    ("day_month", re.compile(
        rf"\b(\d{{1,2}})(?:{_ORD}\s+(?:of\s+)?|([-/.]))({_MONTHS})(?(2)(?:\2(?P<year2>\d{{4}}))?|\.?(?:,?\s+(?P<year>\d{{4}}))?)\b",
        re.I,
    )),
    # March 12, Mar 12th 2026; or Oct-21-2026 (a dash form needs its year). The lookahead (exactly
    # the characters that re.I matches to a month's first letter, U+017F is the long s) lets the
    # scan skip other positions fast: ~40% off, same matches
    ("month_day", re.compile(
        rf"(?=[jfmasondJFMASOND\u017f])\b({_MONTHS})(?:\.?\s+|(-))(\d{{1,2}}){_ORD}(?(2)-(?P<year2>\d{{4}})|(?:,?\s+(?P<year>\d{{4}}))?)\b",
        re.I,
    )),
]
_MONTH_NAMES = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]


@dataclass(frozen=True, order=True)
class DateValue:
    """A calendar date; ``year`` is None when the text gave none."""

    month: int
    day: int
    year: int | None = None

    def same_day(self, other: "DateValue") -> bool:
        """Equal day and month, and equal years unless either has none."""
        if (self.month, self.day) != (other.month, other.day):
            return False
        return self.year is None or other.year is None or self.year == other.year

    def __str__(self) -> str:
        text = f"{self.day} {_MONTH_NAMES[self.month - 1]}"
        return f"{text} {self.year}" if self.year is not None else text


@functools.lru_cache(maxsize=65536)  # dateutil is ~50 us a call; dates repeat across runs (DateValue is immutable)
def _parse(text: str, day_first: bool, has_year: bool) -> DateValue | None:
    try:
        when = date_parser.parse(text, dayfirst=day_first, default=dt.datetime(2000, 1, 1))
    except (ValueError, OverflowError):
        return None
    return DateValue(when.month, when.day, when.year if has_year else None)


def extract_dates(text: str, day_first: bool = True) -> list[DateValue]:
    """Dates stated in ``text``, in order of appearance, without duplicates.

    ``day_first`` decides ``03/04/2026`` (True: 3 April; False: 4 March). Impossible dates
    (``31/02/2026``) are ignored.
    """
    return unique_dates(_date_spans(text, day_first))


def date_spans(text: str, day_first: bool = True) -> list[tuple[int, int, DateValue]]:
    """Every date stated in ``text`` as ``(start, end, value)`` character spans, in text order
    (duplicates kept, spans never overlap). Same patterns and ``day_first`` rule as
    :func:`extract_dates`; used by the normalisation ladder to rewrite dates in place."""
    return list(_date_spans(text, day_first))


_ASCII_DIGIT = re.compile(r"[0-9]")


def _patterns_that_can_match(text: str):
    """``_DATE_PATTERNS``, or none for ASCII text without a digit (every pattern needs one; in
    ASCII text ``\\d`` is ``[0-9]``). Skipping never changes the result, only the time."""
    if text.isascii() and _ASCII_DIGIT.search(text) is None:
        return ()
    return _DATE_PATTERNS


@functools.lru_cache(maxsize=16384)  # reference texts repeat across the runs of a real export
def _date_spans(text: str, day_first: bool) -> tuple[tuple[int, int, DateValue], ...]:
    return resolve_date_matches([(kind, pattern.finditer(text)) for kind, pattern in _patterns_that_can_match(text)], day_first)


def date_match_value(kind: str, m: re.Match[str], day_first: bool) -> DateValue | None:
    """The date a match of the ``_DATE_PATTERNS`` entry ``kind`` states, or None when it is no
    date (``31/02/2026``; for ``numeric`` the reading decides)."""
    if kind == "iso":
        try:
            d = dt.date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return None
        return DateValue(d.month, d.day, d.year)
    if kind == "numeric":
        return _parse(f"{m[1]}/{m[2]}/{m[3]}", day_first, True)
    return _parse(m[0].replace(" of ", " "), day_first, m["year"] is not None or m["year2"] is not None)


def resolve_date_matches(
    per_pattern: Iterable[tuple[str, Iterable[re.Match[str]]]], day_first: bool, offset: int = 0
) -> tuple[tuple[int, int, DateValue], ...]:
    """The spans of :func:`date_spans` from each pattern's matches (``(kind, matches)`` in
    ``_DATE_PATTERNS`` order, each pattern's matches as ``finditer`` gives them): a match that
    overlaps a date already taken, or states no date, is skipped; the rest sorted by start.
    ``offset`` is subtracted from match positions (matches found in a longer buffer that holds
    the text at ``offset``; :mod:`explorer.core.scoring.text_scan`)."""
    found: list[tuple[int, int, DateValue]] = []
    taken: list[tuple[int, int]] = []
    for kind, matches in per_pattern:
        earlier = taken[:]  # one pattern's matches never overlap each other: check the earlier patterns' only
        for m in matches:
            start, end = m.span()
            if earlier and any(s < end and start < e for s, e in earlier):
                continue
            value = date_match_value(kind, m, day_first)
            if value is None:
                continue
            taken.append((start, end))
            found.append((start - offset, end - offset, value))
    if len(found) > 1:
        found.sort(key=_start)
    return tuple(found)


def _start(span: tuple[int, int, DateValue]) -> int:
    return span[0]


def unique_dates(spans: Iterable[tuple[int, int, DateValue]]) -> list[DateValue]:
    """The values of ``spans`` in order, without duplicates (what :func:`extract_dates` returns)."""
    out: list[DateValue] = []
    for _, _, v in spans:
        if not any(v == o for o in out):
            out.append(v)
    return out


def has_numeric_date(text: str) -> bool:
    """True when ``text`` states a numeric date such as ``03/04/2026`` or ``3.4.2026``: the only
    form whose reading (day-first or month-first) changes what it means."""
    if text.isascii() and _ASCII_DIGIT.search(text) is None:
        return False
    return _NUMERIC.search(text) is not None


def extract_ids(text: str, pattern: str | re.Pattern[str] = DEFAULT_ID_PATTERN) -> list[str]:
    """Booking ids matched by ``pattern`` in order of appearance, without duplicates (case kept)."""
    rx = compile_id_pattern(pattern) if isinstance(pattern, str) else pattern
    if "-" not in text and rx.pattern == DEFAULT_ID_PATTERN:  # the default pattern needs a "-"
        return []
    seen: list[str] = []
    for m in rx.finditer(text):
        if m[0] not in seen:
            seen.append(m[0])
    return seen


def _compare(kind: str, ref: list, ans: list, same) -> str:
    """Reason the answer's values of one kind disagree with the reference's, or "". The first
    lines are the general rule below worked out for no value or one value on a side (the common
    case of the batch features, issue 14): with no answer value every reference value is missing,
    with no reference value every answer value is unexpected, and one value each is missing and
    unexpected at once or neither (both tests are ``same(a, r)``)."""
    if not ans:
        return f"{kind} {ref[0]} missing from answer" if ref else ""
    if not ref:
        return f"answer states {kind} {ans[0]} not in reference"
    if len(ref) == 1 and len(ans) == 1:
        return "" if same(ans[0], ref[0]) else f"{kind} {ans[0]} differs from {ref[0]}"
    missing = [r for r in ref if not any(same(a, r) for a in ans)]
    unexpected = [a for a in ans if not any(same(a, r) for r in ref)]
    if missing and unexpected:
        return f"{kind} {unexpected[0]} differs from {missing[0]}"
    if missing:
        return f"{kind} {missing[0]} missing from answer"
    if unexpected:
        return f"answer states {kind} {unexpected[0]} not in reference"
    return ""


def key_field_reason(
    answer: str,
    reference: str,
    day_first: bool = True,
    id_pattern: str | re.Pattern[str] = DEFAULT_ID_PATTERN,
) -> str:
    """Why ``answer``'s dates and booking ids disagree with ``reference``'s; ``""`` when they agree.

    Examples: ``"date 21 March differs from 12 March"``, ``"booking id BK-4821 missing from
    answer"``, ``"answer states date 14 March not in reference"``.
    """
    return reason_from_values(
        extract_dates(reference, day_first), extract_dates(answer, day_first),
        extract_ids(reference, id_pattern), extract_ids(answer, id_pattern),
    )


def reason_from_values(ref_dates: list[DateValue], ans_dates: list[DateValue], ref_ids: list[str], ans_ids: list[str]) -> str:
    """:func:`key_field_reason` from the values already extracted (:func:`extract_dates` and
    :func:`extract_ids` of the reference and of the answer): dates first, then ids."""
    why = _compare("date", ref_dates, ans_dates, _same_day)
    if why:
        return why
    return _compare("booking id", ref_ids, ans_ids, str.__eq__)


def _same_day(a: DateValue, b: DateValue) -> bool:
    return a.same_day(b)


def key_fields_reason_best(
    answer: str,
    references: Sequence[str],
    day_first: bool = True,
    id_pattern: str | re.Pattern[str] = DEFAULT_ID_PATTERN,
) -> str:
    """``""`` when the answer agrees with any reference; else the reason against the first one."""
    reasons = [key_field_reason(answer, r, day_first, id_pattern) for r in references]
    if not reasons or any(r == "" for r in reasons):
        return ""
    return reasons[0]
