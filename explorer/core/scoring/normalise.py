"""The normalisation ladder (seed 000): one pipeline applied to both sides before exact match.

Each rung removes one more class of difference that does not change meaning; rung N includes
every rung below it:

1. Unicode NFKC, strip, collapse every run of whitespace to one space;
2. + case-fold (``str.casefold``);
3. + strip leading and trailing punctuation (Unicode category ``P*``) and spaces, except a
   minus sign (``-`` or ``−``) directly before a number (``-5`` keeps its sign; ``-€50`` too);
4. + canonical dates and numbers: every date :func:`explorer.core.scoring.fields.date_spans` finds
   becomes ISO ``YYYY-MM-DD`` (``--MM-DD`` without a year), read with an explicit ``day_first``
   (``03/04/2026`` is 3 April day-first, 4 March month-first); every number becomes its plain
   decimal form (``1,000,000`` / ``1 000 000`` / ``1000000`` -> ``1000000``;
   ``1.000.000,50`` in ``de`` -> ``1000000.5``; ``10.0`` -> ``10``). Group and decimal symbols
   come from the locale's CLDR data (Babel, offline); a space is accepted as a thousands
   separator in every locale (SI style). Integers written with a leading zero (``007``) are
   codes, kept verbatim. A number keeps its sign: ``-`` (hyphen-minus) or ``−`` (U+2212)
   directly before its digits, or before a currency sign glued to them, makes it negative when
   the sign does not follow a letter or digit (``A-1042``, ``10-20`` and ``555-1234`` are not
   negative); the canonical form writes ``-`` on the number after any currency sign
   (``−€50``, ``-€50`` and ``€-50`` all become ``€-50``).

Empty answers (issue 10, kind 5): an answer with nothing left after rung 3 (only spaces and
punctuation, e.g. ``"?"``, ``"..."``, ``""``) is *empty* (:func:`is_empty_answer`) and never
equals a reference at any rung (:func:`exact_at`), so ``"?"`` and ``"!"`` do not match.

Source: seed 000 ("Exact match and the normalization ladder"); its Java ``normalize`` uses
``\\p{Punct}`` (ASCII punctuation) on rung 3, we use Unicode punctuation so ``«»``, ``…`` and
``¿`` strip too, while currency and other symbols (``€``, ``$``, ``%``) are kept.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, InvalidOperation
from functools import lru_cache
from typing import Sequence

from .fields import date_spans

RUNGS: tuple[int, ...] = (1, 2, 3, 4)
"""Valid rung numbers."""

_WS = re.compile(r"\s+")
MINUS_SIGNS = "-\u2212"
"""Characters read as a minus sign before a number: hyphen-minus and U+2212 MINUS SIGN."""
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")


def _is_edge(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch).startswith("P")


@lru_cache(maxsize=64)
def locale_symbols(locale: str) -> tuple[str, str]:
    """``(group, decimal)`` symbols of ``locale`` (e.g. ``"en"`` -> ``(",", ".")``,
    ``"de"`` -> ``(".", ",")``, ``"fr"`` -> ``(" ", ",")``), NFKC-normalised so a no-break space
    group reads as a space. Raises ValueError naming an unknown locale."""
    from babel import Locale, UnknownLocaleError
    from babel.numbers import get_decimal_symbol, get_group_symbol

    try:
        loc = Locale.parse(locale.replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError):
        raise ValueError(f"unknown locale {locale!r} (use a CLDR code such as en, en_GB, de, fr)") from None
    group = unicodedata.normalize("NFKC", get_group_symbol(loc))
    decimal = unicodedata.normalize("NFKC", get_decimal_symbol(loc))
    return group, decimal


@lru_cache(maxsize=64)
def _number_pattern(locale: str) -> re.Pattern[str]:
    group, decimal = locale_symbols(locale)
    groups = sorted({re.escape(group), " "} - {re.escape(decimal)})
    g = "(?:" + "|".join(groups) + ")"
    d = re.escape(decimal)
    grouped = rf"\d{{1,3}}(?:{g}\d{{3}})+"
    return re.compile(rf"(?<![\w.,]){grouped}(?:{d}\d+)?(?![\w]|[.,]\d)|(?<![\w.,])\d+(?:{d}\d+)?(?![\w]|[.,]\d)")


def _sign_before(text: str, start: int) -> int | None:
    """Index of the minus sign that makes the number starting at ``start`` negative, or None:
    ``-`` / ``−`` right before the digits, or right before a currency sign right before them,
    not itself after a letter, digit, ``_`` or another minus (so ids, ranges and the ``--MM-DD``
    of a date without a year are not negative)."""
    j = start - 1
    if j >= 0 and unicodedata.category(text[j]) == "Sc":
        j -= 1
    if j < 0 or text[j] not in MINUS_SIGNS:
        return None
    if j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_" or text[j - 1] in MINUS_SIGNS):
        return None
    return j


def _signed_spans(text: str, locale: str) -> list[tuple[int, int, int, Decimal]]:
    """``(sign or digits start, digits start, end, value)`` of every number (see
    :func:`number_spans`)."""
    group, decimal = locale_symbols(locale)
    out: list[tuple[int, int, int, Decimal]] = []
    for m in _number_pattern(locale).finditer(text):
        raw = m[0]
        digits = raw.replace(" ", "")
        if group != " ":
            digits = digits.replace(group, "")
        digits = digits.replace(decimal, ".")
        try:
            value = Decimal(digits)
        except InvalidOperation:  # pragma: no cover - the pattern admits only digits
            continue
        sign = _sign_before(text, m.start()) if m.start() > 0 else None
        out.append((m.start() if sign is None else sign, m.start(), m.end(), value if sign is None else -value))
    return out


def number_spans(text: str, locale: str = "en") -> list[tuple[int, int, Decimal]]:
    """Numbers written in ``text`` as ``(start, end, value)`` spans, per ``locale``'s symbols.

    ``"1,000,000"`` (en), ``"1 000 000"``, ``"1000000"`` all read 1000000; ``"1.000.000,50"``
    reads 1000000.5 in ``de``; digits inside words or ids (``TP1351``) are not numbers. A minus
    sign keeps its number negative (``"-5"``, ``"−50 EUR"``, ``"€-50"``, ``"−€50"`` read -5, -50,
    -50, -50; the span then starts at the sign). Raises ValueError for an unknown locale.
    """
    return [(start, end, value) for start, _, end, value in _signed_spans(text, locale)]


_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
"""Normalising in the default context (28 significant digits) rounded longer numbers: account
numbers 1234...9012 and 1234...9999 (32 digits) both read 1234...6790000 at rung 4."""


def canonical_number(value: Decimal) -> str:
    """Plain decimal text without exponent or trailing zeros: ``Decimal("10.0")`` -> ``"10"``,
    ``Decimal("1000000.50")`` -> ``"1000000.5"``."""
    text = format(value.normalize(_EXACT), "f")
    return "0" if text in ("-0", "") else text


def _canonical_numbers(text: str, locale: str) -> str:
    parts: list[str] = []
    last = 0
    for start, digits_at, end, value in _signed_spans(text, locale):
        raw = text[digits_at:end]
        keep = len(raw) > 1 and raw[0] == "0" and raw[1].isdigit()
        parts.append(text[last:start])
        if keep:  # a code such as 007 stays as written, sign and all
            parts.append(text[start:end])
        else:  # a currency sign between the minus and the digits stays before the number
            parts.append(text[start + 1 : digits_at] if start < digits_at else "")
            parts.append(canonical_number(value))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _canonical_dates(text: str, day_first: bool) -> str:
    parts: list[str] = []
    last = 0
    for start, end, value in date_spans(text, day_first):
        iso = f"{value.month:02d}-{value.day:02d}"
        parts.append(text[last:start])
        parts.append(f"{value.year:04d}-{iso}" if value.year is not None else f"--{iso}")
        last = end
    parts.append(text[last:])
    return "".join(parts)


def normalise(text: str, rung: int, *, locale: str = "en", day_first: bool = True) -> str:
    """``text`` normalised up to ``rung`` (1..4, see the module docstring).

    ``normalise("Order A-1042 ships on 12 March 2026.", 4) == "order a-1042 ships on 2026-03-12"``.
    ``locale`` and ``day_first`` matter on rung 4 only. Raises ValueError for a rung outside
    1..4 or an unknown locale.
    """
    if rung not in RUNGS:
        raise ValueError(f"rung must be 1, 2, 3 or 4, got {rung!r}")
    out = _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()
    if rung >= 2:
        out = out.casefold()
    if rung >= 3:
        out = _strip_edges(out)
    if rung >= 4:
        # canonical forms may start with punctuation ("12 March" -> "--03-12"): strip the edges
        # again, so that normalising twice changes nothing
        out = _strip_edges(_canonical_numbers(_canonical_dates(out, day_first), locale))
    return out


def _signs_number(text: str, i: int) -> bool:
    """True when ``text[i]`` is a minus sign (not after another one) directly before a digit, or
    before a currency sign directly before a digit."""
    if text[i] not in MINUS_SIGNS or (i > 0 and text[i - 1] in MINUS_SIGNS):
        return False
    j = i + 1
    if j < len(text) and unicodedata.category(text[j]) == "Sc":
        j += 1
    return j < len(text) and text[j].isdigit()


def _strip_edges(text: str) -> str:
    """``text`` without leading and trailing punctuation and spaces (rung 3); a leading minus
    sign of a number stays (``"-5."`` -> ``"-5"``)."""
    start, end = 0, len(text)
    while start < end and _is_edge(text[start]) and not _signs_number(text, start):
        start += 1
    while end > start and _is_edge(text[end - 1]):
        end -= 1
    return text[start:end]


def is_empty_answer(text: str) -> bool:
    """True when nothing is left of ``text`` after rung 3 of the ladder: it holds only spaces
    and punctuation (``""``, ``"?"``, ``" ... "``). Such an answer never passes a response
    check, with every scorer (issue 10, kind 5)."""
    if _ASCII_ALNUM.search(text):
        return False
    return normalise(text, 3) == ""


def exact_at(
    candidate: str,
    references: str | Sequence[str],
    rung: int,
    *,
    locale: str = "en",
    day_first: bool = True,
) -> bool:
    """True when ``candidate`` equals ANY of ``references`` once both are normalised to ``rung``
    (seed 000: "pass when the candidate matches any of them at the chosen rung").

    A single string is one reference; an empty list never matches, nor does an empty candidate
    (:func:`is_empty_answer`: ``"?"`` does not equal ``"!"``). Raises ValueError as
    :func:`normalise`.
    """
    if is_empty_answer(candidate):
        return False
    refs = [references] if isinstance(references, str) else list(references)
    cand = normalise(candidate, rung, locale=locale, day_first=day_first)
    return any(cand == normalise(r, rung, locale=locale, day_first=day_first) for r in refs)


def first_rung(
    candidate: str,
    references: str | Sequence[str],
    *,
    locale: str = "en",
    day_first: bool = True,
) -> int | None:
    """The lowest rung (1..4) at which ``candidate`` matches a reference, or None when it matches
    at none. Raw equality (rung 0) is reported as rung 1."""
    for rung in RUNGS:
        if exact_at(candidate, references, rung, locale=locale, day_first=day_first):
            return rung
    return None
