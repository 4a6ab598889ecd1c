"""When a score reaches a threshold: the one comparison every check, band and sweep uses.

The rule (issue 10, kind 2): a score *reaches* a threshold when ``quantise(score) >=
quantise(threshold)``, where :func:`quantise` rounds to ``DECIMALS`` (12) decimal places with
``numpy.round``. So a score equal to a threshold passes, also when one of the two went through
a different chain of float operations: a slider's ``0.41000000000000003`` is the threshold
``0.41``; a mean ``(1.0 + 0.6) / 2`` that comes out ``0.7999999999999999`` reaches ``0.8``; a
calibrated threshold equal to the score it came from (``0.5185185185185185`` = 14/27) passes that
score. Rounding is monotone, so a score that is ``>=`` the threshold as floats always reaches it,
and quantising twice changes nothing, so a threshold printed as its quantised value reproduces
exactly the bands it came from. Two scores closer than 5e-13 count as equal (unigram F1 values of
texts under a million tokens are never that close unless equal).

Printing (the rule for every score shown beside a threshold, in reasons, tables and panels): a
threshold prints with 2 decimals, more only when its value has more (:func:`show_limit`: ``0.80``,
``0.67``, ``0.675``); a score prints with 2 decimals, more only when 2 would read on the wrong side
of the threshold (:func:`show_score`: 2/3 against 0.67 reads ``0.667``, never ``0.67``);
:func:`show_pair` gives both. :func:`show_threshold` writes a threshold alone in its shortest
exact form (links, settings files).
"""

from __future__ import annotations

import functools
import math
from typing import overload

import numpy as np

DECIMALS = 12
"""Decimal places scores and thresholds are compared at."""


@overload
def quantise(x: float) -> float: ...
@overload
def quantise(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray: ...
def quantise(x, out=None):
    """``x`` (a float or a float array) rounded to ``DECIMALS`` places with ``numpy.round``
    (NaN stays NaN). The same function for scalars and arrays, so both round alike. ``out``: a
    float64 array to write an array's result into (e.g. ``x`` itself: no second array of N
    floats); the result is returned."""
    if isinstance(x, np.ndarray):
        return np.round(x.astype(np.float64, copy=False), DECIMALS, out=out)
    return _quantise_float(float(x))


_SCALE = 10.0**DECIMALS


def _quantise_float(x: float) -> float:
    """``float(numpy.round(x, DECIMALS))`` for one float, bit for bit, without numpy's per-call
    cost (~9 µs against ~0.5: a reason calls it a few times, 9 of the 44 s of ``score --format
    csv`` over 100k runs). numpy rounds ``decimals > 0`` as ``rint(x * 10**d) / 10**d``
    (``PyArray_Round``): the same product here, Python's ``round`` (half to even, as ``rint``),
    the sign of a zero kept (``rint(-0.3)`` is ``-0.0``); a product that is not finite (NaN,
    infinity, an overflow) is its own result, as ``rint(y) / 10**d`` is then ``y``."""
    y = x * _SCALE
    if not math.isfinite(y):
        return y
    r = float(round(y))
    return (r if r else math.copysign(0.0, y)) / _SCALE


_SIGN = np.int64(0x7FFFFFFFFFFFFFFF)


def _order_key(x: float) -> int:
    """An int whose order is the order of the float64 ``x`` (not NaN): its bits, with the
    non-sign bits of a negative number flipped (-0.0 just below 0.0). Its own inverse."""
    b = np.float64(x).view(np.int64)
    return int(b ^ ((b >> np.int64(63)) & _SIGN))


def _from_key(k: int) -> float:
    b = np.int64(k)
    return float((b ^ ((b >> np.int64(63)) & _SIGN)).view(np.float64))


@functools.lru_cache(maxsize=256)
def lowest_reaching(threshold: float) -> float:
    """The smallest float64 ``x`` with ``quantise(x) >= quantise(threshold)``: a score (not NaN)
    reaches ``threshold`` exactly when it is ``>=`` this. Rounding is monotone, so the scores
    that reach a threshold are all floats from one on; found by bisection over the floats in
    order (64 steps of one :func:`quantise` each, once per threshold). NaN when no score
    reaches it (a NaN threshold: every comparison with NaN is False)."""
    with np.errstate(over="ignore", invalid="ignore"):  # x * 10**12 overflows to inf past ~1.8e296: still monotone
        t = quantise(float(threshold))
        if not quantise(np.inf) >= t:
            return float("nan")
        lo, hi = _order_key(-np.inf), _order_key(np.inf)
        while lo < hi:  # the smallest key whose float reaches t
            mid = (lo + hi) // 2
            if quantise(_from_key(mid)) >= t:
                hi = mid
            else:
                lo = mid + 1
    return _from_key(lo)


def _order_keys(x: np.ndarray) -> np.ndarray:
    """:func:`_order_key` of each float64 of ``x`` (int64, same shape); its own inverse on int64."""
    b = x.view(np.int64)
    return b ^ ((b >> np.int64(63)) & _SIGN)


def lowest_reaching_mean(values: np.ndarray, threshold: float) -> np.ndarray:
    """For the mean of two scores ``(v + x) / 2`` (float64, as ``combine="mean"`` computes it):
    float64 (K,) ``lowest`` such that, for each ``values[k]`` and every float64 ``x`` (not NaN),
    ``x >= lowest[k]`` exactly when ``reaches((values[k] + x) / 2.0, threshold)``; NaN where no
    ``x`` does (``values[k]`` NaN or -inf, a NaN threshold). ``values``: float64 (K,), e.g. the
    distinct trajectory scores of a coded column (:mod:`explorer.core.evaluation.coded`).

    So the mean's check of N runs is one lookup of ``lowest`` by each run's code and one
    comparison with its response score: no N sums and halvings (issue 14). Float addition and
    halving are monotone in ``x``, so the ``x`` that reach form one run of floats in order, and
    ``lowest[k]`` is found by bisection over them, all K at once (64 steps)."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    mark = lowest_reaching(float(threshold))

    def reached(x: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            return (v + x) / 2.0 >= mark

    lo = np.full(v.shape, _order_key(-np.inf), dtype=np.int64)
    hi = np.full(v.shape, _order_key(np.inf), dtype=np.int64)
    while np.any(lo < hi):  # the smallest key whose float reaches, per value
        mid = (lo >> np.int64(1)) + (hi >> np.int64(1)) + (lo & hi & np.int64(1))  # floor((lo + hi) / 2), no overflow
        ok = reached(_order_keys(mid).view(np.float64))
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid + np.int64(1))
    lowest = _order_keys(lo).view(np.float64).copy()
    lowest[~reached(lowest)] = np.nan  # not even +inf reaches
    return lowest


def reaches(score, threshold):
    """True where ``score`` reaches ``threshold`` (bool, or a bool array of ``score``'s shape for
    an array of scores; NaN never reaches). ``reaches(14 / 27, 0.5185185185185185)`` is True.

    An array is compared once with :func:`lowest_reaching` of the threshold (no array of
    quantised scores made: 80 MB at 10M runs, issue 14): the same answer, elementwise, as
    ``quantise(score) >= quantise(threshold)``."""
    if isinstance(score, np.ndarray):
        with np.errstate(invalid="ignore"):
            return score.astype(np.float64, copy=False) >= lowest_reaching(float(threshold))
    t = quantise(float(threshold))
    with np.errstate(invalid="ignore"):
        return quantise(score) >= t


def show_threshold(value: float) -> str:
    """A threshold in its shortest exact text: ``0.8`` -> ``"0.8"``, ``1.0`` -> ``"1"``,
    ``0.41000000000000003`` -> ``"0.41"``, ``14 / 27`` -> ``"0.518518518519"``. Reading the text
    back with ``float`` gives a threshold that passes exactly the same scores."""
    text = repr(quantise(value))
    return text[:-2] if text.endswith(".0") else text


def show_limit(threshold: float, digits: int = 2) -> str:
    """A threshold as it is printed beside scores: at least ``digits`` decimals, more when its
    value has them (it is never rounded): ``0.8`` -> ``"0.80"``, ``0.67`` -> ``"0.67"``,
    ``0.675`` -> ``"0.675"``, ``14 / 27`` -> ``"0.518518518519"``. So one threshold prints the
    same in every reason of a table, whatever the scores beside it."""
    t = quantise(threshold)
    d = digits
    while d < DECIMALS and float(f"{t:.{d}f}") != t:
        d += 1
    return f"{t:.{d}f}"


def show_score(score: float, threshold: float, digits: int = 2) -> str:
    """A score as it is printed beside ``threshold``: ``digits`` decimals, more when fewer would
    read on the wrong side of the threshold as printed (:func:`show_limit`): a score that fails
    never reads as reaching it, one that reaches it never as below it. ``show_score(2 / 3,
    0.67) == "0.667"`` (``"0.67"`` would read as reaching 0.67), ``show_score(2 / 3, 0.5) ==
    "0.67"``, ``show_score(0.674, 0.6731) == "0.674"`` (``"0.67"`` would read below 0.6731).
    NaN reads ``"nan"``."""
    s = quantise(score)
    if s != s:
        return "nan"
    passes = bool(reaches(s, threshold))
    d = digits
    while d < DECIMALS and bool(reaches(float(f"{s:.{d}f}"), threshold)) != passes:
        d += 1
    return f"{s:.{d}f}"


def show_pair(score: float, threshold: float, digits: int = 2) -> tuple[str, str]:
    """``(score text, threshold text)``: :func:`show_score` and :func:`show_limit`, so a failing
    comparison never reads ``0.52 < 0.52`` and a threshold prints alike whatever the score:
    ``show_pair(2 / 3, 0.67) == ("0.667", "0.67")``, ``show_pair(1 / 3, 0.67) == ("0.33", "0.67")``,
    ``show_pair(0.5185185, 0.519) == ("0.5185", "0.519")``."""
    return show_score(score, threshold, digits), show_limit(threshold, digits)
