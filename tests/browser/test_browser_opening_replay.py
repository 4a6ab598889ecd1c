"""Issue 3 acceptance: the opening page, Play to the end, and a full-page screenshot.

Expected figures are seed 002's opening run (EXACT, F1 0.8, every scorer must pass): the evaluator
agrees with the person on 4 of 10 runs; E5 (wrong date, exact path, F1 0.86) is the false pass; the
five good runs reworded (E1), weather (E2), profile (E3), paraphrase (E7) and retry (E8) fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_time_zero_reveals_nothing(app_page):
    app = app_page
    app.expect_time(0.0)
    app.expect_revealed(0, 10)
    app.expect_text("me-agreement", "Revealed so far: none yet, press Play")
    expect(app.el("me-table").locator(".tabulator-row")).to_have_count(0)
    app.expect_whole("4/10")
    expect(app.play_label()).to_have_text("Play")
    app.expect_chosen("me-speed", "1x")


def test_play_at_4x_ends_at_60s_with_agreement_4_of_10_and_screenshot(app_page, output_path):
    app = app_page
    app.choose("me-speed", "4x")
    app.press("me-play")
    expect(app.play_label()).to_have_text("Pause")
    # 60 inspection seconds at 4x take 15 s of wall time
    app.expect_time(60.0, timeout=45_000)
    expect(app.play_label()).to_have_text("Play")
    app.expect_revealed(10, 10)
    app.expect_outcome("4/10", ["E5"], ["E1", "E2", "E3", "E7", "E8"])
    app.expect_whole("4/10")

    shot = Path(output_path) / "explorer-opening-run-t60.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    app.page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000, f"{shot} looks empty ({shot.stat().st_size} bytes)"
