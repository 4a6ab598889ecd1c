"""Issues 12 and 13 in the app, without a browser: the trajectory card's state and words, links,
the argument rules in a session, the refund-agent lesson, the trade-off chart's axis, and the
page's uploads (labels waiting for their runs, the load report, settings and rules files, the
a / u / c hint).

Figures are worked out by hand from the bundled sets (docs/trajectory-metrics.md's definitions):
on cases/booking_agent.json recall >= 0.67 gives 6/10 (E4 made 2 of 3 expected calls, 0.667 <
0.67, and fails as the person wants; E5, E6 false passes; E1, E7 false fails on F1 0.62 and 0.41);
on cases/refund_agent.json EXACT gives 5/8 with the set's sent_at rule and 4/8 without it (R5
sent its confirmation a minute later), recall >= 0.75 6/8 (R4, R6 false passes).
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.arg_rules import RulesChange, done_text  # noqa: E402
from explorer.app.lessons import BOOKING as BOOKING_LESSON, REFUND, lesson_for  # noqa: E402
from explorer.app.main import ExplorerSession  # noqa: E402
from explorer.app.page import WorkspacePage, carried_settings, load_report  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.state import Inputs  # noqa: E402
from explorer.app.url import (  # noqa: E402
    LINK_RULES_LIMIT, page_query, query_from_settings, rules_from_query, rules_query_value, settings_from_query,
)
from explorer.app.views.arg_rules import ArgRulesView, link_note, rules_from_text  # noqa: E402
from explorer.app.views.inputs import InputsView  # noqa: E402
from explorer.app.views.table import calls_html  # noqa: E402
from explorer.app.views.upload import note_sentence  # noqa: E402
from explorer.app.words import settings_words, trajectory_words  # noqa: E402
from explorer.app.workspace import ProcessSets, settings_file_kind, shared_from_case_set  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402
from explorer.core.io.casefile import load_case_set  # noqa: E402
from explorer.core.io.errors import LoadError  # noqa: E402
from explorer.core.io.exports import dumps_settings  # noqa: E402
from explorer.core.scoring.arg_rules import NO_RULES, ArgRule, ArgRules, arg_rules_from_data, dumps_arg_rules  # noqa: E402
from html_text import shown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOKING = ROOT / "cases" / "booking_agent.json"
REFUND_CASES = ROOT / "cases" / "refund_agent.json"
TOOLS = ("book_flight", "confirm_booking", "delete_booking", "get_weather", "search_flights")
OPENING = Settings(deny_tools=("delete_booking",))
IGNORE_BOOKING_ID = arg_rules_from_data([{"tool": "confirm_booking", "key": "booking_id", "rule": "ignore"}], "x")


@pytest.fixture(scope="module")
def booking():
    return load_shared(BOOKING)


@pytest.fixture(scope="module")
def refund():
    return load_shared(REFUND_CASES)


def summary(session: ExplorerSession) -> tuple[int, int, list[str], list[str]]:
    s = session.ev.summary
    return s.agree, s.labelled, session.ev.ids_with(session.features, "false pass"), session.ev.ids_with(session.features, "false fail")


# --- links ------------------------------------------------------------------------------------

def test_link_with_a_partial_score_and_its_threshold():
    settings, notices = settings_from_query({"trajectory": "recall", "trajectory_threshold": "0.67"}, OPENING, TOOLS)
    assert notices == [] and settings == OPENING.with_(trajectory="recall", trajectory_threshold=0.67)
    assert query_from_settings(settings) == {**query_from_settings(OPENING), "trajectory": "recall", "trajectory_threshold": "0.67"}


@pytest.mark.parametrize("settings", [
    OPENING.with_(trajectory="f1", trajectory_threshold=0.85, args="subset"),
    OPENING.with_(trajectory="superset", args="superset"),
    OPENING.with_(trajectory="single_tool_use", single_tool="get_weather", trajectory_threshold=0.5),
    OPENING.with_(trajectory="lcs", args="ignore", trajectory_threshold=0.518518518519),
    OPENING.with_(trajectory="strict"),
])
def test_written_links_read_back_to_the_same_settings(settings):
    back, notices = settings_from_query(query_from_settings(settings), Settings(), TOOLS)
    assert notices == [] and back == settings


def test_args_win_over_an_old_compare_args_and_say_so():
    settings, notices = settings_from_query({"args": "subset", "compare_args": "false"}, OPENING, TOOLS)
    assert settings.args == "subset" and settings.compare_args is True
    assert notices == ["Ignored compare_args=false from the link: args=subset says otherwise."]
    settings, notices = settings_from_query({"args": "ignore", "compare_args": "false"}, OPENING, TOOLS)
    assert settings.args == "ignore" and notices == []


@pytest.mark.parametrize("query, notice", [
    ({"args": "loose"}, "Ignored args=loose from the link: expected one of exact, ignore, subset, superset."),
    ({"trajectory_threshold": "1.5"}, "Ignored trajectory_threshold=1.5 from the link: not a number between 0 and 1."),
    ({"single_tool": "<b>x</b>"}, "Ignored single_tool=<b>x</b> from the link: no such tool in these runs."),
    ({"trajectory": "single_tool_use"}, "Ignored trajectory=single_tool_use from the link: it needs single_tool, the tool to look for."),
])
def test_bad_trajectory_values_are_ignored_and_named(query, notice):
    settings, notices = settings_from_query(query, OPENING, TOOLS)
    assert notices == [notice] and settings == OPENING


# --- words ------------------------------------------------------------------------------------

@pytest.mark.parametrize("settings, words", [
    (Settings(), "Trajectory EXACT, arguments compared"),
    (Settings(trajectory="recall", trajectory_threshold=0.67), "Trajectory recall ≥ 0.67, arguments compared"),
    (Settings(trajectory="f1", trajectory_threshold=0.85, args="ignore"), "Trajectory F1 ≥ 0.85, names only (arguments ignored)"),
    (Settings(trajectory="in_order", trajectory_threshold=0.5), "Trajectory IN_ORDER ≥ 0.50, arguments compared"),
    (Settings(trajectory="subset", args="subset"), "Trajectory subset, arguments: subset (no unexpected keys)"),
    (Settings(trajectory="single_tool_use", single_tool="get_weather"), "Trajectory single tool use of get_weather"),
    (Settings(trajectory="single_tool_use", single_tool="get_weather", trajectory_threshold=0.5),
     "Trajectory single tool use of get_weather ≥ 0.50"),
    (Settings(trajectory="recall", trajectory_threshold=0.67, combine="mean"), "Trajectory recall, arguments compared"),
    (Settings(trajectory="none"), "Trajectory not scored"),
])
def test_trajectory_words_name_the_family_threshold_and_arguments(settings, words):
    assert trajectory_words(settings) == words


# --- the inputs and the card ---------------------------------------------------------------------

def test_a_one_zero_family_on_one_turn_runs_puts_the_threshold_back_to_one():
    inputs = Inputs(TOOLS, OPENING, one_turn=True)
    inputs.choose_trajectory("recall")
    inputs.trajectory_threshold = 0.67
    assert inputs.threshold_unused() == ""
    inputs.choose_trajectory("any_order")
    assert inputs.trajectory_threshold == 1.0 and inputs.settings() == OPENING.with_(trajectory="any_order")
    assert inputs.threshold_unused() == "Threshold not used: ANY_ORDER scores each one-turn run 1 (pass) or 0 (fail)."
    # runs of several turns: a match family's run score is a mean, so the threshold stays and is used
    inputs = Inputs(TOOLS, OPENING, one_turn=False)
    inputs.param.update(trajectory="recall", trajectory_threshold=0.5)
    inputs.choose_trajectory("exact")
    assert inputs.trajectory_threshold == 0.5 and inputs.threshold_unused() == ""
    inputs.combine = "mean"
    assert inputs.threshold_unused().startswith("Not used under “Mean”")
    inputs.choose_trajectory("none")
    assert inputs.threshold_unused() == "Not used: the trajectory is not scored."


def test_strict_and_single_tool_use_say_what_they_score():
    # the trial: with strict chosen the note read "Not used: EXACT scores…", as if EXACT were not
    # used; single tool use (1 when the tool was called, else 0: Vertex AI) kept a live 0–1
    # threshold on one-turn runs, where every threshold in (0, 1] gives the same verdicts
    inputs = Inputs(TOOLS, OPENING, one_turn=True)
    inputs.choose_trajectory("strict")
    assert inputs.threshold_unused() == "Threshold not used: strict scores each one-turn run 1 (pass) or 0 (fail)."
    inputs.param.update(trajectory="recall", trajectory_threshold=0.5)
    inputs.choose_trajectory("single_tool_use")
    assert inputs.trajectory_threshold == 1.0
    assert inputs.threshold_unused() == "Threshold not used: single tool use scores each one-turn run 1 (pass) or 0 (fail)."
    inputs = Inputs(TOOLS, OPENING, one_turn=False)  # several turns: the run's score is the mean, the threshold is read
    inputs.param.update(trajectory="single_tool_use", single_tool="get_weather", trajectory_threshold=0.5)
    assert inputs.threshold_unused() == ""
    from explorer.app.state import TRAJECTORY_GROUPS
    from explorer.app.views.inputs import definition_html
    assert TRAJECTORY_GROUPS["Tool check, pass or fail per turn"] == {"single tool use": "single_tool_use"}
    assert "single tool use" not in TRAJECTORY_GROUPS["Partial credit, 0 to 1"]
    assert shown(definition_html("single_tool_use")) == "single tool use (pass or fail per turn): the named tool was called."
    assert shown(definition_html("strict")) == "strict (pass or fail per turn): agentevals' name for EXACT on a flat call list."


def test_single_tool_use_gets_a_tool_and_leaves_it_out_elsewhere():
    inputs = Inputs(TOOLS, OPENING, one_turn=True)
    inputs.choose_trajectory("single_tool_use")
    assert inputs.settings().single_tool == "book_flight"  # the first tool seen
    inputs.single_tool = "get_weather"
    assert inputs.settings() == OPENING.with_(trajectory="single_tool_use", single_tool="get_weather")
    inputs.choose_trajectory("exact")
    assert inputs.settings() == OPENING  # the tool only matters to single tool use


def test_card_shows_the_definition_the_meaning_and_disables_what_does_nothing(booking):
    session = ExplorerSession(booking)
    view = session.inputs_view
    assert shown(view.definition.object) == "EXACT (pass or fail per turn): the same calls in the same order, nothing extra or missing."
    assert view.trajectory_threshold.disabled and view.trajectory_threshold_input.disabled
    assert shown(view.trajectory_reason.object) == "Threshold not used: EXACT scores each one-turn run 1 (pass) or 0 (fail)."
    assert shown(view.args_meaning.object) == "exact: same keys, equal values (ADK’s ==)."
    view.trajectory.value = "recall"  # as the person picks it
    assert shown(view.definition.object) == "recall (scores 0 to 1): share of the expected calls that were made."
    assert not view.trajectory_threshold.disabled and not view.trajectory_reason.visible
    view.trajectory_threshold_input.value = 0.67  # typed
    assert summary(session) == (6, 10, ["E5", "E6"], ["E1", "E7"])
    view.trajectory_threshold_input.value = 1.5  # refused, said, nothing changes
    assert session.inputs.trajectory_threshold == 0.67 and view.trajectory_message.visible
    session.inputs.args = "superset"
    assert shown(view.args_meaning.object) == "superset: every expected arg is present; extra keys allowed."
    view.trajectory.value = "single_tool_use"
    assert view.args_row[1] is view.single_tool and view.single_tool.value == "book_flight"
    assert shown(view.args_meaning.object) == "Tool: passes a turn that called this tool; arguments play no part."


def test_recall_at_0_67_reads_e4s_reason_and_charts_the_trajectory_threshold(booking):
    session = ExplorerSession(booking, {"trajectory": "recall", "trajectory_threshold": "0.67"})
    assert summary(session) == (6, 10, ["E5", "E6"], ["E1", "E7"])
    assert session.chart.varies == "trajectory_threshold"
    # the curve moves the trajectory threshold: at 0.66 E4 (0.667) passes -> a third false pass
    at = list(np.round(session.chart.source.data["threshold"], 2))
    assert session.chart.source.data["false_pass"][at.index(0.66)] == 3
    assert session.chart.source.data["agree"][at.index(0.67)] == 6
    session.inputs.choose_trajectory("exact")
    assert session.chart.varies == "f1_threshold"


# --- argument rules in a session -------------------------------------------------------------------

def test_rules_change_the_features_marks_and_reasons_of_this_session_only(booking):
    session = ExplorerSession(booking)
    other = ExplorerSession(booking)
    seen = []
    session.on_shared.append(seen.append)
    before = calls_html(session.features, session.ev, 9)[1]
    assert "me-call-args-differ" in before  # E10's confirm_booking with another booking id
    session.apply_arg_rules(IGNORE_BOOKING_ID, "the rules box")
    after = calls_html(session.features, session.ev, 9)[1]
    assert "me-call-args-differ" not in after and "me-call-missing" in after  # book_flight is still missing
    assert session.features.arg_rules == IGNORE_BOOKING_ID and seen and seen[0].features is session.shared.features
    assert other.features.arg_rules == NO_RULES  # the other session keeps the shared features
    assert shown(session.rules_view.status.object) == done_text(IGNORE_BOOKING_ID, "the rules box", 10)
    assert session.rules_view.toggle.label == "Rules (1)"


def test_rules_from_the_box_or_a_file_and_bad_rules_change_nothing(refund):
    assert rules_from_text('[{"key": "sent_at", "rule": "ignore"}]').rules[0].key == "sent_at"  # a bare list
    assert rules_from_text(dumps_settings(Settings(), refund.features.arg_rules), "s.json") == refund.features.arg_rules
    with pytest.raises(LoadError, match=r"the rules box: rules\[0\]\.rule: expected one of ignore, text, rung, number, date"):
        rules_from_text('[{"key": "x", "rule": "fuzzy"}]')
    session = ExplorerSession(refund)
    assert summary(session) == (5, 8, [], ["R2", "R3", "R8"])
    session.rules_view.text.value = '[{"key": "x", "rule": "fuzzy"}]'
    session.rules_view._from_box()
    assert "Could not use these rules." in shown(session.rules_view.status.object) and summary(session)[0] == 5
    session.rules_view.text.value = "[]"
    session.rules_view._from_box()
    assert summary(session) == (4, 8, [], ["R2", "R3", "R5", "R8"])
    session.rules_view.file.param.update(filename="rules.json", value=dumps_arg_rules(refund.features.arg_rules).encode())
    assert summary(session) == (5, 8, [], ["R2", "R3", "R8"])


def test_an_empty_rules_box_clears_the_rules_and_says_so(refund):
    # the trial: an emptied box and Apply said "invalid JSON: Expecting value"
    session = ExplorerSession(refund)
    assert summary(session)[0] == 5  # the set's sent_at rule in use
    session.rules_view.text.value = "  \n"
    session.rules_view._from_box()
    status = shown(session.rules_view.status.object)
    assert status == "Removed the argument rules: the trajectory scores of 8 runs were computed again."
    assert session.features.arg_rules == NO_RULES and summary(session) == (4, 8, [], ["R2", "R3", "R5", "R8"])
    session.rules_view.text.value = ""
    session.rules_view._from_box()  # nothing left to clear
    assert shown(session.rules_view.status.object) == "No argument rules are in use: nothing to clear."


def test_settings_words_name_the_rules_in_use(booking):
    # the trial: the summary bar's settings words did not say a rule was in use
    rules = arg_rules_from_data([
        {"tool": "confirm_booking", "key": "booking_id", "rule": "ignore"}, {"key": "*.name", "rule": "text"},
        {"key": "city", "rule": "rung", "rung": 4}, {"key": "n", "rule": "number", "tolerance": 0.5},
        {"key": "date", "rule": "date"}], "x")
    base = settings_words(OPENING)
    assert "rule" not in base
    assert settings_words(OPENING, IGNORE_BOOKING_ID) == base + " · 1 argument rule: booking_id of confirm_booking ignored"
    assert settings_words(OPENING, rules) == (base + " · 5 argument rules: booking_id of confirm_booking ignored; "
                                              "*.name as text; city as rung 4; +2 more")
    session = ExplorerSession(booking)
    session.apply_arg_rules(IGNORE_BOOKING_ID, "the rules box")
    assert "Settings: " + base + " · 1 argument rule: booking_id of confirm_booking ignored" in shown(session.metrics.summary.object)


def test_a_link_carries_short_rules_and_says_when_they_are_too_long(booking, refund):
    query = page_query(OPENING, rules=IGNORE_BOOKING_ID)
    # the rules' compact JSON, URL-encoded by hand
    assert query.endswith("&arg_rules=%5B%7B%22tool%22%3A%22confirm_booking%22%2C%22key%22%3A%22booking_id%22%2C"
                          "%22rule%22%3A%22ignore%22%7D%5D")
    assert "arg_rules" not in page_query(OPENING)
    from urllib.parse import parse_qs
    read = parse_qs(query[1:])
    assert rules_from_query(read) == (IGNORE_BOOKING_ID, [])
    assert settings_from_query(read, OPENING, TOOLS) == (OPENING, [])  # not an unknown setting
    assert rules_from_query({"arg_rules": "[]"}) == (NO_RULES, [])
    assert rules_from_query({}) == (None, [])
    assert rules_from_query({"arg_rules": "[{"}) == (None, [
        "Ignored arg_rules=[{ from the link: line 1, column 3: invalid JSON: Expecting property name enclosed in double quotes."])
    assert rules_from_query({"arg_rules": '[{"key": "x", "rule": "fuzzy"}]'})[1] == [
        'Ignored arg_rules=[{"key": "x", "rule": "fuzzy"}] from the link: arg_rules[0].rule: expected one of '
        "ignore, text, rung, number, date."]
    # a link opened with the rules applies them (E10's booking id ignored, as in the rules box)
    session = ExplorerSession(booking, read)
    assert session.features.arg_rules == IGNORE_BOOKING_ID
    assert shown(session.rules_view.status.object) == done_text(IGNORE_BOOKING_ID, "the link", 10)
    assert link_note(IGNORE_BOOKING_ID) == "The page’s link holds these rules: a shared link applies them."
    # arg_rules=[] on the refund set clears its own sent_at rule: 4/8, R5 a false fail again
    cleared = ExplorerSession(refund, {"arg_rules": "[]"})
    assert cleared.features.arg_rules == NO_RULES and summary(cleared) == (4, 8, [], ["R2", "R3", "R5", "R8"])
    # each rule below is 65 characters of JSON, 107 once URL-encoded: 15 of them (about 1,600) pass the 1,500 limit
    many = ArgRules(tuple(ArgRule(key=f"key_number_{k:02d}", kind="ignore", tool="some_tool_name") for k in range(15)))
    assert rules_query_value(many) is None and "arg_rules" not in page_query(OPENING, rules=many)
    assert link_note(many) == (f"These 15 rules are too long for the page’s link (over {LINK_RULES_LIMIT:,} characters): "
                               "a shared link opens without them. Share the Settings JSON (Your data tab), which holds them.")
    assert link_note(NO_RULES) == ""


DEEP_LINK = "[" * 2000 + "]" * 2000
"""A link's arg_rules nested 2,000 lists deep: Python's parser gives up near 1,000 (RecursionError)."""
LONG_NUMBER_LINK = '[{"key":"people","rule":"number","tolerance":' + "9" * 5000 + "}]"
"""A 5,000-digit tolerance: past Python's 4,300-digit int conversion limit (a bare ValueError)."""


@pytest.mark.parametrize("raw, notice", [
    (DEEP_LINK, "Ignored arg_rules=" + "[" * 39 + "… from the link: line 1, column 1001: invalid JSON: "
                "nested too deeply (over 1,000 levels of [ and {)."),
    # the 5,000 digits start after the 45 characters before them: column 46
    (LONG_NUMBER_LINK, 'Ignored arg_rules=[{"key":"people","rule":"number","toler… from the link: line 1, column 46: '
                       "invalid JSON: number with more than 4300 digits."),
])
def test_a_link_whose_rules_do_not_parse_opens_with_a_notice(booking, raw, notice):
    # broke: the session raised RecursionError / AttributeError ('ValueError' has no .msg): the page did not open
    assert rules_from_query({"arg_rules": [raw.encode()]}) == (None, [notice])
    session = ExplorerSession(booking, {"arg_rules": [raw.encode()], "trajectory": [b"any_order"]})
    assert session.features.arg_rules == NO_RULES and session.ev.settings.trajectory == "any_order"
    assert notice in shown(session.notice.object)


def test_a_link_with_markup_in_its_rules_shows_it_as_text(booking):
    """A link is anyone's text: a tool and key holding markup reach the settings words and the rules
    box as text (the rule matches no call of the booking runs, so the scores stay 4/10)."""
    raw = '[{"tool":"<img src=x onerror=alert(1)>","key":"<b>id</b>","rule":"ignore"}]'
    session = ExplorerSession(booking, {"arg_rules": [raw.encode()]})
    summary_markup = session.metrics.summary.object
    assert "<img" not in summary_markup and "<b>id</b>" not in summary_markup
    assert "1 argument rule: <b>id</b> of <img src=x onerror=alert(1)> ignored" in shown(summary_markup)
    assert "All runs: 4/10 agree" in shown(summary_markup)


def test_a_rule_with_a_long_tool_or_key_is_cut_in_the_settings_words():
    # a link's rule with a 400-character key pushed the summary card about 3,000 px wide
    rules = arg_rules_from_data([{"tool": "t" * 300, "key": "k" * 400, "rule": "ignore"}], "the link")
    assert settings_words(OPENING, rules).endswith(" · 1 argument rule: " + "k" * 39 + "… of " + "t" * 39 + "… ignored")
    exact = arg_rules_from_data([{"tool": "t" * 40, "key": "k" * 40, "rule": "ignore"}], "the link")  # 40: whole
    assert settings_words(OPENING, exact).endswith(" · 1 argument rule: " + "k" * 40 + " of " + "t" * 40 + " ignored")


def test_a_big_set_applies_rules_in_the_background(booking):
    view = ArgRulesView(NO_RULES, lambda rules, source: None)
    change = RulesChange(view)
    got = []
    change.start(booking.features, IGNORE_BOOKING_ID, "rules.json", got.append, background=True)
    assert "Applying 1 rule to 10 runs" in shown(view.status.object) and got == []
    change.job.join(30)
    change.poll()  # what the session's periodic callback does
    assert got and got[0].arg_rules == IGNORE_BOOKING_ID and change.job is None
    assert "Applied 1 rule from rules.json" in shown(view.status.object)


def test_rules_changed_while_a_change_computes_wait_and_the_latest_applies():
    # three changes in a row ran three recomputations side by side (about 12 s each at 1M runs);
    # 20,000 runs (the booking runs 2,000 times) take about 0.2 s each, long enough to overlap
    import threading
    from dataclasses import replace

    def threads() -> int:
        return sum(1 for t in threading.enumerate() if t.name == "metric-explorer-load" and t.is_alive())

    runs = load_case_set(BOOKING).runs
    big = shared_from_case_set(replace(load_case_set(BOOKING), runs=tuple(
        replace(r, id=f"{r.id}-{k}") for k in range(2000) for r in runs)))
    view = ArgRulesView(NO_RULES, lambda rules, source: None)
    change = RulesChange(view)
    got = []
    third = arg_rules_from_data([{"tool": "*", "key": "date", "rule": "date"}], "x")
    for rules in (IGNORE_BOOKING_ID, arg_rules_from_data([{"key": "city", "rule": "text"}], "x"), third):
        change.start(big.features, rules, "the rules box", got.append, background=True)
        assert threads() <= 1
    if not change.job.finished:  # the first still computes (0.2 s, unless the machine stalled): the line names the latest
        change.poll()
        assert shown(view.status.object) == ("Applying 1 rule to 20,000 runs: waiting for the change before it. "
                                             "The page shows the scores under the old rules until then.")
    while change.job is not None:  # what the session's periodic callback does
        change.job.join(60)
        change.poll()
    assert len(got) == 1 and got[0].arg_rules == third  # the first's result dropped, the second never computed
    assert shown(view.status.object) == "Applied 1 rule from the rules box: the trajectory scores of 20,000 runs were computed again."


# --- lessons ----------------------------------------------------------------------------------

def test_each_bundled_set_has_its_lesson(booking, refund):
    assert lesson_for(str(BOOKING)) is BOOKING_LESSON and lesson_for("refund_agent.json") is REFUND
    assert lesson_for("traces.jsonl") is None
    session = ExplorerSession(refund)
    assert len(session.lesson.buttons) == 5 and "Step 1 of 5:" in shown(session.lesson.head.object)
    session.choose_step(REFUND.steps[2])
    assert "lesson 6/8 · yours 6/8" in shown(session.lesson.head.object)
    assert summary(session) == (6, 8, ["R4", "R6"], [])
    other = ExplorerSession(shared_from_case_set(load_case_set(ROOT / "tests" / "fixtures" / "xss_cases.json")))
    assert other.lesson.steps == () and other.lesson.panel().visible is False


def test_a_settings_file_the_old_app_refused_opens_in_it(tmp_path):
    # serve --settings with recall at 0.67 (exit 2 before issue 12's card): the app opens on it
    settings = Settings(trajectory="recall", trajectory_threshold=0.67, deny_tools=("delete_booking",))
    session = ExplorerSession(shared_from_case_set(load_case_set(BOOKING), settings))
    assert session.inputs.settings() == settings and summary(session)[:2] == (6, 10)


# --- the page: uploads -------------------------------------------------------------------------------

@pytest.fixture
def process(booking):
    return ProcessSets(booking, str(BOOKING))


def traces_and_labels(tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from producers import booking_as_otlp, labels_csv

    path = tmp_path / "traces.jsonl"
    ids = booking_as_otlp(load_case_set(BOOKING), path)
    verdicts = {r.id: r.human_verdict for r in load_case_set(BOOKING).runs}
    return path.read_bytes(), labels_csv({ids[rid]: v for rid, v in verdicts.items()}).encode()


@pytest.mark.parametrize("labels_first", [True, False])
def test_traces_and_labels_in_either_order(process, tmp_path, labels_first):
    traces, labels = traces_and_labels(tmp_path)
    page = WorkspacePage(process)
    page.layout()
    files = [("labels.csv", labels), ("traces.jsonl", traces)]
    for name, data in (files if labels_first else files[::-1]):
        page.received(name, data)
    status = shown(page.upload.status.object)
    assert status == ("Loaded 10 runs from traces.jsonl. They are scored with the settings you had; press Play to list them. "
                      "Applied the labels in labels.csv. These traces have no expected calls yet, so every call counts "
                      "as an extra call (an exact trajectory fails every run that made one): drop an expectations file "
                      "(JSONL: id, expected_calls, reference; docs/formats.md) to join them.")
    # no expectations joined: every run fails EXACT; the five acceptable ones are false fails
    assert summary(page.session)[:2] == (5, 10) and len(summary(page.session)[3]) == 5


def test_labels_naming_no_run_wait_and_a_bad_labels_file_changes_nothing(process):
    page = WorkspacePage(process)
    page.layout()
    page.received("labels.csv", b"run_id,human_verdict\nT1,acceptable\nT2,unacceptable\n")
    assert shown(page.upload.status.object).startswith("None of the 2 run ids in labels.csv names a run shown here")
    # nothing was applied: said plainly, not in the success style (found by the newcomer trial)
    assert 'class="me-load-waiting"' in page.upload.status.object and "me-load-ok" not in page.upload.status.object
    assert page.pending_labels is not None and summary(page.session)[:2] == (4, 10)
    page.received("runs.jsonl", b'{"id": "T9", "expected_calls": "a", "actual_calls": "a", "answer": "x", "reference": "x"}\n')
    assert "The labels in labels.csv name none of these runs, so they were not applied." in shown(page.upload.status.object)
    page.received("bad.csv", b"run_id,human_verdict\nT9,maybe\n")
    assert page.upload.error.visible and "bad.csv: row 2, column human_verdict" in page.upload.error.object


def test_settings_and_rules_files_dropped_on_the_page(process, refund):
    page = WorkspacePage(process)
    page.layout()
    data = dumps_settings(Settings(trajectory="recall", trajectory_threshold=0.67)).encode()
    assert settings_file_kind(data) == "settings"
    page.received("settings.json", data)
    assert shown(page.upload.status.object) == "Applied the settings in settings.json."
    assert summary(page.session)[:2] == (6, 10)
    rules = dumps_arg_rules(IGNORE_BOOKING_ID).encode()
    assert settings_file_kind(rules) == "rules" and settings_file_kind(b"[1, 2]") is None
    page.received("rules.json", rules)
    assert page.session.features.arg_rules == IGNORE_BOOKING_ID
    page.received("broken.json", b'{"format": "metric-explorer/settings@1", "settings": {"trajectory": "sideways"}}')
    assert page.upload.error.visible and "broken.json: settings.trajectory" in page.upload.error.object
    assert summary(page.session)[:2] == (6, 10)
    # the rules stay with the set across a switch
    page.picker.value = "bundled:refund_agent.json"
    page.picker.value = "served"
    assert page.session.features.arg_rules == IGNORE_BOOKING_ID


def test_a_small_criteria_file_nested_too_deeply_is_named_and_changes_nothing(process):
    """An ADK test_config.json is told by a small object with "criteria"; one whose criteria nest
    2,000 lists deep raised RecursionError out of the drop (the page showed nothing). It is now
    read as a run file, whose reader names the first bracket past 1,000 levels: the "[" at column
    14 + 999 = 1013 (13 characters before the first one)."""
    deep = b'{"criteria": ' + b"[" * 2000 + b"]" * 2000 + b"}"
    assert settings_file_kind(deep) is None
    page = WorkspacePage(process)
    page.session.inputs.apply(page.session.inputs.settings().with_(trajectory="recall", trajectory_threshold=0.67))
    page.received("test_config.json", deep)
    assert shown(page.upload.error.object) == (
        "Could not load this file. test_config.json: line 1, column 1013: invalid JSON: nested too deeply "
        "(over 1,000 levels of [ and {) Nothing changed: the case set, labels and settings are as they were.")
    assert page.workspace.active == "served" and summary(page.session)[:2] == (6, 10)


def test_label_keys_with_no_run_selected_say_so_above_the_table(process):
    page = WorkspacePage(process)
    page.layout()
    page._on_key(type("E", (), {"new": "a:1"})())
    hint = page.attached.key_hint
    assert hint.visible and shown(hint.object) == (
        "No run is shown yet: press Play or Next event, click a row in the table, then press a , u or c .")
    page.session.clock.time = 60.0
    page._on_key(type("E", (), {"new": "u:2"})())
    assert shown(hint.object) == "Select a run first: click its row in the table, then press a , u or c ."
    page.session.table.table.selection = [0]
    assert not hint.visible and summary(page.session)[:2] == (4, 10)  # nothing was labelled


def test_load_report_sentences_and_carried_settings(booking, refund):
    assert note_sentence("t.json: 1 of 2 traces has no tool spans: read as runs with no calls", "t.json") == (
        "1 of 2 traces has no tool spans: read as runs with no calls.")
    cs = load_case_set(BOOKING)
    from dataclasses import replace
    noted = replace(cs, source="/tmp/up/t.json", notes=("t.json: 2 of 10 traces have no answer: read as runs with an empty answer",))
    assert load_report(noted) == ["2 of 10 traces have no answer: read as runs with an empty answer."]
    single = Settings(trajectory="single_tool_use", single_tool="get_weather", deny_tools=("delete_booking",), deny_check=True)
    assert carried_settings(single, refund) == Settings(deny_check=True)  # neither tool is in the refund runs


def test_downloads_carry_the_rules_and_the_parquet_table(process):
    import pyarrow.parquet as pq

    page = WorkspacePage(process)
    page.layout()
    page.picker.value = "bundled:refund_agent.json"
    saved = json.loads(page.downloads._settings())
    assert saved["arg_rules"] == [{"tool": "send_confirmation", "key": "sent_at", "rule": "ignore"}]
    notes = " ".join(json.loads(page.downloads._adk())["_metric_explorer_notes"])
    assert "the argument rules (send_confirmation.sent_at ignore) are not applied" in notes
    table = pq.read_table(io.BytesIO(page.downloads._parquet())).to_pydict()
    assert table["id"] == [f"R{i}" for i in range(1, 9)]
    assert table["outcome"].count("agree") == 5
    assert page.downloads.parquet.filename == "Refund-agent-partial-credit-scored.parquet"


def test_an_adk_test_config_dropped_on_the_page_applies_its_criteria(process):
    # /work/shared/formats/adk/test_config.json: IN_ORDER at 1.0, response_match_score 0.8 (ROUGE-1).
    # The booking story's IN_ORDER row gives 5/10 with F1 at 0.8 (seed 002); checked here against
    # the same settings typed in, so the file is read as those settings.
    page = WorkspacePage(process)
    page.layout()
    data = b'{\n  "criteria": {\n    "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},\n    "response_match_score": 0.8\n  }\n}\n'
    assert settings_file_kind(data) == "settings"
    page.received("test_config.json", data)
    assert shown(page.upload.status.object) == "Applied the settings in test_config.json."
    inputs = page.session.inputs
    assert (inputs.trajectory, inputs.response_scorer, inputs.f1_threshold) == ("in_order", "rouge1", 0.8)
    typed = evaluate(page.session.features, Settings(trajectory="in_order", response_scorer="rouge1"), page.session.response)
    assert summary(page.session)[:2] == (typed.summary.agree, typed.summary.labelled)
    page.received("judge.json", b'{"criteria": {"final_response_match_v2": 0.8}}')
    assert page.upload.error.visible and "judge.json: criteria.final_response_match_v2" in page.upload.error.object
