"""Which arguments of two tool calls differ, in words a person reads at a glance.

Used by the trajectory reasons (``web_search at position 1: query "AI news 2025" ≠ "AI news"``)
and by the app's call cells (``confirm_booking(booking_id: "BK-4407" ≠ "BK-4470")``). Values are
compared as ADK compares args (Python ``==`` on JSON values: ``1 == 1.0``, ``True == 1``,
``1 != "1"``) and written as JSON, so a string ``"2"`` and a number ``2`` read differently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

ABSENT = "absent"
"""How a key that one call lacks is written (unquoted, so it never reads as a string value)."""
VALUE_CHARS = 40
"""Longest value written in full; longer ones are cut around the first character that differs."""
MAX_KEYS = 2
"""Most differing keys named in one line; the rest are counted (``+3 more keys``)."""


@dataclass(frozen=True)
class ArgDifference:
    """One key whose value differs: ``actual`` / ``expected`` are the JSON values, or None with
    ``in_actual`` / ``in_expected`` False when that call lacks the key; ``rule`` names the
    argument rule that judged the values (e.g. ``number rule ±0.5``), empty for JSON equality."""

    key: str
    actual: Any
    expected: Any
    in_actual: bool
    in_expected: bool
    rule: str = ""


def arg_differences(actual: Mapping[str, Any], expected: Mapping[str, Any]) -> list[ArgDifference]:
    """The keys whose values differ, expected keys first (in their order), then keys only the
    actual call has. Empty when ``dict(actual) == dict(expected)`` (ADK's call equality)."""
    out = []
    for key, want in expected.items():
        if key not in actual:
            out.append(ArgDifference(str(key), None, want, False, True))
        elif actual[key] != want:
            out.append(ArgDifference(str(key), actual[key], want, True, True))
    for key, got in actual.items():
        if key not in expected:
            out.append(ArgDifference(str(key), got, None, True, False))
    return out


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):  # not JSON (a loader never gives this, a test may)
        return repr(value)


def _cut(text: str, at: int) -> str:
    """``text`` shortened to about ``VALUE_CHARS`` characters around index ``at``."""
    if len(text) <= VALUE_CHARS:
        return text
    start = max(0, min(at - 10, len(text) - (VALUE_CHARS - 1)))
    head = "…" if start > 0 else ""
    room = VALUE_CHARS - len(head)
    if start + room >= len(text):
        return head + text[start:]
    return head + text[start : start + room - 1] + "…"


def value_pair(diff: ArgDifference) -> tuple[str, str]:
    """The actual and expected values as short JSON text (``ABSENT`` for a missing key); long
    strings are cut at the same place, around their first differing character, so the
    difference stays in view."""
    a = _json(diff.actual) if diff.in_actual else ABSENT
    e = _json(diff.expected) if diff.in_expected else ABSENT
    at = next((k for k, (x, y) in enumerate(zip(a, e)) if x != y), min(len(a), len(e)))
    return _cut(a, at), _cut(e, at)


def describe_arg_differences(actual: Mapping[str, Any], expected: Mapping[str, Any], key_sep: str = " ") -> str:
    """One phrase naming the differing keys and both values, actual first:
    ``query "AI news 2025" ≠ "AI news"``; ``key_sep=": "`` gives ``query: "AI news 2025" ≠ ...``.
    At most ``MAX_KEYS`` keys are named, then ``+k more keys``; ``""`` when nothing differs."""
    return describe_differences(arg_differences(actual, expected), key_sep)


def describe_differences(diffs: list[ArgDifference], key_sep: str = " ") -> str:
    """:func:`describe_arg_differences` for differences already found (e.g. by an argument
    matcher with rules); a difference judged by a rule names it: ``people 2 ≠ 3 (number rule ±0.5)``."""
    parts = []
    for d in diffs[:MAX_KEYS]:
        a, e = value_pair(d)
        parts.append(f"{d.key}{key_sep}{a} ≠ {e}" + (f" ({d.rule})" if d.rule else ""))
    rest = len(diffs) - MAX_KEYS
    if rest > 0:
        parts.append(f"+{rest} more key{'s' if rest > 1 else ''}")
    return ", ".join(parts)
