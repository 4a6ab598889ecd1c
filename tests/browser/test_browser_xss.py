"""Issue 3 quality bar: text from runs is rendered as text and runs nothing.

tests/fixtures/xss_cases.json has two runs; X1's title, answer, user input, tool arguments and note
carry ``<img src=x onerror=alert(n)>`` and ``<script>alert(n)</script>``. Both runs are revealed at
t = 60 s (one batch of two). A dialog would mean a payload ran; an ``img`` with ``src="x"`` would
mean markup was parsed.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"


def test_payloads_render_literally_and_run_nothing(xss_page):
    app = xss_page
    app.next_events(1, then_time=60.0)
    app.expect_revealed(2, 2)
    table = app.el("me-table")
    expect(table).to_contain_text(IMG)  # X1's title, as text
    app.select_run("X1")
    detail = app.el("me-detail")
    expect(detail).to_contain_text(IMG)
    expect(detail).to_contain_text(SCRIPT)
    expect(detail).to_contain_text("<script>alert(6)</script>")  # the person's note

    time.sleep(1.0)  # give any injected handler a moment to fire
    assert app.dialogs == [], f"a payload ran: {app.dialogs}"
    page = app.page
    expect(page.locator('img[src="x"]')).to_have_count(0)
    for n in range(1, 7):
        expect(page.locator("script", has_text=f"alert({n})")).to_have_count(0)
    expect(page.locator("b", has_text="bold")).to_have_count(0)
