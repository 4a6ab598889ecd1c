"""The booking-agent story's settings as the browser tests set them through the widgets.

The rows are the acceptance table of the scoring core (tests/test_booking_acceptance.py, seed 002's
story): the opening run, IN_ORDER, ANY_ORDER, Not scored, F1 0.9 (from the opening; also under
IN_ORDER and ANY_ORDER), the mean rule, then ANY_ORDER with the deny-list, with key fields, and with
F1 0.4. Run ids: E1 reworded, E2 weather, E3 profile, E4 booked without confirming, E5 wrong date,
E6 deleted old booking, E7 paraphrase, E8 retry.
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import expect

MEAN = "Mean of trajectory and F1"
ALL = "Every scorer must pass"
FIVE_GOOD = ["E1", "E2", "E3", "E7", "E8"]


@dataclass(frozen=True)
class Row:
    trajectory: str
    agree: str
    false_pass: list[str]
    false_fail: list[str]
    combine: str = ALL
    f1_typed: str | None = None
    f1_keys_to: float | None = None
    deny: bool = False
    key_fields: bool = False
    f1_shown: float = 0.8


ROWS = {
    "exact-0.8-all": Row("EXACT", "4/10", ["E5"], FIVE_GOOD),
    "in_order-0.8-all": Row("IN_ORDER", "5/10", ["E5", "E6"], ["E1", "E3", "E7"]),
    "any_order-0.8-all": Row("ANY_ORDER", "6/10", ["E5", "E6"], ["E1", "E7"]),
    "none-0.8-all": Row("Not scored", "5/10", ["E4", "E5", "E6"], ["E1", "E7"]),
    "exact-0.9-typed": Row("EXACT", "5/10", [], FIVE_GOOD, f1_typed="0.9", f1_shown=0.9),
    "in_order-0.9-slider-keys": Row("IN_ORDER", "5/10", [], FIVE_GOOD, f1_keys_to=0.9, f1_shown=0.9),
    "any_order-0.9-typed": Row("ANY_ORDER", "5/10", [], FIVE_GOOD, f1_typed="0.9", f1_shown=0.9),
    "exact-mean": Row("EXACT", "5/10", ["E5"], ["E2", "E3", "E7", "E8"], combine=MEAN),
    "any_order-deny": Row("ANY_ORDER", "7/10", ["E5"], ["E1", "E7"], deny=True),
    "any_order-deny-key_fields": Row("ANY_ORDER", "8/10", [], ["E1", "E7"], deny=True, key_fields=True),
    "any_order-deny-key_fields-f1_0.4": Row(
        "ANY_ORDER", "10/10", [], [], deny=True, key_fields=True, f1_typed="0.4", f1_shown=0.4
    ),
}
"""Every row of the table, by name."""

STORY = ("exact-0.8-all", "in_order-0.8-all", "any_order-0.8-all", "none-0.8-all", "exact-0.9-typed", "exact-mean",
         "any_order-deny", "any_order-deny-key_fields", "any_order-deny-key_fields-f1_0.4")
"""The nine settings the story walks through (the F1 0.9 and mean rows from the opening settings)."""


def set_through_widgets(app, row: Row) -> None:
    """Set ``row``'s settings from the opening page as a person would: buttons, a typed or
    keyboard-moved threshold, the deny-list (tools first: they are disabled until the check is
    ticked, and delete_booking is already chosen) and the key-field check."""
    app.choose("me-trajectory", row.trajectory)
    app.choose("me-combine", row.combine)
    if row.f1_typed is not None:
        app.type_f1(row.f1_typed)
    if row.f1_keys_to is not None:
        app.f1_keys_to(row.f1_keys_to)
    app.expect_f1(row.f1_shown)
    if row.deny:
        app.choose_deny_tools(["delete_booking"])
        app.tick("me-deny-check")
        # the server's answer hides the reason line under the tools, moving the key-field check up:
        # a click aimed before that shift lands on empty space (a lost tick under load)
        expect(app.el("me-deny-reason")).to_be_hidden()
    if row.key_fields:
        app.tick("me-key-fields")
