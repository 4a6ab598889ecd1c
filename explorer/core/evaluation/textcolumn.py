"""A read-only column of N texts kept as one Arrow string array (offsets + UTF-8 bytes).

A million run ids as Python strings take about 65 MB (a ~57-byte object and an 8-byte pointer
each); as an Arrow array, 12 MB, and reading them from a features file costs no conversion.
:class:`TextColumn` behaves as the object array the product reads where it reads one:
``col[i]`` is a ``str``, ``col[a:b]``, ``col[indices]`` and ``col[mask]`` are object arrays of the
rows asked for, iteration yields ``str``, ``np.asarray(col)`` is the whole object array (built on
demand).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


class TextColumn:
    """N texts (``str``, never None) over ``array`` (a ``pyarrow`` string / large_string
    array or chunked array; nulls read as ``""``)."""

    __array_priority__ = 1

    def __init__(self, array: pa.Array | pa.ChunkedArray):
        if array.null_count:
            array = array.fill_null("")
        self.array = array  # a chunked array is kept as it is (indexing and take work across chunks)

    @classmethod
    def from_strings(cls, values) -> "TextColumn":
        """From a sequence of ``str``."""
        return cls(pa.array(list(values), type=pa.string()))

    def __len__(self) -> int:
        return len(self.array)

    @property
    def shape(self) -> tuple[int]:
        return (len(self.array),)

    @property
    def ndim(self) -> int:
        return 1

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(object)

    @property
    def size(self) -> int:
        return len(self.array)

    @property
    def nbytes(self) -> int:
        """Bytes held (offsets and text)."""
        return self.array.nbytes

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            n = len(self.array)
            i = int(key)
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError("text index out of range")
            return self.array[i].as_py()
        if isinstance(key, slice):
            return np.asarray(self.array[key].to_pylist(), dtype=object)
        index = np.asarray(key)
        if index.dtype == bool:
            if index.shape != (len(self.array),):
                raise IndexError(f"boolean index of shape {index.shape} for {len(self.array)} texts")
            index = np.flatnonzero(index)
        out = np.empty(index.shape, dtype=object)
        out[...] = self.array.take(pa.array(index.reshape(-1).astype(np.int64))).to_pylist() if index.size else []
        return out

    def longest(self) -> int:
        """Characters (code points) of the longest text; 0 when there are none."""
        if not len(self.array):
            return 0
        return int(pc.max(pc.utf8_length(self.array)).as_py() or 0)

    def __iter__(self) -> Iterator[str]:
        step = 65_536
        for start in range(0, len(self.array), step):
            yield from self.array[start : start + step].to_pylist()

    def __array__(self, dtype=None, copy=None):
        out = np.empty(len(self.array), dtype=object)
        out[:] = self.array.to_pylist()
        return out if dtype is None or np.dtype(dtype) == np.dtype(object) else out.astype(dtype)

    def __eq__(self, other):  # elementwise, as on the object array
        return np.asarray(self) == (np.asarray(other) if not isinstance(other, str) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TextColumn({len(self.array)} texts, {self.array.nbytes / 1e6:.1f} MB)"
