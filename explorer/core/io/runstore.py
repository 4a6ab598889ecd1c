"""A compact, read-only sequence of runs: their source records kept zlib-compressed in blocks.

A million :class:`~explorer.core.io.model.Run` objects take several GB (each call, args dict and
string is a Python object). After features are computed, the product reads whole runs only for
the few rows a person looks at (a table page, a detail view, a reason), so a big case set keeps
each run as its original record text, compressed in blocks of a few hundred, and rebuilds a
``Run`` on access (a block is decompressed once and kept in a small cache).

:class:`RunStore` is a ``Sequence[Run]``: ``len``, ``store[i]`` (negative too), slices (a tuple)
and iteration work as on the tuple a small case set holds. It is immutable and safe to read from
several threads.
"""

from __future__ import annotations

import functools
import threading
import zlib
from typing import Any, Callable, Iterator, Sequence, overload

import numpy as np

from .model import Run


class RunStore(Sequence[Run]):
    """N runs stored as zlib blocks of newline-separated records.

    ``blocks[b]`` decompresses to the records of runs ``starts[b] .. starts[b+1]-1`` joined by
    ``b"\\n"``; ``parse(record_bytes) -> Run`` rebuilds one run. ``features`` (set once by the
    loader that computed them) is returned by :func:`explorer.core.evaluation.features.build_features`
    instead of recomputing. ``nbytes`` is the compressed size.
    """

    def __init__(self, blocks: list[bytes], block_sizes: Sequence[int], parse: Callable[[bytes], Run], cache_blocks: int = 16):
        if len(blocks) != len(block_sizes):
            raise ValueError("one size per block")
        self._blocks = blocks
        self._starts = np.concatenate([[0], np.cumsum(np.asarray(block_sizes, dtype=np.int64))])
        self._parse = parse
        self._lock = threading.Lock()
        self._block_lines = functools.lru_cache(maxsize=cache_blocks)(self._decompress)
        self.features: Any = None

    @property
    def nbytes(self) -> int:
        """Compressed bytes held (records only)."""
        return sum(len(b) for b in self._blocks)

    def __len__(self) -> int:
        return int(self._starts[-1])

    def _decompress(self, b: int) -> list[bytes]:
        return zlib.decompress(self._blocks[b]).split(b"\n")

    def record(self, i: int) -> bytes:
        """The stored record text of run ``i`` (0 <= i < N), as bytes."""
        b = int(np.searchsorted(self._starts, i, side="right")) - 1
        with self._lock:
            lines = self._block_lines(b)
        return lines[i - int(self._starts[b])]

    @overload
    def __getitem__(self, i: int) -> Run: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Run, ...]: ...

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(n)))
        if isinstance(i, (np.integer,)):
            i = int(i)
        if not isinstance(i, int):
            raise TypeError(f"run index must be an int or slice, not {type(i).__name__}")
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("run index out of range")
        return self._parse(self.record(i))

    def __iter__(self) -> Iterator[Run]:
        for b in range(len(self._blocks)):
            for line in self._decompress(b):
                yield self._parse(line)

    def __repr__(self) -> str:
        return f"RunStore({len(self)} runs in {len(self._blocks)} blocks, {self.nbytes / 1e6:.1f} MB)"
