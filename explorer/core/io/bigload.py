"""Loading a big flat JSONL file: parse, validate and compute features in parallel, keep runs compact.

For files of hundreds of thousands of runs (issue 6: 1M runs loaded with features in <= 60 s and
<= 2 GB). The file is read in chunks of lines; worker processes parse each line with the flat
loader's own rules (:func:`~explorer.core.io.loaders.flat.well_formed_run`, else
:func:`~explorer.core.io.loaders.flat.run_from_record`: same schema, same errors), compute the
chunk's features with :func:`~explorer.core.evaluation.feature_rows.feature_rows` (same values as
:func:`~explorer.core.evaluation.features.build_features`), and return feature columns plus the lines
compressed in blocks. The runs themselves are never all alive at once: the returned case set's
``runs`` is a :class:`~explorer.core.io.runstore.RunStore` that rebuilds a run when it is read, and
carries the features, which ``build_features`` then returns at once.

Errors are the flat loader's: ``"<file>: line N[, <field path>]: <problem>"`` for the first bad
line (in file order), duplicate ids, an empty file, a 0-run file, a file over the size limit.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import Any, Callable

import numpy as np
import orjson

from ..gcpause import collector_paused
from .errors import LoadError, show
from .featurestore import CallTextArrays
from ..evaluation.feature_rows import feature_rows
from ..evaluation.features import HUMAN_CODES, build_features, features_from_rows
from ..scoring.arg_rules import NO_RULES, ArgRules
from ..scoring.arg_match import ARG_MODES
from ..scoring.trajectory_metrics import SCORE_ROWS
from ..scoring.fields import DEFAULT_ID_PATTERN, IdPatternTooSlow, compile_id_pattern
from .loaders._common import Problem, json_type
from .loaders.flat import run_from_record, well_formed_run
from .loaders.flat_typed import CallTextSink, call_text_arrays, text_pairs, typed_run
from .model import CaseSet, Run
from .reading import json_message, loads_json, check_size, nested_too_deeply, not_utf8, orjson_exact
from .runstore import RunStore, block_codec, compress_block

CHUNK_BYTES = 4 * 1024 * 1024
"""Bytes of whole lines per task sent to a worker (about 2,500 runs of 1.5 kB)."""
BLOCK_RUNS = 256
"""Runs per compressed block of the RunStore (a table page decompresses one or two)."""
PARALLEL_MIN_BYTES = 8 * 1024 * 1024
"""Files smaller than this are loaded in this process (starting workers costs about a second)."""


def _loads(line: bytes, n: int, name: str) -> Any:
    """Line ``n`` parsed as JSON: by orjson (about twice as fast) unless the line may hold an
    integer orjson cannot keep (:func:`~explorer.core.io.reading.orjson_exact`), and by the standard library when orjson
    refuses (its rules are stricter: NaN, lone surrogates), so what parses, its values and the
    error messages are the flat loader's. Raises LoadError."""
    if orjson_exact(line):
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    if b"\x00" in line:
        raise LoadError(name, f"line {n}", "binary data (NUL bytes), not JSON text")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(name, f"line {n}, column {exc.start + 1}", not_utf8(line[exc.start])) from None
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise LoadError(name, f"line {n}, column {exc.colno}", f"invalid JSON: {json_message(exc)}") from None
    except RecursionError:
        raise nested_too_deeply(name, text, n) from None


def parse_record(line: bytes) -> Run:
    """One stored JSONL line back to its Run (the RunStore's parser; exact integers as
    :func:`_loads` reads them)."""
    try:
        record = orjson.loads(line) if orjson_exact(line) else json.loads(line)
    except orjson.JSONDecodeError:
        record = json.loads(line)
    return run_from_record(record)


def chunk_features(
    chunk: bytes, first_line: int, name: str, day_first: bool, id_pattern: str, arg_rules: ArgRules = NO_RULES,
    keep_texts: bool = False,
) -> dict[str, Any]:
    """Parse and featurise the lines of ``chunk`` (whole lines of a flat JSONL file without the
    last newline; line numbers from ``first_line``; trajectory scores under ``arg_rules``);
    LoadError for the first bad line. The unit of work of a worker process (or a Dask task): a
    dict of the chunk's columns (``ids``, ``line_nos``, ``traj`` (n, 36), ``f1``, ``tool_names`` /
    ``tools`` (uint16 (n, T)), ``reasons`` / ``reasons_other`` (row -> text, where not ``""`` /
    where the other date reading differs), ``human``, ``n_inv``, ``flags``, the compressed
    ``blocks`` of lines with ``codec``, ``raw_sizes`` and ``block_sizes``, ``bytes``) that
    :func:`load_jsonl_features` assembles.

    A record written the common way is decoded straight into the invocation tuples by
    :func:`~explorer.core.io.loaders.flat_typed.typed_run` (msgspec's typed decoder: no dict per
    record or call built and freed; integers of any size exact, as the standard library reads the
    lines :func:`~explorer.core.io.reading.orjson_exact` refuses),
    else parsed (:func:`_loads`) and read by :func:`~explorer.core.io.loaders.flat.well_formed_run`
    (no Run built; the same values); any other goes through :func:`~explorer.core.io.loaders.flat.run_from_record`,
    which builds it or names the problem. The features of the whole chunk are then computed at once
    (:func:`~explorer.core.evaluation.feature_rows.feature_rows`). The cyclic garbage collector is
    paused meanwhile: the chunk's objects hold no cycles, and its passes over a few hundred
    thousand young objects cost time for nothing.

    ``keep_texts`` (the feature store, :mod:`explorer.core.io.featurize`): instead of the
    compressed blocks (``blocks``, ``codec``, ``raw_sizes``, ``block_sizes`` are then absent),
    return the kept record ``lines`` (bytes, one a run, as the blocks hold them), each run's
    ``titles`` (``Run.title``: ``""`` when absent) and ``invocations`` (a tuple of
    :class:`~explorer.core.io.model.PlainInvocation` a run, what ``Invocation.plain()`` gives),
    and ``call_texts``: when ``typed_run`` took every line, a
    :class:`~explorer.core.io.featurestore.CallTextArrays` of every invocation's call-list display
    texts (:func:`~explorer.core.io.loaders.flat_typed.call_text_arrays`); else per run None, or
    one ``(expected, actual)`` pair of texts per invocation, each None where not made
    (``typed_run``'s texts). So the store writes the display texts
    (:func:`~explorer.core.io.featurestore.plain_texts`) without building a Run per line."""
    with collector_paused():
        return _chunk_features_now(chunk, first_line, name, day_first, id_pattern, arg_rules, keep_texts)


def _chunk_features_now(
    chunk: bytes, first_line: int, name: str, day_first: bool, id_pattern: str, arg_rules: ArgRules, keep_texts: bool = False
) -> dict[str, Any]:
    id_rx = compile_id_pattern(id_pattern)
    titles: list[str] = []
    kept: list[bytes] = []
    ids: list[str] = []
    line_nos: list[int] = []
    invocations: list[tuple] = []
    human: list[int] = []
    call_texts: list[tuple | None] | CallTextArrays = []
    raws = chunk.split(b"\n")
    typed: list | None = None
    sink_texts = None
    if b"\r" not in chunk and not (first_line == 1 and chunk.startswith(b"\xef\xbb\xbf")):
        # every line is kept as it is: typed_run on each at once, and when it takes them all, the
        # columns at once; the call texts of the lines it takes go to one sink
        sink = CallTextSink() if keep_texts else None
        typed = [typed_run(raw, False, sink) for raw in raws]
        if None not in typed:
            ids, human, invocations, titles, _ = (list(col) for col in zip(*typed))
            if sink is not None:
                call_texts = call_text_arrays(sink, invocations)
            kept, typed = raws, None
            line_nos = np.arange(first_line, first_line + len(raws), dtype=np.int64)  # type: ignore[assignment]
            raws = []
        elif sink is not None:  # the texts of the lines it took, in their order
            sink_texts = iter(text_pairs(sink, [parts[2] for parts in typed if parts is not None]))
        del sink
    for offset, raw in enumerate(raws):
        n = first_line + offset
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if n == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line or line.isspace():  # blank (bytes.isspace: the ASCII whitespace bytes.strip removes)
            continue
        if typed is not None:  # line is raw here
            parts = typed[offset]
            if parts is not None and sink_texts is not None:
                parts = (*parts[:4], next(sink_texts))
        else:
            parts = typed_run(line, keep_texts)  # the common way, straight to tuples
        if parts is not None:
            if keep_texts:
                titles.append(parts[3])
                call_texts.append(parts[4])  # type: ignore[union-attr]
        else:
            record = _loads(line, n, name)
            parts = well_formed_run(record)
            if parts is None:
                if not isinstance(record, dict):
                    raise LoadError(name, f"line {n}", f"expected a JSON object (one run per line), got {json_type(record)}")
                try:
                    run = run_from_record(record)
                except Problem as p:
                    raise LoadError(name, f"line {n}, {p.path}" if p.path else f"line {n}", p.message) from None
                parts = (run.id, HUMAN_CODES[run.human_verdict], tuple(inv.plain() for inv in run.invocations))
                if keep_texts:
                    titles.append(run.title)
            elif keep_texts:
                titles.append(record.get("title") or "")  # well_formed_run: a text or null, as Run.title reads it
            if keep_texts:
                call_texts.append(None)
        kept.append(line)
        ids.append(parts[0])
        human.append(parts[1])
        invocations.append(parts[2])
        line_nos.append(n)
    try:
        rows = feature_rows(invocations, human, id_rx, arg_rules, day_first)
    except IdPatternTooSlow as exc:
        raise LoadError(name, "--id-pattern", str(exc)) from None
    own, other = (rows.reason_day, rows.reason_month) if day_first else (rows.reason_month, rows.reason_day)
    reasons = {i: r for i, r in enumerate(own) if r}
    reasons_other = {i: o for i, (r, o) in enumerate(zip(own, other)) if o != r}
    out: dict[str, Any] = {
        "ids": ids,
        "line_nos": np.asarray(line_nos, dtype=np.int64),
        "traj": rows.traj,
        "f1": rows.f1,
        "tool_names": rows.tool_names,
        "tools": rows.tool_invocations,
        "reasons": reasons,
        "reasons_other": reasons_other,
        "human": rows.human,
        "n_inv": rows.n_invocations,
        "flags": rows.flags,
        "bytes": len(chunk),
    }
    if keep_texts:
        out.update(lines=kept, titles=titles, invocations=invocations, call_texts=call_texts)
        return out
    del invocations
    codec = block_codec()
    raw = [b"\n".join(kept[s : s + BLOCK_RUNS]) for s in range(0, len(kept), BLOCK_RUNS)]
    out.update(
        blocks=[compress_block(data, codec) for data in raw], codec=codec, raw_sizes=[len(data) for data in raw],
        block_sizes=[min(BLOCK_RUNS, len(kept) - s) for s in range(0, len(kept), BLOCK_RUNS)],
    )
    return out


def _chunks(path: Path, chunk_bytes: int):
    """(chunk bytes, first line number) over the file, whole lines of about ``chunk_bytes``
    (at least one line; without the newline that ends the chunk). Reads blocks and cuts them
    after their last newline: no object per line."""
    with open(path, "rb") as fh:
        first = 1
        carry = b""
        while True:
            block = fh.read(chunk_bytes)
            if not block:
                if carry:
                    yield carry, first
                return
            data = carry + block if carry else block
            cut = data.rfind(b"\n")
            if cut < 0:  # one line longer than the block: read on
                carry = data
                continue
            chunk, carry = data[:cut], data[cut + 1 :]
            yield chunk, first
            first += chunk.count(b"\n") + 1


def looks_like_flat_jsonl(path: str | os.PathLike[str], input_format: str = "auto", min_bytes: int | None = None) -> bool:
    """True when ``path`` should go through :func:`load_jsonl_features`: at least ``min_bytes``
    (default ``PARALLEL_MIN_BYTES``) long, and either ``input_format == "jsonl"`` or (``auto``) a ``.jsonl`` name whose first
    non-blank line is a JSON object with an ``id`` and without the ``outputs`` /
    ``reference_outputs`` of message trajectories. Never raises (False when unreadable)."""
    if input_format not in ("auto", "jsonl"):
        return False
    try:
        p = Path(path)
        if not p.is_file() or p.stat().st_size < (PARALLEL_MIN_BYTES if min_bytes is None else min_bytes):
            return False
        if input_format == "jsonl":
            return True
        if not p.name.lower().endswith(".jsonl"):
            return False
        with open(p, "rb") as fh:
            for raw in fh:
                if raw.strip():
                    first = json.loads(raw.lstrip(b"\xef\xbb\xbf"))
                    return isinstance(first, dict) and "id" in first and "outputs" not in first and "reference_outputs" not in first
    except (OSError, ValueError, RecursionError):
        return False
    return False


def process_context():
    """The multiprocessing context for worker pools: ``fork`` when this process runs one thread
    (fast, and scripts need no ``__main__`` guard); ``spawn`` otherwise (a server's threads may
    hold locks a forked child would inherit)."""
    return get_context("fork" if threading.active_count() == 1 and "fork" in get_all_start_methods() else "spawn")


_context = process_context


def load_jsonl_features(
    path: str | os.PathLike[str],
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    day_first: bool = True,
    id_pattern: str = DEFAULT_ID_PATTERN,
    arg_rules: ArgRules | None = None,
) -> CaseSet:
    """Load a flat JSONL file (``docs/formats.md``) and compute its features, in parallel
    (trajectory scores under ``arg_rules``, default none; a flat file carries no rules).

    Returns the CaseSet the flat loader returns for the file (same runs, name, description and
    source), except that ``runs`` is a :class:`RunStore` carrying the features, so
    ``build_features(case_set)`` is immediate. ``progress(done_bytes, total_bytes)`` is called
    after each chunk. ``workers``: processes to use (default: the CPUs, at most 4; files under
    ``PARALLEL_MIN_BYTES`` and ``workers=1`` use this process). Raises LoadError like
    :func:`explorer.core.io.loaders.flat.load_jsonl`.
    """
    name = str(path)
    rules = arg_rules or NO_RULES
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise LoadError(name, "", f"cannot read: {exc.strerror or exc}") from None
    if p.is_dir():
        raise LoadError(name, "", "is a folder, not a file")
    check_size(size, name)
    if size == 0:
        raise LoadError(name, "", "file is empty")
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    parts: list[dict[str, Any]] = []
    done = 0
    if workers <= 1 or size < PARALLEL_MIN_BYTES:
        for chunk, first in _chunks(p, CHUNK_BYTES):
            parts.append(chunk_features(chunk, first, name, day_first, id_pattern, rules))
            done += parts[-1]["bytes"] + 1
            if progress:
                progress(min(done, size), size)
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
            pending: deque = deque()
            try:
                for chunk, first in _chunks(p, CHUNK_BYTES):
                    pending.append(pool.submit(chunk_features, chunk, first, name, day_first, id_pattern, rules))
                    while len(pending) > 2 * workers:
                        parts.append(pending.popleft().result())
                        done += parts[-1]["bytes"] + 1
                        if progress:
                            progress(min(done, size), size)
                while pending:
                    parts.append(pending.popleft().result())
                    done += parts[-1]["bytes"] + 1
                    if progress:
                        progress(min(done, size), size)
            except BaseException:
                for fut in pending:
                    fut.cancel()
                raise
    return _assemble(parts, name, day_first, id_pattern, rules)


def _assemble(parts: list[dict[str, Any]], name: str, day_first: bool, id_pattern: str, rules: ArgRules = NO_RULES) -> CaseSet:
    ids = [i for part in parts for i in part["ids"]]
    if not ids:  # every line that is not blank gives a run or an error
        raise LoadError(name, "", "file is empty")
    line_nos = np.concatenate([part["line_nos"] for part in parts])
    first_at: dict[str, int] = {}
    for k, run_id in enumerate(ids):
        seen = first_at.setdefault(run_id, k)
        if seen != k:
            raise LoadError(name, f"line {line_nos[k]}", f'duplicate run id "{show(run_id)}" (first at line {line_nos[seen]})')
    del first_at
    n = len(ids)
    tool_names = tuple(sorted({t for part in parts for t in part["tool_names"]}))
    index = {t: j for j, t in enumerate(tool_names)}
    tools = np.zeros((n, len(tool_names)), dtype=np.uint16)
    key_reason = np.full(n, "", dtype=object)
    other_at: dict[int, str] = {}  # the other date reading, where it differs
    start = 0
    for part in parts:
        m = len(part["ids"])
        if part["tool_names"]:
            tools[start : start + m][:, [index[t] for t in part["tool_names"]]] = part["tools"]
        for i, r in part["reasons"].items():
            key_reason[start + i] = r
        for i, r in part["reasons_other"].items():
            other_at[start + i] = r
        start += m
    key_reason_other = None
    if other_at:
        key_reason_other = key_reason.copy()
        for i, r in other_at.items():
            key_reason_other[i] = r
    # the trajectory scores straight into their (S, A, N) layout, each part's rows freed once
    # copied: one copy in memory at a time (288 bytes a run), not three
    traj = np.empty((len(SCORE_ROWS), len(ARG_MODES), n), dtype=np.float64)
    start = 0
    for part in parts:
        m = len(part["ids"])
        traj[:, :, start : start + m] = part.pop("traj").reshape(m, len(SCORE_ROWS), len(ARG_MODES)).transpose(1, 2, 0)
        start += m
    codec = parts[0]["codec"]  # every worker runs this installation: the same codec
    store = RunStore(
        [b for part in parts for b in part["blocks"]], [s for part in parts for s in part["block_sizes"]], parse_record,
        codec=codec, raw_sizes=[s for part in parts for s in part["raw_sizes"]],
    )
    features = features_from_rows(
        store,
        ids,
        traj,
        np.concatenate([part["f1"] for part in parts]),
        (tool_names, tools),
        key_reason,
        np.concatenate([part["human"] for part in parts]),
        np.concatenate([part["n_inv"] for part in parts]),
        key_reason_other=key_reason_other,
        flags=np.concatenate([part["flags"] for part in parts]),
        day_first=day_first,
        arg_rules=rules,
    )
    store.features = features
    title = name.replace("\\", "/").rsplit("/", 1)[-1] or name
    return CaseSet(
        name=title, description=f"runs from {title} (JSONL)", runs=store,  # type: ignore[arg-type]
        source=name, day_first=day_first, id_pattern=id_pattern, arg_rules=rules or None,
        places=LinePlaces(line_nos),
    )


class LinePlaces(Sequence[str]):
    """``CaseSet.places`` of a big JSONL load: ``places[i]`` is ``"line N"``, N the 1-based line
    of run ``i`` (``line_nos``, int64 (n,)), written when asked (no n strings kept: 8 bytes a
    run)."""

    def __init__(self, line_nos: np.ndarray):
        self._line_nos = line_nos

    def __len__(self) -> int:
        return int(self._line_nos.size)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [f"line {n}" for n in self._line_nos[i].tolist()]
        return f"line {int(self._line_nos[i])}"


_chunk_features = chunk_features  # the name before issue 14

__all__ = ["load_jsonl_features", "build_features", "parse_record", "chunk_features"]
