"""Differing words, marked: escaped HTML with ``<mark>`` around the words one text has and the other lacks.

Words are the unigram-F1 tokens (:func:`explorer.core.scoring.overlap.tokens`: Unicode letters and
digits after NFKC and case-folding, one character each in scripts written without spaces), counted
as multisets: a word is marked when it occurs more often in this text than in the other one (the
first occurrences are matched, the surplus ones marked), so ``Müller`` against ``Möller`` is
marked. Untrusted text is escaped with ``html.escape`` before any markup is added.
"""

from __future__ import annotations

import html
from collections import Counter

from ..core.scoring.overlap import tokens, word_spans


def mark_differences(text: str, other: str) -> str:
    """HTML of ``text`` (escaped) with ``<mark>word</mark>`` on each word not matched in ``other``.

    ``mark_differences("Booked 21 March", "Booked 12 March") == "Booked <mark>21</mark> March"``.
    """
    available = Counter(tokens(other))
    out: list[str] = []
    last = 0
    for start, end in word_spans(text):
        out.append(html.escape(text[last:start]))
        piece = text[start:end]
        keys = tokens(piece)
        if keys and all(available[k] > 0 for k in keys):
            available.subtract(keys)
            out.append(html.escape(piece))
        else:
            out.append(f"<mark>{html.escape(piece)}</mark>")
        last = end
    out.append(html.escape(text[last:]))
    return "".join(out)
