"""Many texts scanned at once for the key-field check: dates and booking ids, same results as one
text at a time.

:func:`explorer.core.scoring.fields.date_spans` runs four regular expressions over each text;
Python's ``re`` tries every position of a text, about 20-40 ns a character and pattern, which made
the key-field check the largest part of computing features (issue 14). Here the ASCII texts of a
batch are joined into one buffer (NUL between texts) and numpy, in a few passes over its bytes
(one ``bytes.translate`` to per-byte flags, then masks and shifts), finds every position where a
match *can* start (a necessary condition per pattern, below). Where the whole pattern is regular
(``iso``, ``numeric``, the default id pattern) the array checks decide the match itself; else the
same compiled pattern is tried only at those positions (``pattern.match(buffer, position)``),
walking them left to right and skipping those inside the previous match, which is exactly what
``finditer`` returns: ``finditer`` reports, from the end of the last match, the leftmost position
where the pattern matches, and no other position can match. The matches then go through the same
overlap resolution and date parsing as one text (``fields.resolve_date_matches``).

Why the joined buffer changes nothing: no element of the patterns matches NUL (``\\d``, ``\\s``,
``[-/.]``, letters, ``,``), so no match crosses from one text into the next, and ``\\b`` at a
text's first or last character sees a non-word character, as at the start or end of a string (the
buffer's first position reads index -1, a NUL of the padding).
Positions are mapped back with each text's offset, so a text holding NUL itself is still right.

On ASCII text ``\\d`` is ``[0-9]``, a word character is ``[A-Za-z0-9_]``, ``\\s`` is
``str.isspace`` and ``re.I`` folds only ASCII letters. Matches verified whole:

* ``iso`` ``\\b(\\d{4})-(\\d{1,2})-(\\d{1,2})\\b``: a run of exactly 4 digits at a word boundary, ``-``,
  a run of 1-2 digits, ``-``, a run of 1-2 digits, then a non-word character (a longer run fails
  whatever ``\\d{1,2}`` takes: the next character would be a digit, neither ``-`` nor a boundary);
* ``numeric`` ``\\b(\\d{1,2})[/.](\\d{1,2})[/.](\\d{4})\\b``: runs of 1-2, 1-2 and exactly 4 digits at a
  boundary, joined by ``/`` or ``.``, then a non-word character;
* booking ids, the default pattern ``\\b[A-Z]{2,3}-\\d{3,6}\\b`` only: a ``-`` between two capitals and
  a run of 3-6 digits followed by a non-word character; the match starts at a third capital before
  them when there is one, else at the two, and needs a non-word character before its start
  (``ABCD-123`` and ``xAB-123`` do not match). Another id pattern is run over each text
  (:func:`explorer.core.scoring.fields.extract_ids`).

Each match is found from its own start, whatever else is near: none of these can overlap another of
its kind (inside a match only the first digit run, or the first capital, sits where a match can
start: the other runs of ``iso`` are 1-2 digits, ``numeric``'s second run is followed by a 4-digit
run, not 1-2 digits and a separator), so the matches are ``finditer``'s.

Start conditions of the other two (``re`` decides there):

* ``day_month`` ``\\b(\\d{1,2})(?:(st|nd|rd|th)?\\s+(?:of\\s+)?|([-/.]))(month)...``: a run of 1-2
  digits at a word boundary, then ``-``, ``/`` or ``.`` and a month's first three letters; or (an
  ordinal, either case, and) whitespace, then three letters of a month or ``of`` and whitespace
  (a position still on whitespace after :data:`_SPACE_STEPS` steps is kept);
* ``month_day`` ``(month)(?:\\.?\\s+|(-))(\\d{1,2})...``: a word that starts at a word boundary with
  the three letters of a month (``jan`` ... ``dec``, either case) and has at most 9 letters (the
  month names take the whole word: what follows them is never a letter), then ``-`` and a run of
  1-2 digits, or (``.`` and) whitespace and a run of 1-2 digits (a longer run fails: after
  ``\\d{1,2}`` come an ordinal, a year after ``,`` or whitespace, or a boundary).

Texts that are not ASCII go through the one-text functions. ``tests/test_text_scan.py`` checks
every result against :func:`~explorer.core.scoring.fields.date_spans`,
:func:`~explorer.core.scoring.fields.has_numeric_date` and
:func:`~explorer.core.scoring.fields.extract_ids` on random texts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .fields import (
    DEFAULT_ID_PATTERN, DateValue, compile_id_pattern, _DATE_PATTERNS, _patterns_that_can_match, date_match_value, extract_ids, resolve_date_matches,
    unique_dates,
)

SEPARATOR = "\x00"
"""Between two texts in the joined buffer (no date or id pattern matches it)."""


def _table(chars: str) -> np.ndarray:
    out = np.zeros(256, dtype=bool)
    out[np.frombuffer(chars.encode("ascii"), dtype=np.uint8)] = True
    return out


_DIGIT = _table("0123456789")
_UPPER = _table("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ALPHA = _table("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_WORD = _DIGIT | _ALPHA | _table("_")
_ASCII_SPACE = _table(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")  # what \s matches in ASCII text (str.isspace)
_DATE_SEP = _table("-/.")
_NUMERIC_SEP = _table("/.")
_ORDINAL_FIRST = _table("sSnNrRtT")
_MONTH3 = np.array([(ord(m[0]) << 16) | (ord(m[1]) << 8) | ord(m[2])
                    for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")], dtype=np.int64)
_LONGEST_MONTH = len("september")
_SPACE_STEPS = 4
"""Whitespace characters a start condition steps over before it stops looking and keeps the
position (``re`` then decides): bounds the work on long runs of spaces."""

# Bit flags per byte (one bytes.translate of the buffer, then a mask and a shift per flag)
_F_WORD, _F_DIGIT, _F_M1, _F_M2, _F_M3 = 1, 2, 8, 16, 32
_FLAGS = np.zeros(256, dtype=np.uint8)
for _bit, _chars in ((_F_M1, "jfmasond"), (_F_M2, "aepuco"), (_F_M3, "nbrylgptvc")):  # letters 1, 2, 3 of a month's name
    _FLAGS[_table(_chars + _chars.upper())] |= _bit
_FLAGS[_WORD] |= _F_WORD
_FLAGS[_DIGIT] |= _F_DIGIT
_FLAGS_TABLE = _FLAGS.tobytes()
_ORDINAL_PAIR = np.zeros(1 << 16, dtype=bool)  # (low byte << 8) | next low byte is st, nd, rd or th
_ORDINAL_PAIR[[(ord(a) << 8) | ord(b) for a, b in ("st", "nd", "rd", "th")]] = True


def _flag(flags: np.ndarray, bit: int) -> np.ndarray:
    """bool: ``bit`` of each byte's flags."""
    return ((flags >> (bit.bit_length() - 1)) & 1).view(bool)


_KINDS = tuple(kind for kind, _ in _DATE_PATTERNS)
_PATTERN = dict(_DATE_PATTERNS)
_DEFAULT_ID_RX = re.compile(DEFAULT_ID_PATTERN)
_NO_DATES: list[DateValue] = []


@dataclass(frozen=True)
class AsciiJoin:
    """The ASCII texts of a batch joined by :data:`SEPARATOR`: ``index[k]`` is the batch position
    of the k-th ASCII text, ``buffer`` the joined str, ``codes`` its bytes as uint8 with 16 NUL
    bytes of padding at the end (so reads a few bytes past any position stay in bounds, and index
    -1 reads a NUL), ``starts`` int64 (K + 1,) where each text starts in ``buffer`` (the last:
    ``len(buffer) + 1``). ``others``: batch positions of the texts that are not ASCII."""

    index: list[int]
    buffer: str
    codes: np.ndarray
    starts: np.ndarray
    others: list[int]

    def owner(self, positions: np.ndarray) -> np.ndarray:
        """int64: the k (into ``index``) of the text holding each buffer position."""
        return np.searchsorted(self.starts, positions, side="right") - 1


def ascii_join(texts: Sequence[str]) -> AsciiJoin:
    """Join the ASCII texts of ``texts`` (see :class:`AsciiJoin`)."""
    index = [i for i, t in enumerate(texts) if t.isascii()]
    others = [i for i, t in enumerate(texts) if not t.isascii()] if len(index) < len(texts) else []
    parts = [texts[i] for i in index]
    buffer = SEPARATOR.join(parts)
    codes = np.frombuffer(buffer.encode("ascii") + b"\x00" * 16, dtype=np.uint8)
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    starts = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=starts[1:])
    return AsciiJoin(index, buffer, codes, starts, others)


class VerifiedMatch:
    """A match of an ``iso`` or ``numeric`` date found by the array checks alone (module
    docstring): what :func:`~explorer.core.scoring.fields.date_match_value` and
    :func:`~explorer.core.scoring.fields.resolve_date_matches` read of a ``re.Match``:
    ``span()``, ``start()``, ``end()`` and ``m[g]`` for the groups 0-3 (str)."""

    __slots__ = ("_buffer", "_bounds")

    def __init__(self, buffer: str, bounds: tuple[int, ...]) -> None:
        self._buffer = buffer
        self._bounds = bounds  # start, end of group 0, then of groups 1, 2, 3

    def span(self) -> tuple[int, int]:
        return self._bounds[0], self._bounds[1]

    def start(self) -> int:
        return self._bounds[0]

    def end(self) -> int:
        return self._bounds[1]

    def __getitem__(self, group: int) -> str:
        return self._buffer[self._bounds[2 * group] : self._bounds[2 * group + 1]]


class _Looked:
    """``looked[at]``: ``table`` of the bytes at the positions ``at`` (int64 array), looked up
    only where asked instead of over the whole buffer (``table`` None: the bytes with bit 0x20
    set, which makes ASCII capitals small and no other byte a letter)."""

    __slots__ = ("codes", "table")

    def __init__(self, codes: np.ndarray, table: np.ndarray | None) -> None:
        self.codes = codes
        self.table = table

    def __getitem__(self, at: np.ndarray) -> np.ndarray:
        got = self.codes[at]
        return got | np.uint8(0x20) if self.table is None else self.table[got]


def _digits(digit: np.ndarray, at: np.ndarray, most: int) -> np.ndarray:
    """int64: how many digits follow each position of ``at`` (``at`` included), counted up to
    ``most`` (``most`` means ``most`` or more)."""
    alive = digit[at]
    length = alive.astype(np.int64)
    for k in range(1, most):
        alive = alive & digit[at + k]
        length += alive
    return length


def _spaces_skipped(space: _Looked, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each position of ``at`` moved past up to :data:`_SPACE_STEPS` whitespace characters,
    bool: still on whitespace there, so the run is longer)."""
    at = at.copy()
    for _ in range(_SPACE_STEPS):
        on = space[at]
        if not on.any():
            return at, on
        at += on
    return at, space[at]


def _month_at(low: _Looked, at: np.ndarray) -> np.ndarray:
    """bool: the three letters at each position of ``at`` start a month name (``low``: the codes
    with bit 0x20 set)."""
    tri = (low[at].astype(np.int64) << 16) | (low[at + 1].astype(np.int64) << 8) | low[at + 2]
    return np.isin(tri, _MONTH3)


def _candidates(j: AsciiJoin, id_default: bool) -> dict[str, np.ndarray]:
    """Per date pattern (and, with ``id_default``, the default id pattern), int64 buffer
    positions in increasing order: for ``day_month`` / ``month_day``, where a match can start
    (conditions of the module docstring, tried with ``re`` there); for ``iso``, ``numeric`` and
    ``ids``, the matches themselves, verified whole: ``(K, 2)`` start, end for ``ids``, ``(K, 8)``
    start, end of group 0 to 3 for the dates."""
    b = j.codes
    flags = np.frombuffer(b.tobytes().translate(_FLAGS_TABLE), dtype=np.uint8)
    word = _flag(flags, _F_WORD)
    digit = _flag(flags, _F_DIGIT)
    space = _Looked(b, _ASCII_SPACE)
    edge = ~word[:-1]  # position p + 1 is at a word boundary when it is a word character
    # digit runs starting at a word boundary (index -1 reads the padding: a boundary at 0)
    dstart = np.flatnonzero(digit[1:] & edge) + 1
    if digit[0]:
        dstart = np.concatenate([[0], dstart])
    length = _digits(digit, dstart, 5)
    end = dstart + length
    after = b[end]
    out: dict[str, np.ndarray] = {}

    # iso \b(\d{4})-(\d{1,2})-(\d{1,2})\b: 4 digits at a boundary, "-", 1-2 digits, "-", 1-2
    # digits, then no word character
    s = dstart[(length == 4) & (after == ord("-"))]
    g2 = s + 5
    n2 = _digits(digit, g2, 3)
    g3 = g2 + n2 + 1
    n3 = _digits(digit, g3, 3)
    ok = (n2 >= 1) & (n2 <= 2) & (b[g2 + n2] == ord("-")) & (n3 >= 1) & (n3 <= 2) & ~word[g3 + n3]
    s, g2, n2, g3, n3 = s[ok], g2[ok], n2[ok], g3[ok], n3[ok]
    out["iso"] = np.stack([s, g3 + n3, s, s + 4, g2, g2 + n2, g3, g3 + n3], axis=1)

    # numeric \b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b: 1-2 digits at a boundary, "/" or ".", 1-2
    # digits, "/" or ".", 4 digits, then no word character
    short = length <= 2
    pick = short & _NUMERIC_SEP[after]
    s, n1 = dstart[pick], length[pick]
    g2 = s + n1 + 1
    n2 = _digits(digit, g2, 3)
    g3 = g2 + n2 + 1
    n3 = _digits(digit, g3, 5)
    ok = (n2 >= 1) & (n2 <= 2) & _NUMERIC_SEP[b[g2 + n2]] & (n3 == 4) & ~word[g3 + 4]
    s, n1, g2, n2, g3 = s[ok], n1[ok], g2[ok], n2[ok], g3[ok]
    out["numeric"] = np.stack([s, g3 + 4, s, s + n1, g2, g2 + n2, g3, g3 + 4], axis=1)

    low = _Looked(b, None)

    # day_month: 1-2 digits at a boundary, then "-", "/" or "." and a month, or (an ordinal and)
    # whitespace, then a month or "of"
    pick = short & (_DATE_SEP[after] | space[end] | _ORDINAL_FIRST[after])
    s, at = dstart[pick], end[pick]
    sep = _DATE_SEP[b[at]]
    at = at + 2 * _ORDINAL_PAIR[(low[at].astype(np.int64) << 8) | low[at + 1]]
    spaced = ~sep & space[at]
    at = at + sep  # the month's first letter after a separator
    at[spaced], long_run = _spaces_skipped(space, at[spaced])
    month = _month_at(low, at)
    ok = sep & month
    of = (low[at] == ord("o")) & (low[at + 1] == ord("f")) & space[at + 2]
    ok[spaced] |= month[spaced] | of[spaced] | long_run
    out["day_month"] = s[ok]

    # month_day: a month's three letters at a boundary, the word's letters (at most 9), then "-" and
    # 1-2 digits, or ("." and) whitespace and 1-2 digits
    m1, m2, m3 = _flag(flags, _F_M1), _flag(flags, _F_M2), _flag(flags, _F_M3)
    s = np.flatnonzero(m1[1:-2] & m2[2:-1] & m3[3:] & edge[:-2]) + 1
    if m1[0] and m2[1] and m3[2]:
        s = np.concatenate([[0], s])
    s = s[_month_at(low, s)]
    alpha = _Looked(b, _ALPHA)
    letters = np.full(len(s), 3, dtype=np.int64)
    alive = np.ones(len(s), dtype=bool)
    for k in range(3, _LONGEST_MONTH + 1):
        alive &= alpha[s + k]
        letters += alive
    at = s + letters
    dash = b[at] == ord("-")
    at = at + (b[at] == ord("."))
    spaced = ~dash & space[at]
    at = at + dash  # the day's first digit after a "-"
    at[spaced], long_run = _spaces_skipped(space, at[spaced])
    day = _digits(digit, at, 3)
    ok = (day >= 1) & (day <= 2)
    ok[spaced] |= long_run
    ok &= (letters <= _LONGEST_MONTH) & (dash | spaced)
    out["month_day"] = s[ok]

    if id_default:
        # \b[A-Z]{2,3}-\d{3,6}\b: "-" with two capitals before it and 3-6 digits after it, then no
        # word character; the match starts at a third capital when there is one (then a boundary
        # before it), else at the two (a boundary before them)
        d = np.flatnonzero(b == ord("-"))
        d = d[digit[d + 1] & _UPPER[b[d - 1]] & _UPPER[b[d - 2]]]
        start = np.where(_UPPER[b[d - 3]], d - 3, d - 2)
        n = _digits(digit, d + 1, 7)
        end = d + 1 + n
        ok = ~word[start - 1] & (n >= 3) & (n <= 6) & ~word[end]
        out["ids"] = np.stack([start[ok], end[ok]], axis=1)
    return out


def _matches_at(pattern: re.Pattern[str], buffer: str, positions: np.ndarray) -> tuple[list[re.Match[str]], list[int]]:
    """``pattern.finditer(buffer)`` when a match can start only at ``positions`` (sorted), and
    where each match starts. The pattern is tried at every position; when no match starts inside
    the one before it (the common case) those are finditer's matches, else the positions are
    walked left to right, skipping those inside the previous match."""
    match = pattern.match
    at = positions.tolist()
    tried = [match(buffer, p) for p in at]
    out = [m for m in tried if m is not None]
    if len(out) < len(tried):
        at = [p for p, m in zip(at, tried) if m is not None]
    if len(out) < 2 or all(m.end() <= p for m, p in zip(out, at[1:])):
        return out, at
    out, at, end = [], [], 0
    for p in positions.tolist():
        if p < end:
            continue
        m = match(buffer, p)
        if m is not None:
            out.append(m)
            at.append(p)
            end = m.end()
    return out, at


@dataclass
class KeyScan:
    """Dates and ids found in each of a batch of texts (see :func:`scan_key_fields`).

    ``matches[i]``: ``(kind, [match, ...])`` per date pattern that matched text i, in
    ``_DATE_PATTERNS`` order (matches as ``finditer`` gives them, a ``re.Match`` or a
    :class:`VerifiedMatch`, positions in a buffer where the text starts at ``offsets[i]``);
    ``ids[i]``: :func:`~explorer.core.scoring.fields.extract_ids` of text i; ``numeric[i]``:
    :func:`~explorer.core.scoring.fields.has_numeric_date` of text i.
    """

    matches: list[list[tuple[str, list]]]
    offsets: list[int]
    ids: list[list[str]]
    numeric: list[bool]
    _spans: dict[tuple[int, bool], tuple] = field(default_factory=dict)
    _dates: dict[bool, list] = field(default_factory=dict)

    def spans(self, i: int, day_first: bool) -> tuple[tuple[int, int, DateValue], ...]:
        """:func:`~explorer.core.scoring.fields.date_spans` of text i (as a tuple)."""
        if not self.matches[i]:
            return ()
        key = (i, day_first)
        got = self._spans.get(key)
        if got is None:
            got = self._spans[key] = resolve_date_matches(self.matches[i], day_first, self.offsets[i])
        return got

    def _reading(self, day_first: bool) -> list:
        got = self._dates.get(day_first)
        if got is None:  # None: not computed yet; a text without a match holds _NO_DATES from the start
            got = self._dates[day_first] = [None if found else _NO_DATES for found in self.matches]
        return got

    def _compute(self, i: int, day_first: bool) -> list[DateValue]:
        found = self.matches[i]
        if len(found) == 1 and len(found[0][1]) == 1:  # one match: nothing to overlap or repeat
            value = date_match_value(found[0][0], found[0][1][0], day_first)
            return [value] if value is not None else []
        return unique_dates(self.spans(i, day_first))

    def dates(self, i: int, day_first: bool) -> list[DateValue]:
        """:func:`~explorer.core.scoring.fields.extract_dates` of text i (kept: do not change it)."""
        cache = self._reading(day_first)
        got = cache[i]
        if got is None:
            got = cache[i] = self._compute(i, day_first)
        return got

    def all_dates(self, day_first: bool) -> list[list[DateValue]]:
        """``[dates(i, day_first) for every text i]`` (kept: do not change the lists)."""
        cache = self._reading(day_first)
        compute = self._compute
        for i, got in enumerate(cache):
            if got is None:
                cache[i] = compute(i, day_first)
        return cache


def _by_text(j: AsciiJoin, starts) -> list[int]:
    """The batch position of the text holding each buffer position of ``starts``."""
    owner = j.owner(np.asarray(starts, dtype=np.int64)).tolist()
    if not j.others:  # every text is in the buffer: k is the batch position
        return owner
    index = j.index
    return [index[k] for k in owner]


def scan_key_fields(texts: Sequence[str], id_rx: re.Pattern[str] | str = DEFAULT_ID_PATTERN) -> KeyScan:
    """Find the dates (every pattern of :func:`~explorer.core.scoring.fields.date_spans`, before
    the reading is applied) and ids (``id_rx``) of every text at once; same results as the one-text
    functions (module docstring). Cost: a few numpy passes over the joined ASCII bytes, then one
    ``re`` match per possible start of a ``day_month`` or ``month_day`` date (and of an id under
    another pattern). The day-first dates of a text with one match are made here, from an earlier
    match of the same kind and text when there is one: what
    :func:`~explorer.core.scoring.fields.date_match_value` reads of a match (its text, which groups
    took part) is a function of its text, as a pattern matches a given text the same way wherever
    it stands (the only context it reads, ``\\b`` at either end, is the same for every way of
    matching that text)."""
    rx = compile_id_pattern(id_rx) if isinstance(id_rx, str) else id_rx
    id_default = rx.pattern == DEFAULT_ID_PATTERN and rx.flags == _DEFAULT_ID_RX.flags
    n = len(texts)
    matches: list[list[tuple[str, list]]] = [[] for _ in range(n)]
    offsets = [0] * n
    ids: list[list[str]] = [[] for _ in range(n)]
    numeric = [False] * n
    day: list[list[DateValue] | None] = [_NO_DATES] * n  # day-first dates; None: to be computed
    j = ascii_join(texts)
    if j.index:
        cands = _candidates(j, id_default)
        buffer = j.buffer
        for kind in _KINDS:
            got = cands[kind]
            if not len(got):
                continue
            if got.ndim == 2:  # verified whole
                found = [VerifiedMatch(buffer, bounds) for bounds in map(tuple, got.tolist())]
                owners = _by_text(j, got[:, 0])
            else:
                found, at = _matches_at(_PATTERN[kind], buffer, got)
                if not found:
                    continue
                owners = _by_text(j, at)
            seen: dict[str, list[DateValue]] = {}
            for i, m in zip(owners, found):
                entry = matches[i]
                if not entry:  # the text's first match: its day-first dates unless another follows
                    entry.append((kind, [m]))
                    key = m[0]
                    got = seen.get(key)
                    if got is None:
                        value = date_match_value(kind, m, True)
                        got = seen[key] = [value] if value is not None else []
                    day[i] = got
                    continue
                day[i] = None  # several matches: KeyScan.dates resolves them
                if entry[-1][0] == kind:
                    entry[-1][1].append(m)
                else:
                    entry.append((kind, [m]))
            if kind == "numeric":
                for i in owners:
                    numeric[i] = True
        if j.others:
            for i, start in zip(j.index, j.starts.tolist()):
                offsets[i] = start
        else:
            offsets = j.starts[:-1].tolist()
        if id_default:
            got = cands["ids"]
            if len(got):
                for i, (s, e) in zip(_by_text(j, got[:, 0]), got.tolist()):
                    seen = ids[i]
                    found_id = buffer[s:e]
                    if found_id not in seen:
                        seen.append(found_id)
        else:
            for i in j.index:
                ids[i] = extract_ids(texts[i], rx)
    for i in j.others:
        text = texts[i]
        for kind, pattern in _patterns_that_can_match(text):
            found = list(pattern.finditer(text))
            if found:
                matches[i].append((kind, found))
                numeric[i] = numeric[i] or kind == "numeric"
                day[i] = None
        ids[i] = extract_ids(text, rx)
    return KeyScan(matches, offsets, ids, numeric, _dates={True: day})
