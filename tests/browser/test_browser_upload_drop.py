"""Several files dropped together in the real drop zone (found by a newcomer trial): a run file
and its labels, run file first, both apply (the labels used to be lost: loading the runs rebuilt
the page while the browser was still sending them); a bad file dropped with a good one shows its
error beside the good one's success (the success used to hide it). Figures as in
``tests/test_upload_drop.py``: r1's calls and answer match exactly, so it passes."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RUN = b'{"id": "r1", "expected_calls": "a>b", "actual_calls": "a>b", "answer": "ok done", "reference": "ok done", "human_verdict": "acceptable"}\n'
TRUNCATED = RUN + b'{"id": "r2", "expected_calls": "a>b", "answer": "ok do\n'


def test_runs_then_their_labels_in_one_drop_both_apply(app_page, booking_app):
    app = app_page
    app.upload(("good.jsonl", RUN, "application/jsonl"), ("labels_r1.csv", b"run_id,human_verdict,note\nr1,unacceptable,flip\n", "text/csv"))
    app.expect_text("me-load-status", "Loaded 1 run from good.jsonl. It is scored with the settings you had; press Play to list it. "
                                      "Applied the labels in labels_r1.csv.", timeout=30_000)
    app.expect_whole("0/1")  # r1 passes; labelled unacceptable: a false pass
    expect(app.el("me-load-error")).to_be_hidden()
    # a drop's event used to print Bokeh's harmless "reference already known" warning in the
    # terminal of whoever runs serve (serve.quiet_known_bokeh_warnings)
    assert "reference already known" not in booking_app.stderr()


def test_a_bad_file_and_a_good_one_in_one_drop_show_both_outcomes(app_page):
    app = app_page
    app.upload(("truncated.jsonl", TRUNCATED, "application/jsonl"), ("labels_ok.csv", b"run_id,human_verdict,note\nE5,acceptable,fine\n", "text/csv"))
    app.expect_text("me-load-status", "Applied the labels in labels_ok.csv.", timeout=30_000)
    app.expect_whole("5/10")  # E5 passes at the opening settings; labelled acceptable it agrees
    error = app.el("me-load-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("truncated.jsonl: line 2")
    expect(error).to_contain_text("the drop's other files were applied")
