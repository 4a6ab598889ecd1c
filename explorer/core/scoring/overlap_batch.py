"""Unigram F1 for many (answer, references) at once, equal to the one-pair definition.

:func:`best_f1_many` gives, for each answer, the value of
:func:`explorer.core.scoring.overlap.best_f1` over its references (unigram F1 over multisets of
:func:`~explorer.core.scoring.overlap.tokens`; 0 when either side has no token), without a Python
loop over tokens:

1. An answer that is one of its own references scores exactly 1.0 when it has a token (that pair's
   F1 is 2n / 2n, and no F1 is above 1), else 0.0: its texts are not tokenised.
2. Each distinct text of the other pairs is tokenised once. ASCII texts (whose tokens are the
   lowercased runs of ``[A-Za-z0-9]``) are joined into one byte buffer and cut into tokens by
   numpy; other texts go through :func:`~explorer.core.scoring.overlap.tokens` (NFKC,
   case-folding, Unicode scripts).
3. A token becomes an int64 code, equal for two tokens exactly when they are the same text: a
   token of at most 8 characters of ``[a-z0-9]`` is its bytes as a little-endian integer (read
   by numpy straight from the buffer, the letters lowercased); one of 9 or 10 such characters is
   its characters at 6 bits each (:func:`_pack6`, 60 bits) with bit 63 set; one of 11 to 16 is
   ``0x7E << 56`` plus the number Arrow's hash-based ``dictionary_encode`` gives its 16 bytes
   (characters, then NUL); any other token (longer, or not ASCII) ``0x7F << 56`` plus its number
   in a dictionary of texts (no token of 8 ASCII characters has a 0x7E or 0x7F byte, and only the
   9-10 character codes are negative). The codes are then numbered 0 .. V - 1 by
   ``dictionary_encode``.
4. For the pairs, every token of the answer and of the reference becomes a key
   ``(pair * V + token) * 2 + side`` (int32 when the keys fit, else int64); after one sort, runs
   of equal keys are the counts per (pair, token, side), and where a side-0 run is followed by the
   side-1 run of the same token the overlap gains the smaller count.

F1 = 2·overlap / (answer tokens + reference tokens) in float64, the same operations as the
one-pair code, so every value is identical (``tests/test_overlap_batch.py`` compares with
:func:`~explorer.core.scoring.overlap.best_f1` on random texts, Unicode included).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .overlap import tokens
from .text_scan import SEPARATOR, ascii_join

MAX_CODED = 16
"""Tokens up to this many ``[a-z0-9]`` characters are numbered from their bytes (16 = two uint64)."""
_MASK = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
"""``_MASK[k]``: the low k bytes of a little-endian uint64."""
_CASE = np.uint64(0x2020202020202020)
"""OR-ed into 8 bytes of ``[A-Za-z0-9]``: the letters lowercased, the digits kept (0x30-0x39 have the bit)."""
MAX_PACKED = 10
"""Tokens of 9 to this many ``[a-z0-9]`` characters are coded as 6 bits a character (60 bits)."""
_PACKED_TAG = np.uint64(1 << 63)
"""Step 3: set in the code of a 9-10 character token (so it is negative as int64, unlike every other code)."""
_ROW_TAG = 0x7E << 56
"""Step 3: the code of the k-th distinct token of 11 to 16 characters is ``_ROW_TAG | k``."""
_OTHER_TAG = 0x7F << 56
"""Step 3: the code of the k-th distinct other token (longer, or not ASCII) is ``_OTHER_TAG | k``."""
_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyz")
_PAD = SEPARATOR * 15
"""Joined after the last text (with the separator before it: 16 NUL bytes to read past the end)."""
_HAS_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]").search
"""An ASCII text has a token exactly when this finds a character."""


def _pack6(words: np.ndarray) -> np.ndarray:
    """uint64: each byte of ``words`` (``0-9``, ``a-z`` or NUL) as 6 bits, byte k at bit 6k: a
    digit 16-25, a letter 33-58, NUL 0 (bits 0-4 of the byte, bit 5 from its bit 6), so distinct
    texts of up to 8 characters give distinct values below 2**48."""
    x = (words & np.uint64(0x1F1F1F1F1F1F1F1F)) | ((words >> np.uint64(1)) & np.uint64(0x2020202020202020))
    x = (x & np.uint64(0x003F003F003F003F)) | ((x >> np.uint64(2)) & np.uint64(0x0FC00FC00FC00FC0))
    x = (x & np.uint64(0x00000FFF00000FFF)) | ((x >> np.uint64(4)) & np.uint64(0x00FFF00000FFF000))
    return (x & np.uint64(0xFFFFFF)) | ((x >> np.uint64(8)) & np.uint64(0xFFFFFF000000))


def _pack6_text(tok: str) -> int:
    """:func:`_pack6` of the characters of ``tok`` (``[a-z0-9]``, any length up to 10) as one int."""
    out = 0
    for k, c in enumerate(tok.encode("ascii")):
        out |= ((c & 0x1F) | ((c >> 1) & 0x20)) << (6 * k)
    return out


class _Codes:
    """Step 3 for one batch: ``rows`` the 16-byte forms of the 11-16 character tokens in blocks,
    ``row_at`` where each block's tokens sit in the code array (a row's code is ``_ROW_TAG`` plus
    the number ``dictionary_encode`` gives its 16 bytes), ``other`` the dictionary of the rest."""

    def __init__(self) -> None:
        self.rows: list[bytes] = []
        self.row_at: list[np.ndarray] = []  # where each block of rows goes in the code array
        self.other: dict[str, int] = {}

    def of_strings(self, toks: Sequence[str], first: int) -> np.ndarray:
        """int64 code per token (rows left to :meth:`numbered`); ``first``: where ``toks`` start
        in the code array."""
        out = np.zeros(len(toks), dtype=np.int64)
        rows = bytearray()
        at = []
        for k, tok in enumerate(toks):
            if len(tok) <= MAX_CODED and tok.isascii() and set(tok) <= _ALNUM:
                if len(tok) <= 8:
                    out[k] = int.from_bytes(tok.encode("ascii"), "little")
                elif len(tok) <= MAX_PACKED:
                    out[k] = _pack6_text(tok) - (1 << 63)  # _PACKED_TAG set, as int64
                else:
                    rows += tok.encode("ascii").ljust(MAX_CODED, b"\x00")
                    at.append(first + k)
            else:
                out[k] = _OTHER_TAG | self.other.setdefault(tok, len(self.other))
        if at:
            self.rows.append(bytes(rows))
            self.row_at.append(np.asarray(at, dtype=np.int64))
        return out

    def add_rows(self, w0: np.ndarray, w1: np.ndarray, at: np.ndarray) -> None:
        """Tokens of 11-16 characters given as their two little-endian uint64 halves, placed at
        ``at`` in the code array."""
        rows = np.empty((len(at), 2), dtype=np.uint64)
        rows[:, 0], rows[:, 1] = w0, w1
        self.rows.append(rows.tobytes())
        self.row_at.append(at)

    def numbered(self, codes: np.ndarray) -> tuple[np.ndarray, int]:
        """(int32 number 0 .. V - 1 per token of ``codes`` with the rows filled in, V)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if self.rows:
            data = b"".join(self.rows)
            n_rows = len(data) // MAX_CODED
            array = pa.FixedSizeBinaryArray.from_buffers(pa.binary(MAX_CODED), n_rows, [None, pa.py_buffer(data)])
            codes[np.concatenate(self.row_at)] = _ROW_TAG | pc.dictionary_encode(array).indices.to_numpy().astype(np.int64)
        encoded = pc.dictionary_encode(codes)
        return encoded.indices.to_numpy(), len(encoded.dictionary)


def _join(texts: Sequence[str]) -> tuple[str, np.ndarray, np.ndarray, Sequence[int], list[int]]:
    """(buffer, its bytes as uint8 with at least 16 NUL bytes after it, where each ASCII text
    starts (K + 1,), the positions of the ASCII texts, those of the others): every text joined
    when all are ASCII (one ``isascii`` on the joined str), else
    :func:`~explorer.core.scoring.text_scan.ascii_join`."""
    joined = SEPARATOR.join([*texts, _PAD])
    if joined.isascii():
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        starts = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths + 1, out=starts[1:])
        return joined, np.frombuffer(joined.encode("ascii"), dtype=np.uint8), starts, range(len(texts)), []
    j = ascii_join(texts)
    return j.buffer, j.codes, j.starts, j.index, j.others


def _token_numbers(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(lo, hi, number, V): the tokens of ``texts[k]`` are ``number[lo[k]:hi[k]]`` (int64 lo, hi;
    int32 numbers 0 .. V - 1, equal exactly for equal tokens; steps 2 and 3)."""
    buffer, c, text_starts, ascii_index, others = _join(texts)
    up = c | np.uint8(0x20)
    up -= np.uint8(ord("a"))
    alnum = up < 26
    alnum |= (c - np.uint8(ord("0"))) < 10
    edges = np.flatnonzero(alnum[1:] != alnum[:-1]) + 1  # the padding ends the last token
    if alnum[0]:
        edges = np.concatenate([[0], edges])
    start, end = edges[0::2], edges[1::2]
    length = end - start
    words = np.ndarray((len(c) - 7,), dtype="<u8", buffer=c, strides=(1,))  # 8 bytes from every position
    codes_ascii = np.take(words, start)
    codes_ascii |= _CASE
    codes_ascii &= _MASK[np.minimum(length, 8)]
    numbers = _Codes()
    long = np.flatnonzero(length > 8)
    if len(long):
        coded = long[length[long] <= MAX_CODED]
        if len(coded):
            w1 = words[start[coded] + 8]  # (np.take would copy all of the strided words first)
            w1 |= _CASE
            w1 &= _MASK[length[coded] - 8]
            packed = length[coded] <= MAX_PACKED
            if packed.any():
                at = coded[packed]
                codes_ascii[at] = _PACKED_TAG | _pack6(codes_ascii[at]) | (_pack6(w1[packed]) << np.uint64(48))
            if not packed.all():
                rest = ~packed
                numbers.add_rows(codes_ascii[coded[rest]], w1[rest], coded[rest])
        longer = long[length[long] > MAX_CODED]
        if len(longer):
            codes_ascii[longer] = [_OTHER_TAG | numbers.other.setdefault(buffer[a:b].lower(), len(numbers.other))
                                   for a, b in zip(start[longer].tolist(), end[longer].tolist())]
    bounds = np.searchsorted(start, text_starts)
    codes = codes_ascii.view(np.int64)
    if not others:
        lo, hi = bounds[:-1], bounds[1:]
    else:
        lo = np.zeros(len(texts), dtype=np.int64)
        hi = np.zeros(len(texts), dtype=np.int64)
        index = np.asarray(ascii_index, dtype=np.int64)
        lo[index], hi[index] = bounds[:-1], bounds[1:]
        toks = [tokens(texts[i]) for i in others]
        sizes = np.fromiter(map(len, toks), dtype=np.int64, count=len(toks))
        other_hi = len(codes) + np.cumsum(sizes)
        lo[others], hi[others] = other_hi - sizes, other_hi
        codes = np.concatenate([codes, numbers.of_strings([t for ts in toks for t in ts], len(codes))])
    number, v = numbers.numbered(codes)
    return lo, hi, number, v


def _repeat_ranges(lo: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``lo[k] .. lo[k] + sizes[k] - 1`` for each k, concatenated (int64)."""
    offsets = np.cumsum(sizes) - sizes
    return np.arange(int(offsets[-1] + sizes[-1]) if len(sizes) else 0) + np.repeat(lo - offsets, sizes)


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
    pa, pr, po = pairs.pair_answer, pairs.pair_ref, pairs.pair_owner
    if not len(po):
        return out
    texts = pairs.texts
    copied = np.zeros(pairs.n, dtype=bool)  # step 1
    copied[po[pa == pr]] = True
    at = np.flatnonzero(copied)
    if len(at):
        has = [bool(_HAS_ASCII_TOKEN(t) if t.isascii() else tokens(t)) for t in map(texts.__getitem__, pairs.answer[at].tolist())]
        out[at[np.asarray(has, dtype=bool)]] = 1.0
    todo = np.flatnonzero(~copied[po])
    if not len(todo):
        return out
    pa, pr, po = pa[todo], pr[todo], po[todo]
    used = np.zeros(len(texts), dtype=bool)
    used[pa] = True
    used[pr] = True
    need = np.flatnonzero(used)
    local = np.zeros(len(texts), dtype=np.int64)
    local[need] = np.arange(len(need))
    lo, hi, number, v = _token_numbers([texts[t] for t in need.tolist()])
    la, lr = local[pa], local[pr]
    na, nr = hi[la] - lo[la], hi[lr] - lo[lr]
    valid = np.flatnonzero((na > 0) & (nr > 0))
    if not len(valid):
        return out
    la, lr = la[valid], lr[valid]
    overlap = _overlap(lo, hi, number, v, la, lr)
    np.maximum.at(out, po[valid], 2.0 * overlap / (na[valid] + nr[valid]))
    return out


def _overlap(lo: np.ndarray, hi: np.ndarray, number: np.ndarray, v: int, a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """float64 (P,): for each pair k, ``sum over tokens of min(count in text a[k], count in text
    r[k])`` (step 4), the tokens of text t being ``number[lo[t]:hi[t]]`` (values < ``v``)."""
    p = len(a)
    dtype = np.int32 if 2 * p * v < 2**31 else np.int64
    size_a, size_r = hi[a] - lo[a], hi[r] - lo[r]
    step = 2 * v
    base = np.arange(0, p * step, step, dtype=dtype)
    twice = number.astype(dtype)
    twice *= 2
    n_a = int(size_a.sum())
    key = np.empty(n_a + int(size_r.sum()), dtype=dtype)
    np.add(np.repeat(base, size_a), twice[_repeat_ranges(lo[a], size_a)], out=key[:n_a])
    np.add(np.repeat(base + 1, size_r), twice[_repeat_ranges(lo[r], size_r)], out=key[n_a:])
    key.sort()
    bounds = np.concatenate([[0], np.flatnonzero(key[1:] != key[:-1]) + 1, [len(key)]])  # runs of equal keys, then the end
    first = key[bounds[:-1]]
    hit = np.flatnonzero((first[1:] - first[:-1] == 1) & (first[:-1] & 1 == 0))  # (pair, token, 0) then (pair, token, 1)
    shared = np.minimum(bounds[hit + 1] - bounds[hit], bounds[hit + 2] - bounds[hit + 1])
    return np.bincount(first[hit] // step, weights=shared, minlength=p)
