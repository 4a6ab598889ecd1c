"""Differing words, marked: escaped HTML with ``<mark>`` around the words one text has and the other lacks.

Words are the unigram-F1 tokens (:func:`explorer.core.scoring.overlap.tokens`: Unicode letters and
digits after NFKC and case-folding, one character each in scripts written without spaces), counted
as multisets: a word is marked when it occurs more often in this text than in the other one (the
first occurrences are matched, the surplus ones marked), so ``Müller`` against ``Möller`` is
marked. Untrusted text is escaped with ``html.escape`` before any markup is added.
"""

from __future__ import annotations

import html
import re
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


_TOKEN = re.compile(r"(?:[^\s<>]|</?mark>)+")
"""A run of characters without white space in :func:`mark_differences`'s HTML (its only tags,
``<mark>`` and ``</mark>``, count as part of the token they sit in)."""
_HYPHENATED = re.compile(r"[^\s-]-+[^\s-]")


def keep_tokens_whole(marked: str) -> str:
    """``marked`` (escaped HTML whose only tags are ``<mark>``/``</mark>``, as
    :func:`mark_differences` and ``html.escape`` give) with every token holding a hyphen between
    two characters (``BK-4821``, ``2026-03-12``, ``"RS-54075"``) wrapped in
    ``<span class="me-token">``, which the page's CSS keeps on one line unless the token alone is
    wider than its box; the text is unchanged (copying it gives the same characters).

    ``keep_tokens_whole("ref BK-<mark>4821</mark>.") ==
    'ref <span class="me-token">BK-<mark>4821</mark>.</span>'``."""
    def wrap(m: re.Match[str]) -> str:
        token = m.group(0)
        plain = token.replace("<mark>", "").replace("</mark>", "")
        return f'<span class="me-token">{token}</span>' if _HYPHENATED.search(plain) else token

    if "-" not in marked:  # most cells of the table: nothing to wrap, no regex pass
        return marked
    return _TOKEN.sub(wrap, marked)


def escape_whole(value: object) -> str:
    """``str(value)`` escaped with ``html.escape`` and then its hyphenated tokens (ids such as
    ``BK-4470``, ISO dates, file names such as ``booking-agent.jsonl``) kept on one line by
    :func:`keep_tokens_whole`: for run text (untrusted) shown as an element's content anywhere on
    the page, never inside an attribute (the span would be markup there).

    ``escape_whole('"BK-4470" <b>') == '<span class="me-token">&quot;BK-4470&quot;</span> &lt;b&gt;'``."""
    return keep_tokens_whole(html.escape(str(value)))
