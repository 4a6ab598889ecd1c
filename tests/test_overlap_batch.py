"""Issue 14: unigram F1 for many pairs at once equals the one-pair definition.

:func:`explorer.core.scoring.overlap_batch.best_f1_many` tokenises each distinct text once (ASCII
texts by numpy over a joined buffer, others by :func:`~explorer.core.scoring.overlap.tokens`),
codes the tokens (8 bytes as an integer, 16-byte rows hashed by Arrow, the rest by a dictionary),
short-cuts an answer that is one of its references and counts the
multiset overlap with array work. The reference is :func:`explorer.core.scoring.overlap.best_f1`
and a plain multiset count written here; the texts mix case, digits, tokens of 16 and 17
characters (the edge of the 16-byte numbering), non-ASCII words that fold to ASCII tokens, and
scripts written without spaces.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.core.scoring.overlap import best_f1, tokens
from explorer.core.scoring.overlap_batch import best_f1_many

WORDS = [
    "the", "The", "THE", "a", "A1", "a1", "12", "１２", "booked", "BOOKED!", "Müller", "möller", "Straße", "STRASSE",
    "予約", "完了", "abcdefghijklmnop", "ABCDEFGHIJKLMNOP", "abcdefghijklmnopq", "abcdefghijklmnopqrstu",
    "x_y", "ﬁne", "fine", "K", "k", "…", "?", "", " ", "-", "\x00", "\x01",
    "abcdefgh", "ABCDEFGHi", "abcdefghi", "0123456789", "ﬁnedinings", "FINEDININGS", "~", "\x7f",
    "ppppppppp", "000000000", "abcdefghij", "ABCDEFGHIJK", "ﬁnedining", "FINEDINING", "abcdefgh9",
]
text = st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join)


def plain_f1(candidate: str, reference: str) -> float:
    """Multiset F1 from the definition (overlap = sum of the smaller count per token)."""
    c, r = Counter(tokens(candidate)), Counter(tokens(reference))
    if not c or not r:
        return 0.0
    overlap = sum(min(n, r[t]) for t, n in c.items())
    return 2.0 * overlap / (sum(c.values()) + sum(r.values()))


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(text, st.lists(text, max_size=3)), max_size=10))
def test_equals_best_f1_pair_by_pair(pairs):
    answers = [a for a, _ in pairs]
    refs = [r for _, r in pairs]
    got = best_f1_many(answers, refs)
    assert got.dtype == np.float64 and got.shape == (len(pairs),)
    for value, (answer, rs) in zip(got.tolist(), pairs):
        assert value == best_f1(answer, rs)  # identical, not close
        assert value == max((plain_f1(answer, r) for r in rs), default=0.0)


@pytest.mark.parametrize(
    "answer, references, want",
    [
        ("the the the cat", ["the cat"], 2 * 2 / 6),  # overlap 2 (the, cat) of 4 + 2 tokens
        ("Booked for Müller", ["Booked for Möller"], 2 * 2 / 6),
        ("予約完了", ["予約未了"], 2 * 3 / 8),
        ("same text", ["other", "same text"], 1.0),  # the answer is one of the references
        ("abcdefghijklmnopq x", ["ABCDEFGHIJKLMNOPQ y"], 2 * 1 / 4),  # a 17-character token on both sides
        ("?", ["?"], 0.0),  # no token
        ("words", [], 0.0),
    ],
)
def test_by_hand(answer, references, want):
    assert best_f1_many([answer], [references])[0] == pytest.approx(want, abs=1e-15)


@pytest.mark.parametrize(
    "answer, references, want",
    [
        ("?", ["?", "a"], 0.0),  # the answer is a reference but has no token
        ("a b", ["zzz", "a b"], 1.0),  # the answer is the second reference
        ("予約", ["x", "予約"], 1.0),  # ... and not ASCII
        ("abcdefghij", ["ABCDEFGHIJ é"], 2 * 1 / 3),  # a 10-character token from an ASCII and a non-ASCII text
        ("fine dining", ["ﬁne dining…"], 1.0),  # NFKC: the ligature is "fi", the ellipsis no token
        ("abcdefgh abcdefghi", ["abcdefghi abcdefgh abcdefgh"], 2 * 2 / 5),  # 8 and 9 characters are different tokens
        ("ABCDEFGHIJKLMNOPQRST x", ["abcdefghijklmnopqrst é"], 2 * 1 / 4),  # 20 characters, both kinds of text
        ("Zurich ZURICH zurich 2", ["zurich 2 2"], 2 * 2 / 7),  # min(3, 1) + min(1, 2)
        ("ppppppppp 000000000", ["000000000"], 2 * 1 / 3),  # 9 characters, 6 bits each: p and 0 stay apart
        ("abcdefghij abcdefghijk", ["abcdefghijk x"], 2 * 1 / 4),  # 10 characters packed, 11 as 16 bytes
        ("abcdefghij abcdefghijk", ["ABCDEFGHIJK é"], 2 * 1 / 4),  # ... the 11 from a non-ASCII text
        ("ﬁnedining x", ["FINEDINING y"], 2 * 1 / 4),  # NFKC: 10 characters from a non-ASCII text
        ("abcdefghiz", ["abcdefghiy"], 0.0),  # differ in the 10th character only
        ("abcdefgh", ["abcdefgh0"], 0.0),  # an 8-character token and its 9-character extension
        ("abcdefgh9 x", ["ABCDEFGH9 y"], 2 * 1 / 4),
    ],
)
def test_by_hand_token_kinds(answer, references, want):
    """Each way a token is coded (8 bytes, 16 bytes, a dictionary of texts; ASCII buffer or
    :func:`tokens`) and the shortcut for an answer that is one of its references."""
    assert best_f1_many([answer], [references])[0] == pytest.approx(want, abs=1e-15)


def test_six_bit_codes_by_hand():
    """A digit is 16-25, a letter 33-58 (bits 0-4 of the byte, bit 5 from its bit 6), character k
    at bit 6k: "0" = 16, "z" = 58, "p" = 48 (not 16, as the low 6 bits of the byte would give),
    "a0" = 33 + 16 * 64."""
    from explorer.core.scoring.overlap_batch import _pack6, _pack6_text

    assert [_pack6_text(c) for c in "09apz"] == [16, 25, 33, 48, 58]
    assert _pack6_text("a0") == 33 + 16 * 64
    words = np.frombuffer(b"abcdefgh" + b"a0\x00\x00\x00\x00\x00\x00", dtype="<u8")
    assert _pack6(words).tolist() == [_pack6_text("abcdefgh"), 33 + 16 * 64]


def test_batch_whose_keys_need_int64():
    """40,000 pairs over 40,008 distinct tokens: the sort keys (pair * V + token) * 2 + side reach
    2 * 40,000 * 40,008 > 2**31, so they are int64. Answer ``w{i} x``; reference ``w{i} x x``
    (every third: overlap 2 of 2 + 3 tokens, F1 4/5) or ``w{i} y{i % 7}`` (overlap 1 of 2 + 2, 1/2)."""
    n = 40_000
    answers = [f"w{i} x" for i in range(n)]
    refs = [[f"w{i} x x" if i % 3 == 0 else f"w{i} y{i % 7}"] for i in range(n)]
    got = best_f1_many(answers, refs)
    want = np.array([4 / 5 if i % 3 == 0 else 1 / 2 for i in range(n)])
    assert np.array_equal(got, want)
    assert got.tolist()[:50] == [best_f1(a, r) for a, r in zip(answers[:50], refs[:50])]


def test_lengths_must_agree():
    with pytest.raises(ValueError):
        best_f1_many(["a"], [])
