"""Tool-trajectory match, exactly as Google ADK defines it, and a readable diff.

Source: google-adk ``evaluation/trajectory_evaluator.py`` (measured on 2.13.0, see
``shared/notes/adk-eval-semantics.md``):

* two calls match when the names are equal and ``actual.args == expected.args`` (plain Python
  dict equality: key order free, ``1 == 1.0``, ``True == 1``, ``1 != "1"``); with
  ``ignore_args`` only the names are compared; call ids are never compared;
* ``EXACT``: same length, element by element equal;
* ``IN_ORDER``: the expected calls appear as a greedy subsequence of the actual calls;
* ``ANY_ORDER``: each expected call consumes one distinct equal actual call;
* an empty expected list passes ``IN_ORDER`` and ``ANY_ORDER`` always, ``EXACT`` only when the
  actual list is empty too;
* each invocation scores 1.0 or 0.0; a run scores the mean over its invocations.

Every function here also takes, in place of ``compare_args``, an
:class:`~explorer.core.scoring.arg_match.ArgMatcher` (argument mode and per-key rules), and the
reasons and marks cover every family of :mod:`explorer.core.scoring.trajectory_metrics`. Calls
are paired by a maximum matching (:mod:`explorer.core.scoring.matching`), which for ADK's ``==``
and ``ignore_args`` (equivalences) is ADK's greedy pairing. The reasons and the call marks read
one alignment (:func:`align_calls`), so a reason never names a call as extra, missing, out of
order or differing in its arguments unless the marks show it so. A turn the agent never ran
(``Invocation.no_output``) matches no family (issue 10, kind 1; ADK would not evaluate it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from ..io.model import Invocation, ToolCall
from .arg_diff import describe_differences
from .arg_match import ArgMatcher
from .matching import lcs_pairs_displaced, max_matching
from .trajectory_metrics import DEFINITIONS, call_counts, canonical, family_score, invocation_score

MatchMode = Literal["exact", "in_order", "any_order"]
MATCH_MODES: tuple[MatchMode, ...] = ("exact", "in_order", "any_order")
TRAJECTORY_MODES: tuple[str, ...] = (*MATCH_MODES, "none")
"""ADK's match types and ``none`` (issue 2's four choices); every family is in
:data:`explorer.core.scoring.trajectory_metrics.TRAJECTORY_CHOICES`."""

Comparison = bool | ArgMatcher
"""``True`` (ADK ``args ==``), ``False`` (ADK ``ignore_args``) or an :class:`ArgMatcher`."""


def as_matcher(compare_args: Comparison) -> ArgMatcher:
    """The :class:`ArgMatcher` for ``compare_args`` (a matcher is returned as it is)."""
    return compare_args if isinstance(compare_args, ArgMatcher) else ArgMatcher.adk(compare_args)


def calls_match(actual: ToolCall, expected: ToolCall, compare_args: Comparison = True) -> bool:
    """True when two calls match (ADK: equal name and, unless ``ignore_args``, ``args ==``; with
    a matcher, its mode and rules)."""
    if isinstance(compare_args, ArgMatcher):
        return compare_args.match(actual, expected)
    if actual.name != expected.name:
        return False
    return not compare_args or dict(actual.args) == dict(expected.args)


def exact_match(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: Comparison = True) -> bool:
    """ADK ``EXACT``: same calls, same order, nothing extra or missing."""
    return len(expected) == len(actual) and all(
        calls_match(a, e, compare_args) for a, e in zip(actual, expected)
    )


def in_order_match(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: Comparison = True) -> bool:
    """ADK ``IN_ORDER``: expected calls form a (greedy) subsequence of the actual calls. Taking
    the earliest matching call for each expected call finds a subsequence whenever one exists,
    whatever the relation, so this equals "LCS = expected calls"."""
    i = 0
    for call in actual:
        if i < len(expected) and calls_match(call, expected[i], compare_args):
            i += 1
    return i == len(expected)


def _any_order_pairing(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: Comparison
) -> tuple[list[int | None], list[bool]]:
    """A maximum one-to-one pairing of expected with actual calls (for ``==`` and
    ``ignore_args`` ADK ANY_ORDER's greedy one: each expected call takes the first unused equal
    actual call). Returns (actual index or None per expected call, used flag per actual call)."""
    compat = [[calls_match(call, exp, compare_args) for call in actual] for exp in expected]
    pairing = max_matching(compat, len(actual))
    used = [False] * len(actual)
    for p in pairing:
        if p is not None:
            used[p] = True
    return pairing, used


def any_order_match(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: Comparison = True) -> bool:
    """ADK ``ANY_ORDER``: each expected call is matched by a distinct actual call (an expected
    call listed twice must happen twice); extra actual calls are allowed."""
    pairing, _ = _any_order_pairing(expected, actual, compare_args)
    return all(p is not None for p in pairing)


def invocation_matches(inv: Invocation, mode: str, compare_args: Comparison = True) -> bool:
    """One invocation's 1/0 trajectory result under ``mode`` (ADK per-invocation score for
    exact / in_order / any_order; any match family or alias of
    :mod:`~explorer.core.scoring.trajectory_metrics`). A turn never run does not match."""
    if canonical(mode) not in ("exact", "in_order", "any_order", "subset", "superset", "unordered"):
        raise ValueError(f"unknown trajectory match {mode!r}; expected a match family: exact, in_order, any_order, "
                         f"subset, superset, unordered or strict")
    return family_score(call_counts(inv, as_matcher(compare_args)), mode) == 1.0


NO_OUTPUT_REASON = "the agent produced nothing"
"""Why a turn the agent never ran (:attr:`Invocation.no_output`) fails (issue 10, kind 1)."""


def trajectory_score(invocations: Sequence[Invocation], mode: MatchMode, compare_args: Comparison = True) -> float:
    """Run trajectory score in [0, 1]: mean of per-invocation 1/0 matches (ADK
    ``tool_trajectory_avg_score``). Raises ValueError for an empty invocation list."""
    if not invocations:
        raise ValueError("a run needs at least one invocation")
    hits = sum(invocation_matches(inv, mode, compare_args) for inv in invocations)
    return hits / len(invocations)


# --- readable difference ---------------------------------------------------------------------

CallMark = Literal["ok", "extra", "missing", "out of order", "denied", "args differ"]

_ORDERED = ("exact", "in_order", "lcs")
"""Families in which the order of the calls counts (marks may say ``out of order``)."""
_NO_PAIRING = ("none", "single_tool_use")
"""Families that do not compare with the expected calls (every call is ``ok`` unless denied)."""


@dataclass(frozen=True)
class MarkedCall:
    """A call in a displayed trajectory with its mark: ``ok``, ``extra``, ``missing`` (an expected
    call that never happened), ``out of order``, ``denied`` (its tool is on the deny-list) or
    ``args differ`` (an actual call whose name matches a missing expected call but whose
    arguments do not; ``label`` then names the differing keys, e.g.
    ``confirm_booking(booking_id: "BK-4407" ≠ "BK-4470")``, and the expected call is not listed
    again as missing)."""

    name: str
    label: str
    mark: CallMark
    position: int | None  # 1-based position in the actual calls, None for missing calls


@dataclass(frozen=True)
class Alignment:
    """How one invocation's actual calls line up with its expected calls: what the marks show
    and the reasons say (both read this one alignment, so a reason never names a call the marks
    do not).

    ``paired``: actual index -> expected index of the calls that match, in order;
    ``out_of_order``: actual index -> expected index of calls that match an expected call but
    break the expected order (ordered families only); ``near``: actual index -> expected index
    of same-name calls whose arguments differ (``args differ``); ``extra``: actual indices paired
    with nothing; ``missing``: expected indices paired with nothing. Indices are 0-based."""

    paired: dict[int, int]
    out_of_order: dict[int, int]
    near: dict[int, int]
    extra: tuple[int, ...]
    missing: tuple[int, ...]


def _near_misses(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], free_expected: Sequence[int], free_actual: Sequence[int]
) -> dict[int, int]:
    """Actual call index -> expected call index for the calls neither side paired that have the
    same name (first come, each call once): the calls that differ only in their arguments."""
    free = list(free_actual)
    near: dict[int, int] = {}
    for i in free_expected:
        j = next((j for j in free if actual[j].name == expected[i].name), None)
        if j is not None:
            near[j] = i
            free.remove(j)
    return near


def align_calls(expected: Sequence[ToolCall], actual: Sequence[ToolCall], mode: str = "exact",
                compare_args: Comparison = True) -> Alignment:
    """The :class:`Alignment` of two call lists under ``mode`` (any family or alias).

    Ordered families (EXACT, IN_ORDER, LCS): the calls in order are a longest common subsequence
    (:func:`~explorer.core.scoring.matching.lcs_pairs_displaced`: among longest ones, a call
    made before its turn is left out, and of equal calls in a row the first kept), and the calls
    left on both sides are paired by a maximum matching: those are ``out of order``. Other
    families: a maximum matching (ANY_ORDER's pairing for ADK comparisons), no order. Then an
    unpaired actual call with the name of an unpaired expected call is a near miss (unless
    arguments are ignored). ``none`` and ``single_tool_use`` pair nothing and mark nothing."""
    mode = canonical(mode)
    if mode in _NO_PAIRING:
        return Alignment({}, {}, {}, (), ())
    matcher = as_matcher(compare_args)
    compat = [[calls_match(call, exp, matcher) for call in actual] for exp in expected]
    paired: dict[int, int] = {}
    late: dict[int, int] = {}
    if mode in _ORDERED:
        paired = {j: i for i, j in lcs_pairs_displaced(compat, len(actual))}
        left_e = [i for i in range(len(expected)) if i not in paired.values()]
        left_a = [j for j in range(len(actual)) if j not in paired]
        sub = [[compat[i][j] for j in left_a] for i in left_e]
        late = {left_a[q]: left_e[p] for p, q in enumerate(max_matching(sub, len(left_a))) if q is not None}
    else:
        paired = {j: i for i, j in enumerate(max_matching(compat, len(actual))) if j is not None}
    taken_e = {*paired.values(), *late.values()}
    free_e = [i for i in range(len(expected)) if i not in taken_e]
    free_a = [j for j in range(len(actual)) if j not in paired and j not in late]
    near = _near_misses(expected, actual, free_e, free_a) if matcher.mode != "ignore" else {}
    extra = tuple(j for j in free_a if j not in near)
    missing = tuple(i for i in free_e if i not in near.values())
    return Alignment(paired, late, near, extra, missing)


def _differences(actual: ToolCall, expected: ToolCall, matcher: ArgMatcher, key_sep: str = " ") -> str:
    """The keys that keep two same-name calls apart, with both values (and the rule that judged
    them): ``query "AI news 2025" ≠ "AI news"``."""
    return describe_differences(matcher.differences(actual, expected), key_sep)


def _diff_label(actual: ToolCall, expected: ToolCall, matcher: ArgMatcher) -> str:
    return f"{actual.name}({_differences(actual, expected, matcher, key_sep=': ')})"


def mark_calls(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    mode: str = "exact",
    compare_args: Comparison = True,
    deny: frozenset[str] = frozenset(),
) -> list[MarkedCall]:
    """The actual calls, each marked, followed by the expected calls that are missing.

    The pairing is :func:`align_calls`' (the one the reasons read). An actual call that pairs
    with no expected call is ``extra``, or ``args differ`` when a missing expected call has its
    name (that expected call is then not listed as missing); under ``exact``, ``in_order`` and
    ``lcs`` a call outside the longest in-order run is ``out of order``; a call to a denied tool
    is ``denied`` whatever else holds. Under ``none`` and
    ``single_tool_use`` every call is ``ok`` unless denied. ``mode`` is any family or alias.
    """
    mode = canonical(mode)
    matcher = as_matcher(compare_args)
    al = align_calls(expected, actual, mode, matcher)
    out: list[MarkedCall] = []
    for j, call in enumerate(actual):
        label = call.label()
        if call.name in deny:
            mark: CallMark = "denied"
        elif mode in _NO_PAIRING:
            mark = "ok"
        elif j in al.near:
            mark = "args differ"
            label = _diff_label(call, expected[al.near[j]], matcher)
        elif j in al.out_of_order:
            mark = "out of order"
        elif j in al.paired:
            mark = "ok"
        else:
            mark = "extra"
        out.append(MarkedCall(call.name, label, mark, j + 1))
    out += [MarkedCall(expected[i].name, expected[i].label(), "missing", None) for i in al.missing]
    return out


def _names(calls: Sequence[ToolCall]) -> str:
    """``a``, ``a, b``, ``a, b, c`` or ``a, b, c and 2 more``."""
    names = [c.name for c in calls]
    if len(names) <= 3:
        return ", ".join(names)
    return f"{', '.join(names[:3])} and {len(names) - 3} more"


def _missing_phrase(calls: Sequence[ToolCall]) -> str:
    return f"missing call{'s' if len(calls) > 1 else ''} {_names(calls)}"


def _extra_phrase(actual: Sequence[ToolCall], js: Sequence[int]) -> str:
    """``extra call get_weather at position 2`` / ``extra calls get_weather (2), search (4)``."""
    return _at_positions("extra call", actual, js)


def _at_positions(what: str, actual: Sequence[ToolCall], js: Sequence[int]) -> str:
    """``{what} get_weather at position 2`` / ``{what}s get_weather (2), search (4)`` (at most
    three named, then ``and k more``)."""
    if len(js) == 1:
        return f"{what} {actual[js[0]].name} at position {js[0] + 1}"
    shown = ", ".join(f"{actual[j].name} ({j + 1})" for j in js[:3])
    more = f" and {len(js) - 3} more" if len(js) > 3 else ""
    return f"{what}s {shown}{more}"


def _out_of_order_phrase(expected: Sequence[ToolCall], actual: Sequence[ToolCall], js: Sequence[int], mode: str) -> str:
    """``out of order: get_profile at position 1`` (several: ``out of order: a (1), b (3)``);
    under EXACT, where one call is out of order and another was expected at its position, ``...
    where search_flights was expected``."""
    if len(js) > 1:
        return "out of order: " + _at_positions("", actual, js).lstrip("s ")
    j = js[0]
    where = ""
    if mode == "exact" and j < len(expected) and expected[j].name != actual[j].name:
        where = f" where {expected[j].name} was expected"
    return f"out of order: {actual[j].name} at position {j + 1}{where}"


_MISSING_SIDE = ("exact", "in_order", "any_order", "superset", "unordered", "recall", "f1", "lcs")
"""Families that name expected calls never made."""
_EXTRA_SIDE = ("exact", "subset", "unordered", "precision", "f1")
"""Families that name calls made but not expected."""


def explain_invocation(inv: Invocation, mode: str, compare_args: Comparison = True, single_tool: str = "") -> str:
    """One line saying why an invocation does not score 1 in ``mode`` (any family or alias), or
    ``""`` when it does.

    Examples: ``"missing call confirm_booking"``, ``"missing calls book_flight, confirm_booking"``,
    ``"extra call get_weather at position 2"``, ``"out of order: get_profile at position 1"``,
    ``'web_search at position 1: query "AI news 2025" ≠ "AI news"'`` (the key and both values,
    actual first; with a rule, ``book_table at position 1: people 2 ≠ 3 (number rule ±0.5)``).
    The reason reads the alignment the call marks show (:func:`align_calls`), in this order: the
    expected calls never made (EXACT, IN_ORDER, ANY_ORDER, superset, unordered, recall, F1,
    LCS), each call whose arguments differ by its differing keys, the calls made but not
    expected (EXACT, subset, unordered, precision, F1), and for EXACT, IN_ORDER and LCS the calls
    out of order (EXACT: ``out of order: get_profile at position 1 where search_flights was
    expected``); parts are joined by ``"; "``. E10 under EXACT: ``missing call book_flight;
    confirm_booking at position 2: booking_id "BK-4407" ≠ "BK-4470"``. A turn never run:
    ``NO_OUTPUT_REASON``; single tool use: ``"book_flight not called"``.
    """
    matcher = as_matcher(compare_args)
    if invocation_score(inv, mode, matcher, single_tool) >= 1.0:
        return ""
    if inv.no_output:
        return NO_OUTPUT_REASON
    mode = canonical(mode)
    if mode == "single_tool_use":
        return f"{single_tool or '(no tool named)'} not called"
    expected, actual = inv.expected_calls, inv.actual_calls
    al = align_calls(expected, actual, mode, matcher)
    parts = []
    if mode in _MISSING_SIDE and al.missing:
        parts.append(_missing_phrase([expected[i] for i in al.missing]))
    parts += [
        f"{actual[j].name} at position {j + 1}: {_differences(actual[j], expected[i], matcher)}"
        for j, i in sorted(al.near.items())
    ]
    if mode in _EXTRA_SIDE and al.extra:
        parts.append(_extra_phrase(actual, al.extra))
    if mode in _ORDERED and al.out_of_order:
        parts.append(_out_of_order_phrase(expected, actual, sorted(al.out_of_order), mode))
    if not parts and al.missing:  # precision with no call made: 0, and only the missing calls to name
        parts.append(_missing_phrase([expected[i] for i in al.missing]))
    if parts:
        return "; ".join(parts)
    return f"trajectory does not match ({mode})"  # pragma: no cover - every failure is named above


def explain_trajectory(invocations: Sequence[Invocation], mode: str, compare_args: Comparison = True, single_tool: str = "") -> str:
    """Reason for the first invocation that does not score 1, prefixed ``"invocation k: "`` when
    a run has several; ``""`` when every invocation scores 1."""
    for k, inv in enumerate(invocations, start=1):
        why = explain_invocation(inv, mode, compare_args, single_tool)
        if why:
            return f"invocation {k}: {why}" if len(invocations) > 1 else why
    return ""


def rule_notes(invocations: Sequence[Invocation], matcher: ArgMatcher, limit: int = 2) -> str:
    """What the argument rules let through in the paired calls of a run, e.g.
    ``"web_search.query ignored by rule"`` or ``"book_table.people equal by number rule ±0.5,
    +1 more"``; ``""`` when no rule changed a comparison. At most ``limit`` are named."""
    if not matcher.rules or matcher.mode == "ignore":
        return ""
    notes: list[str] = []
    for inv in invocations:
        pairing, _ = _any_order_pairing(inv.expected_calls, inv.actual_calls, matcher)
        for i, j in enumerate(pairing):
            if j is not None:
                a, e = inv.actual_calls[j], inv.expected_calls[i]
                notes += [f"{a.name}.{n}" for n in matcher.forgiven(a, e) if f"{a.name}.{n}" not in notes]
    if not notes:
        return ""
    rest = len(notes) - limit
    return ", ".join(notes[:limit]) + (f", +{rest} more" if rest > 0 else "")


def family_label(family: str) -> str:
    """The field's name for ``family``: ``EXACT``, ``IN_ORDER``, ``ANY_ORDER``, ``subset``,
    ``superset``, ``unordered``, ``strict``, ``precision``, ``recall``, ``F1``, ``LCS``,
    ``single tool use``."""
    return DEFINITIONS[family].label

