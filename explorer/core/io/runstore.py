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
    """N runs stored as compressed blocks of newline-separated records.

    ``blocks[b]`` decompresses to the records of runs ``starts[b] .. starts[b+1]-1`` joined by
    ``b"\\n"``; ``parse(record_bytes) -> Run`` rebuilds one run. ``codec``: ``"zlib"``, or
    ``"zstd"`` (through pyarrow; :func:`compress_block` writes it, 3x faster than zlib level 1 and
    smaller), which needs ``raw_sizes`` (each block's uncompressed length). ``features`` (set once
    by the loader that computed them) is returned by
    :func:`explorer.core.evaluation.features.build_features` instead of recomputing. ``nbytes`` is
    the compressed size. Raises ValueError when the sizes do not match the blocks.
    """

    def __init__(
        self, blocks: list[bytes], block_sizes: Sequence[int], parse: Callable[[bytes], Run], cache_blocks: int = 16,
        codec: str = "zlib", raw_sizes: Sequence[int] | None = None,
    ):
        if len(blocks) != len(block_sizes):
            raise ValueError("one size per block")
        if codec not in ("zlib", "zstd"):
            raise ValueError(f"unknown block codec {codec!r}")
        if codec == "zstd" and (raw_sizes is None or len(raw_sizes) != len(blocks)):
            raise ValueError("zstd blocks need their uncompressed sizes, one per block")
        self._codec = codec
        self._raw_sizes = list(raw_sizes) if raw_sizes is not None else None
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
        if self._codec == "zstd":
            data = _zstd().decompress(self._blocks[b], decompressed_size=self._raw_sizes[b], asbytes=True)  # type: ignore[index]
        else:
            data = zlib.decompress(self._blocks[b])
        return data.split(b"\n")

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


@functools.lru_cache(maxsize=1)
def _zstd():
    import pyarrow as pa

    return pa.Codec("zstd", compression_level=1)


def block_codec() -> str:
    """The codec :func:`compress_block` uses here: ``"zstd"`` when pyarrow has it (PyPI wheels
    do), else ``"zlib"``."""
    import pyarrow as pa

    return "zstd" if pa.Codec.is_available("zstd") else "zlib"


def compress_block(data: bytes, codec: str) -> bytes:
    """``data`` compressed for a :class:`RunStore` with ``codec`` (zstd level 1, or zlib level 1)."""
    if codec == "zstd":
        return _zstd().compress(data, asbytes=True)
    return zlib.compress(data, 1)
