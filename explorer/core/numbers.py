"""Numbers a person types (options, links, environment variables), read as they are written.

Python's ``int`` and ``float`` read more than a person means: any Unicode digit (``"３"`` is 3,
``"٥"`` is 5), ``_`` between digits (``"1_0"`` is 10), and for ``float`` ``"nan"``, ``"inf"`` and
``"infinity"``. An option such as ``--rows ３`` or a link's ``f1_threshold=０.５`` was then taken
for a number nobody typed in the ASCII the help shows. These readers take ASCII digits only, an
optional sign, and for a decimal a point and an exponent; the surrounding ASCII whitespace is
dropped. Anything else raises ValueError, as ``int`` / ``float`` do.
"""

from __future__ import annotations

import re

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPACE = " \t\n\r\f\v"


def whole_number(text: str) -> int:
    """``text`` (e.g. ``"50"``, ``"-3"``, ``" 7 "``) as an int: ASCII digits with an optional
    sign. ValueError for anything else (``"３"``, ``"1_0"``, ``"5.0"``, ``""``)."""
    stripped = text.strip(_SPACE)
    if not _WHOLE.fullmatch(stripped):
        raise ValueError(f"not a whole number: {text!r}")
    return int(stripped)


def decimal_number(text: str) -> float:
    """``text`` (e.g. ``"0.8"``, ``".5"``, ``"1e-3"``, ``"-0.25"``) as a float: ASCII digits, an
    optional sign, point and exponent; no NaN or infinity spelled out (an exponent past the
    float range, ``"1e999"``, reads inf as ``float`` reads it, for the caller's range check).
    ValueError for anything else (``"０.５"``, ``"0.8_0"``, ``"nan"``, ``"inf"``, ``""``)."""
    stripped = text.strip(_SPACE)
    if not _DECIMAL.fullmatch(stripped):
        raise ValueError(f"not a number: {text!r}")
    return float(stripped)
