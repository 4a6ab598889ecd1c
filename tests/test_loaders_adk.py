"""ADK eval set results (*.evalset_result.json) loaded as runs.

The files are written here from ADK's documented schema (google-adk evaluation/eval_result.py,
eval_metrics.py, eval_case.py; EvalStatus 1 PASSED, 2 FAILED, 3 NOT_EVALUATED), in the forms ADK
writes: actual calls in intermediate_data.tool_uses (older) or as function_call parts of
intermediate_data.invocation_events (newer), camelCase keys, and the JSON-string-holding-JSON
file of ADK <= 1.21.
"""

import json

import pytest

from explorer.cli import main
from explorer.core.io.errors import LoadError
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import build_features
from explorer.core.io.loaders import load_runs
from explorer.core.io.loaders.adk import load_adk_results
from explorer.core.io.model import ToolCall
from explorer.core.evaluation.settings import Settings

SEARCH = {"name": "search_flights", "args": {"origin": "LHR", "destination": "LIS", "date": "2026-03-12"}}
BOOK = {"name": "book_flight", "args": {"flight": "TP1351", "passenger": "Ana Silva"}}
CONFIRM = {"name": "confirm_booking", "args": {"booking_id": "BK-4821"}}
WEATHER = {"name": "get_weather", "args": {"city": "Lisbon"}}


def content(role, *texts):
    return {"role": role, "parts": [{"text": t} for t in texts]}


def old_invocation(user, answer, calls, inv_id="inv-1"):
    """An ADK Invocation with calls in intermediate_data.tool_uses (older files, and eval sets)."""
    return {
        "invocation_id": inv_id,
        "user_content": content("user", user),
        "final_response": content("model", answer),
        "intermediate_data": {"tool_uses": [dict(c, id=f"adk-{i}") for i, c in enumerate(calls)],
                              "tool_responses": [], "intermediate_responses": []},
        "creation_timestamp": 1751328000.0,
    }


def new_invocation(user, answer_parts, calls, inv_id="e-1"):
    """An ADK Invocation with calls as function_call parts of invocation_events, each call followed
    by its function_response event, and a model text event in between."""
    events = [{"author": "agent", "content": {"role": "model", "parts": [{"text": "Let me look."}]}}]
    for i, c in enumerate(calls):
        events.append({"author": "agent", "content": {"role": "model", "parts": [{"function_call": dict(c, id=f"c{i}")}]}})
        events.append({"author": "agent", "content": {"role": "user", "parts": [
            {"function_response": {"id": f"c{i}", "name": c["name"], "response": {"ok": True}}}]}})
    return {
        "invocation_id": inv_id,
        "user_content": content("user", user),
        "final_response": content("model", *answer_parts),
        "intermediate_data": {"invocation_events": events},
    }


def metric(name, score, status, threshold, **criterion):
    return {"metric_name": name, "threshold": threshold, "criterion": {"threshold": threshold, **criterion},
            "score": score, "eval_status": status, "details": {"rubric_scores": None}}


def case_result(eval_id, per_invocation, overall, final_status):
    return {
        "eval_set_file": "flights", "eval_set_id": "flights", "eval_id": eval_id,
        "final_eval_status": final_status,
        "overall_eval_metric_results": overall,
        "eval_metric_result_per_invocation": per_invocation,
        "session_id": "___eval___session___1", "session_details": None, "user_id": "test_user_id",
    }


def result_file(*cases):
    return {"eval_set_result_id": "agent_flights_1751328000.0", "eval_set_result_name": "agent_flights_1751328000.0",
            "eval_set_id": "flights", "eval_case_results": list(cases), "creation_timestamp": 1751328000.0}


REF = "Your flight TP1351 to Lisbon on 12 March is booked. Booking reference BK-4821."


def old_form_case():
    expected = old_invocation("Book TP1351 to Lisbon on 12 March.", REF, [SEARCH, BOOK, CONFIRM])
    actual = old_invocation("Book TP1351 to Lisbon on 12 March.", "Booked TP1351 on 12 March, reference BK-4821.",
                            [SEARCH, WEATHER, BOOK, CONFIRM], inv_id="e-old")
    per = [{"actual_invocation": actual, "expected_invocation": expected, "eval_metric_results": [
        metric("tool_trajectory_avg_score", 0.0, 2, 1.0, match_type="EXACT"),
        metric("response_match_score", 0.64, 2, 0.8)]}]
    return case_result("weather_detour", per, [
        metric("tool_trajectory_avg_score", 0.0, 2, 1.0, match_type="EXACT"),
        metric("response_match_score", 0.64, 2, 0.8)], 2)


def new_form_case():
    expected = old_invocation("Book TP1351 to Lisbon on 12 March.", REF, [SEARCH, BOOK, CONFIRM])
    actual = new_invocation("Book TP1351 to Lisbon on 12 March.", ["Booked TP1351 on 12 March.", "Reference BK-4821."],
                            [SEARCH, BOOK, CONFIRM])
    per = [{"actual_invocation": actual, "expected_invocation": expected, "eval_metric_results": [
        metric("tool_trajectory_avg_score", 1.0, 1, 1.0), metric("response_match_score", 0.83, 1, 0.8)]}]
    return case_result("exact_path", per, [
        metric("tool_trajectory_avg_score", 1.0, 1, 1.0), metric("response_match_score", 0.83, 1, 0.8)], 1)


def write(tmp_path, data, name="agent_flights_1751328000.0.evalset_result.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_old_tool_uses_form(tmp_path):
    cs = load_runs(write(tmp_path, result_file(old_form_case())))
    assert len(cs.runs) == 1
    run = cs.runs[0]
    assert run.id == "weather_detour" and run.user_input == "Book TP1351 to Lisbon on 12 March."
    inv = run.invocations[0]
    assert inv.expected_calls == (ToolCall(**SEARCH), ToolCall(**BOOK), ToolCall(**CONFIRM))
    assert inv.actual_calls == (ToolCall(**SEARCH), ToolCall(**WEATHER), ToolCall(**BOOK), ToolCall(**CONFIRM))
    assert inv.answer == "Booked TP1351 on 12 March, reference BK-4821."
    assert inv.references == (REF,)
    assert run.extra["adk_tool_trajectory_avg_score"] == 0.0
    assert run.extra["adk_response_match_score"] == 0.64
    assert run.extra["adk_final_eval_status"] == "FAILED"
    assert run.extra["adk_invocation_count_mismatch"] is False
    assert run.human_verdict is None


def test_new_invocation_events_form(tmp_path):
    cs = load_runs(write(tmp_path, result_file(new_form_case())))
    inv = cs.runs[0].invocations[0]
    # every function_call part, in order; function_response and text parts are not calls
    assert [c.name for c in inv.actual_calls] == ["search_flights", "book_flight", "confirm_booking"]
    assert inv.actual_calls[1].args == {"flight": "TP1351", "passenger": "Ana Silva"}
    # text parts of final_response joined by a newline
    assert inv.answer == "Booked TP1351 on 12 March.\nReference BK-4821."
    assert cs.runs[0].extra["adk_final_eval_status"] == "PASSED"
    assert cs.runs[0].extra["adk_response_match_score"] == 0.83


def camel(value, inside_args=False):
    """ADK's camelCase aliases (pydantic to_camel) on model keys; tool args are data, left alone."""
    if isinstance(value, list):
        return [camel(v) for v in value]
    if not isinstance(value, dict) or inside_args:
        return value
    out = {}
    for k, v in value.items():
        head, *rest = k.split("_")
        key = head + "".join(p.title() for p in rest)
        out[key] = v if k in ("args", "response") else camel(v)
    return out


def test_camel_case_keys(tmp_path):
    data = camel(result_file(old_form_case(), new_form_case()))
    assert "evalCaseResults" in data and "functionCall" in json.dumps(data) and "flight_id" not in json.dumps(data)
    cs = load_runs(write(tmp_path, data))
    snake = load_runs(write(tmp_path, result_file(old_form_case(), new_form_case()), "snake.evalset_result.json"))
    assert [r.invocations for r in cs.runs] == [r.invocations for r in snake.runs]
    assert [dict(r.extra) for r in cs.runs] == [dict(r.extra) for r in snake.runs]
    assert cs.runs[1].invocations[0].answer == "Booked TP1351 on 12 March.\nReference BK-4821."


def test_double_encoded_json_string(tmp_path):
    # ADK <= 1.21 wrote json.dumps(model_dump_json()): the file is a JSON string holding the JSON
    path = tmp_path / "old.evalset_result.json"
    path.write_text(json.dumps(json.dumps(result_file(old_form_case(), new_form_case()))), encoding="utf-8")
    assert path.read_text().startswith('"{')
    cs = load_runs(path)
    assert [r.id for r in cs.runs] == ["weather_detour", "exact_path"]
    assert cs.runs[0].invocations[0].actual_calls[1] == ToolCall(**WEATHER)
    assert cs.runs[1].extra["adk_tool_trajectory_avg_score"] == 1.0


def multi_invocation_case():
    """Three invocations; under EXACT the 2nd has an extra weather call: ADK scores 1, 0, 1."""
    turns = [
        ("Find flights to Lisbon on 12 March.", [SEARCH], [SEARCH], "Flights found.", "Flights found."),
        ("Book TP1351 for Ana Silva.", [BOOK], [WEATHER, BOOK], "the cat", "the cat sat"),
        ("Confirm it.", [CONFIRM], [CONFIRM], "Confirmed BK-4821.", "Confirmed BK-4821."),
    ]
    per = []
    for k, (user, exp_calls, act_calls, answer, ref) in enumerate(turns):
        score = 1.0 if exp_calls == act_calls else 0.0
        per.append({
            "actual_invocation": new_invocation(user, [answer], act_calls, inv_id=f"e-{k}"),
            "expected_invocation": old_invocation(user, ref, exp_calls, inv_id=f"inv-{k}"),
            "eval_metric_results": [metric("tool_trajectory_avg_score", score, 1 if score else 2, 1.0)],
        })
    return case_result("three_turns", per, [metric("tool_trajectory_avg_score", (1 + 0 + 1) / 3, 2, 1.0),
                                            metric("response_match_score", 0.9333, 1, 0.8)], 2)


def test_multi_invocation_scores_one_zero_one(tmp_path):
    cs = load_runs(write(tmp_path, result_file(multi_invocation_case())))
    run = cs.runs[0]
    assert len(run.invocations) == 3
    assert [c.name for c in run.invocations[1].actual_calls] == ["get_weather", "book_flight"]
    assert run.user_input == "Find flights to Lisbon on 12 March.\nBook TP1351 for Ana Silva.\nConfirm it."
    features = build_features(cs)
    ev = evaluate(features, Settings(trajectory="exact"))
    # ours: mean of per-invocation 1/0 = (1 + 0 + 1) / 3
    assert round(float(ev.trajectory_score[0]), 3) == 0.667
    assert round(run.extra["adk_tool_trajectory_avg_score"], 3) == 0.667
    # F1 per invocation: 1, 2*2/(2+3) = 0.8 ("the cat" vs "the cat sat"), 1 -> mean 2.8/3
    assert ev.f1[0] == pytest.approx(2.8 / 3)
    # IN_ORDER lets the extra call through: every invocation matches
    assert evaluate(features, Settings(trajectory="in_order")).trajectory_score[0] == 1.0
    assert run.extra["adk_expected_invocations"] == 3 and run.extra["adk_invocation_count_mismatch"] is False


def test_invocation_count_mismatch_is_loaded_and_flagged(tmp_path):
    case = multi_invocation_case()
    case["eval_metric_result_per_invocation"][2]["expected_invocation"] = None
    cs = load_runs(write(tmp_path, result_file(case, new_form_case())))
    run = cs.runs[0]
    assert len(cs.runs) == 2 and len(run.invocations) == 3
    assert (run.extra["adk_expected_invocations"], run.extra["adk_actual_invocations"]) == (2, 3)
    assert run.extra["adk_invocation_count_mismatch"] is True
    assert run.invocations[2].expected_calls == () and run.invocations[2].actual_calls == (ToolCall(**CONFIRM),)
    assert cs.runs[1].extra["adk_invocation_count_mismatch"] is False


def test_not_evaluated_case_without_invocations_is_kept(tmp_path):
    failed = case_result("inference_failed", [], [], 3)
    cs = load_runs(write(tmp_path, result_file(new_form_case(), failed)))
    run = cs.runs[1]
    assert run.id == "inference_failed" and run.extra["adk_final_eval_status"] == "NOT_EVALUATED"
    assert run.extra["adk_tool_trajectory_avg_score"] is None
    assert (run.extra["adk_expected_invocations"], run.extra["adk_actual_invocations"]) == (0, 0)
    assert len(run.invocations) == 1 and run.invocations[0].answer == ""


def test_repeated_eval_id_gets_a_suffix(tmp_path):
    cs = load_runs(write(tmp_path, result_file(new_form_case(), new_form_case())))
    assert [r.id for r in cs.runs] == ["exact_path", "exact_path#2"]


def test_deprecated_eval_metric_results_pairs(tmp_path):
    case = old_form_case()
    overall = case.pop("overall_eval_metric_results")
    case["eval_metric_results"] = [[{"metric_name": m["metric_name"], "threshold": m["threshold"]}, m] for m in overall]
    run = load_runs(write(tmp_path, result_file(case))).runs[0]
    assert run.extra["adk_tool_trajectory_avg_score"] == 0.0 and run.extra["adk_response_match_score"] == 0.64


EVALSET_PARTS = ("holds expected runs only", ".adk/eval_history/", "*.evalset_result.json")


@pytest.mark.parametrize("name, data", [
    ("flights.evalset.json", {"eval_set_id": "flights", "eval_cases": [
        {"eval_id": "c1", "conversation": [old_invocation("Book it.", REF, [SEARCH])],
         "session_input": {"app_name": "agent", "user_id": "user", "state": {}}}]}),
    ("flights_camel.evalset.json", {"evalSetId": "flights", "evalCases": []}),
    ("booking.test.json", [{"query": "Book it.", "expected_tool_use": [{"tool_name": "search_flights", "tool_input": {}}],
                            "expected_intermediate_agent_responses": [], "reference": REF}]),
])
def test_eval_set_given_by_mistake(tmp_path, capsys, name, data):
    path = write(tmp_path, data, name)
    with pytest.raises(LoadError) as info:
        load_runs(path)
    message = str(info.value)
    assert message.startswith(f"{path}: this is an ADK eval set")
    assert all(part in message for part in EVALSET_PARTS)
    with pytest.raises(LoadError) as info2:
        load_adk_results(str(path))
    assert str(info2.value) == message
    assert main(["score", "--cases", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds expected runs only" in err[0]


@pytest.mark.parametrize("mutate, location, problem", [
    (lambda d: d.update(eval_case_results=[]), "eval_case_results", "no eval case results (0 runs)"),
    (lambda d: d["eval_case_results"][0].pop("eval_metric_result_per_invocation"), "eval_case_results[0]",
     'missing "eval_metric_result_per_invocation"'),
    (lambda d: d["eval_case_results"][0]["eval_metric_result_per_invocation"][0]["actual_invocation"]
     ["intermediate_data"]["invocation_events"][1]["content"]["parts"][0]["function_call"].pop("name"),
     "eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation.intermediate_data"
     ".invocation_events[1].content.parts[0].function_call", 'missing "name"'),
    (lambda d: d["eval_case_results"][0]["eval_metric_result_per_invocation"][0]["expected_invocation"]
     ["intermediate_data"].update(tool_uses={"name": "x"}),
     "eval_case_results[0].eval_metric_result_per_invocation[0].expected_invocation.intermediate_data.tool_uses",
     "expected a list, got an object"),
    (lambda d: d["eval_case_results"][0].update(final_eval_status="MAYBE"), "eval_case_results[0].final_eval_status",
     "expected an ADK eval status"),
    (lambda d: d["eval_case_results"][0]["overall_eval_metric_results"][0].update(score="high"),
     "eval_case_results[0].overall_eval_metric_results[0].score", "expected a number or null, got a string"),
    (lambda d: d.update(eval_case_results={"a": 1}), "eval_case_results", "expected a list, got an object"),
    (lambda d: d["eval_case_results"][0].update(eval_id=7), "eval_case_results[0].eval_id", "expected a string, got a number"),
    # falsy values that are not null: before, read as empty lists without a word (a newcomer's trial)
    (lambda d: d["eval_case_results"][0].update(eval_metric_result_per_invocation=""),
     "eval_case_results[0].eval_metric_result_per_invocation", "expected a list, got a string"),
    (lambda d: d["eval_case_results"][0].update(eval_metric_result_per_invocation=0),
     "eval_case_results[0].eval_metric_result_per_invocation", "expected a list, got a number"),
    (lambda d: d["eval_case_results"][0]["eval_metric_result_per_invocation"][0]["actual_invocation"]
     ["intermediate_data"].update(invocation_events={}),
     "eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation.intermediate_data.invocation_events",
     "expected a list, got an object"),
    (lambda d: d["eval_case_results"][0]["eval_metric_result_per_invocation"][0]["expected_invocation"]
     ["intermediate_data"].update(tool_uses=False),
     "eval_case_results[0].eval_metric_result_per_invocation[0].expected_invocation.intermediate_data.tool_uses",
     "expected a list, got a bool"),
])
def test_bad_result_files(tmp_path, mutate, location, problem):
    data = result_file(new_form_case())
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(LoadError) as info:
        load_runs(path, "adk")
    err = info.value
    assert (err.file, err.location) == (str(path), location)
    assert err.problem.startswith(problem)
    assert str(err) == f"{path}: {location}: {err.problem}"


def test_json_string_that_is_not_json(tmp_path):
    path = tmp_path / "x.evalset_result.json"
    path.write_text(json.dumps('{"eval_case_results": ['))
    with pytest.raises(LoadError) as info:
        load_runs(path, "adk")
    assert info.value.location.startswith("(JSON string) line 1")
    assert "the file is a JSON string but its text is not JSON" in str(info.value)


@pytest.mark.parametrize("fmt", ["adk", "auto"])
def test_json_string_nested_too_deeply_is_named_at_its_bracket(tmp_path, fmt):
    """An ADK <= 1.21 file is a JSON string holding the JSON; one whose inner JSON nests 2,000
    lists deep raised RecursionError out of the reader (and out of format detection). The first
    bracket past 1,000 levels is the 1,001st character of the inner text: column 1001."""
    path = tmp_path / "x.evalset_result.json"
    path.write_text(json.dumps("[" * 2000 + "]" * 2000))
    with pytest.raises(LoadError) as info:
        load_runs(path, fmt)
    if fmt == "adk":
        assert str(info.value) == (f"{path}: (JSON string) line 1, column 1001: the file is a JSON string but its text "
                                   "is not JSON: nested too deeply (over 1,000 levels of [ and {)")
    else:  # a string that holds no JSON is no ADK file: the format cannot be told
        assert str(info.value).startswith(f"{path}: (top level): cannot tell the format")


def test_score_cli_shows_adk_columns(tmp_path, capsys):
    path = write(tmp_path, result_file(old_form_case(), new_form_case()))
    assert main(["score", "--cases", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    runs = {r["id"]: r for r in out["runs"]}
    assert runs["weather_detour"]["adk_final_eval_status"] == "FAILED"
    assert runs["exact_path"]["adk_tool_trajectory_avg_score"] == 1.0
    assert runs["weather_detour"]["verdict"] == "fail" and runs["weather_detour"]["outcome"] == "unlabelled"
    assert out["summary"]["labelled"] == 0 and out["summary"]["unlabelled"] == 2


FIXTURES = __import__("pathlib").Path(__file__).resolve().parent / "fixtures" / "adk"


def test_shared_adk_example_result_file():
    """tests/fixtures/adk: the project's ADK example files (google-adk 2.13 schema)."""
    cs = load_runs(FIXTURES / "minimal.evalset_result.json")
    run = cs.runs[0]
    inv = run.invocations[0]
    assert run.id == "book_cheapest_flight"
    assert inv.expected_calls == (
        ToolCall("search_flights", {"origin": "SFO", "destination": "JFK", "date": "2025-07-01"}),
        ToolCall("book_flight", {"flight_id": "UA100"}),
    )
    assert inv.actual_calls == (ToolCall("book_flight", {"flight_id": "UA100"}),)
    assert inv.answer == "Booked UA100 for you."
    assert inv.references == ("I booked flight UA 100 from SFO to JFK on July 1.",)
    assert (run.extra["adk_tool_trajectory_avg_score"], run.extra["adk_response_match_score"]) == (0.0, 0.6)
    assert run.extra["adk_final_eval_status"] == "FAILED"
    ev = evaluate(build_features(cs), Settings(trajectory="in_order"))
    assert ev.trajectory_score[0] == 0.0  # search_flights missing: ADK's IN_ORDER score 0.0 too
    # tokens: booked ua100 for you (4) vs i booked flight ua 100 from sfo to jfk on july 1 (12); overlap 1
    assert ev.f1[0] == pytest.approx(2 * 1 / (4 + 12))


@pytest.mark.parametrize("name", ["minimal.evalset.json", "minimal_events.evalset.json", "legacy_format.test.json"])
def test_shared_adk_example_eval_sets(name):
    with pytest.raises(LoadError) as info:
        load_runs(FIXTURES / name)
    assert all(part in str(info.value) for part in EVALSET_PARTS)


def test_a_run_is_titled_by_its_first_user_message_not_its_eval_id(tmp_path, capsys):
    # the title was the eval id, the run's id already: score's table and the page showed it twice
    long_ask = ("Book the cheapest flight from London Heathrow to Lisbon on 12 March for Ana Silva, "
                "window seat please.\nThanks.")
    long_case = old_form_case()
    long_case["eval_id"] = "long_ask"
    for side in ("actual_invocation", "expected_invocation"):
        long_case["eval_metric_result_per_invocation"][0][side]["user_content"] = content("user", long_ask)
    silent = old_form_case()
    silent["eval_id"] = "no_user_text"
    for side in ("actual_invocation", "expected_invocation"):
        silent["eval_metric_result_per_invocation"][0][side]["user_content"] = None
    path = write(tmp_path, result_file(old_form_case(), long_case, silent))
    runs = {r.id: r for r in load_runs(path).runs}
    assert runs["weather_detour"].title == "Book TP1351 to Lisbon on 12 March."
    # the first line cut to 60 characters: 57 of them and "..." (as an Inspect sample's title)
    assert runs["long_ask"].title == "Book the cheapest flight from London Heathrow to Lisbon o..."
    assert len(runs["long_ask"].title) == 60
    assert runs["no_user_text"].title == ""
    assert main(["score", "--cases", str(path)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "weather_detour" in line)
    assert row.count("weather_detour") == 1 and "Book TP1351 to Lisbon" in row


# --- what the loader assumed, said in notes (CLI stderr, the page's load report) ---------------


def test_missing_sides_and_made_up_ids_are_noted_with_their_json_path(tmp_path, capsys):
    """Case 0 (three_turns): turn 2 has no actual_invocation, turn 3 no expected_invocation; case 1
    has no eval_id (run id case-2); case 2 repeats case 0's id (three_turns#2); case 3 has no
    invocations. Each assumption is one note: file, JSON path, what was assumed."""
    case = multi_invocation_case()
    del case["eval_metric_result_per_invocation"][1]["actual_invocation"]
    case["eval_metric_result_per_invocation"][2]["expected_invocation"] = None
    nameless = new_form_case()
    del nameless["eval_id"]
    failed = case_result("inference_failed", [], [], 3)
    path = write(tmp_path, result_file(case, nameless, multi_invocation_case(), failed), name="x.evalset_result.json")
    cs = load_runs(path)
    assert [r.id for r in cs.runs] == ["three_turns", "case-2", "three_turns#2", "inference_failed"]
    per = "eval_case_results[0].eval_metric_result_per_invocation"
    assert cs.notes == (
        f"{path}: {per}[1]: no actual_invocation; scored as a missing turn (the run fails)",
        f"{path}: {per}[2]: no expected_invocation; read as a turn expecting no calls, with an empty reference",
        f"{path}: eval_case_results[1]: no eval_id; run id case-2",
        f'{path}: eval_case_results[2].eval_id: "three_turns" repeats eval_case_results[0]\'s; run id three_turns#2',
        f"{path}: eval_case_results[3].eval_metric_result_per_invocation: no invocations (ADK's failed inference); "
        "read as one empty turn",
    )
    assert main(["score", "--cases", str(path)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"metric-explorer: note: {path}: {per}[1]: no actual_invocation; scored as a missing turn (the run fails)" in err
    assert f"metric-explorer: note: {path}: eval_case_results[1]: no eval_id; run id case-2" in err

    from explorer.app.page import load_report
    report = load_report(cs)
    assert report[0] == f"{per}[1]: no actual_invocation; scored as a missing turn (the run fails)."
    assert report[2] == "eval_case_results[1]: no eval_id; run id case-2."


def test_an_empty_eval_id_is_noted_and_a_clean_file_has_no_notes(tmp_path):
    empty = new_form_case()
    empty["eval_id"] = ""
    cs = load_runs(write(tmp_path, result_file(old_form_case(), empty)))
    assert [r.id for r in cs.runs] == ["weather_detour", "case-2"]
    assert [n.split(": ", 1)[1] for n in cs.notes] == ["eval_case_results[1]: empty eval_id; run id case-2"]
    assert load_runs(write(tmp_path, result_file(old_form_case(), new_form_case()), name="ok.evalset_result.json")).notes == ()


def test_notes_reach_the_user_through_a_features_dataset_and_the_feature_cache(tmp_path, capsys, monkeypatch):
    """A file read through ``featurize``'s dataset or the automatic feature cache says what a
    direct load says: the note is written into the manifest and printed by ``score`` (stderr),
    and shown once on the page, with the cache's own note once too (it was shown twice)."""
    case = new_form_case()
    del case["eval_metric_result_per_invocation"][0]["actual_invocation"]
    path = write(tmp_path, result_file(case), name="gap.evalset_result.json")
    missing = f"{path}: eval_case_results[0].eval_metric_result_per_invocation[0]: no actual_invocation; " \
              "scored as a missing turn (the run fails)"
    out = tmp_path / "out.features"
    assert main(["featurize", str(path), "--out", str(out), "--workers", "1"]) == 0
    assert json.loads((out / "_features.json").read_text(encoding="utf-8"))["notes"] == [missing]
    capsys.readouterr()
    assert main(["score", "--cases", str(out)]) == 0
    assert f"metric-explorer: note: {missing}" in capsys.readouterr().err.splitlines()
    monkeypatch.setenv("METRIC_EXPLORER_CACHE_MIN_BYTES", "1")  # a file this small goes through the cache
    cache = tmp_path / "cache"
    for said in ("features computed", "features read from the cache"):  # computed into it, then read from it
        assert main(["score", "--cases", str(path), "--cache-dir", str(cache)]) == 0
        err = capsys.readouterr().err.splitlines()
        assert err[0] == f"metric-explorer: note: {missing}" and err[1].startswith(f"metric-explorer: note: {said}")

    from explorer.app.page import WorkspacePage
    from explorer.app.workspace import ProcessSets, shared_from_case_set
    from explorer.commands.common import load_cases

    gap = "eval_case_results[0].eval_metric_result_per_invocation[0]: no actual_invocation; scored as a missing turn (the run fails)."
    for source in (str(out), str(path)):
        page = WorkspacePage(ProcessSets(shared_from_case_set(load_cases(source, cache_dir=str(cache)), None, None), source))
        items = page.session.notice.object.split("<li>")[1:]
        assert sum(gap in item for item in items) == 1
        assert sum(item.startswith("Features ") for item in items) == (source == str(path))  # the cache's note, once


def test_notes_past_five_of_a_kind_are_counted_in_one_line(tmp_path):
    cases = []
    for k in range(8):
        c = new_form_case()
        c["eval_id"] = f"c{k}"
        del c["eval_metric_result_per_invocation"][0]["actual_invocation"]
        cases.append(c)
    notes = load_runs(write(tmp_path, result_file(*cases))).notes
    assert len(notes) == 6
    assert notes[4].endswith("eval_case_results[4].eval_metric_result_per_invocation[0]: no actual_invocation; "
                             "scored as a missing turn (the run fails)")
    assert notes[5].endswith(": and 3 more invocations with no actual_invocation (scored as missing turns)")


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("wrap", [False, True])
def test_result_file_missing_its_list_is_read_as_adk(tmp_path, capsys, indent, wrap):
    """minimal.evalset_result.json with its "eval_case_results" key deleted was detected as flat
    JSONL (one line: 'line 1, eval_set_result_id: unknown field ...') or not told at all (indented):
    its eval_set_result_id / eval_set_result_name are ADK's own keys, so the ADK reader names the
    missing list. ``wrap``: the ADK <= 1.21 form, a JSON string holding the JSON."""
    data = json.loads((FIXTURES / "minimal.evalset_result.json").read_text())
    del data["eval_case_results"]
    text = json.dumps(data, indent=indent)
    path = tmp_path / "flights.evalset_result.json"
    path.write_text(json.dumps(text) if wrap else text)
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert (info.value.file, info.value.location) == (str(path), "(top level)")
    assert str(info.value) == (f'{path}: (top level): missing "eval_case_results" (the list of eval case results; '
                               "the file has eval_set_result_id, eval_set_result_name but no cases)")
    assert main(["score", "--cases", str(path)]) == 2
    assert 'missing "eval_case_results"' in capsys.readouterr().err


@pytest.mark.parametrize("name", ["minimal.evalset.json", "minimal_events.evalset.json"])
@pytest.mark.parametrize("indent", [None, 2])
def test_eval_set_missing_its_list_is_still_an_eval_set(tmp_path, name, indent):
    """An eval set with "eval_cases" deleted keeps eval_set_id, ADK's key: it was read as flat
    JSONL ('unknown field "eval_set_id"') or not told; it is an eval set (expected runs only)."""
    data = json.loads((FIXTURES / name).read_text())
    del data["eval_cases"]
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=indent))
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert str(info.value).startswith(f"{path}: this is an ADK eval set")
    assert all(part in str(info.value) for part in EVALSET_PARTS)


@pytest.mark.parametrize("indent", [None, 2])
def test_adk_test_config_is_named(tmp_path, indent):
    """ADK's test_config.json (the shared example's content) was read as flat JSONL ('unknown
    field "criteria"') or not told: it is eval criteria, no runs."""
    data = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
                         "response_match_score": 0.8}}
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps(data, indent=indent))
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert str(info.value).startswith(f'{path}: (top level): this is an ADK test config: it holds eval criteria ("criteria"), no runs')
    assert ".adk/eval_history/" in str(info.value)


def test_a_made_up_id_never_takes_an_id_the_file_gives(tmp_path, capsys):
    # a trial: eval_ids "x", "x", "x#2" made two runs "x#2"; a label of x#2 applied to both and
    # counted twice (agreement 0/2 of one labelled run). The repeat now skips "x#2": "x#3".
    def named(eval_id):
        case = new_form_case()
        case["eval_id"] = eval_id
        return case

    nameless = new_form_case()
    del nameless["eval_id"]  # case 3 of the file: "case-4", which case 4 gives itself
    path = write(tmp_path, result_file(named("x"), named("x"), named("x#2"), nameless, named("case-4")))
    cs = load_runs(path)
    assert [r.id for r in cs.runs] == ["x", "x#3", "x#2", "case-4#2", "case-4"]
    assert f'{path}: eval_case_results[1].eval_id: "x" repeats eval_case_results[0]\'s; run id x#3' in cs.notes
    assert f"{path}: eval_case_results[3]: no eval_id; run id case-4#2" in cs.notes
    labels = tmp_path / "labels.csv"
    labels.write_text("run_id,human_verdict\nx#2,acceptable\n")
    assert main(["score", "--cases", str(path), "--labels", str(labels), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["labelled"] == 1  # was 2: the label counted twice


def test_two_runs_of_one_id_are_refused_by_every_loader():
    from explorer.core.io.loaders._common import make_case_set
    from explorer.core.io.model import Invocation, Run

    runs = [Run("r1", "", "", (Invocation((), (), "a", ("a",)),)), Run("r1", "", "", (Invocation((), (), "b", ("b",)),))]
    with pytest.raises(LoadError) as info:
        make_case_set(runs, "f.json", "t", "d")
    assert str(info.value) == 'f.json: run 2: duplicate run id "r1" (first at run 1)'
