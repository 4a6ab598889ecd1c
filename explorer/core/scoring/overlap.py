"""Answer overlap: unigram F1 between a candidate answer and its reference(s).

Definition (DEVELOPERS.md; equal to ADK ``response_match_score``'s ROUGE-1 F on plain English
without stemmable words, see ``shared/notes/adk-eval-semantics.md``): lowercase the text, take
``[a-z0-9]+`` tokens, count them as multisets; precision = overlap / candidate tokens, recall =
overlap / reference tokens, F1 = 2·overlap / (candidate tokens + reference tokens). Either side
empty gives 0.0 (as ADK: empty vs empty is 0.0).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Lowercase alphanumeric tokens of ``text`` in order, e.g. ``"BK-4821 ok"`` -> ``["bk", "4821", "ok"]``."""
    return _TOKEN.findall(text.lower())


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
