"""OpenAI-style message trajectories (LangChain agentevals' outputs / reference_outputs) as runs."""

import json

import pytest

from explorer.core.io.errors import LoadError
from explorer.core.io.loaders import load_runs
from explorer.core.io.model import ToolCall


def call(name, args, call_id="call_1"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


OUTPUTS = [
    {"role": "system", "content": "You book flights."},
    {"role": "user", "content": "Book TP1351 to Lisbon on 12 March."},
    {"role": "assistant", "content": "", "tool_calls": [call("search_flights", {"destination": "LIS", "date": "2026-03-12"})]},
    {"role": "tool", "tool_call_id": "call_1", "content": "[TP1351]"},
    {"role": "assistant", "content": None, "tool_calls": [
        call("get_weather", {"city": "Lisbon"}, "call_2"), call("book_flight", {"flight": "TP1351"}, "call_3")]},
    {"role": "tool", "tool_call_id": "call_2", "content": "sunny"},
    {"role": "tool", "tool_call_id": "call_3", "content": "BK-4821"},
    {"role": "assistant", "content": [{"type": "text", "text": "Booked TP1351."}, {"type": "text", "text": "Ref BK-4821."}]},
]
REFERENCE = [
    {"role": "user", "content": "Book TP1351 to Lisbon on 12 March."},
    {"role": "assistant", "content": "", "tool_calls": [
        {"name": "search_flights", "args": {"date": "2026-03-12", "destination": "LIS"}, "id": "x"}]},  # LangChain form
    {"role": "tool", "content": "[TP1351]"},
    {"role": "assistant", "content": "", "tool_calls": [call("book_flight", {"flight": "TP1351"})]},
    {"role": "tool", "content": "BK-4821"},
    {"role": "assistant", "content": "Your flight TP1351 is booked, reference BK-4821."},
]


def record(**over):
    return {"id": "m1", "outputs": OUTPUTS, "reference_outputs": REFERENCE, "human_verdict": "acceptable",
            "human_note": "extra weather lookup is harmless", **over}


def check_run(run):
    inv = run.invocations[0]
    assert inv.actual_calls == (
        ToolCall("search_flights", {"destination": "LIS", "date": "2026-03-12"}),
        ToolCall("get_weather", {"city": "Lisbon"}),
        ToolCall("book_flight", {"flight": "TP1351"}),
    )
    assert inv.expected_calls == (
        ToolCall("search_flights", {"destination": "LIS", "date": "2026-03-12"}),
        ToolCall("book_flight", {"flight": "TP1351"}),
    )
    assert inv.answer == "Booked TP1351.\nRef BK-4821."
    assert inv.references == ("Your flight TP1351 is booked, reference BK-4821.",)
    assert run.user_input == "Book TP1351 to Lisbon on 12 March."
    assert (run.human_verdict, run.human_note) == ("acceptable", "extra weather lookup is harmless")


@pytest.mark.parametrize("name, text", [
    ("runs.jsonl", json.dumps(record()) + "\n" + json.dumps(record(id="m2", human_verdict=None)) + "\n"),
    ("runs.json", json.dumps([record(), record(id="m2", human_verdict=None)], indent=2)),
    ("wrapped.json", json.dumps({"runs": [record(outputs={"messages": OUTPUTS}), record(id="m2", human_verdict=None)]})),
])
def test_messages_files(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    cs = load_runs(path)  # detected as messages
    assert [r.id for r in cs.runs] == ["m1", "m2"]
    check_run(cs.runs[0])
    assert cs.runs[1].human_verdict is None
    assert load_runs(path, "messages").runs == cs.runs


@pytest.mark.parametrize("over, location, problem", [
    ({"outputs": [{"content": "hi"}]}, "[0].outputs[0]", 'missing "role"'),
    ({"outputs": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{bad"}}]}]},
     "[0].outputs[0].tool_calls[0].function.arguments", "arguments are not a JSON string"),
    ({"outputs": [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}]},
     "[0].outputs[0].tool_calls[0].function", 'missing "name"'),
    ({"outputs": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]}]},
     "[0].outputs[0].tool_calls[0].function.arguments", "expected a JSON object of arguments, got a list"),
    ({"outputs": "hello"}, "[0].outputs", "expected a list, got a string"),
    ({"human_verdict": "ok"}, "[0].human_verdict", 'expected "acceptable", "unacceptable" or empty, got "ok"'),
    ({"score": 1}, "[0].score", 'unknown field "score"'),
])
def test_bad_messages(tmp_path, over, location, problem):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([record(**over)]))
    with pytest.raises(LoadError) as info:
        load_runs(path, "messages")
    assert (info.value.file, info.value.location) == (str(path), location)
    assert info.value.problem.startswith(problem)


def test_bad_messages_jsonl_names_the_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    bad = record(id="m2")
    del bad["reference_outputs"]
    path.write_text(json.dumps(record()) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert str(info.value) == f'{path}: line 2: missing "reference_outputs"'


def test_empty_list_is_zero_runs(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text("[]")
    with pytest.raises(LoadError) as info:
        load_runs(path, "messages")
    assert str(info.value) == f"{path}: no runs in the file (0 runs)"
