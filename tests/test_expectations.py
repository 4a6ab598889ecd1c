"""Expectations joined onto runs from traces and logs (issue 13): by run id or by the run's
``example_id``; JSONL or a case set; errors name the file, the line and the field."""

from __future__ import annotations

import pytest

from explorer.commands.common import BUNDLED_CASES
from explorer.core.io.casefile import load_case_set
from explorer.core.io.errors import LoadError
from explorer.core.io.loaders.expectations import apply_expectations, load_expectations, loads_expectations
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall


def trace_run(rid, example=None, calls=(), answer="done"):
    extra = {"otel_trace_id": rid, **({"example_id": example} if example else {})}
    return Run(rid, "invoke_agent", "", (Invocation((), tuple(calls), answer, ("",)),), extra=extra)


def test_by_run_id_or_example_id_the_run_id_winning():
    cs = CaseSet("t", "", (trace_run("t1", "E1"), trace_run("t2", "E1"), trace_run("E2", "E1"), trace_run("t4")))
    exp = loads_expectations(
        '{"id": "E1", "title": "Lisbon", "expected_calls": "search>book", "reference": "Booked."}\n'
        '{"id": "E2", "references": ["ok", "fine"]}\n'
        '{"id": "E9", "expected_calls": []}\n', "exp.jsonl")
    joined, unused, missing = apply_expectations(cs, exp)
    t1, t2, e2, t4 = joined.runs
    assert [c.name for c in t1.invocations[0].expected_calls] == ["search", "book"] and t1.invocations[0].references == ("Booked.",)
    assert t2.invocations[0] == t1.invocations[0] and t1.title == "Lisbon"
    # run "E2" is matched by its own id (not by its example_id E1); its expected calls stay as loaded
    assert e2.invocations[0].references == ("ok", "fine") and e2.invocations[0].expected_calls == () and e2.title == "invoke_agent"
    assert t4 == cs.runs[3]
    assert unused == ["E9"] and missing == ["t4"]


def test_a_case_set_gives_expected_calls_references_fields_and_key_field_settings():
    exp = load_expectations(str(BUNDLED_CASES))
    booking = load_case_set(BUNDLED_CASES)
    assert set(exp.by_id) == {r.id for r in booking.runs}
    assert exp.by_id["E8"].invocations == ((booking.runs[7].invocations[0].expected_calls, booking.runs[7].invocations[0].references),)
    cs = CaseSet("t", "", (trace_run("x", "E8"),), day_first=False, id_pattern="X")
    joined, _, _ = apply_expectations(cs, exp)
    assert (joined.day_first, joined.id_pattern) == (booking.day_first, booking.id_pattern)


@pytest.mark.parametrize("text, where, problem", [
    ('{"id": "E1", "human_verdict": "acceptable"}', "line 1, human_verdict",
     'unknown field "human_verdict" (known: id, title, user_input, expected_calls, reference, references, invocations) '
     "(a person's verdict goes in a labels CSV: --labels)"),
    ('{"id": "E1"}\n{"id": "E1"}', "line 2, id", 'duplicate id "E1" (first at line 1)'),
    ('{"id": "E1", "expected_calls": [{"args": {}}]}', "line 1, expected_calls[0]", 'missing "name"'),
    ('{"id": "E1", "reference": "a", "references": ["b"]}', "line 1", 'give "reference" or "references", not both'),
    ('{"id": "E1"}\n{"id": ', "line 2, column 8", "invalid JSON: Expecting value"),
    # 7 is the id "7", as the run readers read it; they name what else an id may be, and so does this one
    # (it said "expected a string, got a number" for 1.5 while taking 7)
    ('{"id": 1.5, "reference": "a"}', "line 1, id", "expected a string or a whole number, got a number (1.5)"),
    ('{"id": true, "reference": "a"}', "line 1, id", "expected a string or a whole number, got a boolean"),
    # a run file given as expectations: its run's fields are named as such
    ('{"id": "r1", "expected_calls": "a", "actual_calls": "a", "answer": "x", "reference": "x"}', "line 1, actual_calls",
     'unknown field "actual_calls" (known: id, title, user_input, expected_calls, reference, references, invocations) '
     "(a run's field: a run file goes in --cases, and each of its records has actual_calls and answer)"),
])
def test_bad_expectations_name_line_and_field(text, where, problem):
    with pytest.raises(LoadError) as info:
        loads_expectations(text, "exp.jsonl")
    assert (info.value.location, info.value.problem) == (where, problem)


def test_invocation_count_mismatch_is_an_error_naming_the_line_and_field():
    # the error named the id alone (exp.jsonl: id "E1": ...): the record is on line 2
    cs = CaseSet("t", "", (trace_run("t1", "E1"),))
    exp = loads_expectations('{"id": "E0", "expected_calls": "a"}\n'
                             '{"id": "E1", "invocations": [{"expected_calls": "a"}, {"expected_calls": "b"}]}\n', "exp.jsonl")
    with pytest.raises(LoadError) as info:
        apply_expectations(cs, exp)
    assert str(info.value) == 'exp.jsonl: line 2, invocations: id "E1": 2 invocations expected but run "t1" has 1'


def test_a_record_without_invocations_is_one_invocation_and_the_error_says_so():
    two = Run("t1", "invoke_agent", "", (Invocation((), (), "a", ("",)), Invocation((), (), "b", ("",))), extra={"example_id": "E1"})
    exp = loads_expectations('[{"id": "E9", "reference": "x"}, {"id": "E1", "reference": "Booked."}]', "exp.json")
    with pytest.raises(LoadError) as info:
        apply_expectations(CaseSet("t", "", (two,)), exp)
    assert str(info.value) == ('exp.json: [1], reference: id "E1": one invocation expected (a record without "invocations" '
                               'is one) but run "t1" has 2; give "invocations": [...] with one entry per invocation of the run')


def test_invocation_count_mismatch_from_a_case_set_names_its_json_path():
    bundled = load_case_set(BUNDLED_CASES)  # E1..E10, one invocation each
    two = Run("E3", "", "", (Invocation((), (), "a", ("",)), Invocation((), (), "b", ("",))))
    exp = load_expectations(str(BUNDLED_CASES))
    with pytest.raises(LoadError) as info:
        apply_expectations(CaseSet("t", "", (two,)), exp)
    assert str(info.value) == f'{BUNDLED_CASES}: runs[2].invocations: id "E3": 1 invocation expected but run "E3" has 2'
    assert bundled.runs[2].id == "E3"


def test_the_cli_names_the_line_of_an_expectation_id_that_names_no_run(tmp_path, capsys):
    from explorer.cli import main

    exp = tmp_path / "exp.jsonl"
    exp.write_text('\n{"id": "Z9", "reference": "x"}\n')  # the record is on line 2
    assert main(["score", "--expectations", str(exp)]) == 2
    assert capsys.readouterr().err == (f"metric-explorer: error: {exp}: line 2, id: its one expectation id, Z9, names no loaded "
                                       "run or its example_id; for traces give --join-key ATTR\n")
