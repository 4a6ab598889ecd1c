"""Issue 3 acceptance: a URL with query settings opens on them; a bad value shows a notice.

``?trajectory=any_order&deny_check=true&deny_tools=delete_booking&key_fields=true`` is issue 2's
row "any_order, 0.8, all, deny delete_booking + key fields": 8/10, no false passes, false fails
E1 (reworded) and E7 (paraphrase).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SHARED = "?trajectory=any_order&deny_check=true&deny_tools=delete_booking&key_fields=true"


def test_query_settings_open_on_them(app_page):
    app = app_page.open(SHARED)
    app.expect_whole("8/10")
    app.expect_chosen("me-trajectory", "ANY_ORDER")
    app.expect_ticked("me-deny-check")
    app.expect_ticked("me-key-fields")
    app.expect_chosen("me-args", "exact")  # issue 12: the argument mode replaces the compare-args box
    assert app.deny_tools() == ["delete_booking"]
    app.expect_f1(0.8)
    app.next_events(5, then_time=60.0)
    app.expect_outcome("8/10", [], ["E1", "E7"])


def test_bad_query_value_is_ignored_with_a_notice(app_page):
    app = app_page.open("?trajectory=bogus")
    expect(app.el("me-notice")).to_contain_text("trajectory")
    expect(app.el("me-notice")).to_contain_text("bogus")
    app.expect_chosen("me-trajectory", "EXACT")
    app.expect_whole("4/10")


def test_inputs_are_mirrored_in_the_url(app_page):
    app = app_page
    app.choose("me-trajectory", "IN_ORDER")
    expect(app.page).to_have_url(re.compile(r"[?&]trajectory=in_order\b"))


def test_date_reading_control_and_link(app_page):
    # issue 10, kind 7: one control sets the reading for every check, the link carries it; the
    # booking runs state no numeric date, so the agreement stays the opening run's 4/10
    app = app_page.open("?day_first=false")
    app.expect_chosen("me-day-first", "Month first (03/04 = 4 Mar)")
    app.expect_whole("4/10")
    app.choose("me-day-first", "Day first (03/04 = 3 Apr)")
    expect(app.page).to_have_url(re.compile(r"[?&]day_first=true\b"))
