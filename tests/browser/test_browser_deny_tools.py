"""The deny-list MultiChoice offers the tools seen in the data and acts on the chosen ones.

Tools called in cases/booking_agent.json: search_flights, book_flight, confirm_booking,
get_weather (E2 only), get_profile (E3 only), delete_booking (E6 only). With ANY_ORDER, 0.8, all
(6/10, false passes E5, E6, false fails E1, E7): denying get_weather fails the good run E2 -> 5/10,
false fails E1, E2, E7; denying delete_booking as well also fails the bad run E6 -> 6/10, false
passes E5 only.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TOOLS_IN_DATA = {"search_flights", "book_flight", "confirm_booking", "get_weather", "get_profile", "delete_booking"}


def test_deny_tools_offered_from_the_data(app_page):
    app = app_page
    assert app.deny_tools() == ["delete_booking"]
    app.tick("me-deny-check")  # the tools are disabled while the check is off (issue 9)
    widget = app.el("me-deny-tools")
    widget.locator("input[type=search]").click()
    options = widget.get_by_role("option")
    expect(options).to_have_count(len(TOOLS_IN_DATA) - 1)  # the chosen one is not offered again
    offered = {o.get_attribute("data-value") for o in options.all()}
    app.page.keyboard.press("Escape")
    assert offered | set(app.deny_tools()) == TOOLS_IN_DATA


def test_choosing_deny_tools_changes_the_verdicts(app_page):
    app = app_page
    app.choose("me-trajectory", "ANY_ORDER")
    app.expect_whole("6/10")
    # check unticked: the list does nothing, so it is disabled and says why (issue 9)
    expect(app.el("me-deny-tools").locator("input[type=search]")).to_be_disabled()
    app.expect_text("me-deny-reason", "Tick Deny-list check to use these tools.")
    app.tick("me-deny-check")
    app.expect_whole("7/10")  # delete_booking, chosen by default, fails E6 (seed 002)
    app.choose_deny_tools(["get_weather"])
    app.expect_whole("5/10")
    app.next_events(5, then_time=60.0)
    app.expect_outcome("5/10", ["E5", "E6"], ["E1", "E2", "E7"])
    app.choose_deny_tools(["delete_booking", "get_weather"])
    app.expect_whole("6/10")
    app.expect_time(0.0)  # the change rewound the replay
    app.next_events(5, then_time=60.0)
    app.expect_outcome("6/10", ["E5"], ["E1", "E2", "E7"])
