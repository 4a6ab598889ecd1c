"""Issue 13 in the browser: an OTLP JSON trace file and its labels CSV dropped on the page load and
score, in either order or together; the load report is shown in sentences; the scored table comes
as Parquet too. And the a / u / c keys say where to look when no run is selected.

The fixture is made here by the real producer (tests/producers.py: spans from opentelemetry-sdk
with the GenAI / OpenInference attribute names, encoded by the OTLP exporter's encoder, one
``ExportTraceServiceRequest`` per line as the Collector's file exporter writes): the ten
booking-agent runs as ten traces, plus one agent span with no tool span and no answer. The labels
CSV keys the person's verdicts by trace id.

Expected values, by hand: traces carry no expected calls and no reference (no expectations file
is joined), so every run with a call fails EXACT (0 expected vs 2-4 actual calls); the eleventh
trace has no call (EXACT passes 0 = 0) but an empty answer, which never passes the response check.
So all 11 fail: the five runs the person judged acceptable (E1, E2, E3, E7, E8) are false fails,
the five unacceptable ones agree, the eleventh is unlabelled: 5/10 agree (1 unlabelled).

With the expectations file dropped too (the booking runs' expected calls and references, keyed by
run id, which the traces carry as ``eval.example_id``), the ten runs are scored as the booking set
is: EXACT passes E1, E5 and E7 only (E2, E6, E8 have an extra call, E3 calls two tools the other
way round, E4, E9, E10 miss calls); of those F1 >= 0.8 passes only E5 ("Booked BK-8832 to Rome,
21 March." against the reference's "12 March": 5 of 6 words), so E5 (unacceptable) is a false
pass, the five acceptable runs false fails, E4, E6, E9, E10 agree: 4/10 (1 unlabelled).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import VIEWPORT
from explorer_page import App, expect_no_sideways_scroll, shoot

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from explorer.core.io.casefile import load_case_set  # noqa: E402
from producers import MS, T0, booking_as_otlp, expectations_jsonl, labels_csv, otlp_json, tracer_and_exporter  # noqa: E402

pytestmark = pytest.mark.browser

BOOKING = load_case_set(REPO / "cases" / "booking_agent.json")
ACCEPTABLE = ["E1", "E2", "E3", "E7", "E8"]
REPORT = (
    "1 of 11 traces has no tool spans: read as runs with no calls.",
    "1 of 11 traces has no answer: read as runs with an empty answer.",
)
NO_EXPECTED = "These traces have no expected calls yet, so every call counts as an extra call"


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """(traces.jsonl bytes, labels.csv bytes, {run id: trace id}, the eleventh trace's id)."""
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as GA

    folder = tmp_path_factory.mktemp("otlp")
    path = folder / "traces.jsonl"
    trace_ids = booking_as_otlp(BOOKING, path)
    tracer, exporter = tracer_and_exporter()
    agent = tracer.start_span("invoke_agent booking_agent", attributes={
        GA.GEN_AI_OPERATION_NAME: GA.GenAiOperationNameValues.INVOKE_AGENT.value}, start_time=T0 + 60_000 * MS)
    agent.end(end_time=T0 + 60_010 * MS)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(otlp_json(exporter.get_finished_spans())) + "\n")
    eleventh = format(agent.get_span_context().trace_id, "032x")
    labels = labels_csv({trace_ids[r.id]: r.human_verdict for r in BOOKING.runs}).encode()
    return path.read_bytes(), labels, trace_ids, eleventh


def expect_scored(app: App, trace_ids: dict[str, str]) -> None:
    app.expect_whole("5/10")
    app.expect_text("me-whole-agreement", "(1 unlabelled)")
    app.expect_whole_lists([], [trace_ids[r] for r in ACCEPTABLE])
    app.expect_text("me-unlabelled", "Unlabelled: 1 of 11 runs (counted as neither verdict) · 5 acceptable · 5 unacceptable")


def expect_loaded(app: App) -> None:
    app.expect_text("me-load-status", re.compile(re.escape(
        "Loaded 11 runs from traces.jsonl. They are scored with the settings you had; press Play to list them. Applied the labels in labels.csv.")),
        timeout=30_000)
    for sentence in REPORT:
        expect(app.el("me-load-status").locator(".me-load-notes")).to_contain_text(sentence)
    expect(app.el("me-load-status").locator(".me-load-notes")).to_contain_text(NO_EXPECTED)


def test_traces_and_labels_dropped_together_load_and_score(app_page, traces):
    data, labels, trace_ids, _ = traces
    app = app_page
    app.upload(("labels.csv", labels, "text/csv"), ("traces.jsonl", data, "application/jsonl"))
    expect_loaded(app)
    expect_scored(app, trace_ids)
    app.open_tab("Your data")
    expect(app.el("me-case-picker").locator("select")).to_have_value("traces.jsonl (uploaded, 11 runs)")


def test_labels_after_the_traces_apply_to_the_set_just_loaded(app_page, traces):
    data, labels, trace_ids, _ = traces
    app = app_page
    app.upload(("traces.jsonl", data, "application/jsonl"))
    app.expect_text("me-load-status", "Loaded 11 runs from traces.jsonl.", timeout=30_000)
    app.expect_text("me-whole-agreement", "All runs: no labelled run")
    app.upload(("labels.csv", labels, "text/csv"))
    expect_loaded(app)
    expect_scored(app, trace_ids)


def test_labels_before_the_traces_wait_for_them(app_page, traces, tmp_path):
    data, labels, trace_ids, eleventh = traces
    app = app_page
    app.upload(("labels.csv", labels, "text/csv"))
    app.expect_text("me-load-status", "None of the 10 run ids in labels.csv names a run shown here: its labels will "
                                      "apply to the next run file you upload")
    app.expect_whole("4/10")  # the booking set, untouched
    app.upload(("traces.jsonl", data, "application/jsonl"))
    expect_loaded(app)
    expect_scored(app, trace_ids)

    # the scored table as Parquet, beside the CSV
    app.open_tab("Your data")
    with app.page.expect_download() as info:
        app.el("me-download-table-parquet").locator("button, a").first.click()
    saved = tmp_path / "scored.parquet"
    info.value.save_as(saved)
    assert info.value.suggested_filename == "traces-jsonl-scored.parquet"
    import pyarrow.parquet as pq

    table = pq.read_table(saved).to_pydict()
    assert table["id"] == [trace_ids[r.id] for r in BOOKING.runs] + [eleventh]
    assert table["verdict"] == ["fail"] * 11
    assert table["human_verdict"] == [r.human_verdict for r in BOOKING.runs] + [""]


def test_expectations_labels_and_traces_dropped_together_join_and_score(app_page, traces, output_path):
    data, labels, trace_ids, eleventh = traces
    app = app_page
    expected = expectations_jsonl(BOOKING).encode()
    app.upload(("expected.jsonl", expected, "application/jsonl"), ("labels.csv", labels, "text/csv"),
               ("traces.jsonl", data, "application/jsonl"))
    app.expect_text("me-load-status", re.compile(re.escape(
        "Loaded 11 runs from traces.jsonl. They are scored with the settings you had; press Play to list them. "
        "Joined expected.jsonl: expected calls and references for 10 of 11 runs (joined by span attribute "
        f"eval.example_id). 1 run has no expectation: {eleventh}. Applied the labels in labels.csv.")), timeout=30_000)
    expect(app.el("me-load-status").locator(".me-load-notes")).not_to_contain_text(NO_EXPECTED)
    app.expect_whole("4/10")
    app.expect_text("me-whole-agreement", "(1 unlabelled)")
    app.expect_whole_lists([trace_ids["E5"]], [trace_ids[r] for r in ACCEPTABLE])
    for size in ({"width": 1440, "height": 900}, {"width": 1024, "height": 768}):
        app.page.set_viewport_size(size)
        app.page.evaluate("window.scrollTo(0, 0)")
        expect_no_sideways_scroll(app)
        shoot(app, output_path, "trace-expectations")
    app.page.set_viewport_size(VIEWPORT)  # the shared page, as the next test expects it


def test_an_expectation_id_of_500_characters_is_cut_in_the_load_report(app_page, traces, output_path):
    # the report named the unmatched id whole: the page scrolled sideways to 5,422 px at 1024x768
    data, _, _, _ = traces
    app = app_page
    expected = (expectations_jsonl(BOOKING) + json.dumps({"id": "X" * 500, "reference": "y"}) + "\n").encode()
    app.upload(("traces.jsonl", data, "application/jsonl"), ("expected.jsonl", expected, "application/jsonl"))
    app.expect_text("me-load-status", re.compile(re.escape("1 expectation id names no run here: " + "X" * 39 + "….")), timeout=30_000)
    app.page.set_viewport_size({"width": 1024, "height": 768})
    try:
        app.page.evaluate("window.scrollTo(0, 0)")
        expect_no_sideways_scroll(app)
        shoot(app, output_path, "long-expectation-id")
    finally:
        app.page.set_viewport_size(VIEWPORT)


def test_label_keys_with_no_run_selected_say_where_to_look(app_page):
    app = app_page
    app.page.keyboard.press("a")
    app.expect_text("me-key-hint", "No run is shown yet: press Play or Next event, click a row in the table, then press a, u or c.")
    app.next_events(1, then_time=12.0)
    app.page.keyboard.press("u")
    app.expect_text("me-key-hint", "Select a run first: click its row in the table, then press a, u or c.")
    app.expect_whole("4/10")  # nothing was labelled
    app.select_run("E1")
    expect(app.el("me-key-hint")).to_be_hidden()


@pytest.mark.parametrize("width, height", [(1440, 900), (1024, 768)], ids=["1440x900", "1024x768"])
def test_screenshots_of_a_trace_upload(new_offline_context, booking_app, output_path, traces, width, height):
    """Saved in this test's output folder: the traces and their labels loaded, with the load
    report; the a / u / c hint above the table."""
    data, labels, trace_ids, _ = traces
    context, external = new_offline_context({"width": width, "height": height})
    app = App(context.new_page(), booking_app.url).open()
    app.page.keyboard.press("a")
    app.expect_text("me-key-hint", re.compile("No run is shown yet"))
    app.el("me-key-hint").scroll_into_view_if_needed()
    shoot(app, output_path, "label-key-hint")
    app.upload(("labels.csv", labels, "text/csv"), ("traces.jsonl", data, "application/jsonl"))
    expect_loaded(app)
    expect_scored(app, trace_ids)
    app.page.evaluate("window.scrollTo(0, 0)")
    shoot(app, output_path, "trace-upload")
    assert external == []
    context.close()
