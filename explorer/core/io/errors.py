"""Errors raised by loaders: one readable line naming the file, the location and the problem."""

from __future__ import annotations

import json
from typing import Any

from ..visible import visible


def show(text: str, limit: int = 60) -> str:
    """Untrusted ``text`` made safe for a one-line message: quotes, backslashes and C0 controls
    escaped as in JSON (``\\"``, ``\\n``), then what JSON leaves and a terminal or viewer acts on
    (DEL, C1 controls such as NEL U+0085, bidi overrides, U+2028/U+2029:
    :func:`~explorer.core.visible.visible`), cut to ``limit`` characters with ``...``."""
    escaped = visible(json.dumps(str(text), ensure_ascii=False)[1:-1])
    return escaped if len(escaped) <= limit else escaped[: limit - 3] + "..."


def json_spelling(value: Any, limit: int = 60) -> str:
    """``value`` as a JSON file spells it, for a message about a value the person wrote:
    ``true``, ``"yes"``, ``NaN``, ``["a"]`` (Python's ``True`` / ``'yes'`` / ``nan`` would not be
    what the file says); cut to ``limit`` characters with ``...``. A value JSON cannot spell
    (a Python object) is shown by ``str``."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    text = visible(text)  # JSON leaves DEL, C1 controls and bidi overrides as they are
    return text if len(text) <= limit else text[: limit - 3] + "..."


class LoadError(ValueError):
    """A file could not be loaded as runs.

    ``str(err)`` is one line: ``"<file>: <location>: <problem>"`` where location is a JSON path
    (``runs[3].invocations[0].actual_calls[1]``), a line (``line 12``) or a line and column
    (``line 12, column 4`` for JSON syntax errors). Location is omitted when it is the whole file.
    """

    def __init__(self, file: str, location: str, problem: str):
        self.file = file
        self.location = location
        self.problem = problem
        parts = [p for p in (file, location, problem) if p]
        super().__init__(": ".join(parts))

    def __reduce__(self):
        """Pickle with the three parts, so an error raised in a loader's worker process reaches
        the caller as itself (the default would call ``LoadError(message)`` and fail)."""
        return (type(self), (self.file, self.location, self.problem))
