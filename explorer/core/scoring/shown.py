"""Scores against thresholds in words a person reads: ``0.62 < 0.80``, never ``0.67 < 0.67``.

Reasons print scores with two decimals; a score just under its threshold (recall 2/3 against
0.67, F1 0.7996 against 0.80) would read as equal to it. :func:`below` adds digits until the two
differ.
"""

from __future__ import annotations


def threshold_text(threshold: float) -> str:
    """``0.8`` -> ``"0.80"``; a threshold with more digits keeps them (``0.667`` -> ``"0.667"``)."""
    two = f"{threshold:.2f}"
    return two if abs(float(two) - threshold) < 1e-12 else f"{threshold:.9g}"


def below(score: float, threshold: float) -> str:
    """``"<score> < <threshold>"`` with two decimals, more (up to six) when two would show the
    score equal to the threshold: ``below(2/3, 0.67) == "0.667 < 0.67"``."""
    t = threshold_text(threshold)
    digits = 2
    while digits < 6 and f"{score:.{digits}f}" == f"{threshold:.{digits}f}":
        digits += 1
    return f"{score:.{digits}f} < {t}"
