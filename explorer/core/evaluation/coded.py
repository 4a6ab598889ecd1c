"""Exact, compact storage of a float64 score array that takes few distinct values.

A run's trajectory score in a family is the mean over its invocations of a small fraction (1/0
for the match families; matched / expected calls for the partial ones), so over a million runs
each (family, argument mode) takes a few dozen distinct float64 values (33-87 in the synthetic
set). :class:`CodedScores` keeps such an (S, A, N) array as one-byte codes into a table of its
distinct values: 36 bytes a run instead of 288, and decoding ``values[codes]`` gives back the very
same float64 bits (the table holds the original values, compared by bit pattern), so every
threshold comparison (:mod:`explorer.core.scoring.passmark`) reads exactly what it read before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from ..scoring.passmark import quantise

MAX_CODES = {np.dtype(np.uint8): 256, np.dtype(np.uint16): 65536}
"""Code dtypes by how many distinct values they index."""
ROW_CACHE_BYTES = 64 * 1024 * 1024
"""Decoded rows kept by a :class:`CodedScores` (bytes; at least one row)."""


GATHER_CHUNK = 1 << 16
"""Codes looked up per call of ``np.take`` in :func:`gather`: numpy copies the indices into a
temporary intp array first (8 bytes a code, 80 MB at 10M runs), which a chunk keeps in cache."""


def gather(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``table[codes]`` (a new array of ``codes.shape`` and ``table.dtype``) for unsigned
    ``codes`` that are all ``< len(table)``, looked up :data:`GATHER_CHUNK` at a time: the same
    values as ``np.take(table, codes)``, 1.7x (float64) to 4x (bool) faster at 10M codes
    (measured: 30 against 51 ms, 8 against 32 ms), because numpy's intp copy of each chunk's
    indices stays in cache instead of 80 MB being written and read back."""
    codes = np.asarray(codes)
    if codes.ndim == 0:  # one code: the value itself, as ``np.take`` gives it
        return table[int(codes)]
    out = np.empty(codes.shape, dtype=table.dtype)
    flat_codes, flat_out = codes.reshape(-1), out.reshape(-1)
    # mode "clip": no bounds check per code (they were checked when the codes were made)
    for start in range(0, flat_codes.size, GATHER_CHUNK):
        np.take(table, flat_codes[start:start + GATHER_CHUNK], out=flat_out[start:start + GATHER_CHUNK], mode="clip")
    return out


def lookup_bool(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """bool ``table[codes]`` for a bool ``table`` (K,) and codes ``< K``. When the True entries
    of ``table`` are one run of consecutive codes ``lo .. hi`` (a threshold over codes in the
    order of their values: :meth:`CodedScores.reaches`), one or two comparisons of the codes
    (~1.5-4 ms at 10M runs, against 32 ms for ``np.take``); else :func:`gather`."""
    true_at = np.flatnonzero(table)
    if true_at.size == 0:
        return np.zeros(np.shape(codes), dtype=bool)
    lo, hi = int(true_at[0]), int(true_at[-1])
    if hi - lo + 1 != true_at.size:
        return gather(np.asarray(table, dtype=bool), codes)
    if lo == 0 and hi == table.size - 1:
        return np.ones(np.shape(codes), dtype=bool)
    if hi == table.size - 1:
        return codes >= lo
    if lo == 0:
        return codes <= hi
    out = codes >= lo
    out &= codes <= hi
    return out


def code_dtype(k: int) -> np.dtype | None:
    """The smallest unsigned dtype that indexes ``k`` distinct values, or None above 65,536."""
    for dt, most in MAX_CODES.items():
        if k <= most:
            return dt
    return None


def distinct_bits(values: np.ndarray) -> np.ndarray:
    """float64 (K,): the distinct values of ``values`` by bit pattern (so ``-0.0`` and ``0.0``,
    or two NaNs with different payloads, stay apart), sorted by bit pattern."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64).reshape(-1)
    return np.unique(bits).view(np.float64)


def encode(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Codes of ``values`` (float64, any shape) in ``table`` (float64 (K,) as
    :func:`distinct_bits` returns: sorted by bit pattern, holding every value). Raises ValueError
    when a value is not in the table or the table is too long for 16-bit codes."""
    dt = code_dtype(table.size)
    if dt is None:
        raise ValueError(f"{table.size} distinct values: too many for 16-bit codes")
    tbits = table.view(np.uint64)
    vbits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    codes = np.searchsorted(tbits, vbits)
    if codes.size and (codes.max() >= tbits.size or not np.array_equal(tbits[codes], vbits)):
        raise ValueError("a value is not in the table")
    return codes.astype(dt)


class CodedScores:
    """A read-only float64 array of shape ``codes.shape`` stored as ``values[codes]``.

    ``codes``: uint8 or uint16 (S, A, N); ``values``: float64 (K,), K <= 256 for uint8 codes,
    <= 65,536 for uint16. Behaves as the decoded array where the product reads it:
    ``scores[s, a]`` is the float64 (N,) row (decoded once and kept for the last rows asked: up
    to 4 and ``ROW_CACHE_BYTES``),
    ``np.asarray(scores)`` the whole float64 array, ``shape`` / ``dtype`` / ``ndim`` / ``nbytes``
    (the stored bytes). Raises ValueError when a code is out of the table's range.
    """

    __array_priority__ = 1

    def __init__(self, codes: np.ndarray, values: np.ndarray, keep_rows: int | None = None):
        codes = np.asarray(codes)
        values = np.ascontiguousarray(values, dtype=np.float64)
        if codes.dtype not in MAX_CODES:
            raise ValueError(f"codes must be uint8 or uint16, got {codes.dtype}")
        if values.size > MAX_CODES[codes.dtype]:
            raise ValueError(f"{values.size} values do not fit {codes.dtype} codes")
        if codes.size and int(codes.max()) >= values.size:
            raise ValueError(f"code {int(codes.max())} out of range for {values.size} values")
        codes.flags.writeable = False
        values.flags.writeable = False
        self.codes = codes
        self.values = values
        self._rows: OrderedDict[tuple, np.ndarray] = OrderedDict()
        n = codes.shape[-1] if codes.ndim else 1
        # decoded rows kept: at most 4, and at most ROW_CACHE_BYTES of them (one row at 10M runs)
        self._keep = keep_rows if keep_rows is not None else max(1, min(4, ROW_CACHE_BYTES // max(1, 8 * n)))
        self._lock = threading.Lock()

    @classmethod
    def from_array(cls, array: np.ndarray) -> "CodedScores | np.ndarray":
        """``array`` (float64, any shape) coded exactly; returned as it is (float64) when it has
        more than 65,536 distinct values."""
        table = distinct_bits(array)
        if code_dtype(table.size) is None:
            return np.asarray(array, dtype=np.float64)
        return cls(encode(array, table), table)

    @classmethod
    def concat(cls, parts: Sequence["CodedScores | np.ndarray"], axis: int = -1) -> "CodedScores | np.ndarray":
        """The parts joined along ``axis`` (the run axis), with one table of every part's values
        (float64 when the union has more than 65,536 values)."""
        if not parts:
            raise ValueError("nothing to join")
        if any(not isinstance(p, CodedScores) for p in parts):
            return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts], axis=axis)
        table = distinct_bits(np.concatenate([p.values for p in parts]))
        dt = code_dtype(table.size)
        if dt is None:
            return np.concatenate([np.asarray(p) for p in parts], axis=axis)
        remapped = [encode(p.values, table)[p.codes] for p in parts]
        return cls(np.concatenate(remapped, axis=axis).astype(dt, copy=False), table)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.codes.shape

    @property
    def ndim(self) -> int:
        return self.codes.ndim

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float64)

    @property
    def nbytes(self) -> int:
        """Bytes stored (codes and table), not the decoded size."""
        return self.codes.nbytes + self.values.nbytes

    def __len__(self) -> int:
        return self.codes.shape[0]

    def row(self, *index: int) -> np.ndarray:
        """float64 (N,): the decoded row ``index`` (e.g. ``row(s, a)``), read-only, kept for the
        last rows asked (a settings change reads one or two)."""
        key = tuple(int(i) for i in index)
        with self._lock:
            got = self._rows.get(key)
            if got is not None:
                self._rows.move_to_end(key)
                return got
        out = gather(self.values, self.codes[key])
        out.flags.writeable = False
        with self._lock:
            self._rows[key] = out
            while len(self._rows) > self._keep:
                self._rows.popitem(last=False)
        return out

    def decoded_row(self, *index: int) -> np.ndarray:
        """float64 (N,): the decoded row ``index`` as a new writable array, not kept (a sweep
        decodes each row once and adds F1 to it in place: no second N floats held)."""
        return gather(self.values, self.codes[tuple(int(i) for i in index)])

    def quantised_row(self, *index: int) -> np.ndarray:
        """float64 (N,): ``quantise(row(*index))``, computed on the table (K values) and then
        looked up: the same values, elementwise, without rounding N floats."""
        return gather(quantise(self.values), self.codes[tuple(int(i) for i in index)])

    def reaches(self, index: tuple[int, ...], threshold: float) -> np.ndarray:
        """bool (N,): ``quantise(row(*index)) >= threshold``, compared once per distinct value
        and looked up (:mod:`explorer.core.scoring.passmark`'s comparison, elementwise the same)."""
        with np.errstate(invalid="ignore"):
            passes = quantise(self.values) >= threshold
        return lookup_bool(passes, self.codes[tuple(int(i) for i in index)])

    def reach(self, index: tuple[int, ...], thresholds: np.ndarray) -> np.ndarray:
        """intp (N,): ``np.searchsorted(thresholds, quantise(row(*index)), side="right")``,
        searched once per distinct value and looked up (elementwise the same)."""
        table = np.searchsorted(thresholds, quantise(self.values), side="right")
        return gather(table, self.codes[tuple(int(i) for i in index)])

    def __getitem__(self, key):
        if isinstance(key, tuple) and len(key) == self.ndim - 1 and all(isinstance(k, (int, np.integer)) for k in key):
            return self.row(*key)
        return gather(self.values, self.codes[key])

    def __array__(self, dtype=None, copy=None):
        out = gather(self.values, self.codes)
        return out if dtype is None else out.astype(dtype)

    def __eq__(self, other):  # elementwise, as on the decoded array
        return np.asarray(self) == np.asarray(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CodedScores(shape={self.shape}, {self.values.size} values, {self.codes.dtype} codes)"


class NonZero:
    """The bool array ``counts != 0`` of an integer array, computed for the part asked
    (``view[key]`` is ``counts[key] != 0``; ``np.asarray(view)`` the whole): a features dataset's
    ``tools_called`` over its ``tool_invocations`` without a second (N, T) array (180 MB at 10M
    runs of 18 tools)."""

    __array_priority__ = 1

    def __init__(self, counts: np.ndarray):
        self.counts = counts

    @property
    def shape(self) -> tuple[int, ...]:
        return self.counts.shape

    @property
    def ndim(self) -> int:
        return self.counts.ndim

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(bool)

    def __len__(self) -> int:
        return len(self.counts)

    def __getitem__(self, key):
        return self.counts[key] != 0

    def __array__(self, dtype=None, copy=None):
        out = self.counts != 0
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        return f"NonZero(shape={self.shape})"
