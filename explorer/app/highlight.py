"""Differing words, marked: escaped HTML with ``<mark>`` around the words one text has and the other lacks.

Words are the unigram-F1 tokens (lowercase ``[a-z0-9]+``, :mod:`explorer.core.scoring.overlap`), counted
as multisets: a word is marked when it occurs more often in this text than in the other one (the
first occurrences are matched, the surplus ones marked). Untrusted text is escaped with
``html.escape`` before any markup is added.
"""

from __future__ import annotations

import html
import re
from collections import Counter

_PIECES = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]+")
_WORD = re.compile(r"[A-Za-z0-9]+")


def mark_differences(text: str, other: str) -> str:
    """HTML of ``text`` (escaped) with ``<mark>word</mark>`` on each word not matched in ``other``.

    ``mark_differences("Booked 21 March", "Booked 12 March") == "Booked <mark>21</mark> March"``.
    """
    available = Counter(w.lower() for w in _WORD.findall(other))
    out: list[str] = []
    for piece in _PIECES.findall(text):
        safe = html.escape(piece)
        if _WORD.fullmatch(piece):
            key = piece.lower()
            if available[key] > 0:
                available[key] -= 1
                out.append(safe)
            else:
                out.append(f"<mark>{safe}</mark>")
        else:
            out.append(safe)
    return "".join(out)
