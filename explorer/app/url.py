"""Shareable state: scorer settings <-> URL query (pure, no Panel).

Query names and values are those of :class:`explorer.core.evaluation.settings.Settings` (docs/ui-contract.md)::

    ?trajectory=any_order&compare_args=true&f1_threshold=0.4&combine=all
     &deny_check=true&deny_tools=delete_booking&key_fields=true&day_first=false

``trajectory`` is any family of ``trajectory_metrics.TRAJECTORY_CHOICES`` (``exact``, ``recall``,
``single_tool_use``, ...), ``args`` an argument mode (``exact|ignore|subset|superset``; it wins
over ``compare_args``, which old links carry), ``trajectory_threshold`` a number in [0, 1] and
``single_tool`` a tool seen in the data. ``deny_tools`` is comma-separated, and a repeated
``deny_tools`` adds to the list (``deny_tools=a&deny_tools=b`` = ``deny_tools=a,b``). ``day_first`` (true/false) sets how numeric
dates read for every check; absent means the case set's own reading. Thresholds are written in
full (:func:`explorer.core.scoring.passmark.show_threshold`), so a link reproduces the verdicts.
Reading is lenient per value: a bad value (or an unknown name) is ignored, the rest still
applies, and a notice names what was ignored and why.

The argument rules in use are not a setting (they change the features), but a link carries them
too, as ``arg_rules`` (the rules' JSON list, compact: ``arg_rules=[{"tool":"*","key":"sent_at",
"rule":"ignore"}]``, ``arg_rules=[]`` for none) when their query value fits in
``LINK_RULES_LIMIT`` characters; longer rules are left out of the link (the page says so: the
Settings JSON download holds them). Absent, the case set's own rules apply.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import urlencode

from ..core.io.errors import LoadError
from ..core.io.reading import parse_json
from ..core.evaluation.settings import COMBINE_RULES, RESPONSE_SCORERS, Settings
from ..core.numbers import decimal_number
from ..core.scoring.arg_match import ARG_MODES
from ..core.scoring.arg_rules import ArgRules, arg_rules_from_data
from ..core.scoring.passmark import show_threshold
from ..core.scoring.trajectory_metrics import TRAJECTORY_CHOICES

QUERY_NAMES = (
    "trajectory", "compare_args", "f1_threshold", "combine", "deny_check", "deny_tools", "key_fields",
    "args", "trajectory_threshold", "single_tool",
    "response_scorer", "rung", "pass_above", "fail_below", "day_first", "mean_threshold",
)
"""The query names the app reads and writes, in the order it writes them."""
ARG_RULES = "arg_rules"
"""The query name of the argument rules (read by :func:`rules_from_query`, not a setting)."""
LINK_RULES_LIMIT = 1500
"""Longest ``arg_rules`` query value (characters, URL-encoded) a link carries: with the settings
the link stays under 2,000 characters, which every browser and chat tool keeps whole."""
PRESENT = "present"
"""The page's own query name: ``?present=true`` opens presenter mode (not a scorer setting)."""

_WORDS = {"trajectory": TRAJECTORY_CHOICES, "args": ARG_MODES, "response_scorer": RESPONSE_SCORERS}
"""Query names whose value is one of a few words (case-insensitive)."""
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _last(value: str | bytes | Sequence[str | bytes]) -> str:
    """One text value from a query value: the last of a list (``?a=1&a=2`` -> ``"2"``), bytes decoded."""
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return str(value)


def _all(value: str | bytes | Sequence[str | bytes]) -> str:
    """Every text value of a query value joined with commas (``?a=x&a=y`` -> ``"x,y"``)."""
    values = value if isinstance(value, (list, tuple)) else [value]
    return ",".join(_last(v) for v in values)


def _show(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def settings_from_query(
    query: Mapping[str, str | bytes | Sequence[str | bytes]], base: Settings, tools: Iterable[str]
) -> tuple[Settings, list[str]]:
    """``base`` with the query's valid values applied, and one notice per ignored value.

    ``query`` maps name -> text, bytes, or a list of them (Tornado's request arguments); ``tools``
    are the tool names a deny-list may hold (those seen in the data). Notices read like
    ``"Ignored f1_threshold=abc from the link: not a number between 0 and 1."``; they contain
    the raw (unescaped) value, so escape them before putting them into HTML.
    """
    known_tools = set(tools)
    changes: dict[str, object] = {}
    notices: list[str] = []

    def ignore(name: str, raw: str, why: str) -> None:
        notices.append(f"Ignored {name}={_show(raw)} from the link: {why}.")

    for name, value in query.items():
        if name == ARG_RULES:  # not a setting: rules_from_query reads it
            continue
        raw = _all(value) if name == "deny_tools" else _last(value)
        text = raw.strip()
        low = text.lower()
        if name in _WORDS:
            if low in _WORDS[name]:
                changes[name] = low
            else:
                ignore(name, raw, f"expected one of {', '.join(_WORDS[name])}")
        elif name == "single_tool":
            if text in known_tools:
                changes[name] = text
            else:
                ignore(name, raw, "no such tool in these runs")
        elif name in ("compare_args", "deny_check", "key_fields", "day_first"):
            if low in _TRUE:
                changes[name] = True
            elif low in _FALSE:
                changes[name] = False
            else:
                ignore(name, raw, "expected true or false" + (" (03/04 is 3 April, or 4 March)" if name == "day_first" else ""))
        elif name in ("f1_threshold", "trajectory_threshold", "mean_threshold"):
            try:
                number = decimal_number(text)
            except ValueError:
                number = math.nan
            if math.isfinite(number) and 0.0 <= number <= 1.0:
                changes[name] = number
            else:
                ignore(name, raw, "not a number between 0 and 1")
        elif name == "combine":
            if low in COMBINE_RULES:
                changes[name] = low
            else:
                ignore(name, raw, "expected all or mean")
        elif name == "rung":
            if text in ("1", "2", "3", "4"):
                changes[name] = int(text)
            else:
                ignore(name, raw, "expected 1, 2, 3 or 4")
        elif name in ("pass_above", "fail_below"):
            try:
                number = decimal_number(text)
            except ValueError:
                number = math.nan
            if math.isfinite(number) and -1.0 <= number <= 1.0:
                changes[name] = number
            else:
                ignore(name, raw, "not a number between -1 and 1")
        elif name == "deny_tools":
            names = [t.strip() for t in text.split(",") if t.strip()]
            good = [t for t in names if t in known_tools]
            bad = [t for t in names if t not in known_tools]
            if bad:
                ignore(name, ",".join(bad), "no such tool in these runs")
            changes[name] = tuple(good)
        else:
            notices.append(f"Ignored {_show(name)} from the link: not a setting this app knows.")
    if "args" in changes and "compare_args" in changes:  # args says more; an old flag must not contradict it
        flag = changes.pop("compare_args")
        if flag != (changes["args"] != "ignore"):
            notices.append(f"Ignored compare_args={'true' if flag else 'false'} from the link: args={changes['args']} says otherwise.")
    if changes.get("trajectory", base.trajectory) == "single_tool_use" and not changes.get("single_tool", base.single_tool):
        changes.pop("trajectory")
        notices.append("Ignored trajectory=single_tool_use from the link: it needs single_tool, the tool to look for.")
    try:
        return base.with_(**changes), notices
    except ValueError as exc:  # values valid alone but not together (fail_below > pass_above)
        bands = {k: changes.pop(k) for k in ("pass_above", "fail_below") if k in changes}
        notices.append(f"Ignored {', '.join(f'{k}={v}' for k, v in bands.items())} from the link: {exc}.")
        return base.with_(**changes), notices


def format_threshold(value: float) -> str:
    """Shortest exact text for a threshold: ``0.8`` -> ``"0.8"``, ``0.41`` -> ``"0.41"``, ``1.0`` ->
    ``"1"``, ``14 / 27`` -> ``"0.518518518519"`` (never rounded past a score it came from)."""
    return show_threshold(value)


def query_from_settings(settings: Settings) -> dict[str, str]:
    """The query for ``settings``, values as text: every name of ``QUERY_NAMES``, except that the
    response-scorer names (``response_scorer``, ``rung``, ``pass_above``, ``fail_below``) are written
    only when the scorer is not the default unigram F1, ``day_first`` only when set, ``args`` only
    for ``subset`` / ``superset`` (``compare_args`` names ``exact`` and ``ignore``),
    ``trajectory_threshold`` only when it is not 1, ``mean_threshold`` only when it is not 0.75 and
    ``single_tool`` only when set, so the
    opening's link stays as short as before issue 12."""
    def flag(value: bool) -> str:
        return "true" if value else "false"

    query = {
        "trajectory": settings.trajectory,
        "compare_args": flag(settings.compare_args),
        "f1_threshold": format_threshold(settings.f1_threshold),
        "combine": settings.combine,
        "deny_check": flag(settings.deny_check),
        "deny_tools": ",".join(settings.deny_tools),
        "key_fields": flag(settings.key_fields),
    }
    if settings.args not in ("exact", "ignore"):
        query["args"] = settings.args
    if settings.trajectory_threshold != 1.0:
        query["trajectory_threshold"] = format_threshold(settings.trajectory_threshold)
    if settings.single_tool:
        query["single_tool"] = settings.single_tool
    if settings.day_first is not None:
        query["day_first"] = flag(settings.day_first)
    if settings.mean_threshold != Settings().mean_threshold:  # the mean rule's threshold, when moved
        query["mean_threshold"] = format_threshold(settings.mean_threshold)
    if settings.response_scorer != "f1":  # links for the default scorer stay short
        query.update(
            response_scorer=settings.response_scorer,
            rung=str(settings.rung),
            pass_above=format_threshold(settings.pass_above),
            fail_below=format_threshold(settings.fail_below),
        )
    return query


def rules_json(rules: ArgRules) -> str:
    """``rules`` as compact JSON text (``[{"tool":"*","key":"sent_at","rule":"ignore"}]``)."""
    return json.dumps(rules.to_data(), separators=(",", ":"), ensure_ascii=False)


def rules_query_value(rules: ArgRules) -> str | None:
    """The ``arg_rules`` query value for ``rules`` as the URL holds it (URL-encoded compact JSON:
    ``[]`` -> ``"%5B%5D"``), or None when it is longer than ``LINK_RULES_LIMIT`` characters."""
    value = urlencode({ARG_RULES: rules_json(rules)})[len(ARG_RULES) + 1:]
    return value if len(value) <= LINK_RULES_LIMIT else None


def rules_from_query(query: Mapping[str, str | bytes | Sequence[str | bytes]]) -> tuple[ArgRules | None, list[str]]:
    """(the argument rules ``query``'s ``arg_rules`` names, or None when it has none or they do not
    read, notices): a bad value is ignored with a notice naming the problem, as for the settings
    (``"Ignored arg_rules=[{"key": … from the link: arg_rules[0].rule: expected one of ignore, …"``;
    JSON that does not read is named at its column: ``"Ignored arg_rules=[{ from the link: line 1,
    column 3: invalid JSON: Expecting property name enclosed in double quotes."``)."""
    if ARG_RULES not in query:
        return None, []
    raw = _last(query[ARG_RULES])
    try:  # parse_json: a link nested past 1,000 levels or with a 5,000-digit number is told so, not raised
        return arg_rules_from_data(parse_json(raw, "the link"), "the link", ARG_RULES), []
    except LoadError as exc:
        return None, [f"Ignored {ARG_RULES}={_show(raw)} from the link: {exc.location}: {exc.problem}."]


def split_page_query(query: Mapping[str, Any]) -> tuple[bool, dict[str, Any], list[str]]:
    """(presenter mode, the rest of ``query``, notices): takes ``present`` out of a page's query
    (true/false and the other flag spellings; a bad value is ignored with a notice, as for the
    settings) and leaves the settings for :func:`settings_from_query`."""
    rest = dict(query)
    if PRESENT not in rest:
        return False, rest, []
    raw = _last(rest.pop(PRESENT))
    low = raw.strip().lower()
    if low in _TRUE or low == "":
        return True, rest, []
    if low in _FALSE:
        return False, rest, []
    return False, rest, [f"Ignored {PRESENT}={_show(raw)} from the link: expected true or false."]


def page_query(settings: Settings, present: bool = False, day_first: bool | None = None,
               rules: ArgRules | None = None) -> str:
    """The page's whole URL query for ``settings`` (``"?trajectory=exact&..."``), with the date
    reading in effect when ``day_first`` is given (a link keeps it even when it is the case set's
    own), the argument ``rules`` when given and short enough (:func:`rules_query_value`) and
    ``present=true`` last when presenter mode is on. Written whole, so names that no longer apply
    (a response scorer's bands after going back to F1) do not linger."""
    query = query_from_settings(settings)
    if day_first is not None:
        query["day_first"] = "true" if day_first else "false"
    if rules is not None and rules_query_value(rules) is not None:
        query[ARG_RULES] = rules_json(rules)
    if present:
        query[PRESENT] = "true"
    return "?" + urlencode(query)
