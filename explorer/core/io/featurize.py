"""Compute the features of run files into a features dataset, partition by partition (issue 14).

The work is split by file and byte range: a flat JSONL file into :data:`PARTITION_BYTES` (16 MiB)
ranges, each read from the first line that starts in it to the last line that starts in it; any
other format one whole file per partition. :func:`featurize_partition` computes one partition's
features with the parallel loader's own chunk worker (:func:`~explorer.core.io.bigload.chunk_features`:
the flat loader's light validation and the batched
:func:`~explorer.core.evaluation.feature_rows.feature_rows`, so the values are those of
``load_jsonl_features``, and the first open through the feature cache gets issue 14's faster
load), writes them with the runs' texts (from the worker's plain invocations, no Run built) as one part file
(:mod:`explorer.core.io.featurestore`), and returns a small summary. :func:`featurize` runs the
partitions in local worker processes or on a Dask cluster (:mod:`explorer.core.io.dask_engine`),
then checks what no partition can see alone (the first bad line in file order, duplicate run ids)
and writes the manifest.

Errors are the loaders': ``"<file>: line N[, <field>]: <problem>"`` for the first bad line in
file order, duplicate ids as the JSONL loader and :func:`~explorer.core.io.loaders.concat_case_sets`
word them, ``"<file>: file is empty"``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from ..evaluation.features import build_features
from .bigload import chunk_features, looks_like_flat_jsonl, process_context
from ..gcpause import collector_paused
from .errors import LoadError, show
from .featurestore import (
    HASH_BLOCK, MANIFEST, RECORD_FLAT, RECORD_RUN_JSON, FeatureSettings, PartColumns, SourceFile, columns_of_features, stat_source,
    combine_hashes, file_hash, make_manifest, plain_texts, run_to_json, sample_hash, write_manifest, write_part,
)
from .reading import file_size

PARTITION_BYTES = 2 * HASH_BLOCK
"""Most bytes of a JSONL file per partition (16 MiB, about 10,700 synthetic runs); smaller files
are cut in four (whole hash blocks of 8 MiB) so every worker has work. 16 MiB rather than 64: a
worker holds a partition's record and text arrays until it writes the part (~100 MB at 64 MiB,
~25 at 16), and at 64 MiB that memory kept coming back as fresh pages (0.31-0.36 page faults and
~3 us of system time a run, against 0.15-0.19 and ~1 us); the 1M-run first open took 17.1-21.5 s
(mean 18.6) against 18.5-20.9 s (mean 19.7) at 64 MiB, seven runs each, alternately
(docs/performance.md, 2026-12-05). The last partition a worker takes is shorter too."""
CHUNK_BYTES = 4 * 1024 * 1024
"""Bytes of whole lines featurised at a time inside a partition."""


@dataclass(frozen=True)
class Partition:
    """One unit of work: part ``index`` of the dataset, from source file ``source`` (index into
    the files) at ``path``: bytes ``start .. stop-1`` of a JSONL file (``kind="jsonl"``; hash
    blocks ``start_block .. stop_block-1``), or the whole file (``kind="file"``)."""

    index: int
    source: int
    path: str
    kind: str
    start: int = 0
    stop: int = 0
    size: int = 0
    block: int = HASH_BLOCK


def plan(paths: Sequence[str], input_format: str = "auto", partition_bytes: int | None = None,
         block_bytes: int = HASH_BLOCK) -> list[Partition]:
    """The partitions of ``paths`` in run order. ``partition_bytes``: a multiple of
    ``block_bytes`` (the hash block, 8 MiB; smaller in tests); default a quarter of the file in
    whole blocks, at most ``PARTITION_BYTES``. Raises LoadError for a missing file or a folder,
    ValueError for a bad size."""
    if partition_bytes is not None and (partition_bytes <= 0 or partition_bytes % block_bytes):
        raise ValueError(f"partition size must be a positive multiple of {block_bytes} bytes")
    out: list[Partition] = []
    for s, path in enumerate(paths):
        size = file_size(path)
        if size and looks_like_flat_jsonl(path, input_format, min_bytes=0):
            step = partition_bytes or max(block_bytes, min(PARTITION_BYTES // block_bytes * block_bytes,
                                                           block_bytes * -(-size // (4 * block_bytes))))
            for start in range(0, size, step):
                out.append(Partition(len(out), s, str(path), "jsonl", start, min(size, start + step), size, block_bytes))
        else:
            out.append(Partition(len(out), s, str(path), "file", 0, size, size, block_bytes))
    return out


class _PartitionReader:
    """The lines of a JSONL partition in chunks, and its hash blocks' digests from the same reads.

    Iterating gives ``(chunk, lines before it in the partition)`` over the lines that start in
    bytes ``start .. stop-1`` of ``path``: whole lines, a chunk ending at the end of the first line
    that reaches ``chunk_bytes`` bytes (the last one may run past ``stop``), without its final
    newline, as ``bigload``'s chunks. Each chunk is one read of ``chunk_bytes - 1`` bytes and one
    ``readline`` for the rest of its last line (no object per line). :meth:`digests` (after the
    iteration) is :func:`~explorer.core.io.featurestore.file_hash` of the hash blocks
    ``start // block .. ceil(stop / block) - 1`` (same bytes, same digests), hashed from the bytes
    read for the lines, so the range is not read twice. ``n_lines``: the
    lines of the partition (after the iteration). Raises OSError."""

    def __init__(self, path: str, start: int, stop: int, block: int = HASH_BLOCK, chunk_bytes: int = CHUNK_BYTES):
        self.path, self.start, self.stop, self.block, self.chunk_bytes = path, start, stop, block, chunk_bytes
        self.n_lines = 0
        self._hash_start = start // block * block
        self._hash_stop = -(-stop // block) * block
        self._done: list[bytes] = []
        self._hasher = hashlib.sha256()
        self._in_block = 0
        self._at = 0

    def _hash(self, data: bytes) -> bytes:
        """``data`` (the file's bytes at ``_at``), its part of the hash range hashed; returned."""
        lo, hi = max(self._at, self._hash_start), min(self._at + len(data), self._hash_stop)
        if lo < hi:
            view = memoryview(data)
            i, j = lo - self._at, hi - self._at
            while i < j:
                take = min(j - i, self.block - self._in_block)
                self._hasher.update(view[i : i + take])
                self._in_block += take
                i += take
                if self._in_block == self.block:
                    self._done.append(self._hasher.digest())
                    self._hasher, self._in_block = hashlib.sha256(), 0
        self._at += len(data)
        return data

    def __iter__(self) -> Iterator[tuple[bytes, int]]:
        start, stop = self.start, self.stop
        with open(self.path, "rb") as fh:
            self._at = min(self._hash_start, max(start - 1, 0))
            fh.seek(self._at)
            read, line = fh.read, fh.readline
            if start > 0:
                if self._at < start - 1:  # hash blocks that start before the partition (none when aligned)
                    self._hash(read(start - 1 - self._at))
                if self._hash(read(1)) != b"\n":
                    self._hash(line())  # the rest of a line that starts in the previous partition
            done = 0
            while self._at < stop:
                # the chunk ends at the end of the line holding its byte chunk_bytes-1, the
                # partition's at the end of the line holding byte stop-1
                want = min(self.chunk_bytes, stop - self._at)
                body = self._hash(read(want - 1))
                rest = self._hash(line()) if len(body) == want - 1 else b""
                if not body and not rest:
                    break
                if rest.endswith(b"\n"):
                    chunk = b"".join((body, memoryview(rest)[:-1]))
                elif rest:
                    chunk = body + rest
                else:
                    chunk = body[:-1] if body.endswith(b"\n") else body
                del body, rest
                yield chunk, done
                done += chunk.count(b"\n") + 1
            self.n_lines = done
            while self._at < self._hash_stop and self._hash(read(min(self.chunk_bytes, self._hash_stop - self._at))):
                pass

    def digests(self) -> str:
        """The hash blocks' sha256 digests, concatenated, as hex (:func:`file_hash`'s text)."""
        done = list(self._done)
        if self._in_block or not done:  # a last, shorter block (or an empty first one, as file_hash)
            done.append(self._hasher.digest())
        return b"".join(done).hex()


def _line_chunks(path: str, start: int, stop: int, chunk_bytes: int = CHUNK_BYTES) -> Iterator[tuple[bytes, int]]:
    """(chunk, lines before it in the partition) over the lines that start in ``start .. stop-1``
    (:class:`_PartitionReader` without the hashes)."""
    return iter(_PartitionReader(path, start, stop, chunk_bytes=chunk_bytes))


_LINE = re.compile(r"line (\d+)")


def _error(exc: LoadError, line_base: int) -> dict[str, Any]:
    """A LoadError raised inside a partition, its line counted from the partition's first line."""
    m = _LINE.match(exc.location or "")
    if not m:
        return {"file": exc.file, "location": exc.location, "problem": exc.problem, "local_line": None}
    return {"file": exc.file, "rest": exc.location[m.end():], "problem": exc.problem, "local_line": int(m.group(1)) - line_base + 1}


def _id_hashes(ids: Sequence[str]) -> bytes:
    """Stable 64-bit hashes of ``ids`` (pandas' SipHash with a fixed key), as bytes."""
    if not len(ids):
        return b""
    return pd.util.hash_array(np.asarray(ids, dtype=object)).astype(np.uint64).tobytes()


def featurize_partition(part: Partition, out_dir: str, settings_data: dict[str, Any], read_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Featurise one partition into ``out_dir/part-<index>.parquet``; run on a worker.

    ``settings_data``: :meth:`FeatureSettings.to_data` (the date reading and id pattern apply to
    JSONL; other formats use their file's, and their own argument rules unless
    ``settings_data["arg_rules_given"]``). Returns plain data: ``index``, ``source``,
    ``n_runs``, ``n_lines`` (JSONL), the manifest entry of the part (``part``), the hash block
    digests of its bytes (``digests``), ``id_hashes`` (bytes of uint64), the settings used
    (``settings``), the case set's ``name`` / ``description`` / ``notes``; or ``error`` (a bad line
    counted from the partition's first line, or a whole-file error) instead."""
    settings = FeatureSettings.from_data(settings_data, part.path)
    out = Path(out_dir) / f"part-{part.index:05d}.parquet"
    try:
        if part.kind == "jsonl":
            return _jsonl_partition(part, out, settings)
        return _file_partition(part, out, settings, settings_data.get("arg_rules_given", True), read_options or {})
    except LoadError as exc:
        return {"index": part.index, "source": part.source, "error": _error(exc, 1) if part.kind == "jsonl" else
                {"file": exc.file, "location": exc.location, "problem": exc.problem, "local_line": None}}


def _jsonl_partition(part: Partition, out: Path, settings: FeatureSettings) -> dict[str, Any]:
    """:func:`featurize_partition` of a JSONL byte range, with the cyclic garbage collector paused
    (as ``bigload.chunk_features`` does: the partition's lists of ids, reasons and texts hold no
    cycles, and collector passes over them cost 5-10% of the partition's time)."""
    with collector_paused():
        return _jsonl_partition_now(part, out, settings)


def _jsonl_partition_now(part: Partition, out: Path, settings: FeatureSettings) -> dict[str, Any]:
    line_base = 1 if part.start == 0 else 2  # only the file's first line may start with a BOM
    cols: dict[str, list] = {k: [] for k in ("ids", "lines", "traj", "f1", "human", "n_inv", "flags", "reason", "other", "records", "texts")}
    called: list[tuple[tuple[str, ...], np.ndarray]] = []
    n_lines = 0
    reader = _PartitionReader(part.path, part.start, part.stop, part.block)
    try:
        for chunk, before in reader:
            got = chunk_features(chunk, before + line_base, part.path, settings.day_first, settings.id_pattern,
                                 settings.arg_rules, keep_texts=True)
            lines = got.pop("lines")
            m = len(got["ids"])
            n_lines = before + chunk.count(b"\n") + 1
            own = [""] * m
            for i, r in got["reasons"].items():
                own[i] = r
            other = list(own)
            for i, r in got["reasons_other"].items():
                other[i] = r
            cols["ids"] += got["ids"]
            cols["lines"].append(got["line_nos"] - line_base + 1)
            cols["traj"].append(got["traj"])
            cols["f1"].append(got["f1"])
            cols["human"].append(got["human"])
            cols["n_inv"].append(got["n_inv"])
            cols["flags"].append(got["flags"])
            cols["reason"] += own
            cols["other"] += other
            # the runs' texts and lines kept as Arrow arrays (a partition's runs as objects would
            # take ~8 kB each)
            cols["records"].append(pa.array(lines, type=pa.binary()))
            cols["texts"].append(plain_texts(got.pop("titles"), got.pop("invocations"), got.pop("call_texts")))
            called.append((tuple(got["tool_names"]), got["tools"]))
            del got, lines
    except LoadError as exc:
        return {"index": part.index, "source": part.source, "error": _error(exc, line_base)}
    tool_names = tuple(sorted({t for names, _ in called for t in names}))
    n = len(cols["ids"])
    counts = np.zeros((n, len(tool_names)), dtype=np.uint16)
    start = 0
    for names, arr in called:
        m = arr.shape[0]
        if names:
            counts[start : start + m][:, [tool_names.index(t) for t in names]] = arr
        start += m
    width = len(cols["traj"][0][0]) if cols["traj"] and len(cols["traj"][0]) else 36
    cat = lambda key, dt: np.concatenate(cols[key]).astype(dt, copy=False) if cols[key] else np.zeros(0, dtype=dt)  # noqa: E731
    digests = reader.digests()  # file_hash of the partition's blocks, from the bytes read above
    summary = {"index": part.index, "source": part.source, "n_runs": n, "n_lines": n_lines, "digests": digests,
               "id_hashes": _id_hashes(cols["ids"]), "settings": settings.to_data()}
    if n == 0:
        summary["part"] = None
        return summary
    pc = PartColumns(
        ids=cols["ids"], human=cat("human", np.int8), n_invocations=cat("n_inv", np.int32), f1=cat("f1", np.float64),
        trajectory=np.concatenate(cols["traj"]).reshape(n, width), tool_names=tool_names, tool_counts=counts,
        key_reason=cols["reason"], key_reason_other=cols["other"], flags=cat("flags", np.int8),
        # the chunks' text and record arrays as chunked columns, not copied into one (a copy of
        # ~130 MB a partition; in a fresh worker process its first pages cost ~7 us a run)
        texts={k: pa.chunked_array([t[k] for t in cols["texts"]]) for k in cols["texts"][0]},
        records=pa.chunked_array(cols["records"]), record_format=RECORD_FLAT, lines=cat("lines", np.int64),
    )
    cols.clear()
    summary["part"] = write_part(out, pc, {"settings": settings.to_data(), "part": part.index, "source_path": part.path})
    return summary


def _file_partition(part: Partition, out: Path, settings: FeatureSettings, rules_given: bool, read_options: dict[str, Any]) -> dict[str, Any]:
    from .loaders import load_runs
    from .loaders.options import ReadOptions

    case_set = load_runs(part.path, settings.input_format, ReadOptions(**read_options) if read_options else None)
    if len(case_set.runs) == 0:
        raise LoadError(part.path, "runs", "the file holds 0 runs")
    rules = settings.arg_rules if rules_given else (case_set.arg_rules or settings.arg_rules)
    features = build_features(case_set, arg_rules=rules)
    used = dataclasses.replace(settings, day_first=case_set.day_first, id_pattern=case_set.id_pattern, arg_rules=rules)
    runs = case_set.runs
    flat = hasattr(runs, "record")
    records = [runs.record(i) for i in range(len(runs))] if flat else [run_to_json(r) for r in runs]  # type: ignore[attr-defined]
    cols = columns_of_features(features, 0, features.n, runs, records, RECORD_FLAT if flat else RECORD_RUN_JSON)
    entry = write_part(out, cols, {"settings": used.to_data(), "part": part.index, "source_path": part.path})
    return {"index": part.index, "source": part.source, "n_runs": features.n, "n_lines": None,
            "digests": file_hash(part.path, block_bytes=part.block), "id_hashes": _id_hashes([str(x) for x in features.run_ids]),
            "settings": used.to_data(), "part": entry, "name": case_set.name, "description": case_set.description,
            "notes": list(case_set.notes)}


# --- the client side -----------------------------------------------------------------------------


Runner = Callable[[list[Partition], str, dict[str, Any], dict[str, Any], Callable[[dict[str, Any]], None]], list[dict[str, Any]]]
"""Runs ``featurize_partition`` over partitions (local processes or Dask) and returns the
summaries, calling ``done(summary)`` as each ends."""


def local_runner(workers: int | None = None) -> Runner:
    """A :data:`Runner` on ``workers`` local processes (default: the CPUs, at most 4; one
    partition runs in this process)."""

    def run(parts, out_dir, settings_data, read_options, done):
        n = workers if workers is not None else min(4, os.cpu_count() or 1)
        results = []
        if n <= 1 or len(parts) <= 1:
            for part in parts:
                results.append(featurize_partition(part, out_dir, settings_data, read_options))
                done(results[-1])
            return results
        with ProcessPoolExecutor(max_workers=min(n, len(parts)), mp_context=process_context()) as pool:
            futures = [pool.submit(featurize_partition, part, out_dir, settings_data, read_options) for part in parts]
            try:
                for fut in as_completed(futures):
                    results.append(fut.result())
                    done(results[-1])
            except BaseException:
                for fut in futures:
                    fut.cancel()
                raise
        return results

    return run


def featurize(
    paths: Sequence[str], out: str | os.PathLike[str], settings: FeatureSettings | None = None, *,
    rules_given: bool = False, read_options: dict[str, Any] | None = None, runner: Runner | None = None,
    partition_bytes: int | None = None, progress: Callable[[int, int], None] | None = None,
    extra: dict[str, Any] | None = None, block_bytes: int = HASH_BLOCK, check_out: bool = True,
) -> dict[str, Any]:
    """Featurise ``paths`` (run files, in order) into the dataset folder ``out`` (replaced when it
    is a features dataset or an empty folder; written beside it first, so a failed run leaves the
    old one). With ``check_out`` (the default; the cache, which owns its entries, turns it off),
    LoadError when ``out`` is anything else (:func:`_check_out`), before any work. ``settings``: the date
    reading and id pattern for JSONL files, the argument rules (applied to every file when
    ``rules_given``, else only to JSONL files, other formats keeping their own), the input
    format. ``runner``: where partitions run (default :func:`local_runner`). ``progress(done,
    total)`` in bytes. ``extra``: more manifest fields. Returns the manifest.

    Raises LoadError (the first bad line in file order, duplicate run ids, an empty file) and
    leaves no output."""
    settings = settings or FeatureSettings()
    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("no run files to featurise")
    out = Path(out).resolve()
    if check_out:
        _check_out(out, paths)
    parts = plan(paths, settings.input_format, partition_bytes, block_bytes)
    total = sum(p.stop - p.start for p in parts) or 1
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    settings_data = {**settings.to_data(), "arg_rules_given": rules_given}
    done_bytes = 0

    def done(summary: dict[str, Any]) -> None:
        nonlocal done_bytes
        p = parts[summary["index"]]
        done_bytes += p.stop - p.start
        if progress:
            progress(min(done_bytes, total), total)

    try:
        stats = [stat_source(p) for p in paths]
        results = sorted((runner or local_runner())(parts, str(tmp), settings_data, read_options or {}, done), key=lambda r: r["index"])
        _raise_first_error(parts, results, paths)
        _check_duplicate_ids(parts, results, paths, tmp)
        sources, part_entries = [], []
        for s, path in enumerate(paths):
            mine = [r for r in results if r["source"] == s]
            if sum(r["n_runs"] for r in mine) == 0:
                raise LoadError(path, "", "file is empty")
            size, mtime, ctime, inode = stats[s]
            if stat_source(path) != stats[s]:
                raise LoadError(path, "", "the file changed while its features were computed; run again")
            sources.append(SourceFile(path=path, size=size, mtime_ns=mtime, sample=sample_hash(path, size),
                                      sha256=combine_hashes([r["digests"] for r in mine], block_bytes),
                                      ctime_ns=ctime, inode=inode))
            lines_before = 0
            for r in mine:
                if r.get("part"):
                    part_entries.append({**r["part"], "source": s, "lines_before": lines_before})
                lines_before += r.get("n_lines") or 0
        used = FeatureSettings.from_data(results[0]["settings"], paths[0])
        names, descriptions = [], []
        for s, path in enumerate(paths):
            first = next(r for r in results if r["source"] == s)
            title = path.replace("\\", "/").rsplit("/", 1)[-1] or path
            names.append(first.get("name") or title)
            descriptions.append(first.get("description") or f"runs from {title} (JSONL)")
        notes = [n for r in results for n in r.get("notes", [])]
        manifest = make_manifest(used, sources, part_entries, " + ".join(names), "; ".join(d for d in descriptions if d),
                                 source=", ".join(paths), notes=notes, **(extra or {}))
        write_manifest(tmp, manifest)
        _replace_dir(tmp, out)
        return manifest
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _check_out(out: Path, paths: Sequence[str]) -> None:
    """LoadError unless the resolved ``out`` may be replaced by a dataset: absent, an empty folder
    or a features dataset (``_features.json`` in it), and neither an input file nor a folder
    holding one. Found by a newcomer's trial: ``--out`` named a folder of notes, a file, or the
    input itself, and was replaced without a word (the input moved aside as ``.name.PID.old``)."""
    where = str(out)
    if not out.name:
        raise LoadError(where, "--out", "not a folder name a dataset can be written to")
    for p in paths:
        src = Path(p).resolve()
        if src == out or out in src.parents:
            raise LoadError(where, "--out", f"holds the input {p}: give the dataset another path")
    if not out.exists() and not out.is_symlink():
        return
    if out.is_dir() and not out.is_symlink():
        if (out / MANIFEST).is_file() or not any(out.iterdir()):
            return
        raise LoadError(where, "--out", "is a folder that is not a features dataset (no _features.json); "
                                        "refusing to replace it: give a new or empty folder")
    raise LoadError(where, "--out", "is a file, not a features dataset folder; refusing to replace it: give another path")


def _replace_dir(new: Path, target: Path) -> None:
    """Move folder ``new`` to ``target``, replacing what is there (the old one is moved aside
    first, then removed)."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.{os.getpid()}.old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    os.replace(new, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _raise_first_error(parts: list[Partition], results: list[dict[str, Any]], paths: list[str]) -> None:
    """The first bad line in file order, as the loaders report it (line numbers counted over the
    whole file)."""
    lines_before: dict[int, int] = {}
    for r in results:  # in partition order: earlier partitions of a file come first
        s = r["source"]
        err = r.get("error")
        if err is not None:
            if err.get("local_line") is None:
                raise LoadError(err["file"], err["location"], err["problem"])
            line = lines_before.get(s, 0) + err["local_line"]
            raise LoadError(err["file"], f"line {line}{err['rest']}", err["problem"])
        lines_before[s] = lines_before.get(s, 0) + (r.get("n_lines") or 0)


def _check_duplicate_ids(parts: list[Partition], results: list[dict[str, Any]], paths: list[str], folder: Path) -> None:
    """LoadError for a run id given twice: within a file as the JSONL loader says it (``line N:
    duplicate run id "x" (first at line M)``), across files as ``concat_case_sets`` does."""
    hashes = np.frombuffer(b"".join(r["id_hashes"] for r in results), dtype=np.uint64)
    if hashes.size < 2:
        return
    uniq, counts = np.unique(hashes, return_counts=True)
    if not (counts > 1).any():
        return
    suspects = np.isin(hashes, uniq[counts > 1])
    # read the ids (and lines) of the suspected rows to confirm, in run order
    import pyarrow.parquet as pq

    rows: list[tuple[int, str, int | None]] = []  # (source, id, line)
    at = 0
    for r in results:
        n = r["n_runs"]
        local = np.flatnonzero(suspects[at : at + n])
        if local.size:
            table = pq.read_table(folder / r["part"]["file"], columns=["id", "line"])
            ids = table.column("id").to_pylist()
            lines = table.column("line").to_pylist()
            before = sum((q.get("n_lines") or 0) for q in results if q["source"] == r["source"] and q["index"] < r["index"])
            for j in local:
                rows.append((r["source"], ids[j], before + lines[j] if r.get("n_lines") is not None else None))
        at += n
    # within each file first (the file loaders check their own ids), then across files
    for s, path in enumerate(paths):
        seen: dict[str, int | None] = {}
        for src, rid, line in rows:
            if src != s:
                continue
            if rid in seen:
                if line is None:
                    raise LoadError(path, f'run "{show(rid)}"', "duplicate run id")
                raise LoadError(path, f"line {line}", f'duplicate run id "{show(rid)}" (first at line {seen[rid]})')
            seen[rid] = line
    owner: dict[str, tuple[str, int | None]] = {}
    for src, rid, line in rows:
        if rid in owner:
            first, first_line = owner[rid]
            where = f"{first} line {first_line}" if first_line is not None else first
            if line is None:
                raise LoadError(paths[src], f'run "{show(rid)}"', f"duplicate run id: also in {where}")
            raise LoadError(paths[src], f"line {line}", f'duplicate run id "{show(rid)}": also in {where}')
        owner[rid] = (paths[src], line)


__all__ = ["Partition", "plan", "featurize_partition", "featurize", "local_runner", "PARTITION_BYTES"]
