"""Issue 3 acceptance: Next event, scrubbing, and an input change while playing.

Timeline (docs/ui-contract.md): ten runs revealed two at a time at t = 12, 24, 36, 48, 60 s
(reveal r of 5 at 60·r/5). Opening settings (EXACT, 0.8, all): by t = 25 s E1–E4 are revealed;
E1 (reworded), E2 (weather) and E3 (profile) are good runs the evaluator fails, E4 (booked
without confirming) is a bad run it fails too, so agreement is 1/4 with false fails E1, E2, E3.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def revealed_line(run_id: str) -> re.Pattern[str]:
    """A trace line ``<t> s  <id> revealed`` for exactly this id (E1 is not E10)."""
    return re.compile(rf"\b{run_id} revealed")


def test_next_event_steps_to_each_reveal(app_page):
    app = app_page
    trace = app.el("me-trace")
    app.next_events(1, then_time=12.0)
    app.expect_revealed(2, 10)
    expect(trace).to_contain_text(re.compile(r"12\.0 s\s+E1 revealed"))
    expect(trace).to_contain_text(re.compile(r"12\.0 s\s+E2 revealed"))
    expect(trace).to_contain_text(re.compile(r"12\.0 s\s+E1 verdict fail \(F1 0\.62 < 0\.80\) — false fail"))
    expect(trace).not_to_contain_text(revealed_line("E3"))

    app.next_events(1, then_time=24.0)
    app.expect_revealed(4, 10)
    expect(trace).to_contain_text(re.compile(r"24\.0 s\s+E3 revealed"))
    expect(trace).to_contain_text(re.compile(r"24\.0 s\s+E4 revealed"))
    expect(trace).not_to_contain_text(revealed_line("E5"))


def test_scrub_to_25s_shows_exactly_e1_to_e4(app_page):
    app = app_page
    app.scrub_to(25.0)
    app.expect_revealed(4, 10)
    trace = app.el("me-trace")
    for run_id in ("E1", "E2", "E3", "E4"):
        expect(trace).to_contain_text(revealed_line(run_id))
    for run_id in ("E5", "E6", "E7", "E8", "E9", "E10"):
        expect(trace).not_to_contain_text(revealed_line(run_id))
    app.expect_outcome("1/4", [], ["E1", "E2", "E3"])
    app.expect_whole("4/10")


def test_restart_goes_back_to_zero(app_page):
    app = app_page
    app.next_events(2, then_time=24.0)
    app.press("me-restart")
    app.expect_time(0.0)
    app.expect_revealed(0, 10)
    expect(app.play_label()).to_have_text("Play")


def test_input_change_while_playing_stops_and_rewinds(app_page):
    app = app_page
    app.press("me-play")
    expect(app.play_label()).to_have_text("Pause")
    # let the replay get going (time handle past 0)
    expect(app.time_handle()).not_to_have_attribute("aria-valuenow", re.compile(r"^0(\.0*)?$"))
    app.choose("me-trajectory", "IN_ORDER")
    expect(app.play_label()).to_have_text("Play")
    app.expect_time(0.0)
    app.expect_revealed(0, 10)
    app.expect_whole("5/10")
    time.sleep(1.5)  # no autoplay: still at 0 a moment later
    app.expect_time(0.0, timeout=1)
    expect(app.play_label()).to_have_text("Play", timeout=1)


def test_next_event_while_playing_pauses_at_the_next_reveal(app_page):
    app = app_page
    app.press("me-play")
    expect(app.play_label()).to_have_text("Pause")
    expect(app.time_handle()).not_to_have_attribute("aria-valuenow", re.compile(r"^0(\.0*)?$"))
    # Play starts at the first reveal, 12.0 s, itself a reveal time: wait for Next's move away from
    # the time shown before it (reading the label at once could still see 12.0 s, then 24.0 s)
    before = app.text("me-time-label")
    app.press("me-next")
    expect(app.play_label()).to_have_text("Play")
    expect(app.el("me-time-label")).not_to_have_text(before)
    expect(app.el("me-time-label")).to_contain_text(re.compile(r"t = (24|36|48|60)\.0 s"))
    shown = app.text("me-time-label")
    time.sleep(1.5)  # paused: the time stays where Next event put it
    assert app.text("me-time-label") == shown
