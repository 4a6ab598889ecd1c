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

Printing: :func:`show_pair` writes a score and a threshold with as many decimals as it takes
for a failing comparison never to read ``0.52 < 0.52``; :func:`show_threshold` writes a threshold
alone in its shortest exact form.
"""

from __future__ import annotations

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
    return float(np.round(float(x), DECIMALS))


CHUNK = 1 << 16
"""Scores quantised at a time by :func:`reaches` over a long array (512 kB of float64)."""


def reaches(score, threshold):
    """True where ``score`` reaches ``threshold`` (bool, or a bool array of ``score``'s shape for
    an array of scores; NaN never reaches). ``reaches(14 / 27, 0.5185185185185185)`` is True.

    A 1-d array longer than :data:`CHUNK` is quantised a chunk at a time into one small buffer,
    so no second array of N floats is made (80 MB at 10M runs, issue 14): the same comparison,
    elementwise."""
    t = quantise(float(threshold))
    with np.errstate(invalid="ignore"):
        if isinstance(score, np.ndarray) and score.ndim == 1 and score.size > CHUNK:
            out = np.empty(score.shape, dtype=bool)
            buf = np.empty(CHUNK, dtype=np.float64)
            for start in range(0, score.size, CHUNK):
                part = score[start:start + CHUNK]
                np.greater_equal(quantise(part, out=buf[: part.size]), t, out=out[start:start + part.size])
            return out
        return quantise(score) >= t


def show_threshold(value: float) -> str:
    """A threshold in its shortest exact text: ``0.8`` -> ``"0.8"``, ``1.0`` -> ``"1"``,
    ``0.41000000000000003`` -> ``"0.41"``, ``14 / 27`` -> ``"0.518518518519"``. Reading the text
    back with ``float`` gives a threshold that passes exactly the same scores."""
    text = repr(quantise(value))
    return text[:-2] if text.endswith(".0") else text


def show_pair(score: float, threshold: float, digits: int = 2) -> tuple[str, str]:
    """``(score text, threshold text)`` with the same number of decimals, at least ``digits``,
    and more when fewer would print a score that does not reach the threshold as equal to it:
    ``show_pair(0.5185185, 0.519) == ("0.5185", "0.5190")``. Scores that reach it may print
    equal (``0.52 >= 0.52`` is true)."""
    s, t = quantise(score), quantise(threshold)
    d = digits
    if s < t:
        while d < DECIMALS and f"{s:.{d}f}" == f"{t:.{d}f}":
            d += 1
    return f"{s:.{d}f}", f"{t:.{d}f}"
