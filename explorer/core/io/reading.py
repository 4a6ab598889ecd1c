"""Reading an untrusted file into text, with the size and encoding checks every loader shares."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from ..numbers import whole_number
from .errors import LoadError, show

DEFAULT_MAX_BYTES = 200 * 1024 * 1024
"""Largest file a loader accepts (200 MB), overridable by ``METRIC_EXPLORER_MAX_BYTES``."""


def max_bytes() -> int:
    """The size limit in bytes: ``METRIC_EXPLORER_MAX_BYTES`` if set (a whole number of bytes,
    at least 1, in ASCII digits), else 200 MB. LoadError naming the variable when it is set to
    anything else (it ended ``score`` with a ValueError traceback)."""
    raw = os.environ.get("METRIC_EXPLORER_MAX_BYTES")
    if not raw:
        return DEFAULT_MAX_BYTES
    try:
        limit = whole_number(raw)
    except ValueError:
        limit = 0
    if limit < 1:
        raise LoadError("METRIC_EXPLORER_MAX_BYTES", "", f"expected a whole number of bytes (at least 1), got {show(raw)!r}")
    return limit


def size_text(n_bytes: int, limit: bool = False) -> str:
    """A size in bytes as a message writes it: ``250.0 MB`` (a limit: ``210 MB`` from 10 MB on,
    ``1.5 MB`` below) from 1 MB on, ``4.3 kB`` from 1 kB, else ``100 bytes`` (a small limit read
    ``0 MB``)."""
    if n_bytes >= 1_000_000:
        if limit:
            return f"{n_bytes / 1e6:.0f} MB" if n_bytes >= 10_000_000 else f"{n_bytes / 1e6:g} MB"
        return f"{n_bytes / 1e6:.1f} MB"
    if n_bytes >= 1_000:
        return f"{n_bytes / 1e3:g} kB" if limit else f"{n_bytes / 1e3:.1f} kB"
    return f"{n_bytes:,} byte{'' if n_bytes == 1 else 's'}"


def check_size(size: int, name: str, what: str = "file is") -> None:
    """LoadError ``"<name>: file is 250.0 MB, over the 200 MB limit"`` when ``size`` (bytes) is
    over :func:`max_bytes` (sizes as :func:`size_text` writes them); ``what`` words it
    (``"contents are"`` for an archive's). The one size check of every loader, ``featurize`` and
    the parallel JSONL load."""
    limit = max_bytes()
    if size > limit:
        raise LoadError(name, "", f"{what} {size_text(size)}, over the {size_text(limit, limit=True)} limit")


def not_utf8(byte: int) -> str:
    """The problem of a file that is not UTF-8 at ``byte`` (its value, 0-255): the byte and what to do."""
    return f"not UTF-8 text (byte 0x{byte:02x}; binary or another encoding: save the file as UTF-8)"


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text of ``data`` (a BOM is dropped). Raises LoadError naming ``name`` for an empty
    file, a file over the size limit, or binary / non-UTF-8 content."""
    check_size(len(data), name)
    if not data.strip():
        raise LoadError(name, "", "file is empty")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # a byte-order mark: "Unicode text" as spreadsheets save it
        raise LoadError(name, "", "UTF-16 text, not UTF-8: save the file as UTF-8")
    if b"\x00" in data[:8192]:
        raise LoadError(name, "", "binary file (NUL bytes), not JSON or CSV text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)  # utf-8-sig counts after its BOM
        line = data.count(b"\n", 0, at) + 1
        column = at - (data.rfind(b"\n", 0, at) + 1) + 1  # in bytes, as the big-file reader counts it
        raise LoadError(name, f"line {line}, column {column}", not_utf8(data[at])) from None
    return text


def text_of(data: bytes | str, name: str) -> str:
    """Text of a file given as bytes (checked by :func:`decode_text`) or already as text.
    Raises LoadError ``"<name>: file is empty"`` for empty or whitespace-only content."""
    text = decode_text(data, name) if isinstance(data, bytes) else data
    if not text.strip():
        raise LoadError(name, "", "file is empty")
    return text


def file_size(path: str | os.PathLike[str]) -> int:
    """The size of the file ``path`` in bytes. Raises LoadError naming ``path`` when it cannot be
    read (``cannot read: <reason>``) or is a folder."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise LoadError(str(path), "", f"cannot read: {exc.strerror or exc}") from None
    if p.is_dir():
        raise LoadError(str(path), "", "is a folder, not a file")
    return size


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of ``path``, checking the size limit before reading. A pipe or device
    (``/dev/stdin`` piped into, a named pipe; read as ``cat`` reads it, waiting for a writer)
    has no size to check: at most :func:`max_bytes` + 1 bytes are read, and more is an error
    (``--cases /dev/zero`` held 3 GB after 8 s before). Raises LoadError."""
    p = Path(path)
    check_size(file_size(p), str(path))
    try:
        with open(p, "rb") as fh:
            if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return fh.read()
            limit = max_bytes()
            data = fh.read(limit + 1)
    except OSError as exc:
        raise LoadError(str(path), "", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise LoadError(str(path), "", f"a pipe or device that gave more than the {size_text(limit, limit=True)} limit")
    return data


def json_message(exc: json.JSONDecodeError) -> str:
    """``exc``'s message as a whole phrase: Python's messages that name a position end in "at"
    ("Unterminated string starting at") and expect the position after them; the error's place
    already says where, so they read "... starting here"."""
    return exc.msg[: -len(" at")] + " here" if exc.msg.endswith(" at") else exc.msg


_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19
"""19 digits in a row (after :data:`_DIGITS_AS_ZERO`): an integer that may lie outside orjson's
64-bit range (-2**63 .. 2**64 - 1)."""


def orjson_exact(data: bytes) -> bool:
    """Whether orjson reads the JSON ``data`` as the standard library does. orjson turns an
    integer outside -2**63 .. 2**64 - 1 into a float without a word (``123456789012345678901``
    -> ``1.2345678901234568e+20``): two account numbers differing in their last digits compared
    equal in JSONL files of 8 MB and more (read with orjson) and not in smaller ones. False when
    ``data`` has 19 digits in a row: read it with the standard library (exact integers). On every
    line of a big JSONL file: a translate and a substring search, ~1 us a 1.5 kB line where the
    regex ``[0-9]{19}`` took ~14 us (measured on one core)."""
    return _LONG_DIGITS not in data.translate(_DIGITS_AS_ZERO)


_SURROGATE_ESCAPE = re.compile(r"(\\+)u([dD][89abAB][0-9a-fA-F]{2})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?|(\\+)u([dD][c-fC-F][0-9a-fA-F]{2})")
"""A ``\\uD800``-``\\uDFFF`` escape (group 1/4: the backslashes before it, an odd number when it is
an escape and not an escaped backslash then text), a high one with the low one after it."""


def lone_surrogate_at(text: str) -> int | None:
    """Index in JSON ``text`` of the first escape of a lone UTF-16 surrogate (``"\\ud800"`` not
    followed by a low one ``\\udc00``-``\\udfff``, or a low one alone), which the standard
    library decodes into a str that cannot be written as UTF-8 (Arrow, CSV and the page then fail
    on it), else None. Counts the backslashes before ``u``, so an escaped backslash followed by
    ``ud800`` is text."""
    if "\\u" not in text:
        return None
    for m in _SURROGATE_ESCAPE.finditer(text):
        slashes = m.group(1) if m.group(1) is not None else m.group(4)
        if len(slashes) % 2 == 0:  # "\\\\ud800": a backslash, then the text "ud800"
            continue
        if m.group(2) is not None and m.group(3) is not None:
            continue  # a high surrogate and its low one: one character beyond U+FFFF
        return m.start() + len(slashes) - 1
    return None


def loads_json(text: str) -> Any:
    """``json.loads(text)``, except that a number with more digits than Python converts to an int
    (``sys.get_int_max_str_digits()``, 4300) raises :class:`json.JSONDecodeError` at that number
    (``number with more than 4300 digits``) instead of a bare ValueError, and a lone surrogate
    escape (:func:`lone_surrogate_at`) raises one at the escape (``lone surrogate \\ud800 in a
    text: not a Unicode character``; orjson refuses those texts too), so every caller that
    reports JSON errors with their line and column reports these too."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # json raises no other ValueError: the int conversion limit
        limit = sys.get_int_max_str_digits()
        at = 0
        for found in re.finditer(r"-?\d{%d,}" % (limit + 1), text):
            if text[: found.start()].rstrip()[-1:] in ("", ":", ",", "["):  # a number, not digits in a string
                at = found.start()
                break
        raise json.JSONDecodeError(f"number with more than {limit} digits", text, at) from None
    at = lone_surrogate_at(text)
    if at is not None:
        raise json.JSONDecodeError(f"lone surrogate {text[at:at + 6]} in a text: not a Unicode character "
                                   "(write the character itself, or both halves of its pair)", text, at)
    return value


NESTING_SHOWN = 1000
"""Depth of ``[`` / ``{`` named by :func:`too_deep_at` (Python's JSON parser gives up near its
recursion limit, 1,000 by default)."""


def too_deep_at(text: str, depth: int = NESTING_SHOWN) -> tuple[int, int, int]:
    """(line, column, level), line and column from 1, of the first ``[`` or ``{`` outside a string
    at nesting level ``depth`` + 1 in JSON ``text``, else of its deepest one (where a parser that
    ran out of stack earlier was) and that level. For the error of a document too deeply nested;
    linear in the text."""
    level = best = 0
    at = 0
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            if level > best:
                best, at = level, i
                if level > depth:
                    break
        elif ch in "]}":
            level -= 1
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1, best


def parse_json(text: str, name: str) -> Any:
    """``json.loads`` with errors as LoadError ``"<name>: line L, column C: invalid JSON: ..."``
    (for a document nested too deeply, where it passes :data:`NESTING_SHOWN` levels)."""
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise LoadError(name, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {json_message(exc)}") from None
    except RecursionError:
        raise nested_too_deeply(name, text) from None


def nested_too_deeply(name: str, text: str, line: int | None = None) -> LoadError:
    """The LoadError of JSON ``text`` that Python's parser found nested too deeply:
    ``"<name>: line L, column C: invalid JSON: nested too deeply (over 1,000 levels of [ and {)"``
    at :func:`too_deep_at`; ``line``: ``text`` is that line of a JSONL file."""
    at_line, column, level = too_deep_at(text)
    levels = f" (over {NESTING_SHOWN:,} levels of [ and {{)" if level > NESTING_SHOWN else f" ({level:,} levels of [ and {{)"
    return LoadError(name, f"line {line if line is not None else at_line}, column {column}",
                     f"invalid JSON: nested too deeply{levels}")


def json_lines(text: str, name: str) -> list[tuple[str, Any]]:
    """``[("line N", value)]`` for every non-blank line of JSONL ``text`` (N counts from 1).
    Raises LoadError ``"<name>: line N, column C: invalid JSON: ..."`` (nested too deeply:
    :func:`nested_too_deeply`)."""
    out: list[tuple[str, Any]] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((f"line {n}", loads_json(line)))
        except json.JSONDecodeError as exc:
            raise LoadError(name, f"line {n}, column {exc.colno}", f"invalid JSON: {json_message(exc)}") from None
        except RecursionError:
            raise nested_too_deeply(name, line, n) from None
    return out


CSV_FIELD_LIMIT = 2**31 - 1
"""Largest CSV cell the readers take, in characters: the csv module's default (131,072) refused a
1 MB answer that ``dumps_csv`` writes; the file size limit bounds a cell anyway."""


def csv_rows(text: str):
    """A ``csv.reader`` over ``text`` (RFC 4180 quoting) that is strict: a quoted cell left open
    at the end of the file raises ``csv.Error`` instead of swallowing every row after it into one
    cell. Cells may be as long as the file (:data:`CSV_FIELD_LIMIT`)."""
    if csv.field_size_limit() < CSV_FIELD_LIMIT:
        csv.field_size_limit(CSV_FIELD_LIMIT)
    return csv.reader(io.StringIO(text, newline=""), strict=True)


def csv_problem(exc: csv.Error) -> str:
    """``exc`` (raised by a :func:`csv_rows` reader while reading a row) as the problem of that
    row: a quote left open reads ``a quoted cell is not closed (its quote runs to the end of the
    file)``."""
    text = str(exc)
    if "unexpected end of data" in text:
        return "not valid CSV: a quoted cell is not closed (its quote runs to the end of the file)"
    return f"not valid CSV: {text}"


def separator_hint(header: list[str]) -> str:
    """``"; the header is separated by ';': save the file comma-separated"`` when a CSV header read
    as one cell holds semicolons or tabs (a spreadsheet's export in some locales), else ``""``."""
    if len(header) == 1:
        for sep, word in ((";", "';'"), ("\t", "tabs")):
            if sep in header[0]:
                return f"; the header is separated by {word}: save the file comma-separated"
    return ""
