"""The app's pure helpers and one session's wiring, without a browser: differing words marked,
the trade-off sweep, the lesson's steps, session isolation, rewind on input change, escaping.

Expected figures come from seed 002 / issue 2's acceptance table and the bundled runs' F1 values
(E1 0.62, E7 0.41, E5 0.86); the browser tests check the same through the served page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.app.highlight import mark_differences
from explorer.app.lesson import STEPS
from explorer.app.main import ExplorerSession
from explorer.app.shared import load_shared
from explorer.app.tradeoff import THRESHOLDS, sweep
from explorer.app.views.detail import detail_html
from explorer.app.views.table import table_frame
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.settings import Settings
from html_text import shown

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def shared():
    return load_shared(ROOT / "cases" / "booking_agent.json")


@pytest.fixture(scope="module")
def xss():
    return load_shared(ROOT / "tests" / "fixtures" / "xss_cases.json")


# --- differing words ---------------------------------------------------------------------------

def test_the_changed_date_is_marked():
    assert mark_differences("Booked BK-8832, 21 March.", "Booked BK-8832, 12 March.") == (
        "Booked BK-8832, <mark>21</mark> March."
    )


def test_words_compare_case_insensitively_and_as_multisets():
    assert mark_differences("The the cat", "the cat") == "The <mark>the</mark> cat"


def test_markup_in_the_text_is_escaped_before_marking():
    out = mark_differences("ok <img src=x onerror=alert(1)>", "ok")
    assert out == (
        "ok &lt;<mark>img</mark> <mark>src</mark>=<mark>x</mark> <mark>onerror</mark>="
        "<mark>alert</mark>(<mark>1</mark>)&gt;"
    )
    assert "<img" not in out


# --- trade-off sweep -----------------------------------------------------------------------------

def test_sweep_exact_all(shared):
    sw = sweep(shared.features, Settings())
    assert sw.thresholds.size == 101 and sw.thresholds[80] == 0.8
    # threshold 0: the EXACT passes decide: E1, E5, E7 pass -> E5 false pass; E2, E3, E8 false fails
    assert (sw.agree[0], sw.false_pass[0], sw.false_fail[0]) == (6, 1, 3)
    # 0.5 also fails E7 (0.41); 0.8 also E1 (0.62); 0.9 also E5 (0.86)
    assert (sw.agree[50], sw.false_pass[50], sw.false_fail[50]) == (5, 1, 4)
    assert (sw.agree[80], sw.false_pass[80], sw.false_fail[80]) == (4, 1, 5)
    assert (sw.agree[90], sw.false_pass[90], sw.false_fail[90]) == (5, 0, 5)


def test_sweep_matches_evaluate_at_every_threshold(shared):
    s = Settings(trajectory="any_order", deny_check=True, deny_tools=("delete_booking",), key_fields=True)
    sw = sweep(shared.features, s)
    for k, t in enumerate(THRESHOLDS):
        summary = evaluate(shared.features, s.with_(f1_threshold=float(t))).summary
        assert (sw.agree[k], sw.false_pass[k], sw.false_fail[k]) == (summary.agree, summary.false_pass, summary.false_fail)
    assert sw.agree[40] == 10  # seed 002's end: F1 0.4


def test_sweep_is_flat_for_the_mean_rule(shared):
    sw = sweep(shared.features, Settings(combine="mean"))
    assert np.all(sw.agree == 5) and np.all(sw.false_pass == 1) and np.all(sw.false_fail == 4)


# --- lesson --------------------------------------------------------------------------------------

def test_seven_steps_tell_the_seed_story(shared):
    assert [s.title.split(".")[0] for s in STEPS] == [str(i) for i in range(1, 8)]
    assert STEPS[0].title == "1. The opening run: strict and still wrong"
    assert STEPS[6].title == "7. All ten agree"
    expected = ["4/10", "5/10", "6/10", "5/10", "7/10", "8/10", "10/10"]  # issue 2's table
    for step, want in zip(STEPS, expected):
        s = evaluate(shared.features, step.settings(shared.defaults)).summary
        assert f"{s.agree}/{s.labelled}" == want == step.expected


# --- a session -----------------------------------------------------------------------------------

def test_opening_session_starts_at_zero_with_nothing_revealed(shared):
    session = ExplorerSession(shared)
    assert session.clock.time == 0.0 and not session.clock.playing
    # issue 9: the replay's figure says what it is; the all-runs figure heads the summary bar
    assert "Revealed so far: none yet, press Play · 0 of 10 runs revealed" in shown(session.metrics.replay.object)
    assert "0 of 10 runs revealed" in shown(session.metrics.replay.object)
    assert "All runs: 4/10 agree" in shown(session.metrics.summary.object)
    assert session.inputs.deny_tools == ["delete_booking"] and session.inputs.deny_check is False
    assert len(session.table.table.value) == 0


def test_time_moves_the_views(shared):
    session = ExplorerSession(shared)
    session.clock.time = 25.0
    assert "Revealed so far: 1/4 agree" in shown(session.metrics.replay.object)
    assert "False fails: E1, E2, E3" in shown(session.metrics.replay.object)
    # the summary bar keeps the whole set's figures whatever the replay time (seed 002's opening)
    assert "All runs: 4/10 agree" in shown(session.metrics.summary.object)
    assert "False fails: E1, E2, E3, E7, E8" in shown(session.metrics.summary.object)
    assert session.table.ids == ["E1", "E2", "E3", "E4"]
    assert "t = 25.0 s" in session.controls.label.object
    session.next_event()
    assert session.clock.time == 36.0
    session.restart()
    assert session.clock.time == 0.0


def test_input_change_pauses_and_rewinds(shared):
    session = ExplorerSession(shared)
    session.clock.param.update(time=48.0)
    session.clock.playing = False
    session.inputs.trajectory = "in_order"
    assert session.clock.time == 0.0 and not session.clock.playing
    assert "Revealed so far: none yet, press Play · 0 of 10 runs revealed" in shown(session.metrics.replay.object)
    assert "All runs: 5/10 agree" in shown(session.metrics.summary.object)


def test_sessions_do_not_share_inputs(shared):
    a, b = ExplorerSession(shared), ExplorerSession(shared)
    a.choose_step(STEPS[6])
    assert a.inputs.settings().f1_threshold == 0.4
    assert b.inputs.settings() == shared.defaults
    assert "All runs: 10/10 agree" in shown(a.metrics.summary.object)
    assert "All runs: 4/10 agree" in shown(b.metrics.summary.object)


def test_query_opens_on_its_settings_and_names_bad_values(shared):
    session = ExplorerSession(shared, {"trajectory": [b"any_order"], "f1_threshold": [b"<script>alert(1)</script>"]})
    assert session.inputs.trajectory == "any_order" and session.inputs.f1_threshold == 0.8
    assert session.notice.visible
    assert "&lt;script&gt;" in session.notice.object and "<script>" not in session.notice.object


def test_run_text_reaches_html_escaped(xss):
    ev = evaluate(xss.features, xss.defaults)
    frame = table_frame(xss.features, ev, xss.features.n)
    cells = " ".join(frame.astype(str).to_numpy().ravel())
    assert "<img" not in cells and "<script" not in cells
    assert "&lt;img src=x onerror=alert(1)&gt;" in cells
    detail = detail_html(xss.features, ev, 0)
    assert "<img" not in detail and "<script" not in detail and "<b>bold" not in detail
    assert "&lt;b&gt;bold&lt;/b&gt;" in detail


def test_the_lesson_marks_the_step_the_inputs_are_on(shared):
    session = ExplorerSession(shared)
    kinds = lambda: [b.color for b in session.lesson.buttons]  # noqa: E731
    assert kinds() == ["primary"] + ["light"] * 6  # the opening run is step 1
    session.lesson.choose(STEPS[4])
    assert kinds() == ["light"] * 4 + ["primary"] + ["light"] * 2
    assert "Step 5 of 7: Deny-list catches E6" in shown(session.lesson.head.object)
    session.inputs.key_fields = True  # step 6's settings, reached by hand
    assert kinds() == ["light"] * 5 + ["primary", "light"]
    session.inputs.f1_threshold = 0.55  # no step has this
    assert kinds() == ["light"] * 7


def test_a_relabelled_run_shows_the_file_note_as_the_earlier_verdicts(shared):
    # the trial: E4 (unacceptable in the file) labelled acceptable read "Person acceptable: The
    # agent never called confirm_booking, …", the file's note arguing against the new verdict
    from explorer.app.views.downloads import session_labels_csv
    from explorer.core.io.loaders.labels import loads_labels

    note = "The agent never called confirm_booking, so the seat is only held, yet it told the user the booking was confirmed."
    s = ExplorerSession(shared)
    i = list(s.features.run_ids).index("E4")
    before = shown(detail_html(s.features, s.ev, i))
    assert f"Person unacceptable: {note}" in before  # the file's verdict: its note is its reason
    s.labels.set(i, "acceptable")
    after = shown(detail_html(s.features, s.ev, i))
    assert f"Person acceptable Note from the file (with verdict unacceptable): {note}" in after
    assert f"acceptable: {note}" not in after
    assert 'class="me-hint me-file-note"' in detail_html(s.features, s.ev, i)
    # the download says the same, so a file read back never gives the note as the new verdict's
    back = loads_labels(session_labels_csv(s.features, s.labels), "labels.csv")
    assert back["E4"].verdict == "acceptable"
    assert back["E4"].note == f"Note from the file (with verdict unacceptable): {note}"
    assert back["E1"].note == shared.case_set.runs[0].human_note  # unchanged verdicts keep their note
    # cleared: the note is still the file's verdict's
    s.labels.set(i, None)
    assert f"Person unlabelled Note from the file (with verdict unacceptable): {note}" in shown(detail_html(s.features, s.ev, i))


def test_a_note_typed_with_the_label_is_the_verdicts_own(shared):
    s = ExplorerSession(shared)
    s.labels.set(3, "acceptable", note="held seats count as booked here")  # E4
    s.detail.show(s.features, s.ev, 3)  # as the session does for the selected run
    assert "Person acceptable: held seats count as booked here" in shown(s.detail.pane.object)
    assert "Note from the file" not in shown(s.detail.pane.object)
