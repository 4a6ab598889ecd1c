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

The call lists' display texts (``featurestore._calls_json``'s JSON) are msgspec's too: per line
(``typed_run(line, True)``), or for a whole chunk at once (``typed_run(line, sink=sink)``, then
:func:`call_text_arrays`: one buffer, no object per text), with the few texts msgspec may write
otherwise left to ``_calls_json``.
"""

from __future__ import annotations

from typing import Any, Sequence

import msgspec
import numpy as np
import pyarrow as pa
from msgspec import UNSET, UnsetType

from ..featurestore import CallTextArrays, _calls_json
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
_encode_into = _ENCODER.encode_into
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


class CallTextSink:
    """Where :func:`typed_run` writes the call-list texts of a batch of lines (a chunk), for
    :func:`call_text_arrays`: every text msgspec's encoder writes, one after the other in
    ``data`` (bytearray), the end of each in ``ends`` (list of int), and per invocation in
    ``own`` (list of bool) whether an actual text follows its expected one (False: the actual
    calls are the expected tuple, their text the same). Per invocation of the lines it took, in
    order: the expected text, then the actual one if ``own``; a line it refuses writes nothing."""

    __slots__ = ("data", "ends", "own")

    def __init__(self) -> None:
        self.data = bytearray()
        self.ends: list[int] = []
        self.own: list[bool] = []


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


def typed_run(line: bytes, with_texts: bool = False, sink: CallTextSink | None = None,
              ) -> tuple[str, int, tuple[PlainInvocation, ...], str, tuple[CallTexts, ...] | None] | None:
    """(run id, verdict code 1 / 0 / -1, invocations, title (``""`` when absent or null), call
    texts) of one JSONL line (bytes, no newline, no BOM) written the common way, exactly as
    ``orjson.loads`` + :func:`~explorer.core.io.loaders.flat.well_formed_run` read it (the title
    as ``record.get("title") or ""``); None for any other line (see the module's docstring).

    ``with_texts``: the call texts are one ``(expected, actual)`` pair per invocation, each the
    text ``featurestore._calls_json`` writes for that call list, or None where it must be written
    by ``_calls_json`` itself; without, None. ``sink``: the texts are instead written into it
    (when the line is taken; :func:`call_text_arrays` then checks them), right after the line is
    decoded (its objects still in the CPU's caches)."""
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
    if sink is not None:  # the line is taken: its texts
        data, ends, own = sink.data, sink.ends, sink.own
        for item, plain in zip(items, invocations):
            ends.append(_encode_into(item.expected_calls, data, -1) or len(data))  # encode_into: None
            if plain[1] is plain[0]:
                own.append(False)
            else:
                ends.append(_encode_into(item.actual_calls, data, -1) or len(data))
                own.append(True)
    return run_id, code, tuple(invocations), rec.title or "", None if texts is None else tuple(texts)



_BLOCK_BYTES = 64 * 1024
"""Bytes of texts :func:`_suspects` looks through at a time: its arrays stay in the CPU's cache
and under malloc's 128 kB threshold, so their memory is reused (arrays over a whole chunk's
texts, ~2 MB, came from fresh pages each time: a page fault per 4 kB, ~1.4 us a run in all)."""


def _suspects(a: np.ndarray, offsets: np.ndarray) -> list[int]:
    """Indices (ascending) of the texts in ``a`` (uint8 (B,): the texts one after the other, text
    i at ``offsets[i]:offsets[i + 1]``, ``offsets`` int32 (N + 1,), 0 first, B last, no text
    empty) that :func:`_text` would leave to ``_calls_json``: one with a digit, ``e``, a digit
    (:data:`_PLUS_EXPONENT`), with 19 digits in a row (:data:`_LONG_DIGITS`), or with more than
    :data:`_MOST_BRACKETS` of ``[`` and ``{``: the checks of :func:`_text`, over whole texts
    :data:`_BLOCK_BYTES` at a time (a run of digits never crosses from one text to the next:
    each starts with ``[`` and ends with ``]``)."""
    out: list[int] = []
    firsts = np.unique(np.searchsorted(offsets, np.arange(0, len(a), _BLOCK_BYTES), side="right") - 1).tolist()
    for lo, hi in zip(firsts, firsts[1:] + [len(offsets) - 1]):  # texts lo .. hi - 1
        ends = offsets[lo : hi + 1] - offsets[lo]
        b = a[offsets[lo] : offsets[hi]]
        digit = (b - np.uint8(48)) < 10  # "0".."9" (uint8 wraps below "0")
        plus_exponent = digit[:-2] & (b[1:-1] == 101) & digit[2:]  # True at the first digit
        run = digit  # run[i]: digits from i on, 2, 4, 8, 16 then 19 of them
        for step in (1, 2, 4, 8, 3):
            run = run[:-step] & run[step:]
        brackets = np.add.reduceat((b | np.uint8(32)) == 123, ends[:-1], dtype=np.int32)  # "[" or "{" per text
        bad = brackets > _MOST_BRACKETS
        if plus_exponent.any() or run.any():
            bad[np.searchsorted(ends, np.flatnonzero(plus_exponent), side="right") - 1] = True
            bad[np.searchsorted(ends, np.flatnonzero(run), side="right") - 1] = True
        if bad.any():
            out += (np.flatnonzero(bad) + lo).tolist()
    return out


_MAX_DATA = 2**31 - 1
"""Bytes an Arrow string array (int32 offsets) holds."""


def call_text_arrays(sink: CallTextSink, invocations: Sequence[Sequence[PlainInvocation]]) -> CallTextArrays:
    """The ``expected_calls`` / ``actual_calls`` texts of the lines :func:`typed_run` took with
    ``sink`` (``invocations``: their invocations, one entry a line, in order), one item per
    invocation: byte for byte the texts ``featurestore._calls_json`` writes, the texts
    ``plain_texts`` makes from ``typed_run(line, True)``'s, without a bytes or str object per
    text.

    msgspec writes what orjson (``_calls_json``) writes but for the texts :func:`_suspects`
    finds in one look over the sink's bytes (the checks :func:`_text` makes per text); only those
    are written again by ``_calls_json`` and spliced in. Where the actual calls are the expected
    tuple (equal JSON, as ``flat._plain_invocation`` compares) the actual text is the expected
    one. Both arrays are taken out of one Arrow array over the sink's bytes (ValueError past
    2 GiB of texts, which a 4 MiB chunk of lines is far from)."""
    data: bytes | bytearray = sink.data
    n, count = len(sink.own), len(sink.ends)
    if len(data) > _MAX_DATA:
        raise ValueError(f"call texts of {len(data)} bytes, over the {_MAX_DATA} of an Arrow string array")
    offsets = np.zeros(count + 1, dtype=np.int32)
    offsets[1:] = sink.ends
    own = np.array(sink.own, dtype=bool)
    exp_at = np.arange(n)  # the text of each invocation's expected calls: after the own actual texts before it
    exp_at[1:] += np.cumsum(own[:-1])
    act_at = exp_at + own
    bad = _suspects(np.frombuffer(data, dtype=np.uint8), offsets) if count else []
    if bad:
        plain = [inv for invs in invocations for inv in invs]
        inv_of = np.empty(count, dtype=np.intp)  # text -> its invocation
        inv_of[act_at] = np.arange(n)
        inv_of[exp_at] = np.arange(n)  # an invocation without own actual text: its expected one
        lengths = np.diff(offsets)
        pieces: list[bytes | memoryview] = []
        view = memoryview(data)
        start = 0
        for i in bad:
            inv = plain[inv_of[i]]
            text = _calls_json(inv.expected if exp_at[inv_of[i]] == i else inv.actual).encode("utf-8")
            pieces += (view[start : offsets[i]], text)
            start = int(offsets[i + 1])
            lengths[i] = len(text)
        pieces.append(view[start:])
        data = b"".join(pieces)
        del view, pieces
        if len(data) > _MAX_DATA:
            raise ValueError(f"call texts of {len(data)} bytes, over the {_MAX_DATA} of an Arrow string array")
        np.cumsum(lengths, out=offsets[1:])
    texts = pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(data))
    return CallTextArrays(texts.take(exp_at), texts.take(act_at))


def text_pairs(sink: CallTextSink, invocations: Sequence[Sequence[PlainInvocation]]) -> list[tuple[CallTexts, ...]]:
    """:func:`call_text_arrays`'s texts as ``typed_run(line, True)`` gives them, one entry a line:
    an ``(expected, actual)`` pair per invocation (for a chunk where some lines are read the
    other way)."""
    arrays = call_text_arrays(sink, invocations)
    pairs = list(zip(arrays.expected.to_pylist(), arrays.actual.to_pylist()))
    out = []
    start = 0
    for invs in invocations:
        out.append(tuple(pairs[start : start + len(invs)]))
        start += len(invs)
    return out
