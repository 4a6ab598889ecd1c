"""``load_runs``: read any supported run file, detecting its format, into one CaseSet.

Formats: ``cases`` (``metric-explorer/cases@1`` JSON), ``adk`` (ADK ``*.evalset_result.json``),
``jsonl`` and ``csv`` (the flat schema of :mod:`.flat`), ``messages`` (OpenAI-style message
trajectories, :mod:`.messages`), ``otlp`` (OpenTelemetry traces as OTLP JSON, :mod:`.otlp`),
``inspect`` (Inspect AI ``.eval`` / ``.json`` logs, :mod:`.inspect_log`) and ``parquet`` (the flat
schema in Parquet, :mod:`.parquet`). ``auto`` decides from the content, then the file name:

0. bytes starting with Parquet's ``PAR1`` -> parquet; with a zip header -> inspect (``.eval``);
1. text that parses as one JSON document: an object with ``"format": "metric-explorer/cases@1"``
   -> cases; with ``eval_case_results`` or ``eval_set_result_id`` / ``eval_set_result_name`` (or a
   JSON string holding such an object) -> adk (a result missing its list is named so); an ADK
   eval set (``eval_cases`` or ``eval_set_id``, or the list form of ``*.test.json``) -> the eval-set
   LoadError; an ADK ``test_config.json`` (a ``criteria`` object) -> the test-config LoadError;
   with ``resourceSpans`` -> otlp; with ``version`` and an ``eval`` object -> inspect;
   records with ``outputs`` / ``reference_outputs`` (a list, or ``{"runs": [...]}``) -> messages;
   a list of other records with an ``id`` -> jsonl (the flat schema as one JSON list);
2. otherwise lines of JSON objects -> otlp when the first has ``resourceSpans``, messages when it
   has ``outputs``, else jsonl;
3. otherwise a ``.csv`` name, or a first line with an ``id`` column -> csv.

``options`` (:class:`~.options.ReadOptions`) say how traces and logs become runs; the other
formats ignore them.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Sequence

from ...gcpause import collector_paused
from ..casefile import case_set_from_data, loads_case_set
from ..errors import LoadError
from ..model import CaseSet
from ..reading import check_size, loads_json, parse_json, read_bytes, text_of
from . import adk, flat, inspect_log, messages, otlp, parquet
from ._common import json_type, show
from .options import DEFAULT_OPTIONS, ReadOptions

INPUT_FORMATS = ("auto", "cases", "adk", "jsonl", "csv", "messages", "otlp", "inspect", "parquet")
"""Values of ``--input-format``."""

FORMAT_FLAG_HINT = "give --input-format (" + ", ".join(INPUT_FORMATS[1:]) + ")"
"""The command line's remedy when a file's format cannot be told; the app, which has no such flag,
puts :data:`FORMAT_DROP_HINT` in its place."""

FORMAT_DROP_HINT = "the drop zone tells the format from the file's content: see docs/formats.md for what each format holds"
"""The browser's wording of :data:`FORMAT_FLAG_HINT`."""


def _is_messages_record(value: Any) -> bool:
    return isinstance(value, dict) and ("outputs" in value or "reference_outputs" in value)


def _detect_json(data: Any, name: str) -> str | None:
    if isinstance(data, str):
        try:
            data = loads_json(data)
        except (ValueError, RecursionError):  # not JSON inside: the ADK reader names the fault
            return None
        return "adk" if adk.is_eval_results(data) or adk.is_eval_set(data) or adk.is_test_config(data) else None
    if isinstance(data, dict):
        if "format" in data and str(data["format"]).startswith("metric-explorer/cases"):
            return "cases"
        if adk.is_eval_results(data) or adk.is_eval_set(data) or adk.is_test_config(data):
            return "adk"
        if otlp.is_otlp_request(data):
            return "otlp"
        if inspect_log.is_inspect_json(data):
            return "inspect"
        runs = data.get("runs")
        if isinstance(runs, list) and runs and _is_messages_record(runs[0]):
            return "messages"
        if _is_messages_record(data):
            return "messages"
        if "runs" in data:
            return "cases"
        return None
    if isinstance(data, list):
        if adk.is_eval_set(data):
            return "adk"
        if data and _is_messages_record(data[0]):
            return "messages"
        if data and isinstance(data[0], dict) and "id" in data[0]:
            return "jsonl"
    return None


def detect_format(text: str, name: str) -> str:
    """The format of file ``name`` holding ``text`` (one of ``INPUT_FORMATS`` but ``auto``).
    Raises LoadError when it cannot be told, naming what was seen."""
    return _detect(text, name)[0]


def _detect(text: str, name: str) -> tuple[str, Any]:
    """(format, the parsed JSON document when the whole text is one, else None)."""
    stripped = text.lstrip()
    lower = name.lower()
    if stripped[:1] not in ("{", "[", '"'):
        try:  # one JSON value that is not an object or a list (null, true, 3): say so, not "not JSON"
            value = loads_json(text)
        except (ValueError, RecursionError):
            value = ...
        if value is None or isinstance(value, (bool, int, float)):
            raise LoadError(name, "(top level)", f"expected an object or a list of runs, got {json_type(value)}")
    if stripped[:1] in ("{", "[", '"'):
        try:
            data = loads_json(text)
        except (ValueError, RecursionError):
            data = None
            first = next((ln for ln in text.split("\n") if ln.strip()), "")
            try:
                first_record = loads_json(first)
            except (ValueError, RecursionError):
                first_record = None
            if not isinstance(first_record, dict):
                parse_json(text, name)  # not JSONL either: raises the JSON error with line and column
        if data is not None:
            found = _detect_json(data, name)
            if found:
                return found, data
            if isinstance(data, dict) and (stripped.strip().count("\n") == 0 or lower.endswith(".jsonl")):
                return ("messages" if _is_messages_record(data) else "jsonl"), None
            if isinstance(data, list) and not data:
                raise LoadError(name, "(top level)", "no runs in the file (an empty list)")
            raise LoadError(
                name, "(top level)",
                "cannot tell the format: not a metric-explorer case set, an ADK eval set result, message "
                "trajectories, OTLP traces or an Inspect log; " + FORMAT_FLAG_HINT,
            )
        first = next((ln for ln in text.split("\n") if ln.strip()), "")
        try:
            record = loads_json(first)
        except (ValueError, RecursionError):
            record = None
        if otlp.is_otlp_request(record):
            return "otlp", None
        return ("messages" if _is_messages_record(record) else "jsonl"), None
    if lower.endswith(".csv") or lower.endswith(".tsv"):
        return "csv", None
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    if "," in first and "id" in [c.strip().strip('"') for c in first.split(",")]:
        return "csv", None
    raise LoadError(name, "line 1", "not JSON, JSONL or CSV with an \"id\" column (cannot tell the format)")


def _binary_runs(data: bytes, name: str, input_format: str, options: ReadOptions) -> CaseSet | None:
    """Runs of a binary file (Parquet, an Inspect ``.eval`` zip), or None when ``data`` is not
    one of those and the format allows text."""
    if input_format in ("auto", "parquet") and parquet.is_parquet(data):
        check_size(len(data), name)
        return parquet.parquet_from_bytes(data, name)
    if input_format in ("auto", "inspect") and inspect_log.is_zip(data):
        check_size(len(data), name)
        return inspect_log.inspect_from_bytes(data, name, "eval", options)
    if input_format == "parquet":
        raise LoadError(name, "", "not a Parquet file (it does not start and end with PAR1)")
    return None


def loads_runs(data: bytes | str, name: str, input_format: str = "auto", options: ReadOptions | None = None) -> CaseSet:
    """Runs from file content ``data`` named ``name``, in ``input_format`` (``auto`` detects);
    ``options`` say how traces and logs become runs (default :class:`~.options.ReadOptions`).
    Raises LoadError (empty, binary, over the size limit, not JSON/CSV, schema problems) and
    ValueError for an unknown ``input_format``. The cyclic garbage collector is paused meanwhile
    (:func:`~explorer.core.gcpause.collector_paused`: a 50 MB case set loads in a fifth of the
    time)."""
    with collector_paused():
        return _loads_runs(data, name, input_format, options)


def _loads_runs(data: bytes | str, name: str, input_format: str, options: ReadOptions | None) -> CaseSet:
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"input format must be one of {', '.join(INPUT_FORMATS)}, got {input_format!r}")
    options = options or DEFAULT_OPTIONS
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        binary = _binary_runs(data, name, input_format, options)
        if binary is not None:
            return binary
    elif input_format == "parquet":
        raise LoadError(name, "", "not a Parquet file (text given)")
    text = text_of(data, name)
    fmt, data = _detect(text, name) if input_format == "auto" else (input_format, None)
    if data is not None:  # auto read one JSON document already: do not parse it twice
        if fmt == "cases":
            return case_set_from_data(data, name)
        if fmt == "adk":
            return adk.adk_results_from_data(data, name)
        if fmt == "messages":
            return messages.messages_from_data(data, name)
        if fmt == "otlp":  # read again from the text: a one-line file's errors then name line 1
            return otlp.loads_otlp(text, name, options)
        if fmt == "inspect":
            return inspect_log.inspect_from_bytes(text.encode("utf-8"), name, "json", options)
        return flat.flat_from_data(data, name)
    if fmt == "cases":
        return loads_case_set(text, name)
    if fmt == "adk":
        return adk.loads_adk_results(text, name)
    if fmt == "jsonl":
        return flat.loads_jsonl(text, name)
    if fmt == "csv":
        return flat.loads_csv(text, name)
    if fmt == "otlp":
        return otlp.loads_otlp(text, name, options)
    if fmt == "inspect":
        return inspect_log.inspect_from_bytes(text.encode("utf-8"), name, "json", options)
    return messages.loads_messages(text, name)


def load_runs(path: str | os.PathLike[str], input_format: str = "auto", options: ReadOptions | None = None) -> CaseSet:
    """Load one run file of any supported format (see module doc). Raises LoadError."""
    return loads_runs(read_bytes(path), str(path), input_format, options)


def concat_case_sets(case_sets: Sequence[CaseSet]) -> CaseSet:
    """One CaseSet holding the runs of ``case_sets`` in order. The key-field settings come from
    the first set; ``source`` joins the sources with ``", "``. Raises LoadError naming both
    files when a run id appears in two of them."""
    if not case_sets:
        raise ValueError("no case sets to join")
    if len(case_sets) == 1:
        return case_sets[0]
    owner: dict[str, tuple[str, str | None]] = {}  # run id -> (file, place in it)
    for cs in case_sets:
        places = cs.places if len(cs.places) == len(cs.runs) else None
        for k, run in enumerate(cs.runs):
            if run.id in owner:
                source, first = owner[run.id]
                also = f"{source} {first}" if first else source
                if places is None:
                    raise LoadError(cs.source, f'run "{show(run.id)}"', f"duplicate run id: also in {also}")
                raise LoadError(cs.source, places[k], f'duplicate run id "{show(run.id)}": also in {also}')
            owner[run.id] = (cs.source, places[k] if places is not None else None)
    first = case_sets[0]
    return replace(
        first,
        name=" + ".join(cs.name for cs in case_sets),
        description="; ".join(cs.description for cs in case_sets if cs.description),
        runs=tuple(r for cs in case_sets for r in cs.runs),
        source=", ".join(cs.source for cs in case_sets),
        notes=tuple(note for cs in case_sets for note in cs.notes),
        places=(),  # each set's places are in its own file
    )


def load_many(paths: Sequence[str | os.PathLike[str]], input_format: str = "auto", options: ReadOptions | None = None) -> CaseSet:
    """Load every file of ``paths`` (each detected on its own under ``auto``) and join them with
    :func:`concat_case_sets`. Raises LoadError."""
    return concat_case_sets([load_runs(p, input_format, options) for p in paths])


FORMAT_WORDS = {
    "cases": "a metric-explorer case set", "adk": "an ADK eval set result", "jsonl": "flat JSONL runs",
    "csv": "flat CSV runs", "messages": "message trajectories", "otlp": "OTLP traces", "inspect": "an Inspect log",
    "parquet": "flat Parquet runs",
}
"""Each of ``INPUT_FORMATS`` but ``auto`` in words, for a message naming what a file is."""

_OTLP_KEY = b'"resourceSpans"'
"""OTLP's top-level key as it appears in the file's text (inside a JSON string it would read
``\\"resourceSpans\\"``): in the first MB, the file is OTLP traces without parsing it whole."""


def file_format(path: str | os.PathLike[str], input_format: str = "auto") -> str | None:
    """The format ``path`` is read in (one of ``INPUT_FORMATS`` but ``auto``): ``input_format``
    itself when given, else as :func:`loads_runs` detects it (Parquet and zip magic first, then
    the text; a file whose first MB holds the key ``"resourceSpans"`` is OTLP without parsing the
    rest). None when the file cannot be read or its format cannot be told (the loader then says
    why). Reads the whole file unless a shortcut decides: for a check before loading, not for
    every load. Never raises."""
    if input_format != "auto":
        return input_format
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 20)
        if inspect_log.is_zip(head):
            return "inspect"
        if head[:4] == parquet.PARQUET_MAGIC:
            return "parquet"
        if _OTLP_KEY in head:
            return "otlp"
        data = read_bytes(path)
        if parquet.is_parquet(data):
            return "parquet"
        return _detect(text_of(data, str(path)), str(path))[0]
    except (OSError, LoadError, ValueError, RecursionError):
        return None
