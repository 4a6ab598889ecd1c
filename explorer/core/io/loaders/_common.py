"""Helpers the run-export loaders share: typed field access with JSON paths, call lists, verdicts.

Loaders walk untrusted parsed JSON (or CSV cells) by hand so every problem can name its place.
A helper that finds a problem raises :class:`Problem` (path inside one record + what is wrong);
the loader adds the file name and the record's place (``line 7``, ``row 3``) and raises
:class:`~explorer.core.io.errors.LoadError`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping, Sequence

from ..errors import LoadError, show  # noqa: F401 (show: the loaders' name for it)
from ..model import CaseSet, Run, ToolCall
from ..reading import json_message, loads_json


class Problem(Exception):
    """A problem inside one record: ``path`` (JSON path such as ``actual_calls[1]``, may be
    empty) and ``message`` (e.g. ``missing "name"``)."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def join_path(base: str, key: str | int) -> str:
    """``join_path("runs[3]", "name") == "runs[3].name"``; ints give ``[i]``."""
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key


def whole_number_as_text(value: Any) -> Any:
    """A run id given as a whole number (not a boolean) -> its digits (``7`` is the run ``"7"``);
    anything else unchanged (then the reader names what it is: :func:`run_id_problem`)."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def run_id_problem(value: Any) -> str:
    """The problem of a run id that is neither a string nor a whole number, as every reader says
    it: ``expected a string or a whole number, got a number (1.5)``."""
    shown = f" ({show(json.dumps(value))})" if isinstance(value, float) else ""
    return f"expected a string or a whole number, got {json_type(value)}{shown}"


def json_type(value: Any) -> str:
    """Our word for the JSON type of ``value``: ``a string``, ``a number``, ``null`` ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "a string", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def expect_object(value: Any, path: str) -> dict[str, Any]:
    """``value`` if it is a JSON object, else Problem ``expected an object, got ...``."""
    if not isinstance(value, dict):
        raise Problem(path, f"expected an object, got {json_type(value)}")
    return value


def expect_list(value: Any, path: str) -> list[Any]:
    """``value`` if it is a JSON list, else Problem ``expected a list, got ...``."""
    if not isinstance(value, list):
        raise Problem(path, f"expected a list, got {json_type(value)}")
    return value


def expect_str(value: Any, path: str) -> str:
    """``value`` if it is a string, else Problem ``expected a string, got ...``."""
    if not isinstance(value, str):
        raise Problem(path, f"expected a string, got {json_type(value)}")
    return value


def require(obj: Mapping[str, Any], key: str, path: str) -> Any:
    """``obj[key]``; Problem ``missing "key"`` at ``path`` (the parent) when absent."""
    if key not in obj:
        raise Problem(path, f'missing "{key}"')
    return obj[key]


def fast_call(value: Any) -> ToolCall | None:
    """The ToolCall of a well-formed ``{"name": str, "args": object|null}`` dict, else None (then
    :func:`parse_call_object` names the problem). Builds no path strings: the common case is cheap."""
    if type(value) is dict:
        name = value.get("name")
        args = value.get("args")
        if type(name) is str and name.strip() and (args is None or type(args) is dict):
            return ToolCall(name, {} if args is None else args)
    return None


def parse_call_object(value: Any, path: str) -> ToolCall:
    """``{"name": str, "args": object}`` (``args`` optional, null = {}) -> ToolCall."""
    obj = expect_object(value, path)
    name = expect_str(require(obj, "name", path), join_path(path, "name"))
    if not name.strip():
        raise Problem(join_path(path, "name"), "empty tool name")
    args = obj.get("args")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise Problem(join_path(path, "args"), f"expected an object, got {json_type(args)}")
    return ToolCall(name, args)


def parse_arrow_names(text: str, path: str) -> tuple[ToolCall, ...]:
    """``"search>book"`` -> calls named ``search`` then ``book`` with empty args; ``""`` -> ().
    Raises Problem for an empty name, a name with a character of :data:`_NOT_IN_NAMES` or a control
    character (tab, newline), or names joined by another arrow (:func:`_other_arrow`: found by
    trials, ``search->book`` was read as a tool named ``search-``)."""
    if not text.strip():
        return ()
    arrow = _other_arrow(text)
    if arrow is not None:
        raise Problem(path, f'"{show(text)}" joins tool names with "{arrow}": write names as a>b>c')
    names = [part.strip() for part in text.split(">")]
    for k, name in enumerate(names):
        if not name:
            raise Problem(path, f'empty tool name at position {k + 1} in "{show(text)}" (write names as a>b>c)')
        bad = next((c for c in name if c in _NOT_IN_NAMES or c < " " or c == "\x7f"), None)
        if bad is not None:
            raise Problem(path, f'"{show(name)}" is not a tool name ({bad!r} in it): write names as a>b>c, '
                                f'or the calls as a JSON list [{{"name": ..., "args": {{...}}}}]')
    return tuple(ToolCall(n, {}) for n in names)


_OTHER_ARROW = re.compile("[-=~\u2013\u2014]\\s*>|[\u2190-\u21ff\u2794-\u27bf\u27f0-\u27ff\u2900-\u297f\u2b00-\u2bff]")
"""An arrow that is not the ``a>b>c`` separator: one of ``- = ~ – —`` just before a ``>``, spaces
between allowed (``->``, ``=>``, ``~>``, ``—>``, ``- >``: they would leave a tool named
``search-`` or ``search =``, found by trials), or a character of Unicode's arrow blocks (Arrows,
dingbat arrows, Supplemental Arrows-A and -B, Miscellaneous Symbols and Arrows: ``→``, ``⇒``,
``⟶``, ``➔``), never in a tool name."""


def _other_arrow(text: str) -> str | None:
    """The first arrow of :data:`_OTHER_ARROW` in ``text``, as typed (``"->"``, ``"- >"``,
    ``"⇒"``), or None."""
    m = _OTHER_ARROW.search(text)
    return m.group() if m else None

_NOT_IN_NAMES = frozenset('{}[]"\',;|')
"""Characters that make an ``a>b>c`` name a mistake, not a name: JSON that is not a list
(``{"name": "search"}``), names joined by commas or bars (``search, book``, ``search|book``), quotes. Tool names in the
common frameworks are identifiers (OpenAI and MCP: ``[A-Za-z0-9_-]``); namespaced ones with
``.``, ``:`` or ``/`` are kept."""


def parse_calls(value: Any, path: str) -> tuple[ToolCall, ...]:
    """A call list given as a JSON list of ``{name, args}`` objects, or an ``a>b>c`` string of
    names (args empty). A string starting with ``[`` is read as JSON (a CSV cell)."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = loads_json(text)
            except json.JSONDecodeError as exc:
                raise Problem(path, f"invalid JSON list of calls: {json_message(exc)} (character {exc.pos + 1})") from None
            except RecursionError:
                raise Problem(path, "invalid JSON list of calls: nested too deeply") from None
        else:
            return parse_arrow_names(text, path)
    if not isinstance(value, list):  # both forms named (a trial's "expected_calls": 5)
        raise Problem(path, f'expected a list of calls ([{{"name": ..., "args": {{...}}}}]) or tool names as text '
                            f'("search>book"), got {json_type(value)}')
    calls = value
    return tuple(fast_call(c) or parse_call_object(c, join_path(path, i)) for i, c in enumerate(calls))


def parse_verdict(value: Any, path: str) -> str | None:
    """``"acceptable"``/``"unacceptable"`` (case and spaces ignored); ``""``/null -> None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise Problem(path, f'expected "acceptable", "unacceptable" or empty, got {json_type(value)}')
    text = value.strip().lower()
    if not text:
        return None
    if text not in ("acceptable", "unacceptable"):
        raise Problem(path, f'expected "acceptable", "unacceptable" or empty, got "{show(value)}"')
    return text


def check_unique_ids(runs: Iterable[Run], name: str, where: Iterable[str]) -> None:
    """LoadError naming the second place when two runs share an id (``where[i]`` is run i's place,
    e.g. ``line 7``)."""
    first: dict[str, str] = {}
    for run, place in zip(runs, where):
        if run.id in first:
            raise LoadError(name, place, f'duplicate run id "{show(run.id)}" (first at {first[run.id]})')
        first[run.id] = place


TITLE_WIDTH = 60
"""Characters of a title made from a run's user message (:func:`short_title`)."""


def short_title(text: str, width: int = TITLE_WIDTH) -> str:
    """A run's title from its user message ``text``: the first line of the stripped text, cut to
    ``width`` characters with ``...`` (``width - 3`` kept) when longer; ``""`` for blank text."""
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= width else line[: width - 3] + "..."


def make_case_set(runs: list[Run], name: str, title: str, description: str, places: Sequence[str] = ()) -> CaseSet:
    """A CaseSet of ``runs`` read from file ``name`` (``places``: each run's place in it, e.g.
    ``line 7``, or none); LoadError ``no runs`` when empty, and for two runs of one id
    (:func:`check_unique_ids`; every loader's last check: an ADK file's made-up ids once took one
    the file gave, and one label then counted twice)."""
    if not runs:
        raise LoadError(name, "", "no runs in the file (0 runs)")
    check_unique_ids(runs, name, places or (f"run {k + 1}" for k in range(len(runs))))
    return CaseSet(name=title, description=description, runs=tuple(runs), source=name, places=tuple(places))
