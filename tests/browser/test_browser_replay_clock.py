"""Issue 15: the replay's clock runs in the page.

Play at 4x from the opening (t = 0): Play starts at the first reveal at once (issue 9,
``replay.play_start_time``: E1-E2 at 12 s), then the clock runs 4 replay seconds per wall second to
the end at 60 s: (60 - 12) / 4 = 12 s of wall time. (Issue 15 wrote "60 s in 15 s" for a replay
played from t = 0, before issue 9 made Play start at the first reveal; the rate is the same: 60 s
of replay at 4x take 15 s.) Meanwhile the page hears from the server only at the reveals: the ten
runs are revealed at 12, 24, 36, 48 and 60 s, so at most one server update (PATCH-DOC) per reveal,
5 in all, each answering one message of the page (the page's report of the reveal, which the server
acknowledges with OK). With the clock on the server (before issue 15) the page received an update
every tick of 100 ms: 233 updates in these 12 s when this test was run against that code.

The websocket frames are counted with Playwright: a Bokeh message is a header frame (``msgid``,
``msgtype``), a metadata frame, a content frame and two frames per binary buffer; messages are
counted by their header frames.
"""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import expect

from explorer_page import App, first_event_at, shown_at

pytestmark = pytest.mark.browser

REVEALS = (12.0, 24.0, 36.0, 48.0, 60.0)
"""Reveal times of the ten bundled runs: reveal r of 5 at 60 r / 5 s (docs/ui-contract.md)."""
WALL_S = (60.0 - 12.0) / 4
"""From Play (which starts at 12 s) to the end at 4x."""


def _header(payload) -> dict | None:
    if not isinstance(payload, str) or '"msgtype"' not in payload[:200]:
        return None
    try:
        header = json.loads(payload)
    except ValueError:
        return None
    return header if isinstance(header, dict) and "msgid" in header else None


def test_play_at_4x_runs_in_the_page_and_hears_the_server_once_per_reveal(new_offline_context, booking_app):
    context, external = new_offline_context()
    page = context.new_page()
    received: list[tuple[float, dict]] = []
    sent: list[tuple[float, dict]] = []

    def on_websocket(ws) -> None:
        ws.on("framereceived", lambda payload: (h := _header(payload)) and received.append((time.monotonic(), h)))
        ws.on("framesent", lambda payload: (h := _header(payload)) and sent.append((time.monotonic(), h)))

    page.on("websocket", on_websocket)
    app = App(page, booking_app.url).open()
    app.choose("me-speed", "4x")
    app.expect_time(0.0)
    # Play is pressed from the keyboard: a pointer over a button shows its tooltip, and the page
    # tells the server when a tooltip shows or hides (messages that have nothing to do with the clock)
    play = app.play_label()
    play.focus()
    page.mouse.move(0, 0)
    page.wait_for_timeout(1000)  # the speed change answered; nothing else is in flight
    start = time.monotonic()
    n_received, n_sent = len(received), len(sent)
    page.evaluate(first_event_at("keydown"))
    page.keyboard.press("Enter")
    # the end: the time label reads t = 60.0 s (checked in the page at every frame); the wall time
    # is the page's own, from the key's event to that frame (a loaded machine delays Playwright's
    # steps, not what a person sees)
    reached = page.wait_for_function(shown_at("me-time-label"), arg="t = 60.0 s", polling="raf", timeout=45_000).json_value()
    wall = (reached - page.evaluate("() => window.__meEventAt")) / 1000.0
    expect(app.play_label()).to_have_text("Play")
    app.expect_revealed(10, 10)
    app.expect_outcome("4/10", ["E5"], ["E1", "E2", "E3", "E7", "E8"])
    page.wait_for_timeout(500)  # frames of the last reveal delivered to the listeners
    got = [h["msgtype"] for t, h in received[n_received:] if t <= start + wall + 0.5]
    out = [h["msgtype"] for t, h in sent[n_sent:] if t <= start + wall + 0.5]
    page.close()

    assert abs(wall - WALL_S) <= 1.0, f"Play at 4x took {wall:.2f} s of wall time to reach 60 s (expected {WALL_S:.0f} ± 1 s)"
    updates = got.count("PATCH-DOC")
    assert 1 <= updates <= len(REVEALS), f"{updates} updates from the server during the replay: {got}"
    # every other message answers one of the page's own (its reports: one per reveal)
    assert len(out) <= len(REVEALS), f"the page sent {len(out)} messages: {out}"
    assert got.count("OK") <= len(out) and len(got) - updates - got.count("OK") == 0, got
    assert external == []
