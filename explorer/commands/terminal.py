"""The CLI's human-readable output made safe for the terminal: every write to stdout (table
format) and stderr goes through :func:`~explorer.core.visible.visible`, line breaks kept, so a
run id, title, tool name or case-set name from an untrusted export cannot send ESC sequences,
bidi overrides or C1 controls to the terminal, wherever a command prints it.

Data newlines inside one value are escaped where the value is put into a line (tables escape
their cells; messages use :func:`~explorer.core.io.errors.show`); this stream keeps every
``"\\n"`` since it cannot tell them from the lines' own.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Iterator, TextIO

from ..core.visible import visible


class VisibleStream:
    """A text stream over ``inner`` whose :meth:`write` escapes hidden characters (newlines
    kept); everything else (``flush``, ``isatty``, ``fileno``, ``encoding``, ``buffer``) is
    ``inner``'s."""

    def __init__(self, inner: TextIO):
        self.inner = inner

    def write(self, text: str) -> int:
        """Write ``visible(text)``; returns ``len(text)`` as a text stream does."""
        self.inner.write(visible(text, keep_newlines=True))
        return len(text)

    def writelines(self, lines) -> None:
        """Each of ``lines`` through :meth:`write`."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def unwrapped(stream):
    """The stream a :class:`VisibleStream` writes to (``stream`` itself otherwise): for output
    that draws with control characters on purpose, such as the progress bar."""
    return stream.inner if isinstance(stream, VisibleStream) else stream


@contextlib.contextmanager
def visible_output(stdout: bool = True) -> Iterator[None]:
    """Within the block, ``sys.stderr`` (and ``sys.stdout`` when ``stdout``: human-readable
    output, not csv, json or parquet, whose bytes are data) are :class:`VisibleStream` s over
    the streams there were; restored after, also on an error."""
    saved = sys.stdout, sys.stderr
    if stdout:
        sys.stdout = VisibleStream(sys.stdout)
    sys.stderr = VisibleStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def table_text(frame) -> str:
    """A pandas DataFrame as the table output (``to_string(index=False)``), each text cell
    through :func:`~explorer.core.visible.visible` first, so the columns line up on the escapes
    the terminal shows (pandas escapes only tab, CR and newline, and counts ESC as one column)."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    out = frame.copy()
    for col in out.columns:
        if is_object_dtype(out[col]) or is_string_dtype(out[col]):  # pandas 3 reads text as "str"
            out[col] = out[col].map(lambda v: visible(v) if isinstance(v, str) else v)
    return out.to_string(index=False)
