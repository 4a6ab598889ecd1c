"""featurize's partition reader: the lines that start in a byte range, in chunks, and the range's
hash blocks digested from the same reads (the digests must be ``file_hash``'s: the manifest's
source hash is made of them)."""

from __future__ import annotations

import random

import pytest

from explorer.core.io.featurestore import file_hash
from explorer.core.io.featurize import _PartitionReader


def _lines_starting_in(data: bytes, start: int, stop: int) -> list[bytes]:
    """By hand: each line (without its newline) whose first byte is at an offset in start..stop-1."""
    out, at = [], 0
    for line in data.split(b"\n"):
        if start <= at < stop and not (at == len(data) and not line):
            out.append(line)
        at += len(line) + 1
    return out


def _file(tmp_path, seed: int, final_newline: bool) -> tuple[str, bytes]:
    rng = random.Random(seed)
    lines = []
    for _ in range(300):
        kind = rng.random()
        if kind < 0.05:
            lines.append(b"")  # blank
        elif kind < 0.1:
            lines.append(b'{"id": "crlf"}\r')
        elif kind < 0.13:
            lines.append(b"x" * rng.randrange(300, 900))  # longer than a block or a chunk
        else:
            lines.append(b"y" * rng.randrange(1, 120))
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    path = tmp_path / f"f{seed}.jsonl"
    path.write_bytes(data)
    return str(path), data


@pytest.mark.parametrize("final_newline", [True, False])
@pytest.mark.parametrize("block,step,chunk", [(64, 64, 50), (64, 128, 200), (256, 512, 1), (1024, 1024, 4096), (100, 300, 37)])
def test_chunks_are_the_lines_starting_in_the_range_and_the_digests_file_hash(tmp_path, final_newline, block, step, chunk):
    path, data = _file(tmp_path, block + step + chunk, final_newline)
    seen = []
    for start in range(0, len(data), step):
        stop = min(len(data), start + step)
        reader = _PartitionReader(path, start, stop, block, chunk_bytes=chunk)
        got = list(reader)
        want = _lines_starting_in(data, start, stop)
        lines = [line for c, _ in got for line in c.split(b"\n")]
        assert lines == want, (start, stop)
        assert reader.n_lines == len(want)
        before = 0
        for k, (c, n_before) in enumerate(got):
            assert n_before == before
            before += c.count(b"\n") + 1
            if k < len(got) - 1:  # a chunk ends at the first line that reaches chunk bytes
                assert len(c) + 1 >= chunk
                assert c.count(b"\n") == 0 or c.rindex(b"\n") + 1 < chunk
        assert reader.digests() == file_hash(path, start // block, -(-stop // block), block), (start, stop)
        seen += want
    assert seen == _lines_starting_in(data, 0, len(data))  # every line once, in order


def test_a_line_spanning_the_whole_partition_gives_no_lines_and_its_blocks_digests(tmp_path):
    path = tmp_path / "long.jsonl"
    data = b"a" * 10 + b"\n" + b"b" * 300 + b"\n" + b"c"
    path.write_bytes(data)
    reader = _PartitionReader(str(path), 64, 128, 64, chunk_bytes=16)
    assert list(reader) == []
    assert reader.n_lines == 0
    assert reader.digests() == file_hash(str(path), 1, 2, 64)
    last = _PartitionReader(str(path), 256, len(data), 64, chunk_bytes=16)
    assert list(last) == [(b"c", 0)]
    assert last.digests() == file_hash(str(path), 4, 5, 64)
