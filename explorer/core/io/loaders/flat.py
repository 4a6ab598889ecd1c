"""The flat run format, one run per JSONL line or CSV row (documented in ``docs/formats.md``).

Fields (JSONL keys / CSV columns):

* ``id`` (required; string, or an integer in JSONL), ``title``, ``user_input`` (optional text);
* ``expected_calls``, ``actual_calls`` (required): a JSON list of ``{"name", "args"}`` objects
  (in CSV: that JSON in the cell), or ``a>b>c`` tool names (args empty); empty = no calls;
* ``answer`` (required text) and the reference answer(s): ``reference`` (one text) or
  ``references`` (a JSON list of texts, in CSV the JSON in the cell); exactly one of the two;
* ``human_verdict`` (``acceptable`` / ``unacceptable`` / empty = unlabelled), ``human_note``;
* or, several annotators (issue 11), ``labels``: a JSON list of ``{"annotator", "verdict",
  "note"}`` objects (in CSV the JSON in the cell); the run's verdict is then their majority;
* ``adk_*`` fields are kept as extra columns (``Run.extra``); any other field is an error.

A JSON list of such records is read too. A JSONL run with several invocations gives ``invocations``: a list of objects with the
per-invocation fields (``expected_calls``, ``actual_calls``, ``answer``, ``reference(s)``) instead
of those fields at the top. CSV holds one invocation per run.

In CSV, a cell written with a leading ``'`` before ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is read without that ``'`` (:mod:`explorer.core.io.csv_cells`, the guard against CSV
injection that :func:`dumps_csv` applies).

Errors name the file, the place (``line 7, actual_calls[1]`` for JSONL; ``row 3, column answer``
for CSV, counting the header as row 1 as a spreadsheet does) and the field.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from typing import Any, Iterable

from ..csv_cells import neutralise_cell, restore
from ..errors import LoadError
from ..model import AnnotatorLabel, CallPair, CaseSet, Invocation, PlainInvocation, Run, ToolCall, majority_verdict
from ..reading import csv_problem, csv_rows, json_message, loads_json, nested_too_deeply, parse_json, read_bytes, separator_hint, text_of
from ._common import (
    Problem, check_unique_ids, expect_list, expect_object, expect_str, join_path, json_type,
    make_case_set, parse_calls, parse_verdict, run_id_problem, show, whole_number_as_text,
)

RUN_FIELDS = ("id", "title", "user_input", "human_verdict", "human_note", "labels", "invocations")
INVOCATION_FIELDS = ("expected_calls", "actual_calls", "answer", "reference", "references")
REQUIRED_INVOCATION_FIELDS = ("expected_calls", "actual_calls", "answer")
_KNOWN_FIELDS = frozenset(RUN_FIELDS + INVOCATION_FIELDS)


def _references(obj: dict[str, Any], path: str) -> tuple[str, ...]:
    has_one, has_many = "reference" in obj, "references" in obj
    if has_one and has_many:
        raise Problem(path, 'give "reference" or "references", not both')
    if has_one:
        return (expect_str(obj["reference"], join_path(path, "reference")),)
    if not has_many:
        raise Problem(path, 'missing "reference" (or "references")')
    value = obj["references"]
    rpath = join_path(path, "references")
    if isinstance(value, str):
        if not value.strip().startswith("["):
            raise Problem(rpath, 'expected a JSON list of texts such as ["..."] (use "reference" for one text)')
        try:
            value = loads_json(value)
        except json.JSONDecodeError as exc:
            raise Problem(rpath, f"invalid JSON list of texts: {json_message(exc)} (character {exc.pos + 1})") from None
        except RecursionError:
            raise Problem(rpath, "invalid JSON list of texts: nested too deeply") from None
    items = expect_list(value, rpath)
    if not items:
        raise Problem(rpath, "must not be empty")
    return tuple(expect_str(r, join_path(rpath, i)) for i, r in enumerate(items))


def _plain_calls(items: list[Any]) -> tuple[CallPair, ...] | None:
    """``(name, args)`` of each well-formed ``{"name": str, "args": object|null}`` item (as
    :func:`~explorer.core.io.loaders._common.fast_call` accepts them; null args read ``{}``), or
    None when any item is not."""
    out = []
    for c in items:
        if type(c) is not dict:
            return None
        name, args = c.get("name"), c.get("args")
        if type(name) is not str or not name.strip():
            return None
        if args is None:
            args = {}
        elif type(args) is not dict:
            return None
        out.append((name, args))
    return tuple(out)


def _plain_invocation(obj: dict[str, Any]) -> PlainInvocation | None:
    """The :class:`~explorer.core.io.model.PlainInvocation` of ``obj`` when its fields are well
    formed in the common JSON way (call lists of ``{name, args}`` objects, a text answer,
    ``reference`` text or a non-empty ``references`` list of texts), else None, and the full path
    below names the problem. Builds no path strings and no objects per call: the hot path of a
    1M-run load (same result as the full path)."""
    expected, actual, answer = obj.get("expected_calls"), obj.get("actual_calls"), obj.get("answer")
    if type(expected) is not list or type(actual) is not list or type(answer) is not str:
        return None
    if "reference" in obj:
        if "references" in obj or type(obj["reference"]) is not str:
            return None
        references: tuple[str, ...] = (obj["reference"],)
    else:
        refs = obj.get("references")
        if type(refs) is not list or not refs or not all(type(r) is str for r in refs):
            return None
        references = tuple(refs)
    expected_calls = _plain_calls(expected)
    if expected_calls is None:
        return None
    if actual == expected:  # the same calls (equal JSON): one tuple serves both
        actual_calls = expected_calls
    else:
        actual_calls = _plain_calls(actual)
        if actual_calls is None:
            return None
    return PlainInvocation(expected_calls, actual_calls, answer, references)


def _well_formed_invocation(obj: dict[str, Any]) -> Invocation | None:
    """The Invocation of ``obj`` when :func:`_plain_invocation` reads it, else None."""
    plain = _plain_invocation(obj)
    if plain is None:
        return None
    expected = tuple([ToolCall(name, args) for name, args in plain.expected])
    actual = expected if plain.actual is plain.expected else tuple([ToolCall(name, args) for name, args in plain.actual])
    return Invocation(expected_calls=expected, actual_calls=actual, answer=plain.answer, references=plain.references)


def invocation_from_fields(obj: dict[str, Any], path: str = "") -> Invocation:
    """One Invocation from the per-invocation fields of ``obj``; raises Problem."""
    fast = _well_formed_invocation(obj)
    if fast is not None:
        return fast
    for key in REQUIRED_INVOCATION_FIELDS:
        if key not in obj:
            raise Problem(path, f'missing "{key}"')
    return Invocation(
        expected_calls=parse_calls(obj["expected_calls"], join_path(path, "expected_calls")),
        actual_calls=parse_calls(obj["actual_calls"], join_path(path, "actual_calls")),
        answer=expect_str(obj["answer"], join_path(path, "answer")),
        references=_references(obj, path),
    )


def _run_id(value: Any) -> str:
    value = whole_number_as_text(value)
    if not isinstance(value, str):
        raise Problem("id", run_id_problem(value))
    if not value.strip():
        raise Problem("id", "empty run id")
    return value.strip()


def _optional_text(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return "" if value is None else expect_str(value, key)


def parse_annotator_labels(value: Any, path: str = "labels") -> tuple[AnnotatorLabel, ...]:
    """A run's ``labels``: a JSON list (or, from a CSV cell, its JSON text; empty = none) of
    ``{"annotator": name, "verdict": "acceptable"|"unacceptable", "note": text}`` objects (note
    optional). Raises Problem naming the item and field, or an annotator listed twice."""
    if value is None:
        return ()
    if isinstance(value, str):
        if not value.strip():
            return ()
        try:
            value = loads_json(value)
        except json.JSONDecodeError as exc:
            raise Problem(path, f"invalid JSON list of labels: {json_message(exc)} (character {exc.pos + 1})") from None
        except RecursionError:
            raise Problem(path, "invalid JSON list of labels: nested too deeply") from None
    items = expect_list(value, path)
    out: list[AnnotatorLabel] = []
    first: dict[str, int] = {}
    for j, item in enumerate(items):
        ipath = join_path(path, j)
        obj = expect_object(item, ipath)
        unknown = [k for k in obj if k not in ("annotator", "verdict", "note")]
        if unknown:
            raise Problem(join_path(ipath, show(unknown[0])), f'unknown field "{show(unknown[0])}" (known: annotator, verdict, note)')
        if "annotator" not in obj:
            raise Problem(ipath, 'missing "annotator"')
        name = expect_str(obj["annotator"], join_path(ipath, "annotator")).strip()
        if not name:
            raise Problem(join_path(ipath, "annotator"), "empty annotator name")
        if name in first:
            raise Problem(join_path(ipath, "annotator"), f'annotator "{show(name)}" labels this run twice (first at {path}[{first[name]}])')
        first[name] = j
        verdict = parse_verdict(obj.get("verdict"), join_path(ipath, "verdict"))
        if verdict is None:
            raise Problem(join_path(ipath, "verdict"), 'expected "acceptable" or "unacceptable"')
        note = obj.get("note")
        out.append(AnnotatorLabel(name, verdict, "" if note is None else expect_str(note, join_path(ipath, "note"))))  # type: ignore[arg-type]
    return tuple(out)


_VERDICT_CODES = {None: -1, "": -1, "acceptable": 1, "unacceptable": 0}
"""``human_verdict`` values taken as they are by :func:`well_formed_run` -> verdict code."""


def well_formed_run(obj: Any) -> tuple[str, int, tuple[PlainInvocation, ...]] | None:
    """(run id, verdict code 1 / 0 / -1, invocations as plain tuples) of a flat record written the
    common way, without building the Run: known fields (and ``adk_*``), an id that is a non-blank
    string or an integer, well-formed invocations (:func:`_plain_invocation`, at the top or as a
    non-empty ``invocations`` list), ``human_verdict`` null or exactly ``acceptable`` /
    ``unacceptable`` / empty, no ``labels``, text or null ``title`` / ``user_input`` /
    ``human_note``. Anything else gives None, and :func:`run_from_record` then builds the run
    or names the problem, so a record this accepts is one ``run_from_record`` accepts, with the
    same id, verdict and invocations (``Invocation.plain()``; ``tests/test_well_formed_run.py``). The hot path of a
    big load (:mod:`explorer.core.io.bigload`)."""
    if type(obj) is not dict:
        return None
    if not obj.keys() <= _KNOWN_FIELDS and not all(k.startswith("adk_") for k in obj.keys() - _KNOWN_FIELDS):
        return None
    run_id = obj.get("id")
    if type(run_id) is int:
        run_id = str(run_id)
    elif type(run_id) is not str or not (run_id := run_id.strip()):
        return None
    verdict = obj.get("human_verdict")
    if (verdict is not None and type(verdict) is not str) or verdict not in _VERDICT_CODES or obj.get("labels") is not None:
        return None
    for key in ("title", "user_input", "human_note"):
        value = obj.get(key)
        if value is not None and type(value) is not str:
            return None
    if "invocations" in obj:
        items = obj["invocations"]
        if type(items) is not list or not items or any(k in obj for k in INVOCATION_FIELDS):
            return None
        invocations = []
        for item in items:
            plain = _plain_invocation(item) if type(item) is dict else None
            if plain is None:
                return None
            invocations.append(plain)
        return run_id, _VERDICT_CODES[verdict], tuple(invocations)
    plain = _plain_invocation(obj)
    if plain is None:
        return None
    return run_id, _VERDICT_CODES[verdict], (plain,)


def run_from_record(obj: Any) -> Run:
    """A Run from one flat record (a parsed JSONL object or a CSV row dict); raises Problem."""
    obj = expect_object(obj, "")
    unknown = [k for k in obj if k not in _KNOWN_FIELDS and not k.startswith("adk_")]
    if unknown:
        raise Problem(show(unknown[0]), f'unknown field "{show(unknown[0])}" (known: {", ".join(RUN_FIELDS + INVOCATION_FIELDS)}, adk_*)')
    if "id" not in obj:
        raise Problem("", 'missing "id"')
    run_id = _run_id(obj["id"])
    if "invocations" in obj:
        clash = [k for k in INVOCATION_FIELDS if k in obj]
        if clash:
            raise Problem(clash[0], f'"{clash[0]}" belongs inside "invocations" when "invocations" is given')
        items = expect_list(obj["invocations"], "invocations")
        if not items:
            raise Problem("invocations", "must not be empty")
        invocations = tuple(
            invocation_from_fields(expect_object(item, f"invocations[{i}]"), f"invocations[{i}]") for i, item in enumerate(items)
        )
    else:
        invocations = (invocation_from_fields(obj),)
    verdict = parse_verdict(obj.get("human_verdict"), "human_verdict")
    labels = parse_annotator_labels(obj.get("labels"))
    if labels and verdict is not None:
        raise Problem("labels", 'give "human_verdict" or "labels" (several annotators), not both')
    return Run(
        id=run_id,
        title=_optional_text(obj, "title"),
        user_input=_optional_text(obj, "user_input"),
        invocations=invocations,
        human_verdict=majority_verdict(labels) if labels else verdict,  # type: ignore[arg-type]
        human_note=_optional_text(obj, "human_note"),
        extra={k: v for k, v in obj.items() if k.startswith("adk_")},
        labels=labels,
    )


def _title(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base or name


# --- JSONL -----------------------------------------------------------------------------------


def jsonl_from_text(text: str, name: str) -> CaseSet:
    """Runs from JSONL text (one JSON object per line; blank lines skipped). Raises LoadError
    ``"<name>: line N[, <field path>]: <problem>"``."""
    if text.lstrip().startswith("["):
        return flat_from_data(parse_json(text, name), name)
    runs: list[Run] = []
    places: list[str] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except json.JSONDecodeError as exc:
            raise LoadError(name, f"line {n}, column {exc.colno}", f"invalid JSON: {json_message(exc)}") from None
        except RecursionError:
            raise nested_too_deeply(name, line, n) from None
        if not isinstance(record, dict):
            raise LoadError(name, f"line {n}", f"expected a JSON object (one run per line), got {json_type(record)}")
        try:
            runs.append(run_from_record(record))
        except Problem as p:
            raise LoadError(name, f"line {n}, {p.path}" if p.path else f"line {n}", p.message) from None
        places.append(f"line {n}")
    check_unique_ids(runs, name, places)
    return make_case_set(runs, name, _title(name), f"runs from {_title(name)} (JSONL)", places)


def flat_from_data(data: Any, name: str) -> CaseSet:
    """Flat records given as one parsed JSON list instead of lines (errors name ``[i].field``)."""
    if not isinstance(data, list):
        raise LoadError(name, "(top level)", f"expected a list of runs, got {json_type(data)}")
    runs: list[Run] = []
    places: list[str] = []
    for i, record in enumerate(data):
        try:
            runs.append(run_from_record(record))
        except Problem as p:
            raise LoadError(name, f"[{i}]" + (("." + p.path) if p.path and not p.path.startswith("[") else p.path), p.message) from None
        places.append(f"[{i}]")
    check_unique_ids(runs, name, places)
    return make_case_set(runs, name, _title(name), f"runs from {_title(name)} (JSON)", places)


def loads_jsonl(data: bytes | str, name: str) -> CaseSet:
    """Runs from JSONL bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return jsonl_from_text(text, name)


def load_jsonl(path: str) -> CaseSet:
    """Load a flat JSONL file. Raises LoadError."""
    return loads_jsonl(read_bytes(path), str(path))


# --- CSV -------------------------------------------------------------------------------------


def _cell_value(key: str, text: str) -> Any:
    """CSV cell -> value: ``adk_*`` cells become numbers/booleans/None where they read so."""
    if not key.startswith("adk_"):
        return text
    low = text.strip().lower()
    if low == "":
        return None
    if low in ("true", "false"):
        return low == "true"
    try:
        return float(low)
    except ValueError:
        return text


def csv_from_text(text: str, name: str) -> CaseSet:
    """Runs from CSV text with a header row (comma-separated, RFC 4180 quoting). Raises LoadError
    ``"<name>: row N, column <field>: <problem>"`` (the header is row 1)."""
    reader = csv_rows(text)
    try:
        header = next(reader)
    except StopIteration:
        raise LoadError(name, "", "file is empty") from None
    except csv.Error as exc:
        raise LoadError(name, "row 1", csv_problem(exc)) from None
    header = [h.strip() for h in header]
    for col in ("id", *REQUIRED_INVOCATION_FIELDS):
        if col not in header:
            raise LoadError(name, "row 1 (header)", f'missing column "{col}" (got columns: {show(", ".join(header), 200)})'
                            + separator_hint(header))
    if "reference" not in header and "references" not in header:
        raise LoadError(name, "row 1 (header)", 'missing column "reference" (or "references")')
    if "invocations" in header:
        raise LoadError(name, "row 1 (header), column invocations", "CSV holds one invocation per run; use JSONL for several")
    dupes = sorted(h for h, n in Counter(header).items() if n > 1)  # header.count(h) per column: 7.6 s for 20,000
    if dupes:
        raise LoadError(name, "row 1 (header)", f'column "{show(dupes[0])}" appears twice')
    runs: list[Run] = []
    places: list[str] = []
    row_no = 1
    try:
        for cells in reader:
            row_no += 1
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise LoadError(name, f"row {row_no}", f"has {len(cells)} cells, the header has {len(header)}")
            record = {k: _cell_value(k, restore(v)) for k, v in zip(header, cells)}
            if "reference" in record and "references" in record:
                # both columns: a row fills one of them
                if record["references"].strip():
                    del record["reference"]
                else:
                    del record["references"]
            try:
                runs.append(run_from_record(record))
            except Problem as p:
                column = p.path.split("[", 1)[0].split(".", 1)[0]
                where = f"row {row_no}, column {column}" if column else f"row {row_no}"
                detail = p.message if p.path == column else f"{p.path}: {p.message}"
                raise LoadError(name, where, detail) from None
            places.append(f"row {row_no}")
    except csv.Error as exc:  # raised while reading the row after row_no
        raise LoadError(name, f"row {row_no + 1}", csv_problem(exc)) from None
    check_unique_ids(runs, name, places)
    return make_case_set(runs, name, _title(name), f"runs from {_title(name)} (CSV)", places)


def loads_csv(data: bytes | str, name: str) -> CaseSet:
    """Runs from CSV bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return csv_from_text(text, name)


def load_csv(path: str) -> CaseSet:
    """Load a flat CSV file. Raises LoadError."""
    return loads_csv(read_bytes(path), str(path))


# --- writing ---------------------------------------------------------------------------------


def _calls_json(calls: Iterable) -> list[dict[str, Any]]:
    return [{"name": c.name, "args": dict(c.args)} for c in calls]


def _labels_json(labels) -> list[dict[str, str]]:
    return [{"annotator": lab.annotator, "verdict": lab.verdict, "note": lab.note} for lab in labels]


def run_to_record(run: Run) -> dict[str, Any]:
    """The flat JSONL record of ``run`` (inverse of :func:`run_from_record`)."""
    rec: dict[str, Any] = {"id": run.id, "title": run.title, "user_input": run.user_input}
    invs = [
        {
            "expected_calls": _calls_json(inv.expected_calls),
            "actual_calls": _calls_json(inv.actual_calls),
            "answer": inv.answer,
            "references": list(inv.references),
        }
        for inv in run.invocations
    ]
    if len(invs) == 1:
        rec.update(invs[0])
    else:
        rec["invocations"] = invs
    rec["human_verdict"] = None if run.labels else run.human_verdict
    rec["human_note"] = run.human_note
    if run.labels:
        rec["labels"] = _labels_json(run.labels)
    rec.update({k: v for k, v in run.extra.items() if k.startswith("adk_")})
    return rec


def dumps_jsonl(case_set: CaseSet) -> str:
    """Every run of ``case_set`` as one JSONL line each (UTF-8 text, ``\\n`` endings)."""
    return "".join(json.dumps(run_to_record(r), ensure_ascii=False) + "\n" for r in case_set.runs)


def dumps_csv(case_set: CaseSet) -> str:
    """Every run of ``case_set`` as a CSV row; calls and references as JSON in their cells; text
    cells that could run as spreadsheet formulas get a leading ``'`` (read back without it).
    Raises ValueError for a run with several invocations (CSV holds one; use JSONL)."""
    extra_keys = sorted({k for r in case_set.runs for k in r.extra if k.startswith("adk_")})
    with_labels = any(r.labels for r in case_set.runs)
    columns = ["id", "title", "user_input", "expected_calls", "actual_calls", "answer", "references",
               "human_verdict", "human_note", *(["labels"] if with_labels else []), *extra_keys]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for run in case_set.runs:
        if len(run.invocations) != 1:
            raise ValueError(f"run {run.id} has {len(run.invocations)} invocations; CSV holds one per run, write JSONL")
        inv = run.invocations[0]
        row = [
            run.id, run.title, run.user_input,
            json.dumps(_calls_json(inv.expected_calls), ensure_ascii=False),
            json.dumps(_calls_json(inv.actual_calls), ensure_ascii=False),
            inv.answer,
            json.dumps(list(inv.references), ensure_ascii=False),
            "" if run.labels else (run.human_verdict or ""), run.human_note,
        ]
        if with_labels:
            row.append(json.dumps(_labels_json(run.labels), ensure_ascii=False) if run.labels else "")
        row += ["" if run.extra.get(k) is None else run.extra.get(k) for k in extra_keys]
        writer.writerow([neutralise_cell(v) for v in row])
    return out.getvalue()
