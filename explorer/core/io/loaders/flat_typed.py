"""The flat JSONL format's hot path: one line decoded straight into typed structs (issue 14).

:func:`typed_run` reads a line written the common way with msgspec's typed JSON decoder
(https://jcristharif.com/msgspec/) into the structs below, then checks what a type cannot say (a
non-blank id and tool names, a known verdict, one of ``reference`` / ``references``). It gives
exactly what ``orjson.loads`` + :func:`~explorer.core.io.loaders.flat.well_formed_run` give for that
line (id, verdict code, the invocations as
:class:`~explorer.core.io.model.PlainInvocation` tuples with the same values and Python types, the
title), in about half the CPU: no dict per record, invocation or call is built and freed, only
the ``args`` of each call.

Anything else gives None and the caller reads the line the existing way, which accepts it or
names the problem with the existing error: a field the structs do not know (``adk_*`` fields
too), an extra key in a call or an invocation, a value of another type (``"labels": [...]``,
a null where a list belongs, a bool or float id), JSON msgspec refuses (NaN, a lone surrogate, a
BOM, invalid UTF-8, nesting past its recursion limit, a number out of a float's range such as
``1e400``). Every value here is the one the existing way reads: orjson's on lines
:func:`~explorer.core.io.reading.orjson_exact` passes, the standard library's on the others
(msgspec reads an integer of any size exactly, as the standard library does, and a float
correctly rounded, as both do: compared on 3.4 million random numbers of 1-60 digits, with
points and exponents); duplicate keys keep the last value in all three.
``tests/test_flat_typed.py`` compares the two paths record by record.
"""

from __future__ import annotations

from typing import Any, Sequence

import msgspec
from msgspec import UNSET, UnsetType

from ..model import PlainInvocation

_VERDICT_CODES = {None: -1, "": -1, "acceptable": 1, "unacceptable": 0}
"""As :data:`explorer.core.io.loaders.flat._VERDICT_CODES`: ``human_verdict`` -> verdict code."""


class _Call(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One ``{"name": str, "args": object | null}`` item (``args`` may be absent)."""

    name: str
    args: dict[str, Any] | None = None


class _Invocation(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One item of ``invocations``: the per-invocation fields only."""

    expected_calls: list[_Call]
    actual_calls: list[_Call]
    answer: str
    reference: str | UnsetType = UNSET
    references: list[str] | UnsetType = UNSET


class _Record(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One flat record; UNSET where a field is absent (``"invocations"`` present excludes the
    per-invocation fields at the top, as the flat loader requires)."""

    id: str | int
    title: str | None = None
    user_input: str | None = None
    human_verdict: str | None = None
    human_note: str | None = None
    labels: None = None
    invocations: list[_Invocation] | UnsetType = UNSET
    expected_calls: list[_Call] | UnsetType = UNSET
    actual_calls: list[_Call] | UnsetType = UNSET
    answer: str | UnsetType = UNSET
    reference: str | UnsetType = UNSET
    references: list[str] | UnsetType = UNSET


_DECODER = msgspec.json.Decoder(_Record)
_ENCODER = msgspec.json.Encoder()
_CHECKED = bytes.maketrans(b"123456789{", b"000000000[")
"""Digits as ``0`` and ``{`` as ``[``, for the two checks of :func:`_text` in one pass each."""
_PLUS_EXPONENT = b"0e0"
"""A digit, ``e``, a digit (after :data:`_CHECKED`): msgspec writes ``1e20`` where orjson writes
``1e+20`` (every other float, string, integer is written alike), so a call list whose text may
hold such a number (or such letters in a string) is written by ``_calls_json`` instead."""
_LONG_DIGITS = b"0" * 19
"""19 digits in a row (after :data:`_CHECKED`): maybe an integer past 64 bits, which orjson does not
write and ``_calls_json`` gives to the standard library's writer: written by ``_calls_json``."""
_MOST_BRACKETS = 200
"""A call list text with more ``[`` and ``{`` than this may be nested past orjson's 254 levels,
where ``_calls_json`` falls back to the standard library's writer: written by ``_calls_json``."""

CallTexts = tuple[str | None, str | None]
"""An invocation's ``expected_calls`` and ``actual_calls`` display texts; None: not made here."""


def _pairs(calls: list[_Call]) -> tuple[tuple[str, dict[str, Any]], ...] | None:
    """``(name, args)`` of each call (null or absent args: a new ``{}``, also set on the struct
    so its text reads ``{}``), or None when a name is blank."""
    out = []
    for c in calls:
        name, args = c.name, c.args
        if not name.strip():
            return None
        if args is None:
            c.args = args = {}
        out.append((name, args))
    return tuple(out)


def _text(calls: list[_Call]) -> str | None:
    """``[{"name", "args"}, ...]`` of ``calls`` as ``featurestore._calls_json`` writes it (orjson,
    compact), or None where msgspec's text might differ (:data:`_PLUS_EXPONENT`,
    :data:`_LONG_DIGITS`, :data:`_MOST_BRACKETS`)."""
    data = _ENCODER.encode(calls)
    checked = data.translate(_CHECKED)
    if _PLUS_EXPONENT in checked or _LONG_DIGITS in checked or checked.count(b"[") > _MOST_BRACKETS:
        return None
    return data.decode("utf-8")


_new_tuple = tuple.__new__
"""``_new_tuple(PlainInvocation, values)``: the NamedTuple without its Python-level ``__new__``."""


def _invocation(inv: _Record | _Invocation, texts: list[CallTexts] | None) -> PlainInvocation | None:
    """The PlainInvocation of ``inv`` as ``flat._plain_invocation`` reads it, else None; appends
    its call texts to ``texts`` when given."""
    reference, refs = inv.reference, inv.references
    if reference is not UNSET:
        if refs is not UNSET:
            return None
        references: tuple[str, ...] = (reference,)  # type: ignore[assignment]
    else:
        if refs is UNSET or not refs:
            return None
        references = tuple(refs)  # type: ignore[arg-type]
    expected_calls, actual_calls = inv.expected_calls, inv.actual_calls
    expected = _pairs(expected_calls)  # type: ignore[arg-type]
    if expected is None:
        return None
    if actual_calls == expected_calls:  # equal JSON (as flat._plain_invocation compares): one tuple for both
        actual = expected
    else:
        actual = _pairs(actual_calls)  # type: ignore[arg-type]
        if actual is None:
            return None
    if texts is not None:
        exp_text = _text(expected_calls)  # type: ignore[arg-type]
        texts.append((exp_text, exp_text if actual is expected else _text(actual_calls)))  # type: ignore[arg-type]
    return _new_tuple(PlainInvocation, (expected, actual, inv.answer, references))  # type: ignore[return-value]


def typed_run(line: bytes, with_texts: bool = False) -> tuple[str, int, tuple[PlainInvocation, ...], str, tuple[CallTexts, ...] | None] | None:
    """(run id, verdict code 1 / 0 / -1, invocations, title (``""`` when absent or null), call
    texts) of one JSONL line (bytes, no newline, no BOM) written the common way, exactly as
    ``orjson.loads`` + :func:`~explorer.core.io.loaders.flat.well_formed_run` read it (the title
    as ``record.get("title") or ""``); None for any other line (see the module's docstring).

    ``with_texts``: the call texts are one ``(expected, actual)`` pair per invocation, each the
    text ``featurestore._calls_json`` writes for that call list, or None where it must be written
    by ``_calls_json`` itself; without, None."""
    try:
        rec = _DECODER.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    run_id = rec.id
    if type(run_id) is int:
        run_id = str(run_id)
    elif not (run_id := run_id.strip()):  # type: ignore[union-attr]
        return None
    code = _VERDICT_CODES.get(rec.human_verdict)
    if code is None:
        return None
    texts: list[CallTexts] | None = [] if with_texts else None
    items: Sequence[_Record | _Invocation]
    if rec.invocations is not UNSET:
        if not rec.invocations or not (rec.expected_calls is rec.actual_calls is rec.answer is rec.reference is rec.references is UNSET):
            return None
        items = rec.invocations  # type: ignore[assignment]
    else:
        if rec.expected_calls is UNSET or rec.actual_calls is UNSET or rec.answer is UNSET:
            return None
        items = (rec,)
    invocations = []
    for item in items:
        plain = _invocation(item, texts)
        if plain is None:
            return None
        invocations.append(plain)
    return run_id, code, tuple(invocations), rec.title or "", None if texts is None else tuple(texts)

