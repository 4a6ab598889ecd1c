"""Per-tool and per-key argument rules: how one argument of an actual call is compared with the
expected call's.

A rule names a tool (shell glob, ``*`` = every tool), a key path (shell glob) and how to compare::

    {"tool": "*",          "key": "*.timestamp", "rule": "ignore"}
    {"tool": "web_search", "key": "query",       "rule": "ignore"}
    {"tool": "book_table", "key": "name",        "rule": "text"}
    {"tool": "book_table", "key": "people",      "rule": "number", "tolerance": 0}
    {"tool": "*",          "key": "date",        "rule": "date"}
    {"tool": "search",     "key": "city",        "rule": "rung", "rung": 3}

Key paths are dotted (``filters.date_from``); list items add ``[i]`` (``legs[0].from``). Patterns
use Python's ``fnmatch`` (case-sensitive, ``*`` also crosses dots), and a pattern starting with
``*.`` also names the key at the top level, so ``*.timestamp`` ignores ``timestamp`` at any depth
and ``filters.*`` everything under ``filters``. The first rule (in file order) whose tool and key
patterns both match decides; a key no rule names is compared by JSON value equality.

Rules:

* ``ignore``: the key is left out entirely (its presence and its value);
* ``text``: strings compared case- and whitespace-insensitively (normalisation rung 2: NFKC,
  whitespace collapsed and trimmed, case-folded; :mod:`explorer.core.scoring.normalise`);
* ``rung`` (``rung`` 1..4): strings compared at that normalisation rung (rung 4 reads dates with
  the case set's ``day_first``);
* ``number`` (``tolerance`` >= 0, default 0): numbers, or strings that read as a plain decimal
  number (``"2"``, ``" 2.50 "``), equal when ``|actual - expected| <= tolerance`` (exact decimal
  arithmetic: the JSON text of each value, not binary floats); booleans are not numbers;
* ``date``: strings holding dates compared by canonical day (``12 March 2026`` = ``2026-03-12`` =
  ``12/03/2026`` day-first), using :func:`explorer.core.scoring.fields.extract_dates` with the case
  set's ``day_first``; an ISO 8601 date-time (``2026-03-12T10:00:00Z``) reads as its day; a side
  with a year and a side without agree on day and month.

When a rule cannot read a value (a ``text`` rule on a number, a ``date`` rule on text holding no
date on either side), the two values are compared by JSON value equality instead.

**JSON value equality** (the default, and ADK's ``==``): numbers by value (``1`` = ``1.0``),
objects without regard to key order, arrays element by element in order, strings exactly
(``"2"`` ≠ ``2``), ``null`` only equals ``null``; as in Python (and so in ADK) ``true`` equals ``1``
and ``false`` equals ``0``.
"""

from __future__ import annotations

import fnmatch
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation, Overflow
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..io.errors import LoadError, json_spelling, show
from .fields import extract_dates
from .normalise import normalise

RULE_KINDS: tuple[str, ...] = ("ignore", "text", "rung", "number", "date")
"""The rule names a rule file may use."""
ARG_RULES_FORMAT = "metric-explorer/arg-rules@1"
"""Format tag of a stand-alone rules file (``--arg-rules PATH``)."""


@dataclass(frozen=True)
class ArgRule:
    """One rule: ``tool`` and ``key`` globs, ``kind`` in ``RULE_KINDS``, ``rung`` (1..4, for
    ``rung``) and ``tolerance`` (>= 0, for ``number``)."""

    key: str
    kind: str
    tool: str = "*"
    rung: int = 3
    tolerance: float = 0.0

    def names(self, tool: str, path: str) -> bool:
        """True when this rule applies to key ``path`` of a call to ``tool``."""
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if fnmatch.fnmatchcase(path, self.key):
            return True
        return self.key.startswith("*.") and fnmatch.fnmatchcase(path, self.key[2:])

    def describe(self) -> str:
        """The rule in a few words, as reasons name it: ``ignored by rule``, ``text rule``,
        ``rung 3 rule``, ``number rule ±0.5``, ``date rule``."""
        if self.kind == "ignore":
            return "ignored by rule"
        if self.kind == "rung":
            return f"rung {self.rung} rule"
        if self.kind == "number":
            return f"number rule ±{_plain(self.tolerance)}" if self.tolerance else "number rule"
        return f"{self.kind} rule"

    def to_data(self) -> dict[str, Any]:
        """The rule as a JSON object (what :func:`arg_rules_from_data` reads)."""
        out: dict[str, Any] = {"tool": self.tool, "key": self.key, "rule": self.kind}
        if self.kind == "rung":
            out["rung"] = self.rung
        if self.kind == "number" and self.tolerance:
            out["tolerance"] = self.tolerance
        return out


def _plain(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class ArgRules:
    """An ordered, immutable list of :class:`ArgRule` (first match wins); empty = no rules.

    Hashable, so it can key a cache of features computed under it."""

    rules: tuple[ArgRule, ...] = ()
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def rule_for(self, tool: str, path: str) -> ArgRule | None:
        """The first rule naming key ``path`` of ``tool``, or None (cached per pair)."""
        key = (tool, path)
        try:
            return self._cache[key]
        except KeyError:
            found = next((r for r in self.rules if r.names(tool, path)), None)
            if len(self._cache) < 65536:
                self._cache[key] = found
            return found

    def to_data(self) -> list[dict[str, Any]]:
        """The rules as a JSON list."""
        return [r.to_data() for r in self.rules]


NO_RULES = ArgRules()


# --- reading rules ---------------------------------------------------------------------------


class _RuleSchema(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    tool: str = Field(default="*", min_length=1)
    key: str = Field(min_length=1)
    rule: Literal["ignore", "text", "rung", "number", "date"]
    rung: int | None = Field(default=None, ge=1, le=4)
    tolerance: float | int | None = Field(default=None, ge=0)


def _finite(x: float | int) -> bool:
    """True when ``x`` converts to a finite float (not Infinity, not an integer of hundreds of digits)."""
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


def arg_rules_from_data(data: Any, name: str, where: str = "arg_rules") -> ArgRules:
    """Rules from a parsed JSON list (each item as in the module docstring). ``name`` (file) and
    ``where`` (JSON path of the list) label errors: raises LoadError such as
    ``rules.json: arg_rules[1].rule: expected one of ignore, text, rung, number, date``."""
    from ..io.casefile import describe_validation_error  # one wording for every schema error

    if not isinstance(data, list):
        raise LoadError(name, where, "expected a list of rules")
    rules = []
    for k, item in enumerate(data):
        at = f"{where}[{k}]"
        if not isinstance(item, dict):
            raise LoadError(name, at, "expected an object with \"key\" and \"rule\"")
        try:
            parsed = _RuleSchema.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            path, problem = describe_validation_error(err)
            if err["type"] == "literal_error":
                problem = f"expected one of {', '.join(RULE_KINDS)}"
            raise LoadError(name, f"{at}.{path}" if path != "(top level)" else at, problem) from None
        if parsed.rung is not None and parsed.rule != "rung":
            raise LoadError(name, f"{at}.rung", 'only a "rung" rule takes a rung')
        if parsed.tolerance is not None and parsed.rule != "number":
            raise LoadError(name, f"{at}.tolerance", 'only a "number" rule takes a tolerance')
        if parsed.tolerance is not None and not _finite(parsed.tolerance):
            raise LoadError(name, f"{at}.tolerance", f"expected a finite number >= 0, got {show(str(parsed.tolerance), 20)}")
        rules.append(ArgRule(
            key=parsed.key, kind=parsed.rule, tool=parsed.tool,
            rung=parsed.rung if parsed.rung is not None else 3,
            tolerance=float(parsed.tolerance or 0.0),
        ))
    return ArgRules(tuple(rules))


SETTINGS_FORMAT_PREFIX = "metric-explorer/settings@"
"""A settings file's format tag without its version (``metric-explorer/settings@1`` is read)."""


def arg_rules_file_from_data(data: Any, name: str) -> ArgRules:
    """Rules from a parsed rules file: ``{"format": "metric-explorer/arg-rules@1", "rules": [...]}``,
    or a settings JSON (``metric-explorer/settings@1``) whose ``arg_rules`` holds the list, or an
    ADK ``test_config.json`` (no rules).
    Raises LoadError naming the file and the JSON path."""
    if isinstance(data, dict) and data.get("format") == "metric-explorer/settings@1":
        return arg_rules_from_data(data.get("arg_rules", []), name, "arg_rules")
    if isinstance(data, dict) and "format" not in data and "criteria" in data:
        return ArgRules(())  # an ADK test_config.json: ADK has no argument rules
    if not isinstance(data, dict):
        raise LoadError(name, "(top level)", f'expected an object with "format": "{ARG_RULES_FORMAT}"')
    if data.get("format") != ARG_RULES_FORMAT:
        got = "missing" if "format" not in data else f"got {json_spelling(data['format'])}"
        fmt = data.get("format")
        if isinstance(fmt, str) and fmt.startswith(SETTINGS_FORMAT_PREFIX):  # a settings file of another version
            raise LoadError(name, "format", f'expected "{SETTINGS_FORMAT_PREFIX}1", {got}: a settings file of a version '
                                            "this explorer does not read")
        raise LoadError(name, "format", f'expected "{ARG_RULES_FORMAT}" (or a settings file), {got}')
    unknown = sorted(set(data) - {"format", "rules"})
    if unknown:
        raise LoadError(name, str(unknown[0]), f'unknown field "{unknown[0]}"')
    if "rules" not in data:
        raise LoadError(name, "(top level)", 'missing "rules"')
    return arg_rules_from_data(data["rules"], name, "rules")


def load_arg_rules(path: str) -> ArgRules:
    """Read a rules file (see :func:`arg_rules_file_from_data`). Raises LoadError."""
    from ..io.reading import parse_json, read_bytes, text_of

    return arg_rules_file_from_data(parse_json(text_of(read_bytes(path), str(path)), str(path)), str(path))


def dumps_arg_rules(rules: ArgRules) -> str:
    """A rules file's text for ``rules`` (pretty JSON, trailing newline)."""
    return json.dumps({"format": ARG_RULES_FORMAT, "rules": rules.to_data()}, indent=2) + "\n"


# --- comparing values ------------------------------------------------------------------------


def json_equal(a: Any, b: Any) -> bool:
    """JSON value equality as ADK compares args (Python ``==`` on parsed JSON; see the module
    docstring)."""
    return a == b


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, str):
        text = value.strip()
        if not text or any(c.isspace() for c in text):
            return None
        try:
            d = Decimal(text)
        except InvalidOperation:
            return None
        return d if d.is_finite() else None
    return None


_ISO_DATETIME = re.compile(r"\b(\d{4}-\d{1,2}-\d{1,2})T(?=\d)")


def _dates(text: str, day_first: bool) -> list:
    """The days ``text`` states (the case set's date reading; ``T`` of an ISO date-time split off)."""
    return extract_dates(_ISO_DATETIME.sub(r"\1 ", text), day_first)


def values_agree(actual: Any, expected: Any, rule: ArgRule | None, day_first: bool = True) -> bool:
    """True when ``actual`` and ``expected`` (JSON values of one key) agree under ``rule``
    (None: JSON value equality). See the module docstring for each rule."""
    if rule is None:
        return actual == expected
    kind = rule.kind
    if kind == "ignore":
        return True
    if kind in ("text", "rung"):
        if isinstance(actual, str) and isinstance(expected, str):
            rung = 2 if kind == "text" else rule.rung
            return actual == expected or normalise(actual, rung, day_first=day_first) == normalise(expected, rung, day_first=day_first)
        return actual == expected
    if kind == "number":
        a, e = _number(actual), _number(expected)
        if a is None or e is None:
            return actual == expected
        try:
            return abs(a - e) <= Decimal(repr(float(rule.tolerance)))
        except Overflow:  # the difference is over 10**999999 ("1e999999999"): beyond any finite tolerance
            return False
    if kind == "date":
        if isinstance(actual, str) and isinstance(expected, str):
            da, de = _dates(actual, day_first), _dates(expected, day_first)
            if not da and not de:
                return actual == expected
            return len(da) == len(de) and all(x.same_day(y) for x, y in zip(da, de))
        return actual == expected
    raise ValueError(f"unknown rule {kind!r}")  # pragma: no cover - ArgRule kinds are validated on reading
