"""The case-set file format ``metric-explorer/cases@1`` (JSON): schema, validation, load, dump.

::

    {
      "format": "metric-explorer/cases@1",
      "name": "Booking agent",
      "description": "...",
      "key_fields": {"day_first": true, "id_pattern": "\\\\b[A-Z]{2,3}-\\\\d{3,6}\\\\b"},   # optional
      "arg_rules": [{"tool": "web_search", "key": "query", "rule": "ignore"}],   # optional, see arg_rules.py
      "runs": [
        {
          "id": "E1", "title": "...", "user_input": "...",
          "invocations": [
            {"expected_calls": [{"name": "search_flights", "args": {"destination": "LIS"}}],
             "actual_calls":   [{"name": "search_flights", "args": {"destination": "LIS"}}],
             "answer": "...", "references": ["...", "..."]}
          ],
          "human_verdict": "acceptable",          # or "unacceptable"; absent or null = unlabelled
          "human_note": "why the person judged so",  # optional
          # or, several annotators (instead of human_verdict; issue 11):
          # "labels": [{"annotator": "ana", "verdict": "acceptable", "note": "..."}, ...]
          "expected_fields": [                         # optional, see docs/cascade.md
            {"name": "booking_id", "value": "BK-4821", "strategy": "id", "hard": true},
            {"name": "summary", "value": "...", "strategy": "f1", "hard": false, "weight": 1.0}
          ]
        }
      ]
    }

Validation is pydantic's (strict types, unknown fields refused); its errors are turned into one
line naming the file, the JSON path and the field, e.g.
``cases.json: runs[3].invocations[0].actual_calls[1]: missing "name"``.
"""

from __future__ import annotations

import json
import os
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError

from .errors import LoadError, json_spelling, show
from ..scoring.arg_rules import arg_rules_from_data
from ..scoring.fields import DEFAULT_ID_PATTERN, UnusableIdPattern, check_id_pattern
from .model import AnnotatorLabel, CaseSet, ExpectedField, Invocation, Run, ToolCall, majority_verdict
from .reading import parse_json, read_bytes, text_of

FORMAT = "metric-explorer/cases@1"


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class _CallSchema(_Strict):
    name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class _InvocationSchema(_Strict):
    expected_calls: list[_CallSchema]
    actual_calls: list[_CallSchema]
    answer: str
    references: list[str] = Field(min_length=1)


class _ExpectedFieldSchema(_Strict):
    name: str = Field(min_length=1)
    value: Any
    strategy: str = Field(pattern=r"^(exact@[1-4]|date|amount|id|f1|semantic)$")
    hard: bool = True
    weight: float = Field(default=1.0, ge=0)
    threshold: float | None = Field(default=None, ge=0, le=1)


def verdict_text(value: Any) -> Any:
    """A verdict as the flat and CSV readers read it (``loaders._common.parse_verdict``): case and
    surrounding spaces ignored, so ``"Acceptable "`` is ``"acceptable"``; anything else is left for
    the ``Literal`` to refuse as given, so its error shows the value as written (found by the
    bad-input trial: the case set refused what the other readers take)."""
    if not isinstance(value, str):
        return value
    text = value.strip().lower()
    return text if text in ("acceptable", "unacceptable", "") else value


def _verdict_or_unlabelled(value: Any) -> Any:
    """:func:`verdict_text`, and ``""`` (or spaces) as unlabelled, null, as the flat reader reads it."""
    value = verdict_text(value)
    return None if value == "" else value


class _LabelSchema(_Strict):
    annotator: str = Field(min_length=1)
    verdict: Annotated[Literal["acceptable", "unacceptable"], BeforeValidator(verdict_text)]
    note: str = ""


def _whole_number_as_text(value: Any) -> Any:
    """:func:`~explorer.core.io.loaders._common.whole_number_as_text`, imported when first called
    (the loaders package imports this module)."""
    from .loaders._common import whole_number_as_text

    return whole_number_as_text(value)


class _RunSchema(_Strict):
    # stripped as the flat, CSV and labels readers strip ids: "r1 " is r1 (a duplicate of a run r1),
    # and an id of spaces only is refused (found by the bad-input trial); a whole number is read
    # as its digits, as the flat reader reads it (7 is the run "7"; 1.5 and true are refused)
    id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1), BeforeValidator(_whole_number_as_text)]
    title: str = ""
    user_input: str = ""
    invocations: list[_InvocationSchema] = Field(min_length=1)
    human_verdict: Annotated[Literal["acceptable", "unacceptable"] | None, BeforeValidator(_verdict_or_unlabelled)] = None
    human_note: str = ""
    expected_fields: list[_ExpectedFieldSchema] = Field(default_factory=list)
    labels: list[_LabelSchema] = Field(default_factory=list)


class _KeyFieldsSchema(_Strict):
    day_first: bool = True
    id_pattern: str = DEFAULT_ID_PATTERN


class _CaseSetSchema(_Strict):
    format: Literal["metric-explorer/cases@1"]
    name: str
    description: str = ""
    key_fields: _KeyFieldsSchema = Field(default_factory=_KeyFieldsSchema)
    arg_rules: list[Any] = Field(default_factory=list)
    runs: list[_RunSchema]


def json_path(loc: tuple[int | str, ...]) -> str:
    """``("runs", 3, "invocations", 0)`` -> ``"runs[3].invocations[0]"``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_TYPE_WORDS = {
    "string_type": "expected a string",
    "list_type": "expected a list",
    "dict_type": "expected an object",
    "model_type": "expected an object",
    "bool_type": "expected true or false",
    "int_type": "expected an integer",
}


def describe_validation_error(err: dict[str, Any]) -> tuple[str, str]:
    """One pydantic error dict -> (JSON path, problem) in our wording.

    A missing field names the field in the problem and its parent in the path, so the line reads
    ``runs[3].invocations[0].actual_calls[1]: missing "name"``.
    """
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    kind = err["type"]
    if kind == "missing":
        return json_path(loc[:-1]) or "(top level)", f'missing "{loc[-1]}"'
    if kind == "extra_forbidden":
        return json_path(loc[:-1]) or "(top level)", f'unknown field "{loc[-1]}"'
    path = json_path(loc) or "(top level)"
    if kind == "literal_error" and loc and loc[-1] == "format":
        return path, f'expected "{FORMAT}"'
    if kind == "literal_error" and loc and loc[-1] in ("human_verdict", "verdict"):
        return path, f'expected "acceptable", "unacceptable" or null, got {_shown_value(err.get("input"))}'
    if kind in ("too_short", "string_too_short"):  # a string's own: after stripping, e.g. an id of spaces
        return path, "must not be empty" if kind == "too_short" or not str(err.get("input", "")) else "must not be empty (spaces only)"
    if kind == "string_type" and len(loc) == 3 and loc[0] == "runs" and loc[2] == "id":  # as the flat reader says it
        from .loaders._common import run_id_problem  # here: the loaders package imports this module

        return path, run_id_problem(err.get("input"))
    if kind in _TYPE_WORDS:
        return path, f"{_TYPE_WORDS[kind]}, got {_json_type(err.get('input'))}"
    return path, err.get("msg", kind)


def _shown_value(value: Any) -> str:
    """A refused value for an error line: a string quoted (escaped by ``show``, as written),
    anything else its JSON type."""
    return f'"{show(value)}"' if isinstance(value, str) else _json_type(value)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__
    )


def case_set_from_data(data: Any, name: str) -> CaseSet:
    """Validate parsed JSON ``data`` as ``metric-explorer/cases@1`` and build a CaseSet.

    Raises LoadError ``"<name>: <json path>: <problem>"`` for the first problem found: a schema
    error, an empty ``runs`` list, duplicate run ids or an invalid ``id_pattern`` regex.
    """
    if not isinstance(data, dict):
        raise LoadError(name, "(top level)", f"expected an object with \"format\": \"{FORMAT}\", got {_json_type(data)}")
    try:
        parsed = _CaseSetSchema.model_validate(data)
    except ValidationError as exc:
        path, problem = describe_validation_error(exc.errors()[0])
        raise LoadError(name, path, problem) from None
    if not parsed.runs:
        raise LoadError(name, "runs", "no runs (a case set needs at least one run)")
    first_at: dict[str, int] = {}
    for i, run in enumerate(parsed.runs):
        if run.id in first_at:
            raise LoadError(name, f"runs[{i}].id", f'duplicate run id "{show(run.id)}" (first at runs[{first_at[run.id]}])')
        first_at[run.id] = i
        if run.labels and run.human_verdict is not None:
            raise LoadError(name, f"runs[{i}]", 'give "human_verdict" or "labels" (several annotators), not both')
        labelled_by: dict[str, int] = {}
        for j, lab in enumerate(run.labels):
            if lab.annotator in labelled_by:
                raise LoadError(name, f"runs[{i}].labels[{j}].annotator",
                                f'annotator "{lab.annotator}" labels this run twice (first at labels[{labelled_by[lab.annotator]}])')
            labelled_by[lab.annotator] = j
    try:
        check_id_pattern(parsed.key_fields.id_pattern)
    except UnusableIdPattern as exc:
        raise LoadError(name, "key_fields.id_pattern", f"{json_spelling(parsed.key_fields.id_pattern)} {exc}") from None
    except re.error as exc:
        raise LoadError(name, "key_fields.id_pattern", f"invalid regex: {exc}") from None
    arg_rules = arg_rules_from_data(parsed.arg_rules, name, "arg_rules") if parsed.arg_rules else None
    runs = tuple(
        Run(
            id=r.id,
            title=r.title,
            user_input=r.user_input,
            invocations=tuple(
                Invocation(
                    expected_calls=tuple(ToolCall(c.name, c.args) for c in inv.expected_calls),
                    actual_calls=tuple(ToolCall(c.name, c.args) for c in inv.actual_calls),
                    answer=inv.answer,
                    references=tuple(inv.references),
                )
                for inv in r.invocations
            ),
            human_verdict=majority_verdict(_labels(r)) if r.labels else r.human_verdict,
            human_note=r.human_note,
            labels=_labels(r),
            expected_fields=tuple(
                ExpectedField(f.name, f.value, f.strategy, f.hard, f.weight, f.threshold) for f in r.expected_fields
            ),
        )
        for r in parsed.runs
    )
    return CaseSet(
        name=parsed.name,
        description=parsed.description,
        runs=runs,
        source=name,
        day_first=parsed.key_fields.day_first,
        id_pattern=parsed.key_fields.id_pattern,
        arg_rules=arg_rules,
        places=tuple(f"runs[{i}]" for i in range(len(runs))),
    )


def _labels(run: _RunSchema) -> tuple[AnnotatorLabel, ...]:
    """The annotators' labels of a validated run (empty when it has a single ``human_verdict``)."""
    return tuple(AnnotatorLabel(lab.annotator, lab.verdict, lab.note) for lab in run.labels)


def loads_case_set(data: bytes | str, name: str) -> CaseSet:
    """Parse and validate case-set JSON given as bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return case_set_from_data(parse_json(text, name), name)


def load_case_set(path: str | os.PathLike[str]) -> CaseSet:
    """Load a ``metric-explorer/cases@1`` file. Raises LoadError (file, JSON path, problem)."""
    name = str(path)
    return loads_case_set(read_bytes(path), name)


def case_set_to_data(case_set: CaseSet) -> dict[str, Any]:
    """The JSON-ready dict of ``case_set`` in ``metric-explorer/cases@1`` (inverse of loading)."""

    def call(c: ToolCall) -> dict[str, Any]:
        return {"name": c.name, "args": dict(c.args)}

    runs = []
    for r in case_set.runs:
        item: dict[str, Any] = {
            "id": r.id,
            "title": r.title,
            "user_input": r.user_input,
            "invocations": [
                {
                    "expected_calls": [call(c) for c in inv.expected_calls],
                    "actual_calls": [call(c) for c in inv.actual_calls],
                    "answer": inv.answer,
                    "references": list(inv.references),
                }
                for inv in r.invocations
            ],
        }
        if r.labels:
            item["labels"] = [{"annotator": lab.annotator, "verdict": lab.verdict} | ({"note": lab.note} if lab.note else {})
                              for lab in r.labels]
        elif r.human_verdict is not None:
            item["human_verdict"] = r.human_verdict
        if r.human_note:
            item["human_note"] = r.human_note
        if r.expected_fields:
            item["expected_fields"] = [
                {"name": f.name, "value": f.value, "strategy": f.strategy, "hard": f.hard, "weight": f.weight}
                | ({"threshold": f.threshold} if f.threshold is not None else {})
                for f in r.expected_fields
            ]
        runs.append(item)
    out: dict[str, Any] = {
        "format": FORMAT,
        "name": case_set.name,
        "description": case_set.description,
        "key_fields": {"day_first": case_set.day_first, "id_pattern": case_set.id_pattern},
    }
    if case_set.arg_rules:
        out["arg_rules"] = case_set.arg_rules.to_data()
    out["runs"] = runs
    return out


def dumps_case_set(case_set: CaseSet) -> str:
    """``case_set`` as pretty JSON text in ``metric-explorer/cases@1``."""
    return json.dumps(case_set_to_data(case_set), indent=2, ensure_ascii=False) + "\n"
