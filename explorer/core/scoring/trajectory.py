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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from ..io.model import Invocation, ToolCall
from .arg_diff import describe_arg_differences

MatchMode = Literal["exact", "in_order", "any_order"]
MATCH_MODES: tuple[MatchMode, ...] = ("exact", "in_order", "any_order")
TRAJECTORY_MODES: tuple[str, ...] = (*MATCH_MODES, "none")


def calls_match(actual: ToolCall, expected: ToolCall, compare_args: bool = True) -> bool:
    """True when two calls match (ADK: equal name and, unless ``ignore_args``, ``args ==``)."""
    if actual.name != expected.name:
        return False
    return not compare_args or dict(actual.args) == dict(expected.args)


def exact_match(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: bool = True) -> bool:
    """ADK ``EXACT``: same calls, same order, nothing extra or missing."""
    return len(expected) == len(actual) and all(
        calls_match(a, e, compare_args) for a, e in zip(actual, expected)
    )


def in_order_match(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: bool = True) -> bool:
    """ADK ``IN_ORDER``: expected calls form a (greedy) subsequence of the actual calls."""
    i = 0
    for call in actual:
        if i < len(expected) and calls_match(call, expected[i], compare_args):
            i += 1
    return i == len(expected)


def _any_order_pairing(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: bool
) -> tuple[list[int | None], list[bool]]:
    """Greedy pairing as ADK ANY_ORDER does it: for each expected call, the first unused equal
    actual call. Returns (actual index or None per expected call, used flag per actual call)."""
    used = [False] * len(actual)
    pairing: list[int | None] = []
    for exp in expected:
        found = None
        for j, call in enumerate(actual):
            if not used[j] and calls_match(call, exp, compare_args):
                found = j
                break
        if found is not None:
            used[found] = True
        pairing.append(found)
    return pairing, used


def any_order_match(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: bool = True) -> bool:
    """ADK ``ANY_ORDER``: each expected call is matched by a distinct actual call (an expected
    call listed twice must happen twice); extra actual calls are allowed."""
    pairing, _ = _any_order_pairing(expected, actual, compare_args)
    return all(p is not None for p in pairing)


_MATCHERS = {"exact": exact_match, "in_order": in_order_match, "any_order": any_order_match}


NO_OUTPUT_REASON = "the agent produced nothing"
"""Why a turn the agent never ran (:attr:`Invocation.no_output`) fails (issue 10, kind 1)."""


def invocation_matches(inv: Invocation, mode: MatchMode, compare_args: bool = True) -> bool:
    """One invocation's 1/0 trajectory result under ``mode`` (ADK per-invocation score); a turn
    the agent never ran (:attr:`Invocation.no_output`) never matches, in any mode."""
    try:
        matcher = _MATCHERS[mode]
    except KeyError:
        raise ValueError(f"unknown trajectory match {mode!r}; expected one of {MATCH_MODES}") from None
    if inv.no_output:
        return False
    return matcher(inv.expected_calls, inv.actual_calls, compare_args)


def trajectory_score(invocations: Sequence[Invocation], mode: MatchMode, compare_args: bool = True) -> float:
    """Run trajectory score in [0, 1]: mean of per-invocation 1/0 matches (ADK
    ``tool_trajectory_avg_score``). Raises ValueError for an empty invocation list."""
    if not invocations:
        raise ValueError("a run needs at least one invocation")
    hits = sum(invocation_matches(inv, mode, compare_args) for inv in invocations)
    return hits / len(invocations)


# --- readable difference ---------------------------------------------------------------------

CallMark = Literal["ok", "extra", "missing", "out of order", "denied", "args differ"]


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


def _diff_label(actual: ToolCall, expected: ToolCall) -> str:
    return f"{actual.name}({describe_arg_differences(actual.args, expected.args, key_sep=': ')})"


def mark_calls(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    mode: str = "exact",
    compare_args: bool = True,
    deny: frozenset[str] = frozenset(),
) -> list[MarkedCall]:
    """The actual calls, each marked, followed by the expected calls that are missing.

    Pairing is ANY_ORDER's (each expected call takes the first unused equal actual call). An actual
    call that pairs with no expected call is ``extra``, or ``args differ`` when a missing expected
    call has its name (that expected call is then not listed as missing); under ``exact`` and
    ``in_order`` a paired call that breaks the expected order is ``out of order``; a call to a
    denied tool is ``denied`` whatever else holds. Under ``none`` every call is ``ok`` unless
    denied.
    """
    pairing, used = _any_order_pairing(expected, actual, compare_args)
    near = _near_misses(expected, actual, pairing, used) if compare_args and mode != "none" else {}
    near_expected = {j: i for i, j in near.items()}
    exp_index_of = {j: i for i, j in enumerate(pairing) if j is not None}
    in_order = set()
    if mode in ("exact", "in_order"):
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
        elif mode == "none":
            mark = "ok"
        elif j in near_expected:
            mark = "args differ"
            label = _diff_label(call, expected[near_expected[j]])
        elif not used[j]:
            mark = "extra"
        elif mode in ("exact", "in_order") and j not in in_order:
            mark = "out of order"
        else:
            mark = "ok"
        out.append(MarkedCall(call.name, label, mark, j + 1))
    if mode != "none":
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


def _explain_exact(expected: Sequence[ToolCall], actual: Sequence[ToolCall], compare_args: bool) -> str:
    """Why EXACT fails, named at the first position where the two trajectories part."""
    k = next(
        (k for k, (a, e) in enumerate(zip(actual, expected)) if not calls_match(a, e, compare_args)),
        min(len(actual), len(expected)),
    )
    if k == len(actual):
        return _missing_phrase(expected[k:])
    if k == len(expected):
        return f"extra call {actual[k].name} at position {k + 1}"
    got, want = actual[k], expected[k]
    if got.name == want.name:
        return f"{got.name} at position {k + 1}: {describe_arg_differences(got.args, want.args)}"
    pairing, used = _any_order_pairing(expected, actual, compare_args)
    if not used[k]:
        return f"extra call {got.name} at position {k + 1}"
    if pairing[k] is None:
        return f"missing call {want.name} at position {k + 1}"
    return f"out of order: {got.name} at position {k + 1} where {want.name} was expected"


def explain_invocation(inv: Invocation, mode: MatchMode, compare_args: bool = True) -> str:
    """One line saying why an invocation fails ``mode``, or ``""`` when it matches.

    Examples: ``"missing call confirm_booking"``, ``"missing calls book_flight, confirm_booking"``,
    ``"extra call get_weather at position 2"``, ``"out of order: get_profile at position 1"``,
    ``'web_search at position 1: query "AI news 2025" ≠ "AI news"'`` (the key and both values,
    actual first). EXACT names the first position where the trajectories part; IN_ORDER and
    ANY_ORDER name the expected calls never made, a call whose arguments differ by its
    differing keys, and for IN_ORDER the first call out of order.
    """
    if invocation_matches(inv, mode, compare_args):
        return ""
    if inv.no_output:
        return NO_OUTPUT_REASON
    expected, actual = inv.expected_calls, inv.actual_calls
    if mode == "exact":
        return _explain_exact(expected, actual, compare_args)
    pairing, used = _any_order_pairing(expected, actual, compare_args)
    if any(p is None for p in pairing):
        near = _near_misses(expected, actual, pairing, used) if compare_args else {}
        missing = [expected[i] for i, p in enumerate(pairing) if p is None and i not in near]
        parts = [_missing_phrase(missing)] if missing else []
        parts += [
            f"{actual[j].name} at position {j + 1}: {describe_arg_differences(actual[j].args, expected[i].args)}"
            for i, j in sorted(near.items(), key=lambda ij: ij[1])
        ]
        return "; ".join(parts)
    marked = mark_calls(expected, actual, mode, compare_args)
    for m in marked:
        if m.mark == "out of order":
            return f"out of order: {m.name} at position {m.position}"
    return f"trajectory does not match ({mode})"  # pragma: no cover - every failure is named above


def explain_trajectory(invocations: Sequence[Invocation], mode: MatchMode, compare_args: bool = True) -> str:
    """Reason for the first failing invocation, prefixed ``"invocation k: "`` when a run has
    several; ``""`` when every invocation matches."""
    for k, inv in enumerate(invocations, start=1):
        why = explain_invocation(inv, mode, compare_args)
        if why:
            return f"invocation {k}: {why}" if len(invocations) > 1 else why
    return ""
