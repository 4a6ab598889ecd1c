"""Features as a Parquet dataset (issue 14): written once, opened in a second, runs read lazily.

A *features dataset* is a folder (``runs.features.parquet/``) of Parquet files ``part-*.parquet``
and a manifest ``_features.json``. Each part holds, per run (one row each, in the order of the
source file's lines):

* the columns the app shows: ``id``, ``title``, ``human_verdict`` (``acceptable`` /
  ``unacceptable`` / null), ``answer`` (list of text, one per invocation), ``references`` (list
  of lists of text), ``expected_calls`` / ``actual_calls`` (list, one JSON text of
  ``[{"name", "args"}]`` per invocation), and ``record``: the run itself (the source's JSONL line,
  or the lossless JSON of :func:`run_to_json`; the part's ``record_format`` says which), from
  which :class:`StoredRuns` rebuilds a :class:`~explorer.core.io.model.Run` when one is read;
* every column of :class:`~explorer.core.evaluation.features.Features`: ``human`` (int8),
  ``n_invocations`` (int32), ``f1`` (float64), ``trajectory[<family>,<mode>]`` (one column per
  family x argument mode: uint8 / uint16 codes into the part's table of distinct float64 values,
  kept in its metadata, exact), ``tool[<name>]`` (invocations that called the tool, uint8 / uint16),
  ``key_ok`` / ``key_reason`` and ``key_ok_other`` / ``key_reason_other`` (the key-field check
  under the file's date reading and the other one), ``flags`` (int8: bits 1 a turn never ran, 2
  an empty answer, 4 an empty reference), ``line`` (the run's line in its part, JSONL only).

Each part's Parquet metadata (key ``metric-explorer/features``) and the manifest carry the
format, the producing version, the settings that shaped the features (date reading, id pattern,
argument rules), and the source files' sizes and hashes. Pandas, DuckDB or Spark read the
folder as one table.

Nothing is unpickled: Parquet and JSON only. Errors are one-line
:class:`~explorer.core.io.errors.LoadError` naming the file and the problem.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Sequence

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ... import __version__
from ..evaluation.coded import CodedScores, NonZero, code_dtype, distinct_bits, encode
from ..evaluation.features import EMPTY_ANSWER, EMPTY_REFERENCE, NO_OUTPUT, Features
from ..evaluation.textcolumn import TextColumn
from ..scoring.arg_match import ARG_MODES
from ..scoring.arg_rules import NO_RULES, ArgRules, arg_rules_from_data
from ..scoring.fields import DEFAULT_ID_PATTERN
from ..scoring.trajectory_metrics import SCORE_ROWS
from .errors import LoadError, json_spelling, show
from .reading import orjson_exact
from .model import AnnotatorLabel, CaseSet, ExpectedField, Invocation, PlainInvocation, Run, ToolCall

FORMAT = "metric-explorer/features@1"
"""The ``format`` of a features dataset's manifest and parts."""
META_KEY = b"metric-explorer/features"
"""The Parquet key-value metadata key of a part's JSON metadata."""
MANIFEST = "_features.json"
"""The manifest's file name inside a dataset folder (Parquet readers skip names starting ``_``)."""
ROW_GROUP_ROWS = 4096
"""Rows per Parquet row group: reading one run's texts reads one row group's column."""
RECORD_FLAT = "flat-jsonl"
"""Records are lines of the flat JSONL format (``docs/formats.md``)."""
RECORD_RUN_JSON = "run-json@1"
"""Records are :func:`run_to_json` texts (every field of a Run, any source format)."""
HASH_BLOCK = 8 * 1024 * 1024
"""Block size of :func:`file_hash` (the tree hash of a source file; JSONL partitions are whole
blocks)."""
TRAJECTORY_COLUMNS = tuple(f"trajectory[{f},{a}]" for f in SCORE_ROWS for a in ARG_MODES)
"""The trajectory columns, in ``invocation_scores`` order (family-major, then argument mode)."""
TEXT_COLUMNS = frozenset(("id", "title", "human_verdict", "answer", "references", "expected_calls", "actual_calls",
                          "key_reason", "key_reason_other", "record"))
"""Columns of text (written plain, without dictionary or statistics; every column lz4)."""
_VERDICTS = np.array(["unacceptable", "acceptable"], dtype=object)


def product_version() -> str:
    """The version written into features and compared when a cache entry is opened."""
    return __version__


# --- settings and sources ------------------------------------------------------------------------


@dataclass(frozen=True)
class FeatureSettings:
    """The settings that shape features (a change means computing them again): the file's date
    reading ``day_first`` (which of the two key-field columns is the file's own; ``date`` argument
    rules read dates so), the booking-id regex ``id_pattern``, the argument ``arg_rules`` the
    trajectory scores are computed under, and for formats other than JSONL the ``input_format``
    and trace ``read_options`` (a dict of :class:`~explorer.core.io.loaders.options.ReadOptions`
    fields)."""

    day_first: bool = True
    id_pattern: str = DEFAULT_ID_PATTERN
    arg_rules: ArgRules = NO_RULES
    input_format: str = "auto"
    read_options: tuple[tuple[str, Any], ...] = ()

    def to_data(self) -> dict[str, Any]:
        """As JSON data (the manifest's ``settings``)."""
        return {"day_first": self.day_first, "id_pattern": self.id_pattern, "arg_rules": self.arg_rules.to_data(),
                "input_format": self.input_format, "read_options": dict(self.read_options)}

    @classmethod
    def from_data(cls, data: Any, name: str) -> "FeatureSettings":
        """From :meth:`to_data`'s form. Raises LoadError naming ``name``."""
        if not isinstance(data, dict):
            raise LoadError(name, "settings", "expected an object")
        try:
            return cls(
                day_first=bool(data["day_first"]), id_pattern=str(data["id_pattern"]),
                arg_rules=arg_rules_from_data(data.get("arg_rules") or [], name, "settings.arg_rules"),
                input_format=str(data.get("input_format", "auto")),
                read_options=tuple(sorted((data.get("read_options") or {}).items())),
            )
        except KeyError as exc:
            raise LoadError(name, "settings", f"missing {exc}") from None

    def key(self) -> str:
        """Canonical JSON text (equal settings give equal text)."""
        return json.dumps(self.to_data(), sort_keys=True, separators=(",", ":"))


def file_hash(path: str | os.PathLike[str], start_block: int = 0, stop_block: int | None = None, block_bytes: int = HASH_BLOCK) -> str:
    """The sha256 digests of the ``block_bytes`` blocks (default 8 MiB) ``start_block ..
    stop_block-1`` of a file (all by default), concatenated, as hex: workers hash their own byte
    ranges and :func:`combine_hashes` joins them into the file's tree hash. Raises OSError."""
    digests = []
    with open(path, "rb") as fh:
        fh.seek(start_block * block_bytes)
        k = start_block
        while stop_block is None or k < stop_block:
            block = fh.read(block_bytes)
            if not block and k > start_block:
                break
            digests.append(hashlib.sha256(block).digest())
            k += 1
            if len(block) < block_bytes:
                break
    return b"".join(digests).hex()


def combine_hashes(block_digests_hex: Sequence[str], block_bytes: int = HASH_BLOCK) -> str:
    """A file's tree hash, ``"sha256-tree-<block bytes>:<hex>"``: the sha256 of its blocks'
    digests (:func:`file_hash`, in file order)."""
    return f"sha256-tree-{block_bytes}:" + hashlib.sha256(bytes.fromhex("".join(block_digests_hex))).hexdigest()


def tree_hash(path: str | os.PathLike[str], block_bytes: int = HASH_BLOCK) -> str:
    """:func:`combine_hashes` of the whole file. Raises OSError."""
    return combine_hashes([file_hash(path, block_bytes=block_bytes)], block_bytes)


def block_bytes_of(hash_text: str) -> int:
    """The block size a :func:`combine_hashes` text was made with (ValueError for other text)."""
    kind = hash_text.split(":", 1)[0]
    if not kind.startswith("sha256-tree-"):
        raise ValueError(f"not a tree hash: {hash_text[:40]!r}")
    return int(kind.removeprefix("sha256-tree-"))


def sample_hash(path: str | os.PathLike[str], size: int) -> str:
    """sha256 of the first and last 64 kB and 64 kB at 14 evenly spaced offsets of the file
    (about 1 MB read): a cheap check that a file whose size and modification time are unchanged
    is the same file. Raises OSError."""
    h = hashlib.sha256()
    span = 65_536
    offsets = sorted({0, max(0, size - span), *(int(size * k / 15) for k in range(1, 15))})
    with open(path, "rb") as fh:
        for off in offsets:
            fh.seek(off)
            h.update(fh.read(span))
    return h.hexdigest()


@dataclass(frozen=True)
class SourceFile:
    """A source run file as features record it: the path (as given, and resolved), size in
    bytes, modification time (ns), :func:`sample_hash`, the full :func:`combine_hashes` hash,
    and the inode-change time (ns) and inode number: no tool sets those back (``cp -p``,
    ``rsync -t`` and ``touch -r`` keep a changed file's size and modification time, and the
    sample hash reads 1 MB of it), so the cache trusts the sample only when both are as recorded."""

    path: str
    size: int
    mtime_ns: int
    sample: str
    sha256: str
    ctime_ns: int = 0
    inode: int = 0

    def to_data(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def stat_source(path: str | os.PathLike[str]) -> tuple[int, int, int, int]:
    """(size, mtime_ns, ctime_ns, inode) of ``path``, as :class:`SourceFile` records them.
    Raises OSError."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


# --- runs as JSON and as display columns ---------------------------------------------------------


def _json_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value, default=dict)  # default: a Mapping that is not a dict
    except TypeError:  # integers over 64 bits, NaN: the standard library writes them
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _calls_data(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    return [{"name": c.name, "args": c.args} for c in calls]


def run_to_json(run: Run) -> bytes:
    """Every field of ``run`` as JSON (UTF-8): what :func:`run_from_json` reads back into an equal
    Run. Raises TypeError for a value JSON cannot hold."""
    data = {
        "id": run.id, "title": run.title, "user_input": run.user_input,
        "invocations": [
            {"expected_calls": _calls_data(inv.expected_calls), "actual_calls": _calls_data(inv.actual_calls),
             "answer": inv.answer, "references": list(inv.references)}
            for inv in run.invocations
        ],
        "human_verdict": run.human_verdict, "human_note": run.human_note, "extra": dict(run.extra),
        "expected_fields": [dataclasses.asdict(f) for f in run.expected_fields],
        "labels": [dataclasses.asdict(lab) for lab in run.labels],
    }
    return _json_bytes(data)


def _loads(data: bytes) -> Any:
    if not orjson_exact(data):  # an integer orjson would turn into a float
        return json.loads(data)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def run_from_json(data: bytes) -> Run:
    """The Run of :func:`run_to_json`'s text. Raises ValueError / KeyError for other text."""
    d = _loads(data)
    return Run(
        id=d["id"], title=d["title"], user_input=d["user_input"],
        invocations=tuple(
            Invocation(
                expected_calls=tuple(ToolCall(c["name"], c["args"]) for c in inv["expected_calls"]),
                actual_calls=tuple(ToolCall(c["name"], c["args"]) for c in inv["actual_calls"]),
                answer=inv["answer"], references=tuple(inv["references"]),
            )
            for inv in d["invocations"]
        ),
        human_verdict=d["human_verdict"], human_note=d["human_note"], extra=d["extra"],
        expected_fields=tuple(ExpectedField(**f) for f in d["expected_fields"]),
        labels=tuple(AnnotatorLabel(**lab) for lab in d["labels"]),
    )


def _parse_flat(data: bytes) -> Run:
    from .bigload import parse_record

    return parse_record(data)


PARSERS = {RECORD_FLAT: _parse_flat, RECORD_RUN_JSON: run_from_json}
"""``record_format`` -> the function rebuilding a Run from a record."""


def _calls_json(calls: Sequence[tuple[str, Any]]) -> str:
    """One JSON text ``[{"name", "args"}, ...]`` of calls given as ``(name, args)`` pairs."""
    return _json_bytes([{"name": name, "args": args} for name, args in calls]).decode("utf-8")


def run_texts(runs: Sequence[Run]) -> dict[str, pa.Array]:
    """The display columns of ``runs`` as Arrow arrays (one row a run): ``title`` (string),
    ``answer`` (list of string, one per invocation), ``references`` (list of list of string),
    ``expected_calls`` / ``actual_calls`` (list of string: one JSON text of ``[{"name",
    "args"}]`` per invocation). The same as :func:`plain_texts` of the runs' titles and
    ``Invocation.plain()``."""
    return plain_texts([run.title for run in runs], [tuple(inv.plain() for inv in run.invocations) for run in runs])


_NO_TEXTS = (None, None)


def _offsets(lengths: Iterator[int], n: int) -> np.ndarray:
    """int32 (n + 1,): 0 and the running sums of ``n`` lengths (an Arrow list's offsets)."""
    out = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.fromiter(lengths, dtype=np.int32, count=n), out=out[1:])
    return out


class CallTextArrays(NamedTuple):
    """The ``expected_calls`` / ``actual_calls`` texts of a chunk's invocations, already written:
    two Arrow string arrays of one item per invocation (the runs' invocations in order), each
    item the text :func:`_calls_json` writes for that call list
    (:func:`~explorer.core.io.loaders.flat_typed.call_text_arrays` makes them)."""

    expected: pa.StringArray
    actual: pa.StringArray


def plain_texts(titles: Sequence[str], invocations: Sequence[Sequence[PlainInvocation]],
                call_texts: Sequence[Sequence[tuple[str | None, str | None]] | None] | CallTextArrays | None = None,
                ) -> dict[str, pa.Array]:
    """The display columns of :func:`run_texts` from each run's title and its invocations as
    :class:`~explorer.core.io.model.PlainInvocation` tuples (what the parallel loader's chunk
    worker reads without building a Run: ``bigload.chunk_features(..., keep_texts=True)``).
    ``call_texts`` (that worker's ``call_texts``): None; or one entry a run: None, or per
    invocation the ``(expected_calls, actual_calls)`` texts already written as :func:`_calls_json`
    writes them (:func:`~explorer.core.io.loaders.flat_typed.typed_run`), each None where this
    writes it; or a :class:`CallTextArrays` of every invocation's texts (ValueError when its
    lengths are not the number of invocations)."""
    flat = [inv for invs in invocations for inv in invs]
    answers = [inv.answer for inv in flat]
    ref_lists = [inv.references for inv in flat]
    refs = [r for rs in ref_lists for r in rs]
    per_run = pa.array(_offsets(map(len, invocations), len(invocations)))

    def listed(values: list[str] | pa.Array) -> pa.Array:
        return pa.ListArray.from_arrays(per_run, values if isinstance(values, pa.Array) else pa.array(values, type=pa.string()))

    inner = pa.ListArray.from_arrays(pa.array(_offsets(map(len, ref_lists), len(ref_lists))), pa.array(refs, type=pa.string()))
    out = {"title": pa.array(list(titles), type=pa.string()), "answer": listed(answers),
           "references": pa.ListArray.from_arrays(per_run, inner)}
    if isinstance(call_texts, CallTextArrays):
        if not len(call_texts.expected) == len(call_texts.actual) == len(flat):
            raise ValueError(f"call texts for {len(call_texts.expected)} / {len(call_texts.actual)} invocations, not {len(flat)}")
        out.update(expected_calls=listed(call_texts.expected), actual_calls=listed(call_texts.actual))
        return out
    if call_texts is None:
        pairs: list[tuple[str | None, str | None]] = [_NO_TEXTS] * len(flat)
    else:
        pairs = [t for given, invs in zip(call_texts, invocations) for t in (given if given is not None else (_NO_TEXTS,) * len(invs))]
    expected = [e for e, _ in pairs]
    actual = [a for _, a in pairs]
    del pairs
    if None in expected or None in actual:  # the texts left to this function
        for k, inv in enumerate(flat):
            if expected[k] is None:
                expected[k] = _calls_json(inv.expected)
            if actual[k] is None:
                actual[k] = expected[k] if inv.actual is inv.expected else _calls_json(inv.actual)
    out.update(expected_calls=listed(expected), actual_calls=listed(actual))  # type: ignore[arg-type]
    return out


# --- writing -----------------------------------------------------------------------------------


@dataclass
class PartColumns:
    """One part's rows before writing (m runs): the feature columns as the parallel loader's
    chunks hold them, the display texts (:func:`run_texts`), the records and their format."""

    ids: list[str]
    human: np.ndarray  # int8 (m,)
    n_invocations: np.ndarray  # int32 (m,)
    f1: np.ndarray  # float64 (m,)
    trajectory: np.ndarray  # float64 (m, S*A), invocation_scores order
    tool_names: tuple[str, ...]
    tool_counts: np.ndarray  # (m, T) invocations that called each tool
    key_reason: Sequence[str]  # the file's date reading
    key_reason_other: Sequence[str]  # the other reading
    flags: np.ndarray  # int8 (m,)
    texts: dict[str, pa.Array | pa.ChunkedArray]  # run_texts (or its chunks)
    records: pa.Array | pa.ChunkedArray | list[bytes]
    record_format: str
    lines: np.ndarray | None = None  # int64 (m,) line of each run in the part (JSONL)


def part_table(cols: PartColumns) -> tuple[pa.Table, dict[str, Any]]:
    """The Arrow table of one part and its metadata (trajectory value table, tools, record
    format, whether the two key-field readings differ)."""
    m = len(cols.ids)
    traj = np.ascontiguousarray(cols.trajectory, dtype=np.float64).reshape(m, len(TRAJECTORY_COLUMNS))
    table = distinct_bits(traj)
    if code_dtype(table.size) is not None:
        codes = encode(traj, table)
        traj_cols = {name: pa.array(codes[:, k]) for k, name in enumerate(TRAJECTORY_COLUMNS)}
        traj_meta = {"codes": str(codes.dtype), "values": [float(v).hex() for v in table]}
    else:
        traj_cols = {name: pa.array(traj[:, k]) for k, name in enumerate(TRAJECTORY_COLUMNS)}
        traj_meta = {"codes": None, "values": None}
    counts = np.asarray(cols.tool_counts)
    tool_dtype = np.uint8 if (counts.size == 0 or int(counts.max()) <= 255) else np.uint16
    human = np.asarray(cols.human, dtype=np.int8)
    verdict = pa.array(_VERDICTS[np.clip(human, 0, 1)], type=pa.string(), mask=human < 0)
    reason = pa.array(list(cols.key_reason), type=pa.string())
    reason_other = pa.array(list(cols.key_reason_other), type=pa.string())
    differs = not reason.equals(reason_other)
    columns: dict[str, pa.Array] = {
        "id": pa.array(cols.ids, type=pa.string()),
        "title": cols.texts["title"],
        "human_verdict": verdict,
        "answer": cols.texts["answer"],
        "references": cols.texts["references"],
        "expected_calls": cols.texts["expected_calls"],
        "actual_calls": cols.texts["actual_calls"],
        "human": pa.array(human),
        "n_invocations": pa.array(np.asarray(cols.n_invocations, dtype=np.int32)),
        "f1": pa.array(np.asarray(cols.f1, dtype=np.float64)),
        **traj_cols,
        **{f"tool[{t}]": pa.array(counts[:, j].astype(tool_dtype)) for j, t in enumerate(cols.tool_names)},
        "key_ok": pc.equal(reason, ""),
        "key_reason": reason,
        "key_ok_other": pc.equal(reason_other, ""),
        "key_reason_other": reason_other,
        "flags": pa.array(np.asarray(cols.flags, dtype=np.int8)),
        "line": pa.array(np.zeros(m, dtype=np.int64) if cols.lines is None else np.asarray(cols.lines, dtype=np.int64)),
        "record": cols.records if isinstance(cols.records, (pa.Array, pa.ChunkedArray)) else pa.array(cols.records, type=pa.binary()),
    }
    meta = {"n_runs": m, "trajectory": traj_meta, "tools": list(cols.tool_names), "record_format": cols.record_format,
            "key_other_differs": differs, "has_lines": cols.lines is not None}
    return pa.table(columns), meta


def write_part(path: str | os.PathLike[str], cols: PartColumns, meta: dict[str, Any]) -> dict[str, Any]:
    """Write one part file (lz4, page checksums, ``ROW_GROUP_ROWS`` rows a row group) with
    ``meta`` (format, version, settings, source...) and the part's own metadata in its Parquet
    metadata. Returns the manifest's entry for it: ``file`` (name), ``n_runs``, ``size``,
    ``sha256`` of the written file, ``tools``."""
    table, part_meta = part_table(cols)
    full = {"format": FORMAT, "version": product_version(), **meta, **part_meta}
    table = table.replace_schema_metadata({META_KEY: json.dumps(full).encode("utf-8")})
    # every column lz4, the list columns' leaves too (a codec per top-level name left those
    # uncompressed: 1.56 kB a run on disk, now 0.62): feature columns are read at every open (lz4
    # twice as fast as zstd), and for the texts lz4 costs less to write than zstd and no more
    # than writing and hashing them uncompressed (0.8 us a run less; zstd: 0.41 kB a run).
    # Texts plain, no statistics (every byte of a text page is under its checksum).
    features_only = [name for name in table.column_names if name not in TEXT_COLUMNS]
    pq.write_table(table, path, row_group_size=ROW_GROUP_ROWS, compression="lz4", write_page_checksum=True,
                   use_dictionary=features_only, write_statistics=features_only)
    return {"file": Path(path).name, "n_runs": part_meta["n_runs"], "size": os.path.getsize(path),
            "sha256": _sha256_file(path), "tools": part_meta["tools"]}


def _sha256_file(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(8 * 1024 * 1024)
            if not block:
                return h.hexdigest()
            h.update(block)


def columns_of_features(features: Features, start: int, stop: int, runs: Sequence[Run], records: list[bytes],
                        record_format: str) -> PartColumns:
    """Runs ``start .. stop-1`` of in-memory ``features`` as a part (``runs``: those runs, for
    the texts; ``records``: their records)."""
    traj = np.asarray(features.trajectory)[:, :, start:stop]  # (S, A, m)
    m = stop - start
    return PartColumns(
        ids=[str(x) for x in features.run_ids[start:stop]],
        human=features.human[start:stop], n_invocations=features.n_invocations[start:stop], f1=features.f1[start:stop],
        trajectory=traj.reshape(len(SCORE_ROWS) * len(ARG_MODES), m).T,
        tool_names=features.tool_names,
        tool_counts=(features.tool_invocations if features.tool_invocations is not None else features.tools_called)[start:stop],
        key_reason=[str(x) for x in features.key_columns(features.day_first)[1][start:stop]],
        key_reason_other=[str(x) for x in features.key_columns(not features.day_first)[1][start:stop]],
        flags=(features.no_output[start:stop] * NO_OUTPUT | features.empty_answer[start:stop] * EMPTY_ANSWER  # type: ignore[index]
               | features.empty_reference[start:stop] * EMPTY_REFERENCE).astype(np.int8),  # type: ignore[index]
        texts=run_texts(runs), records=records, record_format=record_format,
    )


def write_manifest(folder: str | os.PathLike[str], manifest: dict[str, Any]) -> None:
    """Write ``_features.json`` into ``folder`` atomically (a temporary file renamed)."""
    path = Path(folder) / MANIFEST
    tmp = path.with_name(f".{MANIFEST}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def make_manifest(settings: FeatureSettings, sources: Sequence[SourceFile], parts: Sequence[dict[str, Any]],
                  name: str, description: str, **extra: Any) -> dict[str, Any]:
    """The manifest of a dataset: format, producing version, settings, sources, parts (in run
    order), run count, the case set's name and description, creation time."""
    return {
        "format": FORMAT, "version": product_version(), "settings": settings.to_data(),
        "sources": [s.to_data() for s in sources], "parts": list(parts), "n_runs": int(sum(p["n_runs"] for p in parts)),
        "name": name, "description": description, "created": time.time(), **extra,
    }


def write_features(case_set: CaseSet, features: Features, out: str | os.PathLike[str], settings: FeatureSettings,
                   sources: Sequence[SourceFile] = (), part_runs: int = 100_000) -> dict[str, Any]:
    """Write in-memory ``features`` of ``case_set`` as a dataset folder ``out`` (created; parts of
    ``part_runs`` runs). Records are the source lines when the runs are a JSONL
    :class:`~explorer.core.io.runstore.RunStore`, else :func:`run_to_json`. Returns the
    manifest. Raises OSError, TypeError (a run value JSON cannot hold)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    runs = case_set.runs
    flat = hasattr(runs, "record")
    parts = []
    meta = {"settings": settings.to_data()}
    for k, start in enumerate(range(0, features.n, part_runs)):
        stop = min(features.n, start + part_runs)
        chunk = runs[start:stop]
        records = [runs.record(i) for i in range(start, stop)] if flat else [run_to_json(r) for r in chunk]  # type: ignore[attr-defined]
        cols = columns_of_features(features, start, stop, chunk, records, RECORD_FLAT if flat else RECORD_RUN_JSON)
        parts.append(write_part(folder / f"part-{k:05d}.parquet", cols, {**meta, "part": k}))
    manifest = make_manifest(settings, sources, parts, case_set.name, case_set.description, source=case_set.source)
    write_manifest(folder, manifest)
    return manifest


# --- reading -----------------------------------------------------------------------------------


def is_features_path(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a features dataset folder (holds ``_features.json``) or a Parquet
    file with features metadata. Never raises."""
    try:
        p = Path(path)
        if p.is_dir():
            return (p / MANIFEST).is_file()
        if p.is_file() and p.suffix.lower() == ".parquet":
            meta = pq.read_schema(p).metadata or {}
            return META_KEY in meta
    except (OSError, pa.ArrowException, ValueError):
        return False
    return False


def _whole_dataset_runs(folder: Path) -> int | None:
    """The runs of the dataset whose manifest is in ``folder``, or None (none there, unreadable)."""
    try:
        n = json.loads((folder / MANIFEST).read_text(encoding="utf-8")).get("n_runs")
    except (OSError, ValueError, AttributeError):
        return None
    return n if isinstance(n, int) else None


def read_manifest(path: str | os.PathLike[str]) -> tuple[Path, dict[str, Any]]:
    """(folder, manifest) of a dataset folder; for a single part file, a manifest made from its
    metadata (with a note when it is one part of a bigger dataset: a trial scored one part's runs
    as if they were all). Raises LoadError (missing, not JSON, another format)."""
    p = Path(path)
    name = str(path)
    try:
        if p.is_dir():
            text = (p / MANIFEST).read_text(encoding="utf-8")
            manifest = json.loads(text)
            folder = p
        else:
            meta = json.loads((pq.read_schema(p).metadata or {})[META_KEY])
            folder = p.parent
            manifest = {k: meta.get(k) for k in ("format", "version", "settings")}
            manifest.update(parts=[{"file": p.name, "n_runs": meta["n_runs"], "tools": meta["tools"]}], n_runs=meta["n_runs"],
                            sources=[], name=p.name, description=f"features from {p.name}")
            whole = _whole_dataset_runs(folder)
            if whole is not None and whole > meta["n_runs"]:  # one part of a bigger dataset: said, never silent
                manifest["notes"] = [f"features of {meta['n_runs']:,} of the {whole:,} runs: {p.name} is one part of the "
                                     f"features dataset {folder} (give the folder for all of them)"]
    except FileNotFoundError:
        raise LoadError(name, "", "not a features dataset (no _features.json)") from None
    except (OSError, ValueError, KeyError, pa.ArrowException) as exc:
        raise LoadError(name, "", f"not a readable features dataset: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else None
        raise LoadError(name, "format", f"expected {FORMAT}, got {got!r}")
    parts = manifest.get("parts")
    if not isinstance(parts, list) or not parts:
        raise LoadError(name, "parts", "no parts listed")
    _check_parts(name, parts)
    n_runs = manifest.get("n_runs")
    if n_runs is not None and (isinstance(n_runs, bool) or not isinstance(n_runs, int) or n_runs < 0):
        raise LoadError(name, "n_runs", f"expected a whole number of runs, got {json_spelling(n_runs)}")
    return folder, manifest


def _check_parts(name: str, parts: list[Any]) -> None:
    """LoadError unless each of a manifest's ``parts`` names a file of the dataset's own folder
    (a plain file name: no folder, no ``..``), each once. A trial's manifest listed one part twice
    (its runs read twice) and ``../../../etc/passwd`` (opened; only the size check stopped it)."""
    first: dict[str, int] = {}
    for i, part in enumerate(parts):
        file = part.get("file") if isinstance(part, dict) else None
        if not isinstance(file, str) or not file or file in (".", "..") or "/" in file or "\\" in file or Path(file).name != file:
            raise LoadError(name, f"parts[{i}].file", f"expected the name of a file in the dataset's folder, got {json_spelling(file)}")
        if file in first:
            raise LoadError(name, f"parts[{i}].file", f'"{show(file)}" is listed twice (first at parts[{first[file]}])')
        first[file] = i


class StoredRuns(Sequence[Run]):
    """The runs of a features dataset, read when asked: ``runs[i]`` reads the ``record`` column
    of the row group holding run ``i`` (kept for the last few row groups read) and rebuilds the
    Run. ``text(column, i)`` reads one cell of another column the same way. ``features`` is the
    dataset's :class:`Features` (so ``build_features`` returns them). Thread-safe; files are
    opened on demand (a dataset deleted while it is served fails on the next read with
    LoadError)."""

    def __init__(self, folder: Path, parts: Sequence[dict[str, Any]], formats: Sequence[str], row_groups: Sequence[Sequence[int]],
                 keep_groups: int = 8, on_bad_read: Any = None):
        self.folder = folder
        self._files = [folder / p["file"] for p in parts]
        self._formats = list(formats)
        sizes = [int(p["n_runs"]) for p in parts]
        self._starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
        self._rg_starts = [np.concatenate([[0], np.cumsum(rg, dtype=np.int64)]) for rg in row_groups]
        self._lock = threading.Lock()
        self._groups: OrderedDict[tuple, pa.Array] = OrderedDict()
        self._keep = keep_groups
        self._on_bad_read = on_bad_read
        self.features: Any = None
        self.response_columns = ResponseColumns(folder, len(self))
        """Where response-scorer columns are kept once computed (:class:`ResponseColumns`)."""

    def __len__(self) -> int:
        return int(self._starts[-1])

    @property
    def nbytes(self) -> int:
        """Bytes of the dataset's files on disk."""
        return sum(f.stat().st_size for f in self._files if f.exists())

    def _locate(self, i: int) -> tuple[int, int, int]:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("run index out of range")
        p = int(np.searchsorted(self._starts, i, side="right")) - 1
        j = i - int(self._starts[p])
        g = int(np.searchsorted(self._rg_starts[p], j, side="right")) - 1
        return p, g, j - int(self._rg_starts[p][g])

    def _group(self, p: int, g: int, column: str) -> pa.Array:
        key = (p, g, column)
        with self._lock:
            got = self._groups.get(key)
            if got is not None:
                self._groups.move_to_end(key)
                return got
        path = self._files[p]
        try:
            pf = pq.ParquetFile(path, page_checksum_verification=True)
            arr = pf.read_row_group(g, columns=[column]).column(0).combine_chunks()
        except (OSError, pa.ArrowException) as exc:
            hint = self._on_bad_read() if self._on_bad_read is not None else None
            raise LoadError(str(path), f"row group {g}, column {column}",
                            f"cannot read the features file: {exc}" + (f"; {hint}" if hint else "")) from None
        with self._lock:
            self._groups[key] = arr
            while len(self._groups) > self._keep:
                self._groups.popitem(last=False)
        return arr

    def record(self, i: int) -> bytes:
        """The stored record of run ``i`` (bytes)."""
        p, g, j = self._locate(int(i))
        return self._group(p, g, "record")[j].as_py()

    def text(self, column: str, i: int) -> Any:
        """Cell ``i`` of ``column`` (e.g. ``key_reason``) as Python data."""
        p, g, j = self._locate(int(i))
        return self._group(p, g, column)[j].as_py()

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        if isinstance(i, np.integer):
            i = int(i)
        if not isinstance(i, int):
            raise TypeError(f"run index must be an int or slice, not {type(i).__name__}")
        p, g, j = self._locate(i)
        return PARSERS[self._formats[p]](self._group(p, g, "record")[j].as_py())

    def __iter__(self) -> Iterator[Run]:
        for p, path in enumerate(self._files):
            parse = PARSERS[self._formats[p]]
            pf = pq.ParquetFile(path, page_checksum_verification=True)
            for g in range(pf.num_row_groups):
                for rec in pf.read_row_group(g, columns=["record"]).column(0).to_pylist():
                    yield parse(rec)

    def column(self, name: str) -> pa.ChunkedArray:
        """Column ``name`` of every run (read from every part)."""
        return pa.chunked_array([c for f in self._files for c in pq.read_table(f, columns=[name]).column(0).chunks])

    def __repr__(self) -> str:
        return f"StoredRuns({len(self)} runs in {len(self._files)} parts of {self.folder})"


RESPONSE_DIR = "_response"
"""The folder inside a dataset for response-scorer columns (a leading ``_``: Parquet readers of the
dataset skip it)."""


class ResponseColumns:
    """Response-scorer columns (ROUGE-1, exact at a rung, embedding cosine, ...) of a features
    dataset's N runs, kept beside it once computed, so a later open does not compute them again.

    One Parquet file per column under ``<dataset>/_response/``, named by a hash of the column's
    ``key`` (e.g. ``("cosine", 0)``) and ``identity`` (what made the values: the scorer and
    product version, and for cosine the embedding model's identity: name, backend, weights
    sha256); its metadata repeats both and they are compared on load. ``load`` returns None for a
    missing, unreadable or mismatched file; ``save`` never raises (a read-only dataset just does not
    keep them)."""

    def __init__(self, folder: Path, n: int):
        self.folder = Path(folder) / RESPONSE_DIR
        self.n = n

    def _path(self, key: tuple, identity: dict[str, Any]) -> Path:
        text = json.dumps([list(key), identity], sort_keys=True, default=str)
        return self.folder / f"{key[0]}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:20]}.parquet"

    def load(self, key: tuple, identity: dict[str, Any]) -> np.ndarray | None:
        """The stored column (float64 or bool (N,)), or None."""
        path = self._path(key, identity)
        try:
            pf = pq.ParquetFile(path, page_checksum_verification=True)
            meta = json.loads((pf.schema_arrow.metadata or {})[META_KEY])
            if meta.get("key") != json.loads(json.dumps(list(key))) or meta.get("identity") != json.loads(json.dumps(identity, default=str)):
                return None
            col = pf.read(columns=["value"]).column(0).to_numpy()
        except (OSError, KeyError, ValueError, pa.ArrowException):
            return None
        return col if col.shape == (self.n,) else None

    def save(self, key: tuple, identity: dict[str, Any], column: np.ndarray) -> bool:
        """Keep ``column`` (float64 or bool (N,)); True when written."""
        if not isinstance(column, np.ndarray) or column.shape != (self.n,) or column.dtype not in (np.float64, bool):
            return False
        path = self._path(key, identity)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            self.folder.mkdir(exist_ok=True)
            meta = {"format": FORMAT, "key": list(key), "identity": identity}
            table = pa.table({"value": column}).replace_schema_metadata({META_KEY: json.dumps(meta, default=str).encode()})
            pq.write_table(table, tmp, compression="zstd", write_page_checksum=True)
            os.replace(tmp, path)
            return True
        except OSError:
            tmp.unlink(missing_ok=True)
            return False


class StoredText:
    """A text column of a features dataset read cell by cell when asked (``key_reason``): behaves
    as the object array ``Features`` held (``col[i]``, slices, index arrays, iteration,
    ``np.asarray``) without keeping N texts in memory."""

    __array_priority__ = 1

    def __init__(self, runs: StoredRuns, column: str):
        self.runs = runs
        self.column_name = column

    def __len__(self) -> int:
        return len(self.runs)

    @property
    def shape(self) -> tuple[int]:
        return (len(self.runs),)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(object)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            return self.runs.text(self.column_name, int(key)) or ""
        if isinstance(key, slice):
            index = np.arange(len(self))[key]
        else:
            index = np.asarray(key)
            if index.dtype == bool:
                index = np.flatnonzero(index)
        out = np.empty(index.shape, dtype=object)
        out.reshape(-1)[:] = [self.runs.text(self.column_name, int(i)) or "" for i in index.reshape(-1)]
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(np.asarray(self))

    def __array__(self, dtype=None, copy=None):
        out = np.empty(len(self), dtype=object)
        out[:] = [x or "" for x in self.runs.column(self.column_name).to_pylist()]
        return out

    def __repr__(self) -> str:
        return f"StoredText({self.column_name!r}, {len(self)} texts)"


def verify_parts(folder: Path, manifest: dict[str, Any], hashes: bool = False) -> str | None:
    """None when every part file has the size (and with ``hashes``, the sha256) the manifest
    lists, else what differs (one line). Sizes cost nothing; hashes read every part (about 0.3 s
    per 400 MB: the cache does not, Parquet's page checksums check every page read)."""
    for part in manifest["parts"]:
        path = folder / part["file"]
        try:
            size = path.stat().st_size
        except OSError as exc:
            return f"{path}: {exc.strerror or exc}"
        if "size" in part and size != part["size"]:
            return f"{path}: truncated or changed ({size} bytes, the manifest says {part['size']})"
        if hashes and "sha256" in part and _sha256_file(path) != part["sha256"]:
            return f"{path}: changed (its sha256 differs from the manifest's)"
    return None


def _part_meta(path: Path) -> tuple[dict[str, Any], list[int]]:
    """A part's features metadata and its row groups' sizes (the footer only)."""
    pf = pq.ParquetFile(path)
    meta = json.loads((pf.schema_arrow.metadata or {})[META_KEY])
    if meta.get("format") != FORMAT:
        raise ValueError(f"expected {FORMAT}, got {meta.get('format')!r}")
    groups = [pf.metadata.row_group(g).num_rows for g in range(pf.num_row_groups)]
    if sum(groups) != meta["n_runs"]:
        raise ValueError(f"{sum(groups)} rows, its metadata says {meta['n_runs']}")
    return meta, groups


def _np(table: pa.Table, name: str, dtype=None) -> np.ndarray:
    col = table.column(name)
    arr = col.to_numpy() if col.num_chunks != 1 else col.chunk(0).to_numpy(zero_copy_only=False)
    return arr if dtype is None else arr.astype(dtype, copy=False)


def open_features(path: str | os.PathLike[str], verify: bool = False, notes: Sequence[str] = (),
                  on_bad_read: Any = None) -> CaseSet:
    """Open a features dataset (folder or single part file) as a CaseSet whose ``runs`` are
    :class:`StoredRuns` carrying the :class:`Features` (so ``build_features(case_set)`` returns
    them at once). Reads the footers, then the feature columns part by part into arrays made once:
    ids as Arrow arrays (:class:`~explorer.core.evaluation.textcolumn.TextColumn`), trajectory
    scores as their codes (:class:`~explorer.core.evaluation.coded.CodedScores`), key-field
    reasons cell by cell when asked (:class:`StoredText`). Every page read is checked against its
    checksum. ``verify``: also check every part's sha256 first. ``notes``: more lines for the
    case set's notes. ``on_bad_read()``: called when a later lazy read finds a corrupt page; a text it
    returns is added to that read's error.

    Raises LoadError ``"<path>: <problem>"`` for anything that is not a readable features dataset
    of this format (missing, truncated or corrupt part, wrong metadata)."""
    name = str(path)
    folder, manifest = read_manifest(path)
    problem = verify_parts(folder, manifest, hashes=verify)
    if problem:
        raise LoadError(problem.split(": ", 1)[0], "", f"corrupt features dataset part: {problem.split(': ', 1)[1]}")
    settings = FeatureSettings.from_data(manifest.get("settings"), name)
    metas, groups = [], []
    for part in manifest["parts"]:
        try:
            meta, rg = _part_meta(folder / part["file"])
        except (OSError, pa.ArrowException, ValueError, KeyError, TypeError) as exc:
            raise LoadError(str(folder / part["file"]), "", f"cannot read the features file: {exc}") from None
        metas.append(meta)
        groups.append(rg)
    runs = StoredRuns(folder, manifest["parts"], [m["record_format"] for m in metas], groups, on_bad_read=on_bad_read)
    try:
        features_args = _assemble(folder, manifest["parts"], metas)
    except LoadError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, pa.ArrowException) as exc:
        raise LoadError(name, "", f"inconsistent features dataset: {exc}") from None
    differs = any(m.get("key_other_differs") for m in metas)
    key_reason = StoredText(runs, "key_reason")
    features = Features(
        runs=runs,  # type: ignore[arg-type]
        key_reason=key_reason,  # type: ignore[arg-type]
        key_reason_other=StoredText(runs, "key_reason_other") if differs else key_reason,  # type: ignore[arg-type]
        day_first=settings.day_first, arg_rules=settings.arg_rules, **features_args,
    )
    if not differs:
        object.__setattr__(features, "key_ok_other", features.key_ok)
    runs.features = features
    title = manifest.get("name") or folder.name
    return CaseSet(
        name=title, description=manifest.get("description") or f"features from {folder.name}", runs=runs,  # type: ignore[arg-type]
        source=manifest.get("source") or ", ".join(s["path"] for s in manifest.get("sources", [])) or name,
        day_first=settings.day_first, id_pattern=settings.id_pattern, arg_rules=settings.arg_rules or None,
        notes=(*(manifest.get("notes") or ()), *notes),
    )


def _assemble(folder: Path, parts: list[dict[str, Any]], metas: list[dict[str, Any]]) -> dict[str, Any]:
    """Features' array fields, read part by part (one part's columns alive at a time) into
    arrays allocated once from the footers: N, the tools, the union of the trajectory tables."""
    sizes = [int(m["n_runs"]) for m in metas]
    n = sum(sizes)
    tool_names = tuple(sorted({t for m in metas for t in m["tools"]}))
    coded = all(m["trajectory"]["codes"] is not None for m in metas)
    dt, union = None, np.zeros(0)
    if coded:
        tables = [np.array([float.fromhex(v) for v in m["trajectory"]["values"]], dtype=np.float64) for m in metas]
        union = distinct_bits(np.concatenate(tables)) if tables else union
        dt = code_dtype(union.size)
        coded = dt is not None
    traj = np.empty((len(TRAJECTORY_COLUMNS), n), dtype=dt if coded else np.float64)
    out = {
        "f1": np.empty(n, dtype=np.float64), "human": np.empty(n, dtype=np.int8), "n_invocations": np.empty(n, dtype=np.int32),
        "key_ok": np.empty(n, dtype=bool), "key_ok_other": np.empty(n, dtype=bool), "flags": np.empty(n, dtype=np.int8),
    }
    wide = False
    # column-contiguous (order F): the deny-list reads one tool's column of N runs
    counts = np.zeros((n, len(tool_names)), dtype=np.uint8, order="F")
    ids: list[pa.Array] = []
    start = 0
    for part, meta, m in zip(parts, metas, sizes):
        path = folder / part["file"]
        wanted = ["id", *out, *TRAJECTORY_COLUMNS, *(f"tool[{t}]" for t in meta["tools"])]
        try:
            table = pq.ParquetFile(path, page_checksum_verification=True).read(columns=wanted, use_threads=True)
        except (OSError, pa.ArrowException) as exc:
            raise LoadError(str(path), "", f"cannot read the features file: {exc}") from None
        if table.num_rows != m:
            raise ValueError(f"{path.name}: {table.num_rows} rows, its metadata says {m}")
        stop = start + m
        ids += table.column("id").chunks
        for key, arr in out.items():
            arr[start:stop] = _np(table, key)
        if coded:
            lut = encode(np.array([float.fromhex(v) for v in meta["trajectory"]["values"]], dtype=np.float64), union)
            for k, c in enumerate(TRAJECTORY_COLUMNS):
                np.take(lut, _np(table, c), out=traj[k, start:stop])
        else:
            for k, c in enumerate(TRAJECTORY_COLUMNS):
                col = _np(table, c)
                traj[k, start:stop] = col if meta["trajectory"]["codes"] is None else np.array(
                    [float.fromhex(v) for v in meta["trajectory"]["values"]])[col]
        for name in meta["tools"]:
            col = _np(table, f"tool[{name}]")
            if col.dtype.itemsize > 1 and not wide and int(col.max(initial=0)) > 255:
                counts, wide = counts.astype(np.uint16, order="F"), True
            counts[start:stop, tool_names.index(name)] = col
        del table
        start = stop
    shape = (len(SCORE_ROWS), len(ARG_MODES), n)
    trajectory = CodedScores(traj.reshape(shape), union) if coded else traj.reshape(shape)
    flags = out.pop("flags")
    return {
        "run_ids": TextColumn(pa.chunked_array(ids, type=pa.string())),
        "trajectory": trajectory, "tool_names": tool_names, "tools_called": NonZero(counts), "tool_invocations": counts,
        **out,
        "no_output": (flags & NO_OUTPUT) != 0, "empty_answer": (flags & EMPTY_ANSWER) != 0,
        "empty_reference": (flags & EMPTY_REFERENCE) != 0,
    }
