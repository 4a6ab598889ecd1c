"""Hostile and malformed input files found to break the loaders (each test holds the input that
broke it): the CLI exits 2 with one line naming the file, the location and the field, never a
traceback. Copies of the inputs: /work/tools/reports/badinput-files/ (badinput report)."""

from __future__ import annotations

import pytest

from explorer.cli import main
from explorer.core.io.errors import LoadError
from explorer.core.io.exports import loads_settings
from explorer.core.io.loaders import loads_runs
from explorer.core.io.loaders.expectations import loads_expectations

HUGE = "1" * 5000
"""An integer of 5000 digits: over Python's int conversion limit (4300 digits), which json.loads
reported as a bare ValueError (a traceback from the CLI)."""


def _error(data: str, name: str, load=loads_runs) -> str:
    with pytest.raises(LoadError) as got:
        load(data, name)
    return str(got.value)


# --- a number over 4300 digits -------------------------------------------------------------------


def test_huge_integer_in_a_jsonl_line_names_its_line_and_column():
    # broke: ValueError "Exceeds the limit (4300 digits) for integer string conversion"
    prefix = '{"id": "r1", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x", "human_note": '
    text = '{"id": "r0", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}\n' + prefix + HUGE + "}\n"
    assert _error(text, "runs.jsonl") == f"runs.jsonl: line 2, column {len(prefix) + 1}: invalid JSON: number with more than 4300 digits"


def test_huge_integer_in_a_case_set_names_its_line_and_column():
    text = '{"format": "metric-explorer/cases@1",\n "name": ' + HUGE + ', "runs": []}'
    assert _error(text, "cases.json") == "cases.json: line 2, column 10: invalid JSON: number with more than 4300 digits"


def test_huge_integer_after_digits_in_a_string_names_the_number():
    # the digits inside the string come first in the file but are not the number
    text = '{"format": "metric-explorer/cases@1", "name": "' + HUGE + '", "runs": ' + HUGE + "}"
    column = len('{"format": "metric-explorer/cases@1", "name": "' + HUGE + '", "runs": ') + 1
    assert _error(text, "cases.json") == f"cases.json: line 1, column {column}: invalid JSON: number with more than 4300 digits"


def test_huge_integer_in_a_csv_call_list_names_row_and_column():
    text = 'id,expected_calls,actual_calls,answer,reference\nr1,"[{""name"": ""a"", ""args"": {""n"": ' + HUGE + '}}]",a,x,x\n'
    # the cell's JSON is [{"name": "a", "args": {"n": 1111...}}]: the number starts at character 30
    assert _error(text, "runs.csv") == ("runs.csv: row 2, column expected_calls: invalid JSON list of calls: "
                                        "number with more than 4300 digits (character 30)")


@pytest.mark.parametrize("text, where", [
    # message trajectories (JSONL), OTLP traces, ADK results: the same line and column
    ('{"id": "m1", "outputs": [], "reference_outputs": [], "x": ' + HUGE + "}\n", "line 1, column 59"),
    ('{"resourceSpans": [{"scopeSpans": [{"spans": [{"x": ' + HUGE + "}]}]}]}\n", "line 1, column 53"),
    ('{"eval_set_result_id": ' + HUGE + ', "eval_case_results": []}', "line 1, column 24"),
])
def test_huge_integer_in_other_formats(text, where):
    assert _error(text, "f.json") == f"f.json: {where}: invalid JSON: number with more than 4300 digits"


def test_huge_integer_in_settings_and_expectations():
    settings = '{"format": "metric-explorer/settings@1", "settings": {"f1_threshold": ' + HUGE + "}}"
    assert _error(settings, "s.json", loads_settings) == "s.json: line 1, column 71: invalid JSON: number with more than 4300 digits"
    expectations = '{"id": "E1", "expected_calls": [], "reference": ' + HUGE + "}\n"
    assert _error(expectations, "e.jsonl", loads_expectations) == (
        "e.jsonl: line 1, column 49: invalid JSON: number with more than 4300 digits")


def test_cli_exits_2_on_a_huge_integer(tmp_path, capsys):
    path = tmp_path / "bigint.jsonl"
    prefix = '{"id": "r1", "expected_calls": [{"name": "a", "args": {"n": '  # 60 characters
    path.write_text(prefix + HUGE + '}}], "actual_calls": [], "answer": "x", "reference": "x"}\n')
    assert main(["score", "--no-cache", "--cases", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"metric-explorer: error: {path}: line 1, column 61: invalid JSON: number with more than 4300 digits\n"


def test_huge_integer_in_a_big_jsonl_line():
    # the parallel loader of big JSONL files (orjson, then the standard library) let the ValueError out
    from explorer.core.io.bigload import _loads

    prefix = b'{"id": "r1", "human_note": '
    with pytest.raises(LoadError) as got:
        _loads(prefix + HUGE.encode() + b"}", 7, "big.jsonl")
    assert str(got.value) == f"big.jsonl: line 7, column {len(prefix) + 1}: invalid JSON: number with more than 4300 digits"
