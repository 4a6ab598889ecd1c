"""Untrusted text made safe to show: every character that is not seen but acts (moves the cursor,
starts a terminal escape sequence, reverses the order of what follows, breaks the line) written
as a backslash escape, so a run id like ``"E1\\x1b[31m"`` or ``"E2\\u202eevil"`` reads as what it is.

Run exports are untrusted (the developers' guide). A run id, title or tool name that carries ESC
(U+001B) could recolour or clear the terminal that prints ``metric-explorer score``; a
right-to-left override (U+202E) reorders the rest of the line; C1 controls such as U+009B (CSI)
are escape sequences on some terminals; a lone surrogate cannot be encoded at all.
"""

from __future__ import annotations

import unicodedata

_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Unicode general categories escaped: controls (C0, DEL, C1), format characters (bidi controls,
zero-width space, soft hyphen, ...), lone surrogates and the line and paragraph separators."""

_KEPT = frozenset({"\u200d"})
"""ZERO WIDTH JOINER (a format character) is left as it is: it joins emoji sequences such as
👩‍💻 and moves nothing."""

_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
"""The escapes JSON (and pandas' tables) write for these; others are ``\\uXXXX`` / ``\\UXXXXXXXX``."""


def escape_char(ch: str) -> str:
    """One hidden character as its escape: ``"\\n"`` -> ``\\n``, ESC -> ``\\u001b``,
    U+E0001 -> ``\\U000e0001``."""
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def is_hidden(ch: str) -> bool:
    """True for a character :func:`visible` escapes: general category Cc, Cf, Cs, Zl or Zp
    (Unicode), except ZERO WIDTH JOINER."""
    return unicodedata.category(ch) in _HIDDEN_CATEGORIES and ch not in _KEPT


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every hidden character (:func:`is_hidden`) escaped (:func:`escape_char`);
    letters, marks, symbols, spaces and private-use characters are left as they are. With
    ``keep_newlines`` each ``"\\n"`` stays a line break (for whole printed lines). Text that is
    all printable (``str.isprintable``) is returned as it is, line by line at C speed."""
    if keep_newlines:
        return "\n".join(visible(line) for line in text.split("\n"))
    if text.isprintable():
        return text
    return "".join(escape_char(ch) if is_hidden(ch) else ch for ch in text)
