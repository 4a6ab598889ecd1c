"""Expectations: what each dataset example should do, joined onto runs read from traces or logs
(issue 13; documented in ``docs/formats.md``, "Expectations").

Traces and logs record what the agent did, not what it should have done. An expectations file
gives, per example id, the expected calls and the reference answer(s):

* a JSONL file (or a JSON list), one object per example::

      {"id": "E1", "title": "...", "user_input": "...",
       "expected_calls": [{"name": "search_flights", "args": {...}}] or "a>b",
       "reference": "..." or "references": ["...", "..."]}

  or, for a run of several invocations, ``"invocations": [{"expected_calls", "reference(s)"}, ...]``.
  ``expected_calls`` and the reference(s) are each optional (what is absent is left as the run
  has it); ``title`` replaces the run's title; ``user_input`` fills the run's when it has none.
  Other fields are an error (a person's verdict belongs in a labels CSV, not here);
* a case set (``metric-explorer/cases@1``): each run's expected calls, references, title and
  expected fields, and the set's key-field settings (``day_first``, ``id_pattern``).

The join: an expectation with id ``X`` applies to the run whose id is ``X`` and to every run
whose ``Run.extra["example_id"]`` is ``X`` (an Inspect sample id, or the OTLP ``--join-key``
attribute's value; so several epochs or traces of one example share it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from ..casefile import case_set_from_data
from ..errors import LoadError
from ..model import EXAMPLE_ID, CaseSet, ExpectedField, Invocation, Run, ToolCall
from ..reading import json_lines, loads_json, read_bytes, text_of
from ...plural import counted, counted_of, noun
from ._common import (
    Problem, expect_list, expect_object, expect_str, join_path, json_type, parse_calls, run_id_problem, show,
    whole_number_as_text,
)

FIELDS = ("id", "title", "user_input", "expected_calls", "reference", "references", "invocations")
RUN_FIELDS = ("actual_calls", "answer")
"""Fields of a run that an expectation never has: a record holding one is a run (a run file read as
expectations, e.g. one whose first record lacks them, or a run file given to --expectations)."""
RUN_FIELD_HINT = " (a run's field: a run file goes in --cases, and each of its records has actual_calls and answer)"


@dataclass(frozen=True)
class Expectation:
    """What runs of one example should do. ``invocations``: per invocation ``(expected calls or
    None = keep the run's, references or None = keep the run's)``; ``title`` / ``user_input``
    None = keep; ``expected_fields`` None = keep."""

    invocations: tuple[tuple[tuple[ToolCall, ...] | None, tuple[str, ...] | None], ...]
    title: str | None = None
    user_input: str | None = None
    expected_fields: tuple[ExpectedField, ...] | None = None


@dataclass(frozen=True)
class Expectations:
    """Expectations by example id, in file order, read from file ``source``; ``day_first`` /
    ``id_pattern`` come from a case set (None when read from JSONL). ``places``: each id's
    record in the file (``"line 3"`` in JSONL, ``"[2]"`` in a JSON list, ``"runs[2]"`` in a case
    set) and ``invocation_fields`` the field of that record its invocations come from
    (``invocations``, else the first of ``expected_calls`` / ``reference`` / ``references``, else
    ``id``), for errors about it; empty when not read from a file."""

    by_id: Mapping[str, Expectation]
    source: str
    day_first: bool | None = None
    id_pattern: str | None = None
    places: Mapping[str, str] = field(default_factory=dict)
    invocation_fields: Mapping[str, str] = field(default_factory=dict)

    def place(self, rid: str, what: str = "id") -> str:
        """Where field ``what`` of id ``rid``'s record is: ``"line 3, id"``, ``"runs[2].id"``
        (``what`` ``"invocations"``: the field its invocations come from, ``"line 3,
        expected_calls"``); ``id "<rid>"`` when the record's place is unknown."""
        record = self.places.get(rid)
        if record is None:
            return f'id "{show(rid)}"'
        name = self.invocation_fields.get(rid, "invocations") if what == "invocations" else what
        return f"{record}.{name}" if record.startswith("runs[") else f"{record}, {name}"


def _references(obj: dict[str, Any], path: str) -> tuple[str, ...] | None:
    if "reference" in obj and "references" in obj:
        raise Problem(path, 'give "reference" or "references", not both')
    if "reference" in obj:
        return (expect_str(obj["reference"], join_path(path, "reference")),)
    if "references" not in obj:
        return None
    rpath = join_path(path, "references")
    items = expect_list(obj["references"], rpath)
    if not items:
        raise Problem(rpath, "must not be empty")
    return tuple(expect_str(r, join_path(rpath, i)) for i, r in enumerate(items))


def _invocation(obj: dict[str, Any], path: str) -> tuple[tuple[ToolCall, ...] | None, tuple[str, ...] | None]:
    calls = parse_calls(obj["expected_calls"], join_path(path, "expected_calls")) if "expected_calls" in obj else None
    return calls, _references(obj, path)


def expectation_from_record(obj: Any) -> tuple[str, Expectation]:
    """``(id, Expectation)`` from one JSONL record. Raises Problem."""
    obj = expect_object(obj, "")
    for key in obj:
        if key not in FIELDS:
            hint = (" (a person's verdict goes in a labels CSV: --labels)" if key in ("human_verdict", "human_note") else
                    RUN_FIELD_HINT if key in RUN_FIELDS else "")
            raise Problem(show(key), f'unknown field "{show(key)}" (known: {", ".join(FIELDS)}){hint}')
    if "id" not in obj:
        raise Problem("", 'missing "id"')
    rid = whole_number_as_text(obj["id"])  # 7 is the run "7", as the run readers read it
    if not isinstance(rid, str):
        raise Problem("id", run_id_problem(rid))
    rid = rid.strip()
    if not rid:
        raise Problem("id", "empty id")
    if "invocations" in obj:
        clash = [k for k in ("expected_calls", "reference", "references") if k in obj]
        if clash:
            raise Problem(clash[0], f'"{clash[0]}" belongs inside "invocations" when "invocations" is given')
        items = expect_list(obj["invocations"], "invocations")
        if not items:
            raise Problem("invocations", "must not be empty")
        invocations = tuple(_invocation(expect_object(it, f"invocations[{i}]"), f"invocations[{i}]") for i, it in enumerate(items))
    else:
        invocations = (_invocation(obj, ""),)
    title = obj.get("title")
    user = obj.get("user_input")
    return rid, Expectation(
        invocations=invocations,
        title=None if title is None else expect_str(title, "title"),
        user_input=None if user is None else expect_str(user, "user_input"),
    )


def _from_case_set(case_set: CaseSet, name: str) -> Expectations:
    places = {run.id: f"runs[{i}]" for i, run in enumerate(case_set.runs)}
    by_id = {
        run.id: Expectation(
            invocations=tuple((inv.expected_calls, inv.references) for inv in run.invocations),
            title=run.title or None,
            user_input=run.user_input or None,
            expected_fields=run.expected_fields,
        )
        for run in case_set.runs
    }
    return Expectations(by_id, name, case_set.day_first, case_set.id_pattern, places, {rid: "invocations" for rid in places})


def expectations_from_text(text: str, name: str) -> Expectations:
    """Expectations from JSONL / JSON-list text or a case set's JSON. Raises LoadError
    ``"<name>: line N, <field>: <problem>"`` (JSONL) or with the JSON path, and for a duplicate id."""
    records: list[tuple[str, Any]]
    try:
        data = loads_json(text)
    except (ValueError, RecursionError):
        records = json_lines(text, name)
    else:
        if isinstance(data, dict) and str(data.get("format", "")).startswith("metric-explorer/cases"):
            return _from_case_set(case_set_from_data(data, name), name)
        if isinstance(data, dict):  # one object: on the line where it starts (after blank lines)
            records = [(f"line {text[: len(text) - len(text.lstrip())].count(chr(10)) + 1}", data)]
        elif isinstance(data, list):
            records = [(f"[{i}]", r) for i, r in enumerate(data)]
        else:
            raise LoadError(name, "(top level)", f"expected expectations (JSONL objects, a JSON list or a case set), got {json_type(data)}")
    by_id: dict[str, Expectation] = {}
    first: dict[str, str] = {}
    places: dict[str, str] = {}
    fields: dict[str, str] = {}
    for place, record in records:
        try:
            rid, exp = expectation_from_record(record)
        except Problem as p:
            raise LoadError(name, f"{place}, {p.path}" if p.path else place, p.message) from None
        if rid in first:
            raise LoadError(name, f"{place}, id", f'duplicate id "{show(rid)}" (first at {first[rid]})')
        first[rid] = place
        by_id[rid] = exp
        places[rid] = place
        fields[rid] = next((k for k in ("invocations", "expected_calls", "reference", "references") if k in record), "id")
    if not by_id:
        raise LoadError(name, "", "no expectations in the file")
    return Expectations(by_id, name, places=places, invocation_fields=fields)


def loads_expectations(data: bytes | str, name: str) -> Expectations:
    """Expectations from file content; ``name`` labels errors. Raises LoadError."""
    return expectations_from_text(text_of(data, name), name)


SNIFF_BYTES = 1 << 20
"""How much of a file :func:`looks_like_expectations` reads: its first line, or a JSON list of up to 1 MB."""


def looks_like_expectations(data: bytes) -> bool:
    """True when ``data`` reads as expectations JSONL or a JSON list of them, judged by its first
    record: an object with an ``"id"``, at least one of ``expected_calls`` / ``reference`` /
    ``references`` / ``invocations``, and no field but :data:`FIELDS` (a run file has
    ``actual_calls`` or an answer, at the top or in its invocations; a case set is read as runs). For a drop zone, which has no
    ``--expectations`` flag to say what a file is; :func:`loads_expectations` then reads it."""
    head = data[:SNIFF_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n")
    try:
        if head.startswith(b"["):
            if len(data) > SNIFF_BYTES:
                return False
            parsed = loads_json(data.decode("utf-8-sig"))
            first = parsed[0] if isinstance(parsed, list) and parsed else None
        else:
            first = loads_json(head.split(b"\n", 1)[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    if not (isinstance(first, dict) and "id" in first and set(first) <= set(FIELDS)
            and any(k in first for k in ("expected_calls", "reference", "references", "invocations"))):
        return False
    # a run's turns carry what the agent did (a trial's run without a verdict, its turns with
    # actual calls and answers, was called an expectations file)
    turns = first.get("invocations")
    return not (isinstance(turns, list) and any(isinstance(t, dict) and ("actual_calls" in t or "answer" in t) for t in turns))


def load_expectations(path: str) -> Expectations:
    """Read an expectations file (JSONL, JSON list or case set). Raises LoadError."""
    return loads_expectations(read_bytes(path), str(path))


def _applied(run: Run, exp: Expectation, expectations: Expectations, key: str) -> Run:
    """``run`` with ``exp`` (id ``key`` of ``expectations``) applied. LoadError naming the file,
    the record's line (or JSON path) and field when the invocation counts differ."""
    if len(exp.invocations) != len(run.invocations):
        place = expectations.place(key, "invocations")
        listed = expectations.invocation_fields.get(key, "invocations") == "invocations"  # its list, or a case set's run
        n = len(run.invocations)
        what = (f"{counted(len(exp.invocations), 'invocation')} expected" if listed else
                'one invocation expected (a record without "invocations" is one)')
        fix = "" if listed else f'; give "invocations": [...] with one entry per invocation of the run'
        raise LoadError(expectations.source, place,
                        f'id "{show(key)}": {what} but run "{show(run.id)}" has {n}{fix}')
    invocations = tuple(
        Invocation(
            expected_calls=inv.expected_calls if calls is None else calls,
            actual_calls=inv.actual_calls,
            answer=inv.answer,
            references=inv.references if refs is None else refs,
        )
        for inv, (calls, refs) in zip(run.invocations, exp.invocations)
    )
    return replace(
        run,
        invocations=invocations,
        title=run.title if exp.title is None else exp.title,
        user_input=run.user_input or (exp.user_input or ""),
        expected_fields=run.expected_fields if exp.expected_fields is None else exp.expected_fields,
    )


def apply_expectations(case_set: CaseSet, expectations: Expectations) -> tuple[CaseSet, list[str], list[str]]:
    """``case_set`` with each run's expected calls and references (and title, missing user input,
    expected fields) taken from the expectation whose id is the run's id or its
    ``extra["example_id"]`` (the run id wins when both match). Returns (new case set, expectation
    ids that matched no run, ids of runs that got no expectation). A case set's key-field settings
    replace the runs'. Raises LoadError when an expectation's invocation count differs from its run's."""
    by_id = expectations.by_id
    used: set[str] = set()
    missing: list[str] = []
    runs: list[Run] = []
    for run in case_set.runs:
        key = run.id if run.id in by_id else run.extra.get(EXAMPLE_ID)
        exp = by_id.get(key) if isinstance(key, str) else None
        if exp is None:
            missing.append(run.id)
            runs.append(run)
            continue
        used.add(key)  # type: ignore[arg-type]
        runs.append(_applied(run, exp, expectations, key))  # type: ignore[arg-type]
    changes: dict[str, Any] = {"runs": tuple(runs)}
    if expectations.day_first is not None:
        changes["day_first"] = expectations.day_first
    if expectations.id_pattern is not None:
        changes["id_pattern"] = expectations.id_pattern
    return replace(case_set, **changes), [k for k in by_id if k not in used], missing


def missing_note(missing: Sequence[str], total: int) -> str:
    """One line for the runs no expectation matched (their expected calls and references stay
    as loaded: for traces none and ``""``)."""
    shown = ", ".join(missing[:5]) + (f" (+{len(missing) - 5} more)" if len(missing) > 5 else "")
    return (f"{counted_of(len(missing), total, 'run')} {noun(len(missing), 'has', 'have')} no expectation (expected "
            f"calls and references left as loaded): {shown}")
