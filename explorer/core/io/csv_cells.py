"""CSV cells that a spreadsheet will not run as formulas, and read back as they were written.

OWASP's rule for CSV injection: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return is written with a ``'`` in front, so a spreadsheet shows it as text instead of
evaluating it (``=HYPERLINK("http://example.invalid","click")`` would otherwise be a live link).
To keep the change reversible, a cell that already starts with one or more ``'`` followed by such
a character gets one more ``'``; reading removes exactly one ``'`` from a cell that starts with
``'`` + (``'``...) + such a character. So :func:`restore` ``(`` :func:`neutralise` ``(x)) == x``
for every text, and a cell typed in a spreadsheet as ``'=x`` (which the spreadsheet saves as
``=x``, then writes back with the quote) reads as ``=x``.

Every CSV this product writes for people goes through here (the scored table, the labels CSV,
the flat run CSV, the app's downloads and ``--format csv``), and the CSV readers (labels, flat
runs) restore the cells. Numbers are left as numbers (``-0.25`` in a numeric column stays a
number); only text cells are touched.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

TRIGGERS = "=+-@\t\r"
"""First characters a spreadsheet may read as the start of a formula (OWASP)."""
_NEEDS_QUOTE = re.compile(r"'*[=+\-@\t\r]")
_QUOTED = re.compile(r"'+[=+\-@\t\r]")


def neutralise(text: str) -> str:
    """``text`` safe to put in a CSV cell: ``"=1+1"`` -> ``"'=1+1"``, ``"'=x"`` -> ``"''=x"``,
    ``"ok"`` -> ``"ok"``."""
    return "'" + text if _NEEDS_QUOTE.match(text) else text


def restore(text: str) -> str:
    """The text :func:`neutralise` was given: ``"'=1+1"`` -> ``"=1+1"``, ``"''=x"`` -> ``"'=x"``,
    ``"'ok"`` -> ``"'ok"`` (left alone: no formula character after the quotes)."""
    return text[1:] if _QUOTED.match(text) else text


def neutralise_cell(value: Any) -> Any:
    """:func:`neutralise` for a text value; any other value (number, bool, None) as it is."""
    return neutralise(value) if isinstance(value, str) else value


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells are :func:`neutralise` d (numeric columns unchanged)."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(neutralise_cell)
    return out
