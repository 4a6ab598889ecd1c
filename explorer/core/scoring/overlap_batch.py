"""Unigram F1 for many (answer, references) at once, equal to the one-pair definition.

:func:`best_f1_many` gives, for each answer, the value of
:func:`explorer.core.scoring.overlap.best_f1` over its references (unigram F1 over multisets of
:func:`~explorer.core.scoring.overlap.tokens`; 0 when either side has no token), without a Python
loop over tokens:

1. Each distinct text is tokenised once. ASCII texts (whose tokens are the lowercased runs of
   ``[A-Za-z0-9]``) are joined into one byte buffer and cut into tokens by numpy; other texts go
   through :func:`~explorer.core.scoring.overlap.tokens` (NFKC, case-folding, Unicode scripts).
2. A token becomes an integer: every token made of at most 16 characters of ``[a-z0-9]`` is
   written as 16 bytes (its characters, then NUL bytes), read by numpy straight from the buffer,
   and numbered by Arrow's hash-based ``dictionary_encode``; any other token (longer, or not ASCII)
   is numbered after those from a dictionary of its text. Two tokens get the same number exactly
   when they are the same text.
3. Counting per (text, token) and the overlap ``sum(min(count in answer, count in reference))``
   per pair are sorts, searches and sums over integer arrays.

F1 = 2·overlap / (answer tokens + reference tokens) in float64, the same operations as the
one-pair code, so every value is identical (``tests/test_overlap_batch.py`` compares with
:func:`~explorer.core.scoring.overlap.best_f1` on random texts, Unicode included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .overlap import tokens
from .text_scan import ascii_join

_LOWER = np.zeros(256, dtype=np.uint8)
"""Byte -> the byte of a token character (``0-9``, ``a-z``; ``A-Z`` lowercased), 0 for any other."""
for _c in "0123456789abcdefghijklmnopqrstuvwxyz":
    _LOWER[ord(_c)] = _LOWER[ord(_c.upper())] = ord(_c)
MAX_CODED = 16
"""Tokens up to this many ``[a-z0-9]`` characters are numbered from their bytes (16 = two uint64)."""
_MASK = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
"""``_MASK[k]``: the low k bytes of a little-endian uint64."""
_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyz")


class _TokenNumbers:
    """Numbers for the tokens of one batch (module docstring, step 2): ``rows`` the 16-byte form of
    every coded token in order, ``other`` the dictionary of the rest (number = coded count + k)."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray | bytes] = []
        self.other: dict[str, int] = {}

    def add_strings(self, toks: Sequence[str]) -> np.ndarray:
        """int64 per token: ``>= 0`` the index of its 16-byte row among those added, else
        ``-1 - k`` for the k-th distinct other token."""
        out = np.empty(len(toks), dtype=np.int64)
        coded = bytearray()
        n_rows = self._n_rows()
        for k, tok in enumerate(toks):
            if len(tok) <= MAX_CODED and tok.isascii() and set(tok) <= _ALNUM:
                coded += tok.encode("ascii").ljust(MAX_CODED, b"\x00")
                out[k] = n_rows
                n_rows += 1
            else:
                out[k] = -1 - self.other.setdefault(tok, len(self.other))
        if coded:
            self.rows.append(bytes(coded))
        return out

    def add_rows(self, rows: np.ndarray) -> np.ndarray:
        """``rows``: uint64 (k, 2), each the 16-byte form of a token; their row indices."""
        first = self._n_rows()
        self.rows.append(np.ascontiguousarray(rows).tobytes())
        return np.arange(first, first + len(rows), dtype=np.int64)

    def _n_rows(self) -> int:
        return sum(len(r) for r in self.rows) // MAX_CODED

    def dense(self, refs: np.ndarray) -> tuple[np.ndarray, int]:
        """(int64 number per token from :meth:`add_strings` / :meth:`add_rows` results, how many
        distinct numbers): equal tokens get equal numbers, different tokens different ones."""
        import pyarrow as pa
        import pyarrow.compute as pc

        data = b"".join(self.rows)
        n_rows = len(data) // MAX_CODED
        if n_rows:
            array = pa.FixedSizeBinaryArray.from_buffers(pa.binary(MAX_CODED), n_rows, [None, pa.py_buffer(data)])
            encoded = pc.dictionary_encode(array)
            row_number = encoded.indices.to_numpy().astype(np.int64)
            n_coded = len(encoded.dictionary)
        else:
            row_number = np.zeros(0, dtype=np.int64)
            n_coded = 0
        out = np.where(refs >= 0, row_number[np.maximum(refs, 0)] if n_rows else 0, n_coded - 1 - refs)
        return out, n_coded + len(self.other)


def _ascii_tokens(texts: Sequence[str], numbers: _TokenNumbers) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(batch positions of the ASCII texts, token owner (index into the first list), token
    reference for :meth:`_TokenNumbers.dense`) for the ASCII texts of ``texts``."""
    j = ascii_join(texts)
    n = len(j.buffer)
    low = np.take(_LOWER, j.codes)  # ends with 16 NUL bytes
    alnum = (low[: n + 1] != 0).view(np.int8)
    edges = np.diff(alnum, prepend=np.int8(0))
    start = np.flatnonzero(edges == 1)
    end = np.flatnonzero(edges == -1)
    length = end - start
    owner = j.owner(start)
    refs = np.empty(len(start), dtype=np.int64)
    short = length <= MAX_CODED
    if short.any():
        words = np.ndarray((len(low) - 7,), dtype="<u8", buffer=low, strides=(1,))  # 8 bytes from every position
        s, size = start[short], length[short]
        rows = np.empty((len(s), 2), dtype=np.uint64)
        rows[:, 0] = words[s] & _MASK[np.minimum(size, 8)]
        rows[:, 1] = words[s + 8] & _MASK[np.clip(size - 8, 0, 8)]
        refs[short] = numbers.add_rows(rows)
    if not short.all():
        long_at = np.flatnonzero(~short)
        refs[long_at] = numbers.add_strings([j.buffer[a:b].lower() for a, b in zip(start[long_at].tolist(), end[long_at].tolist())])
    return j.index, owner, refs


@dataclass(frozen=True)
class PairIndex:
    """N answers and their references over the batch's distinct ``texts``: ``answer`` int64 (N,)
    the text of each answer; one entry per (answer, reference) pair, in answer order:
    ``pair_owner`` (the answer), ``pair_answer`` and ``pair_ref`` (text indices), all int64 (P,)."""

    texts: list[str]
    answer: np.ndarray
    pair_owner: np.ndarray
    pair_answer: np.ndarray
    pair_ref: np.ndarray

    @property
    def n(self) -> int:
        """Number of answers N."""
        return len(self.answer)


def index_pairs(answers: Sequence[str], references: Sequence[Sequence[str]]) -> PairIndex:
    """The :class:`PairIndex` of ``answers[i]`` against ``references[i]``. Raises ValueError on
    unequal lengths."""
    if len(answers) != len(references):
        raise ValueError(f"{len(answers)} answers but {len(references)} reference lists")
    index: dict[str, int] = {}
    answer = [index.setdefault(a, len(index)) for a in answers]
    pair_ref = [index.setdefault(r, len(index)) for refs in references for r in refs]
    sizes = [len(refs) for refs in references]
    owner = np.repeat(np.arange(len(answers), dtype=np.int64), sizes)
    answer_arr = np.asarray(answer, dtype=np.int64)
    return PairIndex(list(index), answer_arr, owner, answer_arr[owner], np.asarray(pair_ref, dtype=np.int64))


def best_f1_many(answers: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """float64 (N,): for each ``answers[i]``, the best unigram F1 over ``references[i]`` (0.0 when
    the answer has no token or no reference has one), equal to
    :func:`explorer.core.scoring.overlap.best_f1`. Raises ValueError on unequal lengths."""
    return best_f1_indexed(index_pairs(answers, references))


def best_f1_indexed(pairs: PairIndex) -> np.ndarray:
    """:func:`best_f1_many` of the answers and references of ``pairs``."""
    out = np.zeros(pairs.n, dtype=np.float64)
    if not len(pairs.pair_owner):
        return out
    texts = pairs.texts
    numbers = _TokenNumbers()
    ascii_index, owner, refs = _ascii_tokens(texts, numbers)
    owner = np.asarray(ascii_index, dtype=np.int64)[owner] if len(owner) else owner
    if len(ascii_index) < len(texts):
        rest = [i for i, t in enumerate(texts) if not t.isascii()]
        toks = [tokens(texts[i]) for i in rest]
        owner = np.concatenate([owner, np.repeat(np.asarray(rest, dtype=np.int64), [len(t) for t in toks])])
        refs = np.concatenate([refs, numbers.add_strings([t for ts in toks for t in ts])])
    n_tokens = np.bincount(owner, minlength=len(texts)) if len(owner) else np.zeros(len(texts), dtype=np.int64)

    # (text, token) -> count: one sort of text * V + token (tokens come grouped by text, so the
    # stable sort has little to do), then the first of each run of equal keys
    number, v = numbers.dense(refs) if len(refs) else (refs, 1)
    v = max(v, 1)
    key = owner * v + number
    key.sort(kind="stable")
    first = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if len(key) else key
    counts = np.diff(np.append(first, len(key)))
    key = key[first]
    bounds = np.searchsorted(key // v, np.arange(len(texts) + 1))
    token_of = key % v

    pa, pr, po = pairs.pair_answer, pairs.pair_ref, pairs.pair_owner
    na, nr = n_tokens[pa], n_tokens[pr]
    overlap = np.where(pa == pr, na, 0)  # the answer is that reference: every token shared
    todo = np.flatnonzero((pa != pr) & (na > 0) & (nr > 0))
    if len(todo):
        pair_a, ia = _expand(bounds, pa[todo])
        pair_r, ir = _expand(bounds, pr[todo])
        key_a = pair_a * v + token_of[ia]  # sorted: pairs in order, tokens sorted per text
        key_r = pair_r * v + token_of[ir]
        at = np.searchsorted(key_r, key_a)
        at[at >= len(key_r)] = 0
        hit = key_r[at] == key_a
        shared = np.minimum(counts[ia[hit]], counts[ir[at[hit]]])
        overlap[todo] = np.bincount(pair_a[hit], weights=shared, minlength=len(todo)).astype(np.int64)
    valid = (na > 0) & (nr > 0)
    f1 = np.zeros(len(pa), dtype=np.float64)
    f1[valid] = 2.0 * overlap[valid] / (na[valid] + nr[valid])
    np.maximum.at(out, po, f1)
    return out


def _expand(bounds: np.ndarray, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each k, the entries ``bounds[texts[k]] .. bounds[texts[k] + 1] - 1``: (k per entry,
    entry index), concatenated in order."""
    lo, hi = bounds[texts], bounds[texts + 1]
    sizes = hi - lo
    which = np.repeat(np.arange(len(texts)), sizes)
    offsets = np.cumsum(sizes) - sizes
    entries = np.arange(int(sizes.sum())) - np.repeat(offsets - lo, sizes)
    return which, entries
