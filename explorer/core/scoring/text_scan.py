"""Many texts scanned at once for the key-field check: dates and booking ids, same results as one
text at a time.

:func:`explorer.core.scoring.fields.date_spans` runs four regular expressions over each text;
Python's ``re`` tries every position of a text, about 20-40 ns a character and pattern, which made
the key-field check the largest part of computing features (issue 14). Here the ASCII texts of a
batch are joined into one buffer (NUL between texts) and numpy finds, in a few passes over its
bytes, every position where a match *can* start (a necessary condition per pattern, below); the
same compiled pattern is then tried only there (``pattern.match(buffer, position)``), walking the
positions left to right and skipping those inside the previous match, which is exactly what
``finditer`` returns: ``finditer`` reports, from the end of the last match, the leftmost position
where the pattern matches, and no other position can match. The matches then go through the same
overlap resolution and date parsing as one text (``fields.resolve_date_matches``).

Why the joined buffer changes nothing: no element of the patterns matches NUL (``\\d``, ``\\s``,
``[-/.]``, letters, ``,``), so no match crosses from one text into the next, and ``\\b`` at a
text's first or last character sees a non-word character, as at the start or end of a string.
Positions are mapped back with each text's offset, so a text holding NUL itself is still right.

Start conditions, on ASCII text (where ``\\d`` is ``[0-9]``, a word character is
``[A-Za-z0-9_]``, and ``re.I`` folds only ASCII letters):

* ``iso`` ``\\b(\\d{4})-``: a run of exactly 4 digits at a word boundary, then ``-``;
* ``numeric`` ``\\b(\\d{1,2})[/.]``: a run of 1-2 digits at a word boundary, then ``/`` or ``.``;
* ``day_month`` ``\\b(\\d{1,2})(?:(st|nd|rd|th)?\\s+|[-/.])``: a run of 1-2 digits at a word
  boundary, then a letter of ``snrt`` (either case), whitespace, ``-``, ``/`` or ``.``;
* ``month_day``: a word that starts at a word boundary with the three letters of a month
  (``jan`` ... ``dec``, either case);
* booking ids, the default pattern ``\\b[A-Z]{2,3}-\\d{3,6}\\b`` only: a ``-`` between two capital
  letters and a digit, the match starting 3 characters before it when that is a capital letter,
  else 2. Another id pattern is run over each text (:func:`explorer.core.scoring.fields.extract_ids`).

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
_AFTER_DAY = _ASCII_SPACE | _table("sSnNrRtT-/.")
_NUMERIC_SEP = _table("/.")
_MONTH3 = np.array([(ord(m[0]) << 16) | (ord(m[1]) << 8) | ord(m[2])
                    for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")], dtype=np.int64)
_KINDS = tuple(kind for kind, _ in _DATE_PATTERNS)
_PATTERN = dict(_DATE_PATTERNS)
_DEFAULT_ID_RX = re.compile(DEFAULT_ID_PATTERN)
_NO_DATES: list[DateValue] = []


@dataclass(frozen=True)
class AsciiJoin:
    """The ASCII texts of a batch joined by :data:`SEPARATOR`: ``index[k]`` is the batch position
    of the k-th ASCII text, ``buffer`` the joined str, ``codes`` its bytes as uint8 with 16 NUL
    bytes of padding at the end (so reads a few bytes past any position stay in bounds),
    ``starts`` int64 (K + 1,) where each text starts in ``buffer`` (the last: ``len(buffer) + 1``).
    ``others``: batch positions of the texts that are not ASCII."""

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


def _candidates(j: AsciiJoin, id_default: bool) -> dict[str, np.ndarray]:
    """Sorted int64 buffer positions where each date pattern (and, with ``id_default``, the
    default id pattern) can start (the conditions of the module docstring)."""
    b = j.codes
    n = len(j.buffer)
    word = _WORD[b]
    prev_word = np.empty_like(word)
    prev_word[0] = False
    prev_word[1:] = word[:-1]
    digit = _DIGIT[b]
    edges = np.diff(digit.astype(np.int8), prepend=np.int8(0))
    run_start = np.flatnonzero(edges == 1)
    run_end = np.flatnonzero(edges == -1)  # padding ends every run inside the array
    at_boundary = ~prev_word[run_start]
    run_start, run_end = run_start[at_boundary], run_end[at_boundary]
    length = run_end - run_start
    after = b[run_end]
    short = (length <= 2)
    out = {
        "iso": run_start[(length == 4) & (after == ord("-"))],
        "numeric": run_start[short & _NUMERIC_SEP[after]],
        "day_month": run_start[short & _AFTER_DAY[after]],
    }
    starts = np.flatnonzero(_ALPHA[b[:n]] & ~prev_word[:n])
    tri = ((b[starts].astype(np.int64) | 0x20) << 16) | ((b[starts + 1].astype(np.int64) | 0x20) << 8) | (b[starts + 2] | 0x20)
    out["month_day"] = starts[np.isin(tri, _MONTH3)]
    if id_default:
        dash = np.flatnonzero(b[:n] == ord("-"))
        dash = dash[dash >= 2]
        dash = dash[_DIGIT[b[dash + 1]] & _UPPER[b[dash - 1]] & _UPPER[b[dash - 2]]]
        three = (dash >= 3) & _UPPER[b[np.maximum(dash - 3, 0)]]
        out["ids"] = np.where(three, dash - 3, dash - 2)
    return out


def _matches_at(pattern: re.Pattern[str], buffer: str, positions: np.ndarray) -> list[re.Match[str]]:
    """``pattern.finditer(buffer)`` when a match can start only at ``positions`` (sorted)."""
    out = []
    end = 0
    match = pattern.match
    for p in positions.tolist():
        if p < end:
            continue
        m = match(buffer, p)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


@dataclass
class KeyScan:
    """Dates and ids found in each of a batch of texts (see :func:`scan_key_fields`).

    ``matches[i]``: ``(kind, [match, ...])`` per date pattern that matched text i, in
    ``_DATE_PATTERNS`` order (matches as ``finditer`` gives them, positions in a buffer where the
    text starts at ``offsets[i]``); ``ids[i]``: :func:`~explorer.core.scoring.fields.extract_ids`
    of text i; ``numeric[i]``: :func:`~explorer.core.scoring.fields.has_numeric_date` of text i.
    """

    matches: list[list[tuple[str, list[re.Match[str]]]]]
    offsets: list[int]
    ids: list[list[str]]
    numeric: list[bool]
    _spans: dict[tuple[int, bool], tuple] = field(default_factory=dict)
    _dates: dict[tuple[int, bool], list[DateValue]] = field(default_factory=dict)

    def spans(self, i: int, day_first: bool) -> tuple[tuple[int, int, DateValue], ...]:
        """:func:`~explorer.core.scoring.fields.date_spans` of text i (as a tuple)."""
        if not self.matches[i]:
            return ()
        key = (i, day_first)
        got = self._spans.get(key)
        if got is None:
            got = self._spans[key] = resolve_date_matches(self.matches[i], day_first, self.offsets[i])
        return got

    def dates(self, i: int, day_first: bool) -> list[DateValue]:
        """:func:`~explorer.core.scoring.fields.extract_dates` of text i (kept: do not change it)."""
        found = self.matches[i]
        if not found:
            return _NO_DATES
        key = (i, day_first)
        got = self._dates.get(key)
        if got is None:
            if len(found) == 1 and len(found[0][1]) == 1:  # one match: nothing to overlap or repeat
                value = date_match_value(found[0][0], found[0][1][0], day_first)
                got = [value] if value is not None else []
            else:
                got = unique_dates(self.spans(i, day_first))
            self._dates[key] = got
        return got


def scan_key_fields(texts: Sequence[str], id_rx: re.Pattern[str] | str = DEFAULT_ID_PATTERN) -> KeyScan:
    """Find the dates (every pattern of :func:`~explorer.core.scoring.fields.date_spans`, before
    the reading is applied) and ids (``id_rx``) of every text at once; same results as the one-text
    functions (module docstring). Cost: a few numpy passes over the joined ASCII bytes, then one
    ``re`` match per possible start."""
    rx = compile_id_pattern(id_rx) if isinstance(id_rx, str) else id_rx
    id_default = rx.pattern == DEFAULT_ID_PATTERN and rx.flags == _DEFAULT_ID_RX.flags
    n = len(texts)
    matches: list[list[tuple[str, list[re.Match[str]]]]] = [[] for _ in range(n)]
    offsets = [0] * n
    ids: list[list[str]] = [[] for _ in range(n)]
    numeric = [False] * n
    j = ascii_join(texts)
    if j.index:
        cands = _candidates(j, id_default)
        starts = j.starts.tolist()
        for kind in _KINDS:
            found = _matches_at(_PATTERN[kind], j.buffer, cands[kind])
            if not found:
                continue
            owners = j.owner(np.fromiter((m.start() for m in found), dtype=np.int64, count=len(found))).tolist()
            for k, m in zip(owners, found):
                entry = matches[j.index[k]]
                if entry and entry[-1][0] == kind:
                    entry[-1][1].append(m)
                else:
                    entry.append((kind, [m]))
                if kind == "numeric":
                    numeric[j.index[k]] = True
        for k, i in enumerate(j.index):
            offsets[i] = starts[k]
        if id_default:
            found = _matches_at(rx, j.buffer, cands["ids"])
            if found:
                owners = j.owner(np.fromiter((m.start() for m in found), dtype=np.int64, count=len(found))).tolist()
                for k, m in zip(owners, found):
                    seen = ids[j.index[k]]
                    if m[0] not in seen:
                        seen.append(m[0])
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
        ids[i] = extract_ids(text, rx)
    return KeyScan(matches, offsets, ids, numeric)
