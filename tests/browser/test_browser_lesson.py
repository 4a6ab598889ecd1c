"""Issue 3 acceptance: the guided lesson's last step shows all ten runs agreeing.

Step 7 of seed 002 ("All ten agree"): ANY_ORDER, deny-list delete_booking, exact key fields and
F1 threshold 0.4 -> agreement 10/10, no false passes, no false fails (issue 2's last row).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_last_lesson_step_shows_10_of_10(app_page):
    app = app_page
    app.press("me-lesson-7")
    app.expect_whole("10/10")
    expect(app.el("me-lesson-text")).to_contain_text(re.compile(r"\w{3,}"))
    app.expect_chosen("me-trajectory", "ANY_ORDER")
    app.expect_ticked("me-deny-check")
    app.expect_ticked("me-key-fields")
    app.expect_f1(0.4)
    app.next_events(5, then_time=60.0)
    app.expect_outcome("10/10", [], [])


def test_first_lesson_step_is_the_opening_run(app_page):
    app = app_page
    app.press("me-lesson-7")
    app.expect_whole("10/10")
    app.press("me-lesson-1")
    app.expect_whole("4/10")
    app.expect_chosen("me-trajectory", "EXACT")
    app.expect_f1(0.8)
