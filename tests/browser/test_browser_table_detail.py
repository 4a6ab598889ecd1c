"""The computed-data table, the selected run's detail and the final metrics (issue 3).

E5 ("Wrong date, exact path"): answer "Booked BK-8832 to Rome, 21 March." against the reference
"Booked BK-8832 to Rome, 12 March."; the only differing word is the day (21 vs 12), so that is
what the detail marks, and a shared word such as "Rome" is not marked. E5 is revealed at 36 s.

Opening settings at t = 60 (seed 002): evaluator pass & person acceptable 0, pass & unacceptable
1 (E5), fail & acceptable 5, fail & unacceptable 4. Precision = TP/(TP+FP) = 0/1 = 0.00, recall =
TP/(TP+FN) = 0/5 = 0.00; Cohen's kappa: p_o = 4/10, p_e = (1/10)(5/10) + (9/10)(5/10) = 0.5, so
kappa = (0.4 - 0.5)/(1 - 0.5) = -0.20.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from explorer_page import expect_e5_detail

pytestmark = pytest.mark.browser


def test_selecting_e5_shows_answer_reference_note_and_marks_the_day(app_page):
    expect_e5_detail(app_page)
    expect(app_page.el("me-detail").locator("mark", has_text="Rome")).to_have_count(0)


def test_final_metrics_at_60s_confusion_and_stats(app_page):
    app = app_page
    app.scrub_to(60.0)
    app.expect_revealed(10, 10)
    confusion = app.el("me-confusion")
    # the four counts in reading order (pass/acceptable, pass/unacceptable, fail/acceptable, fail/unacceptable)
    n = r"(?<![\d.]){}(?![\d.])"
    expect(confusion).to_contain_text(re.compile(".*".join(n.format(k) for k in (0, 1, 5, 4)), re.S))
    stats = app.el("me-stats")
    expect(stats).to_contain_text(re.compile(r"[Pp]recision\W*0\.00"))
    expect(stats).to_contain_text(re.compile(r"[Rr]ecall\W*0\.00"))
    expect(stats).to_contain_text(re.compile(r"[Kk]appa\W*[-−]0\.20"))


def test_trade_off_chart_is_drawn(app_page):
    expect(app_page.el("me-chart").locator("canvas").first).to_be_visible()
