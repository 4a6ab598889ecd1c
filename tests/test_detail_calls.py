"""The selected run's panel shows the expected and actual calls with the actual calls' marks: a
trial found the marks only in the table's last columns, off to the right of the card at 1024 px,
so a reason could not be checked against its calls without scrolling the table sideways."""

from __future__ import annotations

import os
import re

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.main import ExplorerSession  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.views.detail import detail_html  # noqa: E402
from explorer.commands.common import BUNDLED_CASES  # noqa: E402
from html_text import shown  # noqa: E402


def _calls_rows(html_text: str) -> dict[str, str]:
    rows = re.findall(r'<div class="me-detail-row me-detail-calls"><span class="me-k">([^<]+)</span>'
                      r'<span class="me-v">(.*?)</span></div>', html_text)
    return {k: v for k, v in rows}


def test_e10_under_exact_shows_its_calls_with_the_marks_its_reason_names():
    s = ExplorerSession(load_shared(BUNDLED_CASES))
    i = list(s.features.run_ids).index("E10")
    got = detail_html(s.features, s.ev, i)
    rows = _calls_rows(got)
    assert list(rows) == ["Expected calls", "Actual calls"]
    # cases/booking_agent.json: E10 expected search_flights, book_flight, confirm_booking and made
    # search_flights and a confirm_booking of another booking id (seed 002: "claimed a booking it
    # never made"); the reason: missing call book_flight; confirm_booking's booking_id differs
    assert shown(rows["Expected calls"]).split() == ["search_flights", "book_flight", "confirm_booking"]
    actual = rows["Actual calls"]
    assert 'me-call-args-differ' in actual and 'me-call-missing' in actual
    assert "book_flight missing" in shown(actual)
    assert 'confirm_booking(booking_id: "BK-4407" ≠ "BK-4470") args differ' in shown(actual)


def test_a_run_that_matches_shows_its_calls_unmarked():
    s = ExplorerSession(load_shared(BUNDLED_CASES))
    i = list(s.features.run_ids).index("E1")  # EXACT path, failed on F1 alone
    rows = _calls_rows(detail_html(s.features, s.ev, i))
    assert "me-tag" not in rows["Actual calls"]
    assert shown(rows["Actual calls"]).split() == shown(rows["Expected calls"]).split()


def test_a_mark_the_family_does_not_count_says_it_is_allowed():
    # a second trial: E2 (an extra weather lookup) passes IN_ORDER but its call still read EXTRA,
    # as under EXACT, which fails it; the mark stays (it is what happened) and says it is allowed
    from explorer.core.evaluation.settings import Settings

    s = ExplorerSession(load_shared(BUNDLED_CASES))
    i = list(s.features.run_ids).index("E2")
    exact = shown(_calls_rows(detail_html(s.features, s.ev, i))["Actual calls"])
    assert "get_weather extra" in exact and "allowed" not in exact
    from explorer.core.evaluation.verdicts import evaluate

    ev = evaluate(s.features, Settings(trajectory="in_order"))
    in_order = _calls_rows(detail_html(s.features, ev, i))["Actual calls"]
    assert "get_weather extra, allowed" in shown(in_order) and "me-call-extra me-call-allowed" in in_order
    # recall does not count extra calls either; subset does not count a missing one (E9 gave up)
    assert "extra, allowed" in shown(_calls_rows(detail_html(s.features, evaluate(s.features, Settings(trajectory="recall")), i))["Actual calls"])
    e9 = list(s.features.run_ids).index("E9")
    subset = shown(_calls_rows(detail_html(s.features, evaluate(s.features, Settings(trajectory="subset")), e9))["Actual calls"])
    assert "book_flight missing, allowed" in subset


# --- hyphenated words kept on one line in the side panel (BK-4821 wrapped at its hyphen) -----------

def test_keep_tokens_whole_wraps_each_hyphenated_word_marks_included():
    from explorer.app.highlight import keep_tokens_whole

    assert keep_tokens_whole("ref BK-<mark>4821</mark>. on 2026-03-12") == (
        'ref <span class="me-token">BK-<mark>4821</mark>.</span> on <span class="me-token">2026-03-12</span>')
    assert keep_tokens_whole("&quot;RS-54075&quot; ≠ x") == '<span class="me-token">&quot;RS-54075&quot;</span> ≠ x'
    # a hyphen with white space beside it, or at a word's end, joins nothing: left as it was
    assert keep_tokens_whole("a - b, re- and -x <mark>ok</mark>") == "a - b, re- and -x <mark>ok</mark>"


def test_the_side_panel_keeps_e1s_booking_id_and_e10s_calls_whole_and_the_table_does_not_change():
    from explorer.app.views.table import calls_html

    s = ExplorerSession(load_shared(BUNDLED_CASES))
    e1, e10 = (list(s.features.run_ids).index(r) for r in ("E1", "E10"))
    # cases/booking_agent.json: E1's answer "... on March 12, and BK-4821 is the code to keep ...",
    # the id unmarked (its reference has it too)
    got = detail_html(s.features, s.ev, e1)
    assert '<span class="me-token">BK-4821</span>' in got
    assert "and BK-4821 is the code" in shown(got)  # the words read as before
    actual = _calls_rows(detail_html(s.features, s.ev, e10))["Actual calls"]
    assert ('confirm_booking(booking_id: <span class="me-token">&quot;BK-4407&quot;</span> ≠ '
            '<span class="me-token">&quot;BK-4470&quot;)</span>') in actual
    table_expected, table_actual = calls_html(s.features, s.ev, e10)  # keep_whole off: as before
    assert "me-token" not in table_expected + table_actual
    assert "confirm_booking(booking_id: &quot;BK-4407&quot; ≠ &quot;BK-4470&quot;)" in table_actual


# --- the same in the table, the trace and the status lines (the Reason cell broke at BK-|4470) -----

def test_the_tables_reason_title_and_calls_keep_e10s_booking_ids_whole():
    from explorer.app.views.table import table_frame

    s = ExplorerSession(load_shared(BUNDLED_CASES))
    e10 = list(s.features.run_ids).index("E10")
    row = table_frame(s.features, s.ev, e10 + 1, start=e10).iloc[0]
    # cases/booking_agent.json, E10 under EXACT: reason 'missing call book_flight; confirm_booking at
    # position 2: booking_id "BK-4407" ≠ "BK-4470"' (the reason row of the side panel reads the same)
    assert row["Reason"] == ('missing call book_flight; confirm_booking at position 2: booking_id '
                             '<span class="me-token">&quot;BK-4407&quot;</span> ≠ <span class="me-token">&quot;BK-4470&quot;</span>')
    assert shown(row["Reason"]) == 'missing call book_flight; confirm_booking at position 2: booking_id "BK-4407" ≠ "BK-4470"'
    assert ('confirm_booking(booking_id: <span class="me-token">&quot;BK-4407&quot;</span> ≠ '
            '<span class="me-token">&quot;BK-4470&quot;)</span>') in row["Actual calls"]
    assert row["Title"] == "Claimed a booking it never made"  # no hyphen: untouched
    assert row["ID"] == '<b title="E10">E10</b>'


def test_run_text_in_the_table_is_escaped_before_its_words_are_wrapped(tmp_path):
    # a hyphenated title and id holding markup: the tags arrive as text, inside the one span
    import json

    from explorer.app.highlight import escape_whole
    from explorer.app.views.table import table_frame

    assert escape_whole("re-<img src=x onerror=alert(1)> & co") == (
        '<span class="me-token">re-&lt;img</span> src=x onerror=alert(1)&gt; &amp; co')
    assert escape_whole('"BK-4470" <b>') == '<span class="me-token">&quot;BK-4470&quot;</span> &lt;b&gt;'
    run = {"id": "X-<b>1</b>", "title": "re-<img src=x onerror=alert(1)> & co", "user_input": "u",
           "invocations": [{"expected_calls": [], "actual_calls": [], "answer": "a", "references": ["a"]}],
           "human_verdict": "acceptable"}
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"format": "metric-explorer/cases@1", "name": "probe", "runs": [run]}), encoding="utf-8")
    s = ExplorerSession(load_shared(path))
    row = table_frame(s.features, s.ev, 1).iloc[0]
    assert row["Title"] == '<span class="me-token">re-&lt;img</span> src=x onerror=alert(1)&gt; &amp; co'
    assert row["ID"] == '<b title="X-&lt;b&gt;1&lt;/b&gt;"><span class="me-token">X-&lt;b&gt;1&lt;/b&gt;</span></b>'


def test_trace_lines_keep_booking_ids_whole():
    from explorer.app.views.trace import trace_html
    from explorer.core.evaluation.replay import TraceEvent

    got = trace_html([TraceEvent(60.0, "verdict", "E10", 'E10 verdict fail (booking_id "BK-4407" ≠ "BK-4470") — agree')])
    assert ('<div class="me-ev me-ev-verdict">60.0 s  E10 verdict fail (booking_id <span class="me-token">&quot;BK-4407&quot;</span>'
            ' ≠ <span class="me-token">&quot;BK-4470&quot;)</span> — agree</div>') in got
