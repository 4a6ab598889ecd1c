"""ADK trajectory match semantics (shared/notes/adk-eval-semantics.md), checked case by case."""

import pytest

from explorer.core.io.model import Invocation, ToolCall
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
    # actual [A, C]: position 2 holds confirm (an expected call), book was never made
    assert explain_invocation(Invocation((A, B, C), (A, C), "", ("",)), "exact") == "missing call book at position 2"
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
    marks = mark_calls([A, B], [B, A], "in_order")
    assert [m.mark for m in marks] == ["ok", "out of order"]


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
