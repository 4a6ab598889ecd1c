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
and ``ignore_args`` (equivalences) is ADK's greedy pairing. A turn the agent never ran
(``Invocation.no_output``) matches no family (issue 10, kind 1; ADK would not evaluate it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from ..io.model import Invocation, ToolCall
from .arg_diff import describe_differences
from .arg_match import ArgMatcher
from .matching import max_matching
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


def _near_misses(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], pairing: list[int | None], used: list[bool]
) -> dict[int, int]:
    """Missing expected call index -> unpaired actual call index with the same name (first come,
    each actual call once): the calls that differ only in their arguments."""
    free = [j for j, u in enumerate(used) if not u]
    near: dict[int, int] = {}
    for i, p in enumerate(pairing):
        if p is None:
            j = next((j for j in free if actual[j].name == expected[i].name), None)
            if j is not None:
                near[i] = j
                free.remove(j)
    return near


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

    Pairing is a maximum one-to-one matching (ANY_ORDER's for ADK comparisons). An actual call
    that pairs with no expected call is ``extra``, or ``args differ`` when a missing expected call
    has its name (that expected call is then not listed as missing); under ``exact``,
    ``in_order`` and ``lcs`` a paired call that breaks the expected order is ``out of order``; a
    call to a denied tool is ``denied`` whatever else holds. Under ``none`` and
    ``single_tool_use`` every call is ``ok`` unless denied. ``mode`` is any family or alias.
    """
    mode = canonical(mode)
    matcher = as_matcher(compare_args)
    pairing, used = _any_order_pairing(expected, actual, matcher)
    near = _near_misses(expected, actual, pairing, used) if matcher.mode != "ignore" and mode not in _NO_PAIRING else {}
    near_expected = {j: i for i, j in near.items()}
    exp_index_of = {j: i for i, j in enumerate(pairing) if j is not None}
    in_order = set()
    if mode in _ORDERED:
        # the longest run of paired actual calls whose expected indices increase, greedily
        last = -1
        for j in range(len(actual)):
            i = exp_index_of.get(j)
            if i is not None and i > last:
                in_order.add(j)
                last = i
    out: list[MarkedCall] = []
    for j, call in enumerate(actual):
        label = call.label()
        if call.name in deny:
            mark: CallMark = "denied"
        elif mode in _NO_PAIRING:
            mark = "ok"
        elif j in near_expected:
            mark = "args differ"
            label = _diff_label(call, expected[near_expected[j]], matcher)
        elif not used[j]:
            mark = "extra"
        elif mode in _ORDERED and j not in in_order:
            mark = "out of order"
        else:
            mark = "ok"
        out.append(MarkedCall(call.name, label, mark, j + 1))
    if mode not in _NO_PAIRING:
        for i, exp in enumerate(expected):
            if pairing[i] is None and i not in near:
                out.append(MarkedCall(exp.name, exp.label(), "missing", None))
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
    if len(js) == 1:
        return f"extra call {actual[js[0]].name} at position {js[0] + 1}"
    shown = ", ".join(f"{actual[j].name} ({j + 1})" for j in js[:3])
    more = f" and {len(js) - 3} more" if len(js) > 3 else ""
    return f"extra calls {shown}{more}"


def _explain_exact(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: Comparison) -> str:
    """Why EXACT fails, named at the first position where the two trajectories part."""
    matcher = as_matcher(compare_args)
    k = next(
        (k for k, (a, e) in enumerate(zip(actual, expected)) if not calls_match(a, e, matcher)),
        min(len(actual), len(expected)),
    )
    if k == len(actual):
        return _missing_phrase(expected[k:])
    if k == len(expected):
        return f"extra call {actual[k].name} at position {k + 1}"
    got, want = actual[k], expected[k]
    if got.name == want.name:
        return f"{got.name} at position {k + 1}: {_differences(got, want, matcher)}"
    pairing, used = _any_order_pairing(expected, actual, matcher)
    if not used[k]:
        return f"extra call {got.name} at position {k + 1}"
    if pairing[k] is None:
        return f"missing call {want.name} at position {k + 1}"
    return f"out of order: {got.name} at position {k + 1} where {want.name} was expected"


_MISSING_SIDE = ("in_order", "any_order", "superset", "unordered", "recall", "f1", "lcs")
"""Families that name expected calls never made."""
_EXTRA_SIDE = ("subset", "unordered", "precision", "f1")
"""Families that name calls made but not expected."""


def explain_invocation(inv: Invocation, mode: str, compare_args: Comparison = True, single_tool: str = "") -> str:
    """One line saying why an invocation does not score 1 in ``mode`` (any family or alias), or
    ``""`` when it does.

    Examples: ``"missing call confirm_booking"``, ``"missing calls book_flight, confirm_booking"``,
    ``"extra call get_weather at position 2"``, ``"out of order: get_profile at position 1"``,
    ``'web_search at position 1: query "AI news 2025" ≠ "AI news"'`` (the key and both values,
    actual first; with a rule, ``book_table at position 1: people 2 ≠ 3 (number rule ±0.5)``).
    EXACT names the first position where the trajectories part; the other families name the
    expected calls never made (IN_ORDER, ANY_ORDER, superset, unordered, recall, F1, LCS), the
    calls made but not expected (subset, unordered, precision, F1), a call whose arguments differ
    by its differing keys, and for IN_ORDER and LCS the first call out of order. A turn never run:
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
    if mode == "exact":
        return _explain_exact(expected, actual, matcher)
    pairing, used = _any_order_pairing(expected, actual, matcher)
    near = _near_misses(expected, actual, pairing, used) if matcher.mode != "ignore" else {}
    missing = [expected[i] for i, p in enumerate(pairing) if p is None and i not in near]
    near_actual = set(near.values())
    extra = [j for j, u in enumerate(used) if not u and j not in near_actual]
    parts = []
    if mode in _MISSING_SIDE and missing:
        parts.append(_missing_phrase(missing))
    if near:
        parts += [
            f"{actual[j].name} at position {j + 1}: {_differences(actual[j], expected[i], matcher)}"
            for i, j in sorted(near.items(), key=lambda ij: ij[1])
        ]
    if mode in _EXTRA_SIDE and extra:
        parts.append(_extra_phrase(actual, extra))
    if parts:
        return "; ".join(parts)
    if mode in _ORDERED:
        for m in mark_calls(expected, actual, mode, matcher):
            if m.mark == "out of order":
                return f"out of order: {m.name} at position {m.position}"
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

