"""Answer overlap: unigram F1 between a candidate answer and its reference(s).

Definition (DEVELOPERS.md; equal to ADK ``response_match_score``'s ROUGE-1 F on plain English
without stemmable words, see ``shared/notes/adk-eval-semantics.md``): take the :func:`tokens` of
each text, count them as multisets; precision = overlap / candidate tokens, recall = overlap /
reference tokens, F1 = 2·overlap / (candidate tokens + reference tokens). Either side empty
gives 0.0 (as ADK: empty vs empty is 0.0).

Tokens (issue 10, kind 6): the text in Unicode NFKC, case-folded (``str.casefold``); a token is a
maximal run of letters, combining marks and digits (Unicode categories ``L*``, ``M*``, ``N*``),
except that a letter or digit of a script written without spaces between words (Han, Hiragana,
Katakana, Thai, Lao, Khmer, Myanmar; by Unicode Script_Extensions) is a token on its own. So
``Müller`` != ``Möller``, ``Straße`` = ``STRASSE``, full-width ``１２`` = ``12``, and a Japanese
or Thai answer is compared character by character. On ASCII text this is exactly lowercase
``[a-z0-9]+`` (every figure of the bundled lessons is unchanged), and ASCII text takes that
faster path.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Sequence

import regex

_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
UNSPACED_SCRIPTS = ("Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer", "Myanmar")
"""Scripts written without spaces between words: their letters and digits are one token each."""
_UNSPACED = "".join(rf"\p{{scx={name}}}" for name in UNSPACED_SCRIPTS)
_WORD = r"\p{L}\p{M}\p{N}"
_TOKEN = regex.compile(rf"(?V1)[[{_WORD}]&&[{_UNSPACED}]]|[[{_WORD}]--[{_UNSPACED}]]+")


def tokens(text: str) -> list[str]:
    """The F1 tokens of ``text`` in order (module docstring): ``"BK-4821 ok"`` ->
    ``["bk", "4821", "ok"]``, ``"Straße １２"`` -> ``["strasse", "12"]``,
    ``"予約完了"`` -> ``["予", "約", "完", "了"]``."""
    if text.isascii():
        return _ASCII_TOKEN.findall(text.lower())
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def word_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each stretch of ``text`` that holds tokens, in the text as written
    (no NFKC), for marking words in a display; ``tokens(text[start:end])`` gives its tokens."""
    if text.isascii():
        return [m.span() for m in re.finditer(r"[A-Za-z0-9]+", text)]
    return [m.span() for m in _TOKEN.finditer(text)]


def unigram_f1(candidate: str, reference: str) -> float:
    """Unigram F1 in [0, 1] of ``candidate`` against one ``reference`` (multiset counts).

    ``unigram_f1("the the the cat", "the cat") == 2*2/(4+2) == 0.667`` (rounded).
    """
    cand, ref = Counter(tokens(candidate)), Counter(tokens(reference))
    n_cand, n_ref = sum(cand.values()), sum(ref.values())
    if n_cand == 0 or n_ref == 0:
        return 0.0
    overlap = sum((cand & ref).values())
    return 2.0 * overlap / (n_cand + n_ref)


def best_f1(candidate: str, references: Sequence[str]) -> float:
    """Highest unigram F1 of ``candidate`` over several acceptable ``references`` (0.0 if none)."""
    return max((unigram_f1(candidate, r) for r in references), default=0.0)
