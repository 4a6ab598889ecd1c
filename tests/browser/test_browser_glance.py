"""Issue 9's acceptance: the app at a glance, in real Chromium.

* At 1440×900, after each story setting (tests/browser/story.py) and each lesson step chosen from
  the stepper, the summary's all-runs figure is inside the viewport and reads the story's value,
  and it is the largest agreement figure on the page.
* On load at 1440×900 the settings, the summary, the chart and the table's first rows are in the
  viewport and the page is at most 1.3 screens tall; no page-level sideways scroll at 1024×768,
  1280×720, 1440×900 at device scale factor 1.5, and 960×600 (1440×900 at 150 % zoom).
* Presenter mode, Reset to opening, Copy link; the selected run beside the table with the summary
  in view; Play shows the first runs at once; a failed upload shows no success marker; disabled
  controls carry ``disabled`` and say why; an out-of-range typed threshold is refused with a message.

Figures are seed 002's (the lesson's table, tests/test_booking_acceptance.py): opening 4/10,
IN_ORDER 5/10, ANY_ORDER 6/10, Not scored 5/10, F1 0.9 5/10, mean 5/10, deny-list 7/10, key fields
8/10, F1 0.4 10/10. E10 ("claimed a booking it never made") confirmed BK-4407 where the reference
call confirms BK-4470.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from explorer_page import App, expect_no_sideways_scroll, first_event_at, settled_boxes, shoot, shown_at
from story import ROWS, STORY, set_through_widgets

pytestmark = pytest.mark.browser

STEPS = ["4/10", "5/10", "6/10", "5/10", "7/10", "8/10", "10/10"]
"""The lesson's figure at each of its seven steps (issue 2's table)."""

FIGURES = r"""() => {
  // every visible text showing an agreement-like figure n/N, with its font size and whether it is
  // the summary's all-runs figure
  const out = [];
  const walk = root => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      for (const node of el.childNodes) {
        if (node.nodeType !== 3 || !/\b\d+\/\d+\b/.test(node.textContent)) continue;
        if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        out.push({text: node.textContent.trim(), size: parseFloat(getComputedStyle(el).fontSize),
                  whole: !!el.closest('.me-whole-agreement')});
      }
    }
  };
  walk(document);
  return out;
}"""

PAGE_SIZE = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth, document.documentElement.scrollHeight]"


def in_viewport(app: App, selector) -> dict:
    """The bounding box of the first element matching ``selector`` (CSS, or a locator); fails
    unless it lies inside the viewport."""
    locator = app.page.locator(selector) if isinstance(selector, str) else selector
    expect(locator.first).to_be_visible()
    box = locator.first.bounding_box()
    view = app.page.viewport_size
    assert box is not None, f"{selector} is not rendered"
    inside = (box["x"] >= -0.5 and box["y"] >= -0.5 and box["x"] + box["width"] <= view["width"] + 0.5
              and box["y"] + box["height"] <= view["height"] + 0.5)
    assert inside, f"{selector} at {box} is not inside the {view['width']}x{view['height']} viewport"
    return box


def expect_summary_in_view(app: App, agree: str) -> None:
    """The summary's all-runs figure reads ``agree``, is inside the viewport and is the largest
    agreement figure on the page."""
    app.expect_whole(agree)
    expect(app.page.locator(".me-whole-agreement .me-figure").first).to_have_text(agree)
    in_viewport(app, ".me-whole-agreement .me-figure")
    figures = app.page.evaluate(FIGURES)
    whole = [f for f in figures if f["whole"]]
    others = [f for f in figures if not f["whole"]]
    assert whole, f"no all-runs figure among {figures}"
    biggest = max(f["size"] for f in whole)
    assert all(f["size"] < biggest for f in others), (
        f"an agreement figure as large as the all-runs one ({biggest}px): {[f for f in others if f['size'] >= biggest]}"
    )


# --- the summary stays in view --------------------------------------------------------------------

@pytest.mark.parametrize("name", STORY)
def test_story_setting_shows_its_figure_in_the_summary(glance_page, name):
    app = glance_page
    row = ROWS[name]
    set_through_widgets(app, row)
    expect_summary_in_view(app, row.agree)
    app.expect_whole_lists(row.false_pass, row.false_fail)
    in_viewport(app, ".me-whole-false-fail")


def test_lesson_steps_from_the_stepper_keep_the_summary_in_view(glance_page):
    app = glance_page
    for k, agree in enumerate(STEPS, start=1):
        app.press(f"me-lesson-{k}")
        expect_summary_in_view(app, agree)
        app.expect_text("me-lesson-head", f"Step {k} of 7:")
        app.expect_text("me-lesson-head", f"lesson {agree} · yours {agree}")
        in_viewport(app, ".me-lesson-head")
        assert app.page.evaluate("window.scrollY") < 1, "choosing a step scrolled the page"
    # Prev / Next walk the steps from the one shown
    app.press("me-lesson-prev")
    expect_summary_in_view(app, STEPS[5])
    app.expect_text("me-lesson-head", "Step 6 of 7:")
    app.press("me-lesson-next")
    expect_summary_in_view(app, STEPS[6])
    expect(app.el("me-lesson-next").get_by_role("button")).to_be_disabled()  # the last step


def test_lesson_text_follows_links_and_hand_set_inputs(glance_page):
    app = glance_page
    app.expect_text("me-lesson-head", "Step 1 of 7:")  # the opening settings are step 1, said so
    expect(app.el("me-lesson-1").get_by_role("button")).to_have_class(re.compile(r"\bbk-btn-primary\b"))
    app.choose("me-trajectory", "IN_ORDER")  # step 2's settings, set by hand
    app.expect_text("me-lesson-head", "Step 2 of 7:")
    expect(app.el("me-lesson-2").get_by_role("button")).to_have_class(re.compile(r"\bbk-btn-primary\b"))
    app.type_f1("0.55")  # no step has this
    app.expect_text("me-lesson-head", "Your own settings")
    # a link on step 6's settings opens on step 6, text and highlight together
    app.open("?trajectory=any_order&deny_check=true&deny_tools=delete_booking&key_fields=true")
    app.expect_text("me-lesson-head", "Step 6 of 7:")
    expect(app.el("me-lesson-6").get_by_role("button")).to_have_class(re.compile(r"\bbk-btn-primary\b"))
    app.expect_text("me-lesson-text", re.compile(r"Step 6 sets: Trajectory ANY_ORDER.*deny-list on \(delete_booking\)"))


# --- one screen ----------------------------------------------------------------------------------

def test_opening_fits_one_screen_at_1440x900(glance_page):
    app = glance_page
    app.expect_whole("4/10")
    for selector in (".me-inputs", ".me-summary", ".me-chart", ".me-table .tabulator-header"):
        in_viewport(app, selector)
    # where the first rows appear (the table's body says "Nothing revealed yet" at t = 0): its top
    # two rows' worth of height (about 140 px) is on the first screen
    body = app.page.locator(".me-table .tabulator-tableholder").first.bounding_box()
    assert body is not None and body["y"] + 140 <= 900, f"the table's first rows would start at y = {body}"
    expect(app.page.locator(".me-table .tabulator-placeholder").first).to_contain_text("Nothing revealed yet")
    width, client, height = app.page.evaluate(PAGE_SIZE)
    assert height <= 1.3 * 900, f"the page is {height}px tall, more than 1.3 screens of 900px"
    app.next_events(1, then_time=12.0)
    for run_id in ("E1", "E2"):  # the first rows, once revealed, are on the first screen too
        # the row's id cell (the row itself is as wide as all columns; they scroll sideways in the card)
        in_viewport(app, app.el("me-table").locator(".tabulator-row .tabulator-cell", has_text=re.compile(rf"^\s*{run_id}\s*$")))


@pytest.mark.parametrize("width, height, scale", [(1024, 768, 1), (1280, 720, 1), (1440, 900, 1.5), (960, 600, 1)],
                         ids=["1024x768", "1280x720", "1440x900@1.5", "960x600 (150% zoom)"])
def test_no_sideways_scroll(new_offline_context, booking_app, width, height, scale):
    context, external = new_offline_context({"width": width, "height": height}, device_scale_factor=scale)
    app = App(context.new_page(), booking_app.url).open()
    for state in ("opening", "a run selected", "presenter mode"):
        if state == "a run selected":
            app.next_events(5, then_time=60.0)
            app.select_run("E10")
        if state == "presenter mode":
            app.open("?present=true")
            app.next_events(5, then_time=60.0)
        expect_no_sideways_scroll(app)  # in every state
        if state != "opening":  # the replay's time at its widest, "t = 60.0 s", inside its label and card
            expect(app.el("me-time-label")).to_contain_text("t = 60.0 s")
            text, label, card = settled_boxes(app.page.locator(".me-time-text"), app.el("me-time-label"),
                                              app.page.locator(".me-replay"))
            right = text["x"] + text["width"]
            assert right <= label["x"] + label["width"] + 0.5, f"{state}: 't = 60.0 s' overflows its label ({text} in {label})"
            assert right <= card["x"] + card["width"] - 4, f"{state}: 't = 60.0 s' touches the replay card's edge ({text} in {card})"
            chart = app.page.locator(".me-chart-card").first.bounding_box()  # the card under it, in the same column
            assert card["x"] + card["width"] <= chart["x"] + chart["width"] + 0.5, \
                f"{state}: the replay card runs past the column's other cards ({card} vs {chart})"
    assert external == []
    context.close()


# --- presenter mode, reset, copy link ------------------------------------------------------------

def test_presenter_mode_from_the_link(glance_page):
    app = glance_page.open("?present=true")
    figure = app.page.locator(".me-whole-agreement .me-figure").first
    expect(figure).to_have_text("4/10")
    size = float(figure.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
    assert size >= 48, f"the agreement figure is {size}px in presenter mode"
    expect(app.el("me-present-toggle").get_by_role("button")).to_have_class(re.compile(r"\bbk-active\b"))
    # the data tools are not there: no "Your data" tab, no filters, no upload or downloads
    expect(app.page.locator(".me-tabs .bk-tab", has_text="Your data")).to_have_count(0)
    for selector in (".me-upload", ".me-download-labels", ".me-case-picker"):
        expect(app.page.locator(selector)).to_have_count(0)
    expect(app.page.locator(".me-filters").first).to_be_hidden()
    expect_summary_in_view(app, "4/10")
    # the larger type fits its place: no label runs under its input (found in the presenter screenshot)
    assert app.page.evaluate(CUT_LABELS) == [], "labels cut by their box in presenter mode"


CUT_LABELS = """() => {
  const out = [];
  const walk = root => {
    for (const el of root.querySelectorAll('*')) {
      if (el.classList.contains('me-label-inline') && el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
        out.push(el.textContent.trim());
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return out;
}"""
"""JS: the texts of the settings' inline labels (Trajectory, Arguments, Numeric dates, Response
scorer) wider than their box, i.e. running under the input beside them."""


def test_presenter_toggle_reset_and_copy_link(glance_page):
    app = glance_page
    normal = float(app.page.locator(".me-whole-agreement .me-figure").first.evaluate("e => getComputedStyle(e).fontSize")[:-2])
    app.press("me-present-toggle")
    figure = app.page.locator(".me-whole-agreement .me-figure").first
    expect(figure).to_have_css("font-size", "72px")
    assert normal < 72
    expect(app.page.locator(".me-tabs .bk-tab", has_text="Your data")).to_have_count(0)
    expect(app.page).to_have_url(re.compile(r"[?&]present=true\b"))

    # away from the opening, replay under way
    app.choose("me-trajectory", "ANY_ORDER")
    app.tick("me-deny-check")
    app.expect_whole("7/10")
    app.next_events(2, then_time=24.0)
    app.press("me-reset")
    app.expect_whole("4/10")
    app.expect_chosen("me-trajectory", "EXACT")
    app.expect_ticked("me-deny-check", False)
    app.expect_time(0.0)
    app.expect_revealed(0, 10)
    expect(app.play_label()).to_have_text("Play")

    # Copy link: the page's URL (the settings; the presenter flag left out) on the clipboard and shown
    app.choose("me-trajectory", "IN_ORDER")
    expect(app.page).to_have_url(re.compile(r"[?&]trajectory=in_order\b"))
    app.press("me-copy-link")
    box = app.el("me-copy-link-text").locator("input")
    expect(box).to_be_visible()
    expect(box).to_have_value(re.compile(r"trajectory=in_order"))
    copied = app.page.evaluate("navigator.clipboard.readText()")
    assert copied == box.input_value()
    query = parse_qs(urlsplit(copied).query)
    assert query["trajectory"] == ["in_order"] and "present" not in query
    assert copied.split("?")[0] == app.page.url.split("?")[0]
    app.expect_text("me-copy-link-text", "Link copied to the clipboard")

    app.press("me-present-toggle")  # off again: the data tools come back
    expect(app.page.locator(".me-tabs .bk-tab", has_text="Your data")).to_have_count(1)
    expect(app.page).not_to_have_url(re.compile(r"present="))


# --- the selected run, the replay -------------------------------------------------------------------

def test_selected_run_detail_beside_the_table_with_the_summary_in_view(glance_page):
    app = glance_page
    app.next_events(5, then_time=60.0)
    # E10's confirm_booking used another booking id: the call shows the argument that differs
    cell = app.el("me-table").locator(".me-call-args-differ").first
    expect(cell).to_contain_text('confirm_booking(booking_id: "BK-4407" ≠ "BK-4470")')
    app.select_run("E10")
    head = app.el("me-detail").locator(".me-detail-head")
    expect(head).to_contain_text("Claimed a booking it never made")
    in_viewport(app, ".me-detail .me-detail-head")
    in_viewport(app, ".me-whole-agreement .me-figure")
    expect(app.el("me-label-selected")).to_contain_text("Selected run: E10")
    app.press("me-detail-close")
    expect(app.el("me-detail-panel")).to_be_hidden()


def test_the_table_shows_each_run_s_verdicts_and_reason_without_scrolling_sideways(glance_page):
    # the trial's finding: the table is wider than its card, and Outcome, Decided by and Reason came
    # last, cut off at the right (the card shows ~1,050 of its 1,330 px at 1440x900)
    app = glance_page
    app.next_events(5, then_time=60.0)
    table = app.el("me-table")
    holder = table.locator(".tabulator-tableholder").first.bounding_box()
    assert holder is not None
    for title in ("ID", "Evaluator", "Person", "Outcome", "Decided by", "Reason"):
        header = table.locator(".tabulator-col-title", has_text=re.compile(rf"^{title}$")).first
        expect(header).to_be_visible()
        box = header.bounding_box()
        assert box is not None and holder["x"] - 0.5 <= box["x"] and box["x"] + box["width"] <= holder["x"] + holder["width"] + 0.5, (
            f"{title} header at {box} is outside the table's visible {holder}")
    e1 = table.locator(".tabulator-row").filter(has=app.page.locator(".tabulator-cell", has_text=re.compile(r"^\s*E1\s*$")))
    expect(e1.locator(".me-outcome, .tabulator-cell").filter(has_text="false fail").first).to_be_visible()  # E1's outcome, in view


@pytest.mark.parametrize("width, height, selected", [(1024, 768, None), (1440, 900, "E5")],
                         ids=["1024x768", "1440x900-run-selected"])
def test_each_run_s_reason_is_whole_in_view_beside_its_outcome(new_offline_context, booking_app, width, height, selected):
    # a newcomer trial: at 1024 px E1's reason read "F1 0.62 < 0." (Evaluator and Person came
    # before it), and at 1440 px with a run's panel open the Reason column was cut to "Reas"
    context, external = new_offline_context({"width": width, "height": height})
    app = App(context.new_page(), booking_app.url).open()
    app.expect_whole("4/10")
    app.next_events(5, then_time=60.0)
    if selected:
        app.select_run(selected)
    table = app.el("me-table")
    holder = table.locator(".tabulator-tableholder").first.bounding_box()
    assert holder is not None
    left, right = holder["x"] - 0.5, holder["x"] + holder["width"] + 0.5
    for title in ("Outcome", "Reason"):
        box = table.locator(".tabulator-col-title", has_text=re.compile(rf"^{title}$")).first.bounding_box()
        assert box is not None and left <= box["x"] and box["x"] + box["width"] <= right, (
            f"the {title} header at {box} is outside the table's visible {holder}")
    # E1's reason (opening settings: F1 0.62 < 0.80), the whole cell inside the visible table
    cell = app.row_of("E1").locator(".tabulator-cell", has_text="F1 0.62 < 0.80").first
    expect(cell).to_be_visible()
    box = None
    for _attempt in range(50):  # Tabulator redraws its rows after a reveal or a selection
        box = cell.bounding_box()
        if box is not None:
            break
        app.page.wait_for_timeout(100)
    assert box is not None and left <= box["x"] and box["x"] + box["width"] <= right, (
        f"E1's reason cell at {box} is outside the table's visible {holder}")
    scroll, client, text = cell.evaluate(CELL_FITS)
    assert text == "F1 0.62 < 0.80" and scroll <= client, f"E1's reason: {scroll}px of text in a {client}px cell"
    expect_no_sideways_scroll(app)
    assert external == []
    context.close()


def test_play_reveals_the_first_runs_at_once(glance_page):
    # Timed in the page, from the click's event to the first frame showing the revealed runs: what a
    # person sees. Timing the Python side also counted Playwright's own steps before the click
    # (finding the button, waiting for it to be still), which took the figure over 1 s on a loaded
    # 2-core CI machine while the page itself answered in time.
    app = glance_page
    app.expect_chosen("me-speed", "1x")
    app.page.evaluate(first_event_at("click"))
    app.press("me-play")
    shown = app.page.wait_for_function(shown_at("me-revealed"), arg="2 of 10 runs revealed", polling="raf", timeout=10_000).json_value()
    clicked = app.page.evaluate("() => window.__meEventAt")
    assert clicked is not None, "the click was not seen by the page"
    waited = (shown - clicked) / 1000.0
    assert waited <= 1.0, f"the first runs (E1-E2) showed {waited:.2f} s after Play at 1x"
    app.expect_text("me-trace", re.compile(r"12\.0 s\s+E1 revealed"))
    app.press("me-play")  # pause


# --- honest controls and messages ----------------------------------------------------------------

def test_disabled_controls_say_why(glance_page):
    app = glance_page
    tools = app.el("me-deny-tools").locator("input[type=search]")
    expect(tools).to_be_disabled()
    app.expect_text("me-deny-reason", "Tick Deny-list check to use these tools.")
    app.tick("me-deny-check")
    expect(tools).to_be_enabled()
    expect(app.el("me-deny-reason")).to_be_hidden()

    app.choose("me-combine", "Mean of trajectory and F1")
    expect(app.el("me-f1").locator(".noUi-target")).to_have_attribute("disabled", re.compile(".*"))
    expect(app.el("me-f1-input").locator("input").first).to_be_disabled()
    app.expect_text("me-f1-reason", re.compile(r"Not used under “Mean”"))
    app.choose("me-combine", "Every scorer must pass")
    expect(app.el("me-f1-input").locator("input").first).to_be_enabled()
    expect(app.el("me-f1-reason")).to_be_hidden()


def test_out_of_range_typed_threshold_is_refused_with_a_message(glance_page):
    app = glance_page
    box = app.el("me-f1-input").locator("input").first
    box.fill("1.5")
    box.press("Enter")
    app.expect_text("me-f1-message", "1.5 is outside 0 to 1, so it was not applied; the threshold stays as it was.")
    app.expect_f1(0.8)
    app.expect_whole("4/10")
    app.type_f1("0.9")  # a good value applies and the message goes
    expect(app.el("me-f1-message")).to_be_hidden()
    app.expect_whole("5/10")


IDLE = "() => window.Bokeh && Bokeh.documents.length > 0 && Bokeh.documents[0].is_idle"


def upload(app: App, name: str, data: bytes) -> None:
    """Open "Your data" and give ``data`` to the drop zone as file ``name``."""
    app.page.wait_for_function(IDLE)
    app.open_tab("Your data")
    app.page.wait_for_function(IDLE)
    app.page.locator(".me-upload input[type=file]").first.set_input_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": data}])


BROKEN = b'{"format": "metric-explorer/cases@1", "name": "x", "runs": [{"id": true}]}'


def test_failed_upload_shows_no_success_marker(glance_page):
    app = glance_page
    upload(app, "broken_runs.json", BROKEN)
    error = app.el("me-load-error")
    expect(error).to_contain_text("Could not load this file. broken_runs.json: runs[0].id: expected a string")
    expect(error).to_contain_text("Nothing changed: the case set, labels and settings are as they were.")
    # the drop zone shows the bytes on their way, then lets the file go: no item is left, and no
    # "Upload complete" is shown at any point
    expect(app.page.locator(".filepond--item").filter(visible=True)).to_have_count(0, timeout=10_000)
    expect(app.page.get_by_text("Upload complete").filter(visible=True)).to_have_count(0)
    expect(app.page.locator(".me-load-status").first).to_be_hidden()
    app.expect_whole("4/10")


LONG_IDS = b"\n".join(
    b'{"id": "%s", "human_verdict": "acceptable", "expected_calls": [{"name": "search_flights", "args": {}}], '
    b'"actual_calls": [{"name": "search_flights", "args": {}}], "answer": "Booked.", "reference": "Booked."}' % i
    for i in (b"book_cheapest_flight", b"cancel_old_booking")) + b"\n"

CELL_FITS = """cell => [cell.scrollWidth, cell.clientWidth, cell.innerText.trim()]"""


def test_an_uploaded_set_s_ids_are_whole_in_the_table_at_1024(new_offline_context, booking_app):
    """A trial found an ADK eval id, ``book_cheapest_flight``, shown as "bo…" in the ID column sized
    for E1..E10; the column now takes the case set's longest id, and the page still does not
    scroll sideways at 1024x768."""
    context, external = new_offline_context({"width": 1024, "height": 768})
    app = App(context.new_page(), booking_app.url).open()
    app.expect_whole("4/10")
    upload(app, "long_ids.jsonl", LONG_IDS)
    app.expect_text("me-load-status", "Loaded 2 runs from long_ids.jsonl. They are scored with the settings you had; press Play to list them.")
    app.open_tab("Explorer")
    app.scrub_to(60.0)
    for run_id in ("book_cheapest_flight", "cancel_old_booking"):
        cell = app.el("me-table").locator(".tabulator-row .tabulator-cell", has_text=re.compile(rf"^\s*{run_id}\s*$")).first
        expect(cell).to_be_visible()
        scroll, client, text = cell.evaluate(CELL_FITS)
        assert text == run_id and scroll <= client, f"{run_id}: {scroll}px of text in a {client}px cell"
    expect_no_sideways_scroll(app)
    assert external == []
    context.close()


SELECT_FITS = """sel => {
  const cs = getComputedStyle(sel);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = cs.font;
  const text = sel.options[sel.selectedIndex].text;
  return [ctx.measureText(text).width, sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight), text];
}"""


def test_the_sweep_s_best_setting_is_whole_in_its_choice_at_1024(new_offline_context, booking_app):
    """A trial found the sweep's "Best setting to apply" cut at 1024x768 (``...F1 threshold 0.0(``)
    in a 620 px box with room to spare beside its button: the box now takes the row's width."""
    context, external = new_offline_context({"width": 1024, "height": 768})
    app = App(context.new_page(), booking_app.url).open()
    app.expect_whole("4/10")
    app.open_tab("Settings sweep")
    app.expect_text("me-sweep-best", "Best agreement 10/10")
    select = app.el("me-sweep-choice").locator("select").first
    expect(select).to_be_visible()
    text_px, room_px, text = select.evaluate(SELECT_FITS)
    assert text.startswith("trajectory ANY_ORDER, arguments exact") and text.endswith("F1 threshold 0.00-0.41"), text
    assert text_px <= room_px, f"{text!r} is {text_px:.0f}px in a {room_px:.0f}px box"
    button = app.el("me-sweep-apply").bounding_box()
    box = select.bounding_box()
    assert box["x"] + box["width"] <= button["x"] or box["y"] + box["height"] <= button["y"], "the box runs under its button"
    expect_no_sideways_scroll(app)
    assert external == []
    context.close()


# --- screenshots of each state, at both sizes ----------------------------------------------------

@pytest.mark.parametrize("width, height", [(1440, 900), (1024, 768)], ids=["1440x900", "1024x768"])
def test_screenshots_of_each_state(new_offline_context, booking_app, output_path, width, height):
    """The states a person sees, saved as ``<state>-<w>x<h>.png`` in this test's output folder
    (test-results/...): the opening, a lesson step, a selected run after the replay, the threshold
    disabled under the mean rule, a failed upload, presenter mode."""
    context, external = new_offline_context({"width": width, "height": height})
    app = App(context.new_page(), booking_app.url).open()
    app.expect_whole("4/10")
    shoot(app, output_path, "opening")
    app.press("me-lesson-5")
    app.expect_whole("7/10")
    shoot(app, output_path, "lesson-step-5")
    app.press("me-lesson-6")
    app.expect_whole("8/10")
    app.next_events(5, then_time=60.0)
    app.select_run("E5")
    app.page.evaluate("window.scrollTo(0, 0)")
    shoot(app, output_path, "run-selected")
    app.press("me-reset")
    app.expect_whole("4/10")
    app.choose("me-combine", "Mean of trajectory and F1")
    app.expect_text("me-f1-reason", re.compile("Not used"))
    shoot(app, output_path, "mean-threshold-disabled")
    upload(app, "broken_runs.json", BROKEN)
    app.expect_text("me-load-error", re.compile("Could not load this file"))
    expect(app.page.locator(".filepond--item").filter(visible=True)).to_have_count(0, timeout=10_000)
    shoot(app, output_path, "failed-upload")
    app.open("?present=true&trajectory=any_order")
    app.expect_whole("6/10")
    shoot(app, output_path, "presenter")
    assert external == []
    context.close()
