"""ADK trajectory match semantics (shared/notes/adk-eval-semantics.md), checked case by case."""

import random
import re
from pathlib import Path

import pytest

from explorer.core.io.casefile import load_case_set
from explorer.core.io.model import Invocation, ToolCall
from explorer.core.scoring.arg_match import ARG_MODES, ArgMatcher
from explorer.core.scoring.trajectory import (
    any_order_match,
    calls_match,
    exact_match,
    explain_invocation,
    in_order_match,
    mark_calls,
    trajectory_score,
)

A = ToolCall("search", {"city": "Lisbon", "n": 1})
B = ToolCall("book", {"flight": "TP1351"})
C = ToolCall("confirm", {"id": "BK-1"})
W = ToolCall("weather", {"city": "Lisbon"})


def test_args_key_order_is_free():
    assert calls_match(ToolCall("f", {"a": 1, "b": 2}), ToolCall("f", {"b": 2, "a": 1}))


def test_int_equals_float_but_not_string():
    assert calls_match(ToolCall("f", {"n": 1}), ToolCall("f", {"n": 1.0}))
    assert not calls_match(ToolCall("f", {"n": 1}), ToolCall("f", {"n": "1"}))


def test_true_equals_one_and_extra_none_arg_fails():
    assert calls_match(ToolCall("f", {"x": True}), ToolCall("f", {"x": 1}))
    assert not calls_match(ToolCall("f", {"x": 1, "y": None}), ToolCall("f", {"x": 1}))


def test_ignore_args_compares_names_only():
    assert calls_match(ToolCall("f", {"n": 1}), ToolCall("f", {"n": "1"}), compare_args=False)
    assert not calls_match(ToolCall("f", {}), ToolCall("g", {}), compare_args=False)


@pytest.mark.parametrize(
    "expected, actual, exact, in_order, any_order",
    [
        ([A, B, C], [A, B, C], True, True, True),
        ([A, B, C], [A, W, B, C], False, True, True),  # extra call between
        ([A, B, C], [B, A, C], False, False, True),  # reordered
        ([A, B, C], [A, B], False, False, False),  # missing call
        ([A, B], [A, A, B], False, True, True),  # repeated call
        ([A, A], [A, B], False, False, False),  # expected twice must happen twice
        ([A, A], [A, W, A], False, True, True),
        ([], [], True, True, True),  # empty expected list
        ([], [A], False, True, True),
    ],
)
def test_match_types(expected, actual, exact, in_order, any_order):
    assert exact_match(expected, actual) is exact
    assert in_order_match(expected, actual) is in_order
    assert any_order_match(expected, actual) is any_order


def test_in_order_is_greedy_subsequence():
    # expected [A, B]; actual [B, A, B]: greedy finds A at 1, then B at 2 -> pass
    assert in_order_match([A, B], [B, A, B])
    assert not in_order_match([A, B], [B, A])


def test_run_score_is_mean_of_invocations():
    ok = Invocation((A,), (A,), "", ("",))
    bad = Invocation((A,), (B,), "", ("",))
    assert trajectory_score([ok, bad, ok], "exact") == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        trajectory_score([], "exact")


def test_explanations():
    inv = Invocation((A, B, C), (A, W, B, C), "", ("",))
    assert explain_invocation(inv, "exact") == "extra call weather at position 2"
    assert explain_invocation(inv, "in_order") == ""
    inv = Invocation((A, B, C), (A, B), "", ("",))
    assert explain_invocation(inv, "any_order") == "missing call confirm"
    inv = Invocation((A, B), (B, A), "", ("",))
    assert explain_invocation(inv, "in_order").startswith("out of order")
    inv = Invocation((B,), (ToolCall("book", {"flight": "XX1"}),), "", ("",))
    assert explain_invocation(inv, "exact") == 'book at position 1: flight "XX1" ≠ "TP1351"'


def test_reason_names_the_differing_argument_issue_10_kind_8():
    """Issue 10, kind 8: the input that gave "args differ for web_search at position 1"."""
    inv = Invocation(
        (ToolCall("web_search", {"query": "AI news"}),), (ToolCall("web_search", {"query": "AI news 2025"}),), "ok", ("ok",)
    )
    for mode in ("exact", "in_order", "any_order"):
        assert explain_invocation(inv, mode) == 'web_search at position 1: query "AI news 2025" ≠ "AI news"'


def test_exact_names_the_first_position_where_trajectories_part():
    # expected [A, B, C]; actual [B, A, C]: position 1 holds book where search was expected
    assert explain_invocation(Invocation((A, B, C), (B, A, C), "", ("",)), "exact") == (
        "out of order: book at position 1 where search was expected"
    )
    # actual [A, C]: book was never made; the marks list it as missing, without a position
    assert explain_invocation(Invocation((A, B, C), (A, C), "", ("",)), "exact") == "missing call book"
    # actual stops after A: the two calls never made are both named (no nested brackets)
    assert explain_invocation(Invocation((A, B, C), (A,), "", ("",)), "exact") == "missing calls book, confirm"
    assert explain_invocation(Invocation((A, B, C), (A,), "", ("",)), "any_order") == "missing calls book, confirm"


def test_missing_and_differing_calls_are_both_named():
    # E10's shape: confirm made with another booking id, book never made
    confirm = ToolCall("confirm", {"id": "BK-4470"})
    inv = Invocation((A, B, confirm), (A, ToolCall("confirm", {"id": "BK-4407"})), "", ("",))
    assert explain_invocation(inv, "any_order") == 'missing call book; confirm at position 2: id "BK-4407" ≠ "BK-4470"'


def test_mark_calls():
    marks = mark_calls([A, B, C], [A, ToolCall("delete", {}), B], "exact", deny=frozenset({"delete"}))
    assert [(m.name, m.mark) for m in marks] == [
        ("search", "ok"),
        ("delete", "denied"),
        ("book", "ok"),
        ("confirm", "missing"),
    ]
    # book at position 1 was made before its turn (search first): book is the call out of order
    marks = mark_calls([A, B], [B, A], "in_order")
    assert [m.mark for m in marks] == ["out of order", "ok"]


def test_mark_calls_shows_differing_args_once():
    """Issue 9: E10 showed "confirm_booking EXTRA" and "confirm_booking MISSING" without args."""
    marks = mark_calls(
        [A, ToolCall("confirm_booking", {"booking_id": "BK-4470"})], [A, ToolCall("confirm_booking", {"booking_id": "BK-4407"})]
    )
    assert [(m.name, m.mark, m.label) for m in marks] == [
        ("search", "ok", A.label()),
        ("confirm_booking", "args differ", 'confirm_booking(booking_id: "BK-4407" ≠ "BK-4470")'),
    ]
    # names only compared: the same calls match, nothing differs
    assert [m.mark for m in mark_calls([ToolCall("f", {"a": 1})], [ToolCall("f", {"a": 2})], compare_args=False)] == ["ok"]


# --- the reason reads the alignment the marks show ---------------------------------------------

SEARCH = ToolCall("search_flights", {"to": "LIS"})
PROFILE = ToolCall("get_profile", {})
BOOK = ToolCall("book_flight", {"flight": "TP1351"})
CONFIRM = ToolCall("confirm_booking", {"booking_id": "BK-4470"})
FAMILIES_COMPARED = ("exact", "in_order", "any_order", "subset", "superset", "unordered", "precision", "recall", "f1", "lcs")


def _not_ok(expected, actual, mode, compare_args=True):
    return [(m.name, m.mark, m.position) for m in mark_calls(expected, actual, mode, compare_args) if m.mark != "ok"]


def test_exact_reason_names_the_argument_difference_and_the_missing_call_as_the_marks_do():
    """E10 under EXACT read "extra call confirm_booking at position 2" while its marks said
    confirm_booking ARGS DIFFER and book_flight MISSING."""
    inv = Invocation((SEARCH, BOOK, CONFIRM), (SEARCH, ToolCall("confirm_booking", {"booking_id": "BK-4407"})), "", ("",))
    want = 'missing call book_flight; confirm_booking at position 2: booking_id "BK-4407" ≠ "BK-4470"'
    for mode in ("exact", "in_order", "any_order"):
        assert explain_invocation(inv, mode) == want
        assert _not_ok(inv.expected_calls, inv.actual_calls, mode) == [
            ("confirm_booking", "args differ", 2), ("book_flight", "missing", None)]
    # names only compared: confirm_booking matches, book_flight alone is missing
    assert explain_invocation(inv, "exact", False) == "missing call book_flight"
    assert _not_ok(inv.expected_calls, inv.actual_calls, "exact", False) == [("book_flight", "missing", None)]


def test_the_reordered_profile_read_is_the_call_out_of_order_in_reason_and_marks():
    """E3 (seed 002: "a profile read before the search"): the marks put "out of order" on
    search_flights while EXACT's reason named get_profile."""
    inv = Invocation((SEARCH, PROFILE, BOOK, CONFIRM), (PROFILE, SEARCH, BOOK, CONFIRM), "", ("",))
    assert explain_invocation(inv, "exact") == "out of order: get_profile at position 1 where search_flights was expected"
    assert explain_invocation(inv, "in_order") == "out of order: get_profile at position 1"
    assert explain_invocation(inv, "any_order") == ""
    for mode in ("exact", "in_order", "lcs"):
        assert _not_ok(inv.expected_calls, inv.actual_calls, mode) == [("get_profile", "out of order", 1)]


def test_a_retried_call_is_the_repeat_in_reason_and_marks():
    # E8: search, search again, book, confirm; the second search is the extra one
    inv = Invocation((SEARCH, BOOK, CONFIRM), (SEARCH, SEARCH, BOOK, CONFIRM), "", ("",))
    assert explain_invocation(inv, "exact") == "extra call search_flights at position 2"
    for mode in ("exact", "in_order", "any_order", "subset"):
        assert _not_ok(inv.expected_calls, inv.actual_calls, mode) == [("search_flights", "extra", 2)]


def test_exact_names_every_kind_of_fault_the_marks_show():
    # expected [search, book]; actual [book, search, weather]: book made before the search, weather extra
    inv = Invocation((A, B), (B, A, W), "", ("",))
    assert explain_invocation(inv, "exact") == "extra call weather at position 3; out of order: book at position 1 where search was expected"
    assert _not_ok(inv.expected_calls, inv.actual_calls, "exact") == [("book", "out of order", 1), ("weather", "extra", 3)]


def test_precision_with_no_call_made_names_the_missing_calls():
    # Vertex precision scores 0 when calls were expected and none made: the marks show them missing
    assert explain_invocation(Invocation((A, B), (), "x", ("x",)), "precision") == "missing calls search, book"


def _claims(reason: str) -> set[tuple[str, str, int | None]]:
    """(mark, tool, 1-based position or None) for each call a reason names, read from its words."""
    out: set[tuple[str, str, int | None]] = set()
    for part in reason.split("; ") if reason else ():
        if m := re.fullmatch(r"missing calls? (.*?)( and \d+ more)?", part):
            out |= {("missing", n, None) for n in m.group(1).split(", ")}
        elif m := re.fullmatch(r"(extra call|out of order:) (\w+) at position (\d+)( where \w+ was expected)?", part):
            out.add(("extra" if m.group(1) == "extra call" else "out of order", m.group(2), int(m.group(3))))
        elif m := re.fullmatch(r"(extra calls|out of order:) (.*?)( and \d+ more)?", part):
            kind = "extra" if m.group(1) == "extra calls" else "out of order"
            out |= {(kind, n, int(k)) for n, k in re.findall(r"(\w+) \((\d+)\)", m.group(2))}
        elif m := re.match(r"(\w+) at position (\d+): ", part):
            out.add(("args differ", m.group(1), int(m.group(2))))
        else:
            raise AssertionError(f"unread reason part {part!r} in {reason!r}")
    return out


def _assert_reason_agrees_with_marks(inv, mode, compare_args):
    reason = explain_invocation(inv, mode, compare_args)
    marks = {(m.mark, m.name, m.position) for m in mark_calls(inv.expected_calls, inv.actual_calls, mode, compare_args)}
    assert _claims(reason) <= marks, (inv.expected_calls, inv.actual_calls, mode, reason, marks)
    assert not reason or any(m[0] != "ok" for m in marks), (inv, mode, reason)


def test_no_reason_names_a_call_its_marks_do_not_on_random_trajectories():
    calls = [ToolCall("a", {"x": 1}), ToolCall("a", {"x": 2}), ToolCall("b", {}), ToolCall("c", {"y": 1}), ToolCall("c", {"y": 2})]
    rng = random.Random(7)
    for _ in range(400):
        inv = Invocation(tuple(rng.choices(calls, k=rng.randint(0, 4))), tuple(rng.choices(calls, k=rng.randint(0, 5))), "x", ("x",))
        for mode in FAMILIES_COMPARED:
            for args in ARG_MODES:
                _assert_reason_agrees_with_marks(inv, mode, ArgMatcher(mode=args))


def test_no_reason_contradicts_its_marks_on_the_ten_booking_runs():
    runs = load_case_set(Path(__file__).parent.parent / "cases" / "booking_agent.json").runs
    assert len(runs) == 10
    for run in runs:
        for mode in FAMILIES_COMPARED:
            for args in ARG_MODES:
                _assert_reason_agrees_with_marks(run.invocations[0], mode, ArgMatcher(mode=args))


def test_exact_reasons_of_the_ten_booking_runs_say_what_seed_002_says():
    """Seed 002: an extra weather lookup (E2), a profile read before the search (E3), booked
    without confirming (E4), deleted an old booking between the expected calls (E6), a retried
    search (E8), gave up after the search (E9), claimed a booking it never made (E10)."""
    runs = {r.id: r for r in load_case_set(Path(__file__).parent.parent / "cases" / "booking_agent.json").runs}
    why = {k: explain_invocation(r.invocations[0], "exact") for k, r in runs.items()}
    assert why == {
        "E1": "", "E5": "", "E7": "",
        "E2": "extra call get_weather at position 2",
        "E3": "out of order: get_profile at position 1 where search_flights was expected",
        "E4": "missing call confirm_booking",
        "E6": "extra call delete_booking at position 2",
        "E8": "extra call search_flights at position 2",
        "E9": "missing calls book_flight, confirm_booking",
        "E10": 'missing call book_flight; confirm_booking at position 2: booking_id "BK-4407" ≠ "BK-4470"',
    }
