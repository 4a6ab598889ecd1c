"""Issue 9 without a browser: settings in words, the page's URL query, honest controls, the
lesson stepper's sync, presenter mode, Reset, Play's first reveal, the args-differ call, upload
messages, and LiveHTML sending only its text.

Expected values are written out by hand from the bundled set (seed 002): opening EXACT / F1 0.8 /
all -> 4/10; E10 confirmed booking BK-4407 where the expected call confirms BK-4470; ten runs are
revealed two at a time at 12, 24, 36, 48 and 60 s.
"""

from __future__ import annotations

from pathlib import Path

import panel as pn
import pytest
from bokeh.document import Document

from explorer.app.lesson import STEPS
from explorer.app.main import ExplorerSession
from explorer.app.page import DATA_TAB, WorkspacePage
from explorer.app.shared import load_shared
from explorer.app.url import page_query, settings_from_query, split_page_query
from explorer.app.views.inputs import THRESHOLD_REASONS, threshold_reason, typed_threshold_message
from explorer.app.views.style import LiveHTML
from explorer.app.views.table import ID_MAX_PX, WIDTHS, call_html, id_width
from explorer.app.views.upload import labels_message, loaded_message, pending_labels_message
from explorer.app.words import settings_words
from explorer.app.workspace import ProcessSets, shared_from_case_set
from explorer.core.evaluation.settings import Settings
from explorer.core.io.casefile import load_case_set
from explorer.core.scoring.trajectory import MarkedCall
from html_text import shown

CASES = Path(__file__).resolve().parents[1] / "cases" / "booking_agent.json"


@pytest.fixture(scope="module")
def shared():
    return load_shared(CASES)


@pytest.fixture(scope="module")
def process():
    return ProcessSets(shared_from_case_set(load_case_set(CASES)), str(CASES), bundled=[])


# --- words -----------------------------------------------------------------------------------------

def test_opening_settings_in_words():
    assert settings_words(Settings()) == (
        "Trajectory EXACT, arguments compared · F1 threshold 0.80 · every scorer must pass · deny-list off · "
        "exact check on dates and booking ids off"
    )


def test_every_setting_of_the_last_step_in_words():
    s = Settings(trajectory="any_order", deny_check=True, deny_tools=("delete_booking",), key_fields=True, f1_threshold=0.4)
    assert settings_words(s) == (
        "Trajectory ANY_ORDER, arguments compared · F1 threshold 0.40 · every scorer must pass · "
        "deny-list on (delete_booking) · exact check on dates and booking ids on"
    )


def test_mean_rule_names_the_mean_not_the_threshold():
    words = settings_words(Settings(combine="mean", compare_args=False, trajectory="none"))
    assert words == "Trajectory not scored · mean of F1 ≥ 0.75 · deny-list off · exact check on dates and booking ids off"
    assert "threshold" not in words


def test_a_date_reading_other_than_the_case_set_s_is_named():
    assert settings_words(Settings(day_first=False)).endswith(" · numeric dates read month first")
    assert "numeric dates" not in settings_words(Settings())  # the case set's own reading: not repeated


def test_cascade_names_its_bands():
    words = settings_words(Settings(response_scorer="cascade"))
    assert "cascade: pass above 0.85, fail below 0.60, review in between" in words


# --- the page's URL query --------------------------------------------------------------------------

@pytest.mark.parametrize("value, present", [([b"true"], True), (["1"], True), ([b""], True), (["false"], False)])
def test_present_flag_is_the_page_s_not_a_setting(value, present):
    flag, rest, notices = split_page_query({"present": value, "trajectory": ["any_order"]})
    assert flag is present and rest == {"trajectory": ["any_order"]} and notices == []
    settings, setting_notices = settings_from_query(rest, Settings(), ())
    assert settings.trajectory == "any_order" and setting_notices == []  # no "not a setting" notice


def test_bad_present_value_is_a_notice():
    flag, _rest, notices = split_page_query({"present": ["maybe"]})
    assert flag is False and notices == ["Ignored present=maybe from the link: expected true or false."]


def test_page_query_is_written_whole():
    q = page_query(Settings(trajectory="in_order"), present=True)
    assert q == ("?trajectory=in_order&compare_args=true&f1_threshold=0.8&combine=all&deny_check=false"
                 "&deny_tools=&key_fields=false&present=true")
    assert "response_scorer" not in page_query(Settings())  # back on F1: the bands do not linger


# --- honest controls -------------------------------------------------------------------------------

def test_threshold_reasons():
    assert threshold_reason("all", "f1") == ""
    assert threshold_reason("all", "rouge1") == ""  # ROUGE-1 is thresholded too
    assert threshold_reason("mean", "f1") == (
        "Not used under “Mean”: a run passes when the mean of trajectory and F1 reaches the mean threshold (0.75).")
    # the mean threshold moved: the reason names it (it said 0.75 whatever the threshold was)
    assert threshold_reason("mean", "f1", 0.7).endswith("reaches the mean threshold (0.70).")
    assert threshold_reason("all", "cascade") == THRESHOLD_REASONS["cascade"]


@pytest.mark.parametrize("value, message", [
    (0.0, ""), (1.0, ""), (0.41, ""),
    (1.5, "1.5 is outside 0 to 1, so it was not applied; the threshold stays as it was."),
    (-0.2, "-0.2 is outside 0 to 1, so it was not applied; the threshold stays as it was."),
    (None, "Type a number from 0 to 1; the threshold stays as it was."),
])
def test_typed_threshold_messages(value, message):
    assert typed_threshold_message(value) == message


def test_controls_that_do_nothing_are_disabled_with_a_reason(shared):
    session = ExplorerSession(shared)
    view = session.inputs_view
    assert view.deny_tools.disabled and view.deny_reason.visible  # deny-list check off (opening)
    assert not view.f1.disabled and not view.f1_reason.visible
    session.inputs.deny_check = True
    assert not view.deny_tools.disabled and not view.deny_reason.visible
    session.inputs.combine = "mean"
    assert view.f1.disabled and view.f1_input.disabled and view.f1_reason.visible
    assert "Not used under “Mean”" in shown(view.f1_reason.object)


def test_out_of_range_typed_threshold_is_refused_with_a_message(shared):
    session = ExplorerSession(shared)
    view = session.inputs_view
    view.f1_input.value = 1.5
    assert session.inputs.f1_threshold == 0.8 and view.f1_input.value == 0.8
    assert view.f1_message.visible and "1.5 is outside 0 to 1" in shown(view.f1_message.object)
    assert "All runs: 4/10 agree" in shown(session.metrics.summary.object)
    view.f1_input.value = 0.9  # a good value applies and clears the message
    assert session.inputs.f1_threshold == 0.9 and not view.f1_message.visible
    assert "All runs: 5/10 agree" in shown(session.metrics.summary.object)  # exact, 0.9, all (seed 002)


# --- the stepper ----------------------------------------------------------------------------------

def test_stepper_text_follows_the_inputs(shared):
    session = ExplorerSession(shared)
    assert "Step 1 of 7: The opening run: strict and still wrong lesson 4/10 · yours 4/10" in shown(session.lesson.head.object)
    session.inputs.trajectory = "in_order"  # step 2's settings by hand
    assert shown(session.lesson.head.object).startswith("Step 2 of 7: Loosen to IN_ORDER lesson 5/10 · yours 5/10")
    assert session.lesson.prev.disabled is False and session.lesson.next.disabled is False
    session.inputs.f1_threshold = 0.55
    assert shown(session.lesson.head.object).startswith("Your own settings")
    assert "Prev and Next go on from step 2" in shown(session.lesson.text.object)
    session.lesson.step_by(+1)  # Next from step 2: step 3's settings, all of them
    assert session.inputs.settings() == STEPS[2].settings(shared.defaults)
    assert "Step 3 sets: Trajectory ANY_ORDER" in shown(session.lesson.text.object)
    session.choose_step(STEPS[6])
    assert session.lesson.next.disabled and "yours 10/10" in shown(session.lesson.head.object)


def test_a_link_on_a_step_opens_on_that_step(shared):
    session = ExplorerSession(shared, {"trajectory": ["any_order"], "deny_check": ["true"], "key_fields": ["true"]})
    assert [b.color for b in session.lesson.buttons] == ["light"] * 5 + ["primary", "light"]
    assert "Step 6 of 7:" in shown(session.lesson.head.object)


# --- replay, reset --------------------------------------------------------------------------------

def test_play_shows_the_first_runs_at_once(shared):
    session = ExplorerSession(shared)
    session.toggle_play()
    assert session.clock.playing and session.clock.time == 12.0  # E1-E2 revealed at once
    assert session.table.ids == ["E1", "E2"]
    session.toggle_play()
    assert not session.clock.playing and session.clock.time == 12.0


def test_reset_goes_back_to_the_opening_and_rewinds(shared):
    session = ExplorerSession(shared)
    session.inputs.param.update(trajectory="any_order", deny_check=True)
    session.clock.time = 48.0
    session.table.table.selection = [0]
    session.reset()
    assert session.inputs.settings() == shared.defaults
    assert session.clock.time == 0.0 and not session.clock.playing and session.selected_id is None
    assert "All runs: 4/10 agree" in shown(session.metrics.summary.object)
    session.clock.time = 30.0
    session.reset()  # already on the opening: still rewinds
    assert session.clock.time == 0.0


# --- presenter mode, page --------------------------------------------------------------------------

def test_presenter_mode_from_the_link_hides_the_data_tools(process):
    page = WorkspacePage(process, {"present": [b"true"]})
    page.layout().get_root(Document())
    assert page.state.present and "me-present" in page.root.css_classes
    names = [page.attached.tabs._names[i] for i in range(len(page.attached.tabs))]
    assert DATA_TAB not in names and not page.attached.filter_row.visible
    assert not page.session.notice.visible  # present is no setting: no notice
    page.state.present = False
    assert page.attached.tabs[-1] is page.data_tab and page.attached.filter_row.visible
    assert "me-present" not in page.root.css_classes


def test_failed_upload_keeps_no_success_line(process):
    page = WorkspacePage(process, {})
    page.received("runs.jsonl", b'{"id": "r1"}\n')
    assert page.upload.error.visible and not page.upload.status.visible
    assert "Could not load this file." in shown(page.upload.error.object)


def test_upload_messages_are_sentences():
    assert loaded_message("runs.jsonl", 1000) == "Loaded 1,000 runs from runs.jsonl. They are scored with the settings you had; press Play to list them."
    # a trial's findings: one run read "Loaded 1 run from huge.jsonl. They are shown now", and the
    # table was empty under "shown now" (it lists the runs the replay has revealed, from t = 0)
    assert loaded_message("huge.jsonl", 1) == "Loaded 1 run from huge.jsonl. It is scored with the settings you had; press Play to list it."
    assert loaded_message("one.json", 1).startswith("Loaded 1 run from one.json.")
    assert labels_message("labels.csv", 0) == "Applied the labels in labels.csv."
    assert labels_message("labels.csv", 1) == "Applied the labels in labels.csv. 1 run id in the file matches no run here and was skipped."
    assert labels_message("l.csv", 3).endswith("3 run ids in the file match no run here and were skipped.")
    assert pending_labels_message("labels.csv", 2).startswith("None of the 2 run ids in labels.csv names a run shown here: ")
    assert pending_labels_message("labels.csv", 1).startswith("The one run id in labels.csv names no run shown here: ")


# --- the table's marked calls ---------------------------------------------------------------------

def test_args_differ_call_shows_the_differing_argument():
    label = 'confirm_booking(booking_id: "BK-4407" ≠ "BK-4470")'
    cell = call_html(MarkedCall("confirm_booking", label, "args differ", 2))
    assert 'class="me-call me-call-args-differ"' in cell
    assert shown(cell) == f"{label} args differ"
    assert shown(call_html(MarkedCall("get_weather", "get_weather(city: Rome)", "extra", 2))) == "get_weather extra"


def test_e10_in_the_table_shows_args_differ_not_extra_and_missing(shared):
    session = ExplorerSession(shared)
    session.clock.time = 60.0
    actual = shown(session.table.table.value.loc[9, "Actual calls"])  # E10, the tenth run
    assert 'confirm_booking(booking_id: "BK-4407" ≠ "BK-4470") args differ' in actual
    assert "confirm_booking extra" not in actual and "confirm_booking missing" not in actual


# --- LiveHTML --------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls, sent", [(pn.pane.HTML, ["stylesheets", "text"]), (LiveHTML, ["text"])],
                         ids=["panel HTML re-sends its stylesheets", "LiveHTML sends its text"])
def test_live_html_sends_only_its_text(cls, sent):
    """In the served page the first object change of a pn.pane.HTML carried a stylesheet list other
    than the one the page was built with (the browser then re-laid out the whole page, ~0.5 s).
    Here the model's list is made to differ the same way; an object change of LiveHTML touches the
    text alone, a plain HTML pane's sends the stylesheets again."""
    pane = cls("<b>a</b>", stylesheets=["/assets/explorer.css"])
    doc = Document()
    model = pane.get_root(doc)
    doc.add_root(model)
    model.stylesheets = model.stylesheets[1:]  # as built for the page: not the list an update makes
    changed = []
    doc.on_change(lambda event: changed.append(getattr(event, "attr", type(event).__name__)))
    pane.object = "<b>b</b>"
    assert sorted(changed) == sent
    assert model.text == "&lt;b&gt;b&lt;/b&gt;"  # the new text, escaped as Panel sends HTML text


def test_the_id_column_is_as_wide_as_the_case_set_s_ids():
    """A trial found an ADK eval id, ``book_cheapest_flight``, cut to "bo…" in the 48 px ID column
    made for E1..E10 (and synthetic ids, R0000001, cut to "R00000…"). The width is 16 px of padding
    and 9.5 px a character, from 48 to 220 px."""
    assert id_width(0) == id_width(3) == WIDTHS["ID"] == 48  # E10: the bundled lesson's table as before
    assert id_width(8) == 92  # 16 + 9.5 * 8
    assert id_width(20) == 206  # 16 + 9.5 * 20
    assert id_width(22) == ID_MAX_PX == id_width(500) == 220
    page = WorkspacePage(ProcessSets(shared_from_case_set(_long_id_set())))
    assert page.session.table.table.widths["ID"] == 206
    bundled = WorkspacePage(ProcessSets(load_shared(CASES)))
    assert bundled.session.table.table.widths["ID"] == 48


def _long_id_set():
    from explorer.core.io.model import CaseSet, Invocation, Run

    inv = Invocation(expected_calls=(), actual_calls=(), answer="ok", references=("ok",))
    return CaseSet("ids", "", (Run(id="book_cheapest_flight", title="", user_input="", invocations=(inv,)),
                               Run(id="é" * 7, title="", user_input="", invocations=(inv,))))


def test_longest_run_id_counts_characters_in_memory_and_in_arrow():
    from explorer.core.evaluation.features import build_features
    from explorer.core.evaluation.textcolumn import TextColumn

    features = build_features(_long_id_set())
    assert features.longest_run_id == 20
    assert TextColumn.from_strings(["é" * 7, "abc"]).longest() == 7  # code points, not UTF-8 bytes (14)
    assert TextColumn.from_strings([]).longest() == 0


LONG_IDS = b"\n".join(
    b'{"id": "%s", "human_verdict": "acceptable", "expected_calls": [{"name": "search_flights", "args": {}}], '
    b'"actual_calls": [{"name": "search_flights", "args": {}}], "answer": "Booked.", "reference": "Booked."}' % i
    for i in (b"book_cheapest_flight", b"cancel_old_booking")) + b"\n"


def test_an_uploaded_run_file_says_how_to_list_its_runs(process):
    """A trial found the table empty after an upload ("Nothing revealed yet") under a status line
    saying the runs are shown now: the new set's replay starts at t = 0. The line says what is
    done (scored) and how to list them; Play lists them, the ID column as wide as their ids."""
    page = WorkspacePage(process, {})
    page.received("long_ids.jsonl", LONG_IDS)
    session = page.session
    assert session.shared.case_set.name != process.served.case_set.name
    assert shown(page.upload.status.object).startswith(
        "Loaded 2 runs from long_ids.jsonl. They are scored with the settings you had; press Play to list them.")
    assert session.clock.time == 0.0 and session.table.ids == []
    session.clock.param.update(playing=False, time=60.0)  # every run revealed
    assert session.table.ids == ["book_cheapest_flight", "cancel_old_booking"]
    assert session.table.table.widths["ID"] == 206  # 16 + 9.5 * 20


def test_the_replay_line_never_reads_0_of_0():
    """A trial read the replay's ``Revealed so far: 0/0 agree`` under the all-runs figure as a
    second answer: before the first reveal it says none yet, and over revealed runs of which
    none has a label it says so."""
    session = ExplorerSession(shared_from_case_set(_long_id_set()))  # two runs, no label
    assert shown(session.metrics.replay.object).startswith("Revealed so far: none yet, press Play · 0 of 2 runs revealed")
    session.clock.param.update(playing=False, time=60.0)  # every run revealed
    assert shown(session.metrics.replay.object).startswith("Revealed so far: no labelled run · 2 of 2 runs revealed · t = 60.0 s")
    assert "0/0" not in shown(session.metrics.replay.object)
