"""Parquet in the flat run schema -> runs, read with pyarrow (issue 13; ``docs/formats.md``).

One row per run; the columns are the flat schema's (:mod:`.flat`: ``id``, ``title``,
``user_input``, ``expected_calls``, ``actual_calls``, ``answer``, ``reference`` / ``references``,
``human_verdict``, ``human_note``, ``invocations``, ``adk_*``), each row read by the flat loader's
own :func:`~.flat.run_from_record` (same rules, same messages). Calls and references may be JSON
text or nested Parquet values: a list of structs ``{name, args}`` with ``args`` a struct, a map or
JSON text; references a list of strings.

Parquet gives every struct in a column the union of the keys of all rows, so a key a row does not
have reads as null: in a struct, a null field is read as absent (write ``args`` as JSON text to
keep a null argument). A map reads as an object. A table with both ``reference`` and
``references`` columns fills one of them per row (the other null or empty), as in CSV.

Errors: ``"<file>: row 3, actual_calls[1]: missing \\"name\\""`` (rows count from 1, the first
run; Parquet has no header row).
"""

from __future__ import annotations

import datetime
import decimal
import io
import json
import os
from typing import Any

from ..errors import LoadError
from ..model import CaseSet, Run
from ..reading import json_message, loads_json
from ._common import Problem, check_unique_ids, make_case_set, show
from .flat import run_from_record

PARQUET_MAGIC = b"PAR1"


def is_parquet(data: bytes) -> bool:
    """True when ``data`` starts (and ends) with Parquet's ``PAR1`` magic."""
    return data[:4] == PARQUET_MAGIC and data[-4:] == PARQUET_MAGIC


def _plain(value: Any, arrow_type: Any) -> Any:
    """``value`` (from ``Table.to_pylist``) with struct nulls dropped and maps as dicts, guided
    by its Arrow type."""
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_struct(arrow_type):
        out = {}
        for i in range(arrow_type.num_fields):
            f = arrow_type.field(i)
            v = value.get(f.name)
            if v is not None:
                out[f.name] = _plain(v, f.type)
        return out
    if pa.types.is_map(arrow_type):
        return {k: _plain(v, arrow_type.item_type) for k, v in value}
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        return [_plain(v, arrow_type.value_type) for v in value]
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return value
    if isinstance(value, (datetime.date, datetime.time)):  # date, timestamp and time columns: JSON has none
        return value.isoformat()
    if isinstance(value, decimal.Decimal):  # decimal columns: a JSON number
        return float(value)
    return value


def _args_from_text(record: dict[str, Any]) -> None:
    """In place: each call's ``args`` given as JSON text in a list-of-structs calls column (of the
    row, or of each of its ``invocations``) parsed, as docs/formats.md says they may be (a struct
    cannot hold a null argument). Raises Problem naming the call (``expected_calls[0].args``) for
    text that is not JSON; what the JSON holds is checked as any args are (``run_from_record``)."""
    groups = [("", record)]
    if isinstance(record.get("invocations"), list):
        groups += [(f"invocations[{j}].", inv) for j, inv in enumerate(record["invocations"]) if isinstance(inv, dict)]
    for prefix, holder in groups:
        for side in ("expected_calls", "actual_calls"):
            calls = holder.get(side)
            if not isinstance(calls, list):
                continue
            for i, call in enumerate(calls):
                if isinstance(call, dict) and isinstance(call.get("args"), str):
                    try:
                        call["args"] = loads_json(call["args"])
                    except json.JSONDecodeError as exc:
                        raise Problem(f"{prefix}{side}[{i}].args", f"invalid JSON text: {json_message(exc)}") from None
                    except RecursionError:
                        raise Problem(f"{prefix}{side}[{i}].args", "invalid JSON text: nested too deeply") from None


FEATURES_PART_KEY = b"metric-explorer/features"
"""The schema metadata key of a features dataset's part file (``featurestore.META_KEY``, not
imported: the store imports the loaders). Found by a trial: a part file given as runs was read
row by row and refused with ``unknown field "human"``."""


def parquet_from_bytes(data: bytes, name: str) -> CaseSet:
    """Runs from Parquet file content. Raises LoadError (not Parquet, unknown column, a bad row)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:  # a damaged file can fail in the reader, in the schema (names not UTF-8) or in the values
        table = pq.read_table(io.BytesIO(data))
        part_of_dataset = FEATURES_PART_KEY in (table.schema.metadata or {})
        types = {f.name: f.type for f in table.schema}
        rows = [] if part_of_dataset else table.to_pylist()
    except (pa.ArrowException, OSError, ValueError, IndexError, TypeError, KeyError) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise LoadError(name, "", f"not a readable Parquet file: {show(text, 200)}") from None
    if part_of_dataset:
        folder = os.path.dirname(name) or "."
        if os.path.isfile(os.path.join(folder, "_features.json")):  # featurestore.MANIFEST
            raise LoadError(name, "", f"is a part of the features dataset {folder}, not a run file: give the folder (--cases {folder})")
        raise LoadError(name, "", "is a features file (written by featurize), not a run file: read it as features "
                                  f"(--cases {name}, --input-format auto)")
    runs: list[Run] = []
    places: list[str] = []
    for n, row in enumerate(rows, start=1):
        record = {k: _plain(v, types[k]) for k, v in row.items()}
        if "reference" in record and "references" in record:
            refs = record["references"]
            if refs is None or refs == "" or refs == []:
                del record["references"]
            else:
                del record["reference"]
        for key in ("title", "user_input", "human_note"):
            if key in record and record[key] is None:
                del record[key]
        for key, value in record.items():
            if key.startswith("adk_") and isinstance(value, bytes):  # binary that is not UTF-8 text
                raise LoadError(name, f"row {n}, {show(key)}", "expected text, a number, a boolean or null, got binary data")
        try:
            _args_from_text(record)
            runs.append(run_from_record(record))
        except Problem as p:
            raise LoadError(name, f"row {n}, {p.path}" if p.path else f"row {n}", p.message) from None
        places.append(f"row {n}")
    check_unique_ids(runs, name, places)
    base = name.replace("\\", "/").rsplit("/", 1)[-1] or name
    return make_case_set(runs, name, base, f"runs from {base} (Parquet)", places)
