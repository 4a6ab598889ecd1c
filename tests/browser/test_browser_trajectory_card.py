"""Issue 12 in the browser: every trajectory metric in the trajectory card, the argument mode and
rules, the refund-agent lesson, the full sweep and the settings file round trip.

Figures worked out by hand from cases/booking_agent.json (docs/trajectory-metrics.md for the
definitions; F1 values from seed 002: E1 0.62, E7 0.41, the others >= 0.80):

* recall = matched expected calls / expected calls. E4 made 2 of its 3 expected calls (no
  confirm_booking): 0.667; E9 1 of 3; E10 1 of 3 (confirm_booking's booking_id differs, book_flight
  missing); every other run made all three (extras do not count against recall): 1.
* recall >= 1.00 or >= 0.67: E4, E9, E10 fail the trajectory (agree: unacceptable), E1 and E7 fail
  on F1 (false fails), E5 and E6 pass (false passes), E2, E3, E8 pass (agree): 6/10.
* recall >= 0.66: E4's 0.667 passes and its F1 (0.95) too: a third false pass, 5/10.

cases/refund_agent.json (docs/trajectory-metrics.md's lesson table): step 1 EXACT 5/8 (false fails
R2, R3, R8), step 3 recall >= 0.75 6/8 (false passes R4, R6). The set ignores send_confirmation's
sent_at by a rule; without it R5 (sent a minute later) fails EXACT too: 4/8, false fails R2, R3,
R5, R8.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from explorer_page import App, expect_no_sideways_scroll, shoot

pytestmark = pytest.mark.browser

IGNORE_BOOKING_ID = '[{"tool": "confirm_booking", "key": "booking_id", "rule": "ignore"}]'
SENT_AT_RULE = {"format": "metric-explorer/arg-rules@1", "rules": [{"tool": "send_confirmation", "key": "sent_at", "rule": "ignore"}]}


REFUND_LESSON = "The refund-agent lesson"
"""The stepper's name on cases/refund_agent.json."""


def pick_set(app: App, name_part: str, lesson: str) -> None:
    """Choose the case set whose picker label contains ``name_part`` ("Your data" tab) and wait
    until the stepper is its ``lesson``: the explorer is the new set's (the header changes first)."""
    app.open_tab("Your data")
    select = app.el("me-case-picker").locator("select")
    label = select.locator("option", has_text=name_part).first.text_content()
    select.select_option(label=label)
    app.expect_text("me-lesson", lesson)
    app.open_tab("Explorer")


def expect_disabled_slider(app: App, name: str, disabled: bool = True) -> None:
    target = app.el(name).locator(".noUi-target")
    if disabled:
        expect(target).to_have_attribute("disabled", re.compile(".*"))
    else:
        expect(target).not_to_have_attribute("disabled", re.compile(".*"))


def apply_rules_text(app: App, text: str) -> None:
    """Open the rules panel (if closed), put ``text`` in its box and press Apply rules."""
    toggle = app.el("me-arg-rules-toggle").get_by_role("button")
    if not app.el("me-arg-rules-text").is_visible():
        toggle.click()
    box = app.el("me-arg-rules-text").locator("textarea")
    box.fill(text)
    box.blur()  # the box sends its value on change
    app.el("me-arg-rules-apply").get_by_role("button").click()


# --- recall with a threshold ------------------------------------------------------------------------

def test_recall_at_0_67_changes_the_agreement_and_the_reasons(app_page):
    app = app_page
    app.expect_whole("4/10")
    # EXACT on one-turn runs: the threshold does nothing, and says so
    expect_disabled_slider(app, "me-trajectory-threshold")
    expect(app.el("me-trajectory-threshold-input").locator("input").first).to_be_disabled()
    app.expect_text("me-trajectory-threshold-reason", "Threshold not used: EXACT scores each one-turn run 1 (pass) or 0 (fail).")
    app.next_events(5, then_time=60.0)
    expect(app.row_of("E2")).to_contain_text("extra call get_weather at position 2")  # EXACT's reason

    app.choose("me-trajectory", "recall")
    app.expect_text("me-trajectory-definition", "recall (scores 0 to 1): share of the expected calls that were made.")
    expect(app.el("me-trajectory-threshold-reason")).to_be_hidden()
    expect_disabled_slider(app, "me-trajectory-threshold", False)
    app.expect_whole("6/10")  # recall >= 1.00: every expected call made
    app.trajectory_threshold_keys_to(0.67)
    app.expect_whole("6/10")
    app.expect_whole_lists(["E5", "E6"], ["E1", "E7"])
    app.expect_text("me-settings-words", "Trajectory recall ≥ 0.67, arguments compared")
    expect(app.page).to_have_url(re.compile(r"[?&]trajectory=recall(&|$)"))
    expect(app.page).to_have_url(re.compile(r"[?&]trajectory_threshold=0\.67(&|$)"))
    app.expect_chosen("me-chart-x", "Trajectory threshold")  # the live threshold is charted

    app.next_events(5, then_time=60.0)  # the input change rewound the replay
    expect(app.row_of("E4")).to_contain_text("trajectory recall 0.667 < 0.67: missing call confirm_booking")
    expect(app.row_of("E4")).to_contain_text("fail 0.667")  # its Trajectory cell read "fail 0.67" beside threshold 0.67
    expect(app.row_of("E2")).to_contain_text("all checks pass (trajectory recall 1.00, F1 0.86 >= 0.80)")

    box = app.el("me-trajectory-threshold-input").locator("input").first
    box.fill("0.66")
    box.press("Enter")
    app.wait_for_value("me-trajectory-threshold", 0.66)
    app.expect_whole("5/10")  # E4's 0.667 now reaches the threshold: a false pass
    app.expect_whole_lists(["E4", "E5", "E6"], ["E1", "E7"])

    app.choose("me-trajectory", "EXACT")  # back to a 1/0 family: the threshold goes back to 1
    app.wait_for_value("me-trajectory-threshold", 1.0)
    app.expect_whole("4/10")
    app.expect_text("me-lesson-head", "Step 1 of 7:")


def test_strict_and_single_tool_use_notes_say_what_they_score(app_page):
    # the trial: strict's note read "Not used: EXACT scores…"; single tool use (1 or 0 per turn)
    # kept its 0–1 threshold enabled on these one-turn runs
    app = app_page
    app.choose("me-trajectory", "strict")
    app.expect_text("me-trajectory-threshold-reason", "Threshold not used: strict scores each one-turn run 1 (pass) or 0 (fail).")
    app.choose("me-trajectory", "single tool use")
    app.expect_text("me-trajectory-definition", "single tool use (pass or fail per turn): the named tool was called.")
    app.expect_text("me-trajectory-threshold-reason", "Threshold not used: single tool use scores each one-turn run 1 (pass) or 0 (fail).")
    expect_disabled_slider(app, "me-trajectory-threshold")
    group = app.el("me-trajectory").locator("optgroup", has=app.page.locator("option", has_text="single tool use"))
    expect(group).to_have_attribute("label", "Tool check, pass or fail per turn")


def test_argument_mode_meaning_and_rules_change_the_call_marks(app_page):
    app = app_page
    app.expect_text("me-args-meaning", "exact: same keys, equal values (ADK’s ==).")
    app.choose("me-args", "subset")
    app.expect_text("me-args-meaning", "subset: the call’s args are among the expected ones: no extra keys, a missing one is fine.")
    app.choose("me-args", "superset")
    app.expect_text("me-args-meaning", "superset: every expected arg is present; extra keys allowed.")
    app.choose("me-args", "exact")
    app.next_events(5, then_time=60.0)
    e10 = app.row_of("E10")
    expect(e10.locator(".me-call-args-differ")).to_have_text(re.compile(r'confirm_booking\(booking_id: "BK-4407" ≠ "BK-4470"\)'))
    # EXACT's reason names what the marks show (it read "extra call confirm_booking at position 2")
    expect(e10).to_contain_text('missing call book_flight; confirm_booking at position 2: booking_id "BK-4407" ≠ "BK-4470"')

    apply_rules_text(app, IGNORE_BOOKING_ID)
    app.expect_text("me-arg-rules-status", "Applied 1 rule from the rules box: the trajectory scores of 10 runs were computed again.")
    expect(app.el("me-arg-rules-toggle").get_by_role("button")).to_have_text("Rules (1)")
    # confirm_booking's booking_id is ignored by the rule: the call pairs; book_flight is still
    # missing (the table is built again where the replay is: a rules change does not rewind it)
    app.expect_time(60.0)
    e10 = app.row_of("E10")
    expect(e10.locator(".me-call-args-differ")).to_have_count(0)
    expect(e10.locator(".me-call-missing")).to_contain_text("book_flight")
    expect(e10).to_contain_text(re.compile(r"missing call book_flight(?! at position)"))
    app.expect_whole("4/10")

    apply_rules_text(app, '[{"key": "booking_id", "rule": "fuzzy"}]')
    app.expect_text("me-arg-rules-status", re.compile(
        r"Could not use these rules\. the rules box: rules\[0\]\.rule: expected one of ignore, text, rung, number, date"))
    expect(app.el("me-arg-rules-toggle").get_by_role("button")).to_have_text("Rules (1)")  # the rules in use stay


def test_rules_in_use_are_in_the_settings_words_and_the_link(app_page):
    # the trial: the rules were missing from the settings words and the link; an empty box gave
    # "invalid JSON: Expecting value"; the file input's "No file chosen" read "No …en"
    app = app_page
    apply_rules_text(app, IGNORE_BOOKING_ID)
    app.expect_text("me-settings-words", "exact check on dates and booking ids off · 1 argument rule: booking_id of confirm_booking ignored")
    app.expect_text("me-arg-rules-link", "The page’s link holds these rules: a shared link applies them.")
    expect(app.page).to_have_url(re.compile(r"[?&]arg_rules=%5B%7B%22tool%22%3A%22confirm_booking%22%2C%22key%22%3A"
                                            r"%22booking_id%22%2C%22rule%22%3A%22ignore%22%7D%5D(&|$)"))
    link = app.page.url
    app.open(link[len(app.url):])  # a new session from the shared link: the rule applies, E10 pairs its call
    app.expect_text("me-settings-words", "1 argument rule: booking_id of confirm_booking ignored")
    expect(app.el("me-arg-rules-toggle").get_by_role("button")).to_have_text("Rules (1)")
    app.expect_text("me-arg-rules-status", "Applied 1 rule from the link: the trajectory scores of 10 runs were computed again.")
    app.next_events(5, then_time=60.0)
    expect(app.row_of("E10").locator(".me-call-args-differ")).to_have_count(0)

    apply_rules_text(app, "")  # an empty box clears the rules
    app.expect_text("me-arg-rules-status", "Removed the argument rules: the trajectory scores of 10 runs were computed again.")
    expect(app.el("me-arg-rules-toggle").get_by_role("button")).to_have_text("Rules")
    expect(app.el("me-settings-words")).not_to_contain_text("argument rule")
    expect(app.page).not_to_have_url(re.compile("arg_rules"))
    expect(app.el("me-arg-rules-link")).to_be_hidden()


def test_a_hostile_link_opens_the_page_and_shows_its_rules_as_text(app_page, output_path):
    # arg_rules nested 2,000 lists deep raised RecursionError in the session: the link opened no page
    from urllib.parse import quote

    app = app_page
    app.open("?arg_rules=" + quote("[" * 2000 + "]" * 2000))
    app.expect_text("me-notice", "from the link: line 1, column 1001: invalid JSON: nested too deeply (over 1,000 levels of [ and {).")
    app.expect_whole("4/10")
    app.page.set_viewport_size({"width": 1024, "height": 768})
    try:
        expect_no_sideways_scroll(app)  # the notice wraps
        shoot(app, output_path, "hostile-link-notice-1024")
    finally:
        app.page.set_viewport_size({"width": 1280, "height": 720})
    # markup in a rule's tool and key (a link is anyone's text) reads as text in the settings words
    rule = '[{"tool":"<img src=x onerror=alert(1)>","key":"<b>id</b>","rule":"ignore"}]'
    app.open("?arg_rules=" + quote(rule))
    app.expect_text("me-settings-words", "1 argument rule: <b>id</b> of <img src=x onerror=alert(1)> ignored")
    expect(app.el("me-settings-words").locator("img")).to_have_count(0)
    expect(app.el("me-settings-words").locator("b", has_text="id")).to_have_count(0)
    assert app.dialogs == []
    # a 400-character key and a 300-character tool are cut in the words: no sideways scroll at 1024x768
    app.open("?arg_rules=" + quote(json.dumps([{"tool": "t" * 300, "key": "k" * 400, "rule": "ignore"}])))
    app.expect_text("me-settings-words", "1 argument rule: " + "k" * 39 + "… of " + "t" * 39 + "… ignored")
    app.page.set_viewport_size({"width": 1024, "height": 768})
    try:
        expect_no_sideways_scroll(app)
        shoot(app, output_path, "long-rule-words-1024")
    finally:
        app.page.set_viewport_size({"width": 1280, "height": 720})


@pytest.mark.parametrize("width", [1024, 1440])
def test_the_rules_file_input_is_whole_inside_its_card(app_page, width):
    app = app_page
    app.page.set_viewport_size({"width": width, "height": 900})
    try:
        app.el("me-arg-rules-toggle").get_by_role("button").click()
        file_input = app.el("me-arg-rules-file").locator("input[type=file]")
        expect(file_input).to_be_visible()
        box = file_input.bounding_box()
        card = app.el("me-arg-rules-text").bounding_box()  # the box above it spans the card's width
        # Chromium's "Choose File" button and "No file chosen" need about 190 px at 13 px type
        assert box["width"] >= 200, box
        assert box["x"] >= card["x"] - 1 and box["x"] + box["width"] <= card["x"] + card["width"] + 1, (box, card)
        expect_no_sideways_scroll(app)
    finally:
        app.page.set_viewport_size({"width": 1280, "height": 720})


# --- the refund-agent lesson and its argument rule -------------------------------------------------

def test_refund_set_shows_its_lesson_and_its_rules(app_page):
    app = app_page
    pick_set(app, "Refund agent", REFUND_LESSON)
    app.expect_text("me-lesson", "The refund-agent lesson")
    expect(app.page.locator(".me-lesson-step")).to_have_count(5)
    app.expect_whole("5/8")
    app.expect_text("me-lesson-head", "Step 1 of 5:")
    app.press("me-lesson-3")
    app.expect_whole("6/8")
    app.expect_whole_lists(["R4", "R6"], [])
    app.expect_chosen("me-trajectory", "recall")
    app.wait_for_value("me-trajectory-threshold", 0.75)
    app.expect_chosen("me-chart-x", "Trajectory threshold")
    app.press("me-lesson-5")
    app.expect_whole("6/8")
    app.expect_chosen("me-args", "ignore (names only)")

    app.press("me-lesson-1")
    app.expect_whole("5/8")
    expect(app.el("me-arg-rules-toggle").get_by_role("button")).to_have_text("Rules (1)")  # the set's sent_at rule
    apply_rules_text(app, "[]")
    app.expect_text("me-arg-rules-status", "Removed the argument rules: the trajectory scores of 8 runs were computed again.")
    app.expect_whole("4/8")
    app.expect_whole_lists([], ["R2", "R3", "R5", "R8"])
    # the rule back, from a file
    app.el("me-arg-rules-file").locator("input[type=file]").set_input_files(
        files=[{"name": "rules.json", "mimeType": "application/json", "buffer": json.dumps(SENT_AT_RULE).encode()}])
    app.expect_text("me-arg-rules-status", "Applied 1 rule from rules.json: the trajectory scores of 8 runs were computed again.")
    app.expect_whole("5/8")


# --- the sweep ----------------------------------------------------------------------------------

def test_sweep_heatmap_shows_one_slice_of_the_full_grid(app_page):
    app = app_page
    app.open_tab("Settings sweep")
    app.expect_text("me-sweep-best", "Best agreement 10/10 (false passes 0, false fails 0)")
    # the best's slice: combine all, deny-list on, key fields on; 5 match families x 4 argument
    # modes + 4 partial scores x 4 + not scored = 37 rows
    app.expect_chosen("me-sweep-combine", "all")
    app.expect_chosen("me-sweep-deny", "on")
    app.expect_chosen("me-sweep-key", "on")
    app.expect_text("me-sweep-slice", "37 rows × 101 F1 thresholds = 3,737 of the 159,176 settings")
    expect(app.el("me-sweep-heatmap").locator("canvas").first).to_be_visible()
    app.choose("me-sweep-combine", "mean")
    app.expect_text("me-sweep-slice", re.compile("under “mean” no threshold is read"))
    expect(app.el("me-sweep-trajectory-threshold").locator("select")).to_be_disabled()


# --- settings file round trip -------------------------------------------------------------------

def test_settings_json_round_trip_through_the_drop_zone(app_page, tmp_path):
    app = app_page.open("?trajectory=recall&trajectory_threshold=0.67")
    app.expect_whole("6/10")
    app.open_tab("Your data")
    with app.page.expect_download() as info:
        app.el("me-download-settings").locator("button, a").first.click()
    saved = tmp_path / "settings.json"
    info.value.save_as(saved)
    data = json.loads(saved.read_text())
    assert data["format"] == "metric-explorer/settings@1"
    assert (data["settings"]["trajectory"], data["settings"]["trajectory_threshold"]) == ("recall", 0.67)

    app.open()  # a new session on the opening settings
    app.expect_whole("4/10")
    app.upload(("settings.json", saved.read_bytes(), "application/json"))
    app.expect_text("me-load-status", "Applied the settings in settings.json.")
    app.expect_whole("6/10")
    app.expect_chosen("me-trajectory", "recall")
    app.wait_for_value("me-trajectory-threshold", 0.67)


# --- the case-set picker ----------------------------------------------------------------------------

def test_case_set_picker_names_each_set_by_its_own_name(app_page):
    # the picker read "refund_agent (bundled)" and "token_overlap (bundled)", the files' stems;
    # the names are the "name" fields of cases/refund_agent.json and cases/token_overlap.json
    app = app_page
    app.open_tab("Your data")
    options = app.el("me-case-picker").locator("select option")
    # a bundled set another test loaded in this server process already shows its run count
    expect(options).to_have_text(["Booking agent: ten judged runs (served, 10 runs)",
                                  re.compile(r"^Refund agent: partial credit \(bundled(, 8 runs)?\)$"),
                                  re.compile(r"^Token overlap and where it fails \(seed 000\) \(bundled(, 3 runs)?\)$")])
    pick_set(app, "Refund agent", REFUND_LESSON)
    app.open_tab("Your data")
    expect(app.el("me-case-picker").locator("select option:checked")).to_have_text("Refund agent: partial credit (bundled, 8 runs)")


# --- untrusted tool names in the single tool picker -------------------------------------------------

def test_single_tool_picker_shows_tool_names_as_text(xss_page):
    app = xss_page
    app.choose("me-trajectory", "single tool use")
    picker = app.el("me-single-tool").locator("select")
    expect(picker.locator("option", has_text="<img src=x onerror=alert(7)>")).to_have_count(1)
    expect(app.page.locator('img[src="x"]')).to_have_count(0)
    app.page.wait_for_timeout(500)
    assert app.dialogs == []


# --- screenshots ----------------------------------------------------------------------------------

@pytest.mark.parametrize("width, height", [(1440, 900), (1024, 768)], ids=["1440x900", "1024x768"])
def test_screenshots_of_the_trajectory_card(new_offline_context, booking_app, output_path, width, height):
    """Saved in this test's output folder: recall at 0.67 with the runs revealed, the argument
    rules open, the sweep tab, the refund-agent lesson at step 3."""
    context, external = new_offline_context({"width": width, "height": height})
    app = App(context.new_page(), booking_app.url).open("?trajectory=recall&trajectory_threshold=0.67")
    app.expect_whole("6/10")
    app.next_events(5, then_time=60.0)
    app.page.evaluate("window.scrollTo(0, 0)")
    shoot(app, output_path, "recall-0.67")
    apply_rules_text(app, IGNORE_BOOKING_ID)
    app.expect_text("me-arg-rules-status", re.compile("Applied 1 rule"))
    app.el("me-arg-rules-toggle").scroll_into_view_if_needed()
    shoot(app, output_path, "argument-rules")
    app.open_tab("Settings sweep")
    app.expect_text("me-sweep-best", re.compile("Best agreement"))
    app.page.evaluate("window.scrollTo(0, 0)")
    shoot(app, output_path, "sweep")
    pick_set(app, "Refund agent", REFUND_LESSON)
    app.press("me-lesson-3")
    app.expect_text("me-lesson-head", "Step 3 of 5:")
    app.expect_whole("6/8")
    app.page.mouse.move(5, 5)  # no tooltip in the picture
    app.page.evaluate("window.scrollTo(0, 0)")
    shoot(app, output_path, "refund-lesson-step-3")
    assert external == []
    context.close()
