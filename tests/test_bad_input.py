"""Hostile and malformed input files found to break the loaders (each test holds the input that
broke it): the CLI exits 2 with one line naming the file, the location and the field, never a
traceback. Copies of the inputs: /work/tools/reports/badinput-files/ (badinput report)."""

from __future__ import annotations

import json
import shutil

import pytest

from explorer.cli import main
from explorer.core.io.errors import LoadError
from explorer.core.io.exports import loads_settings
from explorer.core.io.loaders import loads_runs
from explorer.core.io.loaders.expectations import loads_expectations
from explorer.core.io.reading import parse_json
from explorer.core.scoring.arg_rules import arg_rules_file_from_data

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


# --- a lone surrogate escape ("\ud800") --------------------------------------------------------

LONE = "bad \\ud800 text"
"""JSON text of a string holding a lone high surrogate: the standard library reads it into a str
that cannot be written as UTF-8; featurising a file with it raised a bare UnicodeEncodeError from
Arrow (found on 2026-12-04)."""


@pytest.mark.parametrize("text, at", [
    ('"\\ud800"', 1),  # a high surrogate alone
    ('"\\udc00"', 1),  # a low one alone
    ('"ok \\ud83d\\ude00 then \\udfff"', 22),  # a pair (one emoji), then a lone low one
    ('"\\ud83d\\\\ude00"', 1),  # a high one, then an escaped backslash and the text "ude00"
    ('"\\u00e9\\ud800"', 7),
])
def test_lone_surrogate_at_finds_the_escape(text, at):
    from explorer.core.io.reading import lone_surrogate_at

    assert lone_surrogate_at(text) == at
    assert text[at : at + 2] == "\\u"


@pytest.mark.parametrize("text", ['"\\ud83d\\ude00"', '"\\\\ud800"', '"ud800"', '"\\u00e9"', '"\\uD83D\\uDE00"', "[1, 2]"])
def test_no_lone_surrogate_in_pairs_escaped_backslashes_or_plain_text(text):
    from explorer.core.io.reading import lone_surrogate_at

    assert lone_surrogate_at(text) is None


def test_lone_surrogate_in_a_jsonl_line_names_its_line_and_column():
    prefix = '{"id": "b", "expected_calls": [], "actual_calls": [], "answer": "bad '
    text = '{"id": "a", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}\n' + prefix + \
        '\\ud800 text", "reference": "x"}\n'
    assert _error(text, "runs.jsonl") == (f"runs.jsonl: line 2, column {len(prefix) + 1}: invalid JSON: lone surrogate \\ud800 "
                                          "in a text: not a Unicode character (write the character itself, or both halves of its pair)")


def test_featurize_names_the_line_of_a_lone_surrogate(tmp_path):
    # broke: UnicodeEncodeError: 'utf-8' codec can't encode character '\ud800' ... surrogates not allowed
    from explorer.core.io.featurize import featurize

    prefix = '{"id": "b", "expected_calls": [], "actual_calls": [], "answer": "bad '
    path = tmp_path / "runs.jsonl"
    path.write_text('{"id": "a", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}\n'
                    + prefix + '\\ud800 text", "reference": "x"}\n')
    with pytest.raises(LoadError) as got:
        featurize([str(path)], tmp_path / "out.features")
    assert str(got.value).startswith(f"{path}: line 2, column {len(prefix) + 1}: invalid JSON: lone surrogate \\ud800")
    assert not (tmp_path / "out.features").exists()


# --- an integer too large for a float (hundreds of digits) ----------------------------------------

LONG = "1" + "0" * 400
"""10**400: under the 4300-digit limit, so json reads it as an int, but float() of it raises
OverflowError (a traceback from the CLI)."""


def loads_arg_rules_text(text: str, name: str):
    """An argument-rules file's rules from its text (as ``load_arg_rules`` reads a path)."""
    return arg_rules_file_from_data(parse_json(text, name), name)


def test_huge_tolerance_of_an_argument_rule_names_the_rule():
    text = '{"format": "metric-explorer/arg-rules@1", "rules": [{"key": "x", "rule": "number", "tolerance": ' + LONG + "}]}"
    assert _error(text, "rules.json", loads_arg_rules_text) == (
        "rules.json: rules[0].tolerance: expected a finite number >= 0, got 10000000000000000...")


def test_infinite_tolerance_of_an_argument_rule_is_refused():
    # Infinity read as a tolerance was written back as "tolerance": Infinity, which is not JSON
    text = '{"format": "metric-explorer/arg-rules@1", "rules": [{"key": "x", "rule": "number", "tolerance": Infinity}]}'
    assert _error(text, "rules.json", loads_arg_rules_text) == "rules.json: rules[0].tolerance: expected a finite number >= 0, got inf"


def test_huge_tolerance_in_a_settings_file_and_a_case_set():
    settings = ('{"format": "metric-explorer/settings@1", "settings": {}, '
                '"arg_rules": [{"key": "x", "rule": "number", "tolerance": ' + LONG + "}]}")
    assert _error(settings, "s.json", loads_settings) == "s.json: arg_rules[0].tolerance: expected a finite number >= 0, got 10000000000000000..."
    cases = ('{"format": "metric-explorer/cases@1", "name": "n", "arg_rules": [{"key": "x", "rule": "number", "tolerance": '
             + LONG + '}], "runs": [{"id": "r1", "invocations": [{"expected_calls": [], "actual_calls": [], "answer": "a", '
             '"references": ["a"]}]}]}')
    assert _error(cases, "cases.json") == "cases.json: arg_rules[0].tolerance: expected a finite number >= 0, got 10000000000000000..."


def test_huge_threshold_in_an_adk_test_config():
    text = '{"criteria": {"tool_trajectory_avg_score": {"threshold": ' + LONG + "}}}"
    message = _error(text, "test_config.json", loads_settings)
    assert message.startswith("test_config.json: criteria.tool_trajectory_avg_score.threshold: expected a number from 0 to 1, got 1000")


def test_huge_score_in_adk_results_names_the_metric():
    text = ('{"eval_case_results": [{"eval_id": "c1", "overall_eval_metric_results": [{"metric_name": '
            '"response_match_score", "score": ' + LONG + '}], "eval_metric_result_per_invocation": []}]}')
    assert _error(text, "r.evalset_result.json") == (
        "r.evalset_result.json: eval_case_results[0].overall_eval_metric_results[0].score: number too large: 10000000000000000...")


def test_huge_double_value_in_a_trace_attribute_names_the_attribute():
    from explorer.core.io.loaders.options import ReadOptions

    span = ('{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "agent", '
            '"attributes": [{"key": "eval.example_id", "value": {"doubleValue": ' + LONG + "}}]}")
    text = '{"resourceSpans": [{"scopeSpans": [{"spans": [' + span + "]}]}]}\n"
    with pytest.raises(LoadError) as got:
        loads_runs(text, "t.jsonl", "otlp", ReadOptions(join_key="eval.example_id"))
    assert str(got.value) == ("t.jsonl: line 1, span eee19b7ec3c1b174, attributes[0].value (eval.example_id).doubleValue: "
                              'expected a number, got "' + LONG[:57] + '..."')


# --- a number rule on values beyond the decimal context ------------------------------------------


def test_number_rule_on_a_huge_exponent_disagrees_instead_of_raising():
    # broke: decimal.Overflow from abs(a - e) when an argument is the string "1e999999999"
    from explorer.core.scoring.arg_rules import ArgRule, values_agree

    rule = ArgRule(key="x", kind="number", tolerance=0.5)
    assert values_agree("1e999999999", "-1e999999999", rule) is False
    assert values_agree("1e999999999", 0, rule) is False
    assert values_agree("1e999999999", "1e999999999", rule) is True  # equal: the difference is 0


def test_cli_scores_a_run_whose_argument_overflows_the_number_rule(tmp_path, capsys):
    path = tmp_path / "cases.json"
    path.write_text(
        '{"format": "metric-explorer/cases@1", "name": "n", "arg_rules": [{"key": "x", "rule": "number"}], "runs": [{"id": "r1", '
        '"invocations": [{"expected_calls": [{"name": "a", "args": {"x": "1e999999999"}}], "actual_calls": [{"name": "a", '
        '"args": {"x": "-1e999999999"}}], "answer": "ok", "references": ["ok"]}], "human_verdict": "unacceptable"}]}')
    assert main(["score", "--no-cache", "--format", "csv", "--cases", str(path)]) == 0
    row = capsys.readouterr().out.splitlines()[1]
    assert row.startswith("r1,,0.0,False,")  # trajectory score 0: the one call's argument differs


# --- a list or an object where a name is expected (unhashable) -------------------------------------


@pytest.mark.parametrize("match, shown", [("[]", "[]"), ('{"a": 1}', '{"a": 1}')])  # as the file spells it (was {\"a\": 1})
def test_adk_match_type_that_is_a_list_or_an_object(match, shown):
    # broke: TypeError "unhashable type" from the lookup of the match type
    text = '{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": ' + match + "}}}"
    assert _error(text, "test_config.json", loads_settings) == (
        f"test_config.json: criteria.tool_trajectory_avg_score.match_type: expected EXACT, IN_ORDER or ANY_ORDER, got {shown}")


def test_settings_trajectory_that_is_a_list_names_the_choices():
    # was "settings.trajectory: unhashable type: 'list'"
    text = '{"format": "metric-explorer/settings@1", "settings": {"trajectory": ["exact"]}}'
    message = _error(text, "s.json", loads_settings)
    assert message.startswith("s.json: settings.trajectory: trajectory must be one of exact, in_order, any_order,")
    assert message.endswith(", got [\"exact\"]")


# --- non-finite numbers reaching JSON output -----------------------------------------------------


@pytest.mark.parametrize("score", ["Infinity", "-Infinity", "1e400"])
def test_score_json_output_stays_json_with_an_infinite_adk_column(tmp_path, capsys, score):
    # broke: the report held "adk_tool_trajectory_avg_score": Infinity, which JSON readers refuse
    import json

    path = tmp_path / "runs.jsonl"
    path.write_text('{"id": "r1", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x", '
                    '"adk_tool_trajectory_avg_score": ' + score + "}\n")
    assert main(["score", "--no-cache", "--format", "json", "--cases", str(path)]) == 0

    def refuse(constant):
        raise AssertionError(f"not JSON: {constant}")

    report = json.loads(capsys.readouterr().out, parse_constant=refuse)
    (row,) = report["runs"]
    assert row["adk_tool_trajectory_avg_score"] is None


# --- JSON nested too deeply inside a text field ---------------------------------------------------

DEEP = "[" * 60_000 + "]" * 60_000
"""120,000 characters: fits in a CSV cell (the csv module's default limit is 131,072)."""


@pytest.mark.parametrize("column, what", [("expected_calls", "calls"), ("references", "texts"), ("labels", "labels")])
def test_csv_cell_of_json_nested_too_deeply(column, what):
    # broke: RecursionError (a traceback) from the JSON of a CSV cell
    cells = {"id": "r1", "expected_calls": "a", "actual_calls": "a", "answer": "x", "references": '["x"]', "labels": ""}
    cells[column] = DEEP
    text = ",".join(cells) + "\n" + ",".join(cells.values()).replace('["x"]', '"[""x""]"') + "\n"
    assert _error(text, "runs.csv") == f"runs.csv: row 2, column {column}: invalid JSON list of {what}: nested too deeply"


def test_message_arguments_nested_too_deeply():
    import json

    record = {"id": "m1", "outputs": [{"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "book", "arguments": DEEP}}]}], "reference_outputs": []}
    assert _error(json.dumps(record) + "\n", "m.jsonl") == (
        "m.jsonl: line 1, outputs[0].tool_calls[0].function.arguments: arguments are not a JSON string: nested too deeply")


# --- CSV: long cells, and where a CSV error is ------------------------------------------------------


def test_csv_answer_of_a_megabyte_reads_back():
    # broke: "row 1: not valid CSV: field larger than field limit (131072)" for a run dumps_csv wrote
    from explorer.core.io.loaders.flat import dumps_csv
    from explorer.core.io.model import CaseSet, Invocation, Run

    answer = "word " * 200_000
    runs = (Run("r1", "", "", (Invocation((), (), answer, ("x",)),)),)
    back = loads_runs(dumps_csv(CaseSet("n", "", runs)), "runs.csv", "csv")
    assert back.runs[0].invocations[0].answer == answer


def test_labels_csv_note_of_a_megabyte_reads():
    from explorer.core.io.loaders.labels import loads_labels

    labels = loads_labels('run_id,human_verdict,note\nE1,acceptable,"' + "x" * 1_000_000 + '"\n', "labels.csv")
    assert labels["E1"].verdict == "acceptable" and len(labels["E1"].note) == 1_000_000


def test_csv_error_names_the_row_being_read():
    # broke: the error named the row before it (row 1, the header, for the first data row)
    text = 'id,expected_calls,actual_calls,answer,reference\nr1,a,a,x,x\nr2,a,a,"x"y,x\n'
    assert _error(text, "runs.csv") == "runs.csv: row 3: not valid CSV: ',' expected after '\"'"


def test_labels_csv_with_a_quote_left_open_is_an_error_not_one_label():
    # broke: rows 3 and 4 were read into row 2's note; E2 and E3 silently stayed unlabelled
    from explorer.core.io.loaders.labels import loads_labels

    text = 'run_id,human_verdict,note\nE1,acceptable,"open quote\nE2,unacceptable,x\nE3,acceptable,y\n'
    assert _error(text, "labels.csv", loads_labels) == (
        "labels.csv: row 2: not valid CSV: a quoted cell is not closed (its quote runs to the end of the file)")


def test_runs_csv_with_a_quote_left_open_is_an_error():
    text = 'id,expected_calls,actual_calls,answer,reference\nr1,a,a,x,x\nr2,a,a,"unclosed,x\nr3,a,a,x,x\n'
    assert _error(text, "runs.csv") == (
        "runs.csv: row 3: not valid CSV: a quoted cell is not closed (its quote runs to the end of the file)")


# --- Parquet columns of types JSON has not ---------------------------------------------------------


def _parquet(tmp_path, **extra) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"id": ["r1"], "expected_calls": ["a"], "actual_calls": ["a"], "answer": ["x"], "reference": ["x"], **extra}
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.table(cols), path)
    return str(path)


def test_parquet_timestamp_and_decimal_columns_reach_the_json_report(tmp_path, capsys):
    # broke: "TypeError: Object of type Timestamp (Decimal) is not JSON serializable" from score --format json
    import datetime
    import decimal
    import json

    import pyarrow as pa

    path = _parquet(tmp_path, adk_when=pa.array([datetime.datetime(2026, 3, 12, 8, 5)]),
                    adk_score=pa.array([decimal.Decimal("0.25")], pa.decimal128(5, 2)))
    assert main(["score", "--no-cache", "--format", "json", "--cases", path]) == 0
    (row,) = json.loads(capsys.readouterr().out)["runs"]
    assert row["adk_when"] == "2026-03-12T08:05:00" and row["adk_score"] == 0.25


def test_parquet_binary_adk_column_names_row_and_column(tmp_path, capsys):
    import pyarrow as pa

    path = _parquet(tmp_path, adk_blob=pa.array([b"\xff\xfe"], pa.binary()))
    assert main(["score", "--no-cache", "--format", "json", "--cases", path]) == 2
    assert capsys.readouterr().err == (
        f"metric-explorer: error: {path}: row 1, adk_blob: expected text, a number, a boolean or null, got binary data\n")


# --- encodings -------------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_file_says_utf16_not_binary(encoding):
    # was "binary file (NUL bytes), not JSON or CSV text" for a spreadsheet's "Unicode text" CSV
    from explorer.core.io.loaders.labels import loads_labels

    data = "run_id,human_verdict\nE1,acceptable\n".encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    assert _error(data, "labels.csv", loads_labels) == "labels.csv: UTF-16 text, not UTF-8: save the file as UTF-8"
    assert _error(data, "runs.csv") == "runs.csv: UTF-16 text, not UTF-8: save the file as UTF-8"


# --- labels CSV header ----------------------------------------------------------------------------


def test_labels_csv_with_a_column_twice_is_an_error():
    # broke: the first human_verdict column was read and the second silently ignored
    from explorer.core.io.loaders.labels import loads_labels

    text = "run_id,human_verdict,human_verdict\nE1,acceptable,unacceptable\n"
    assert _error(text, "labels.csv", loads_labels) == 'labels.csv: row 1 (header): column "human_verdict" appears twice'


@pytest.mark.parametrize("sep, word", [(";", "';'"), ("\t", "tabs")])
def test_csv_separated_by_semicolons_or_tabs_says_so(sep, word):
    from explorer.core.io.loaders.labels import loads_labels

    labels = sep.join(["run_id", "human_verdict", "note"]) + "\n" + sep.join(["E1", "acceptable", "x"]) + "\n"
    assert _error(labels, "labels.csv", loads_labels) == (
        'labels.csv: row 1 (header): missing column "run_id" (a labels CSV has run_id,human_verdict,note); '
        f"the header is separated by {word}: save the file comma-separated")
    runs = sep.join(["id", "expected_calls", "actual_calls", "answer", "reference"]) + "\nr1" + sep + "a" * 0 + "\n"
    assert _error(runs, "runs.csv").endswith(f"; the header is separated by {word}: save the file comma-separated")


# --- options ---------------------------------------------------------------------------------------


def test_featurize_id_pattern_that_is_not_a_regex_is_a_usage_error(tmp_path, capsys):
    # broke: re.error "missing ), unterminated subpattern" as a traceback
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"id": "r1", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}\n')
    with pytest.raises(SystemExit) as got:
        main(["featurize", "--out", str(tmp_path / "feat"), "--id-pattern", "((", str(runs)])
    assert got.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "metric-explorer featurize: error: argument --id-pattern: not a regular expression: "
        "missing ), unterminated subpattern at position 1 (see metric-explorer featurize --help)"]


# --- numbers longer than the decimal context's 28 digits ---------------------------------------------


def test_rung_4_keeps_every_digit_of_a_long_number():
    # broke: rung 4 rounded to 28 significant digits, so two different 32-digit account numbers matched
    from explorer.core.scoring.normalise import normalise

    a = normalise("Your account is 12345678901234567890123456789012.", 4)
    b = normalise("Your account is 12345678901234567890123456789999.", 4)
    assert a == "your account is 12345678901234567890123456789012"
    assert a != b


def _redos_case_file(tmp_path, pattern: str):
    """The bad-input trial's case set: one run whose answer is 34 ``a`` and a ``!``, with its own
    booking-id regex ``pattern``."""
    import json

    path = tmp_path / "cases_idpattern.json"
    path.write_text(json.dumps({
        "format": "metric-explorer/cases@1", "name": "n", "key_fields": {"id_pattern": pattern},
        "runs": [{"id": "r1", "human_verdict": "acceptable", "invocations": [{
            "expected_calls": [{"name": "a", "args": {"x": 1}}], "actual_calls": [{"name": "a", "args": {"x": 1}}],
            "answer": "a" * 34 + "!", "references": ["ok"]}]}],
    }))
    return path


def _score_in_a_child(path, timeout: float = 60.0):
    """``metric-explorer score`` on ``path`` in a child process, so a regex that never finishes
    fails this test instead of hanging the suite."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "explorer.cli", "score", "--no-cache", "--key-fields", "--cases", str(path)],
                          capture_output=True, text=True, timeout=timeout)


def test_a_case_sets_nested_repeat_id_pattern_no_longer_stalls_scoring(tmp_path):
    # (a+)+$ on "aaa...a!" backtracked for ever under Python's re (the trial stopped it at 40 s);
    # the case set's own regex now runs on the regex module, which answers at once: no id found
    got = _score_in_a_child(_redos_case_file(tmp_path, "(a+)+$"))
    assert got.returncode == 0, got.stderr
    # by hand: the calls are equal (EXACT 1.00); "aaa...a!" shares no word with "ok" (F1 0.00 < 0.80),
    # so r1 fails and the person's "acceptable" makes it a false fail; no id in either text
    assert "agreement 0/1" in got.stdout and "false fails: r1" in got.stdout


def test_an_id_pattern_that_backtracks_without_end_stops_the_load_with_its_field(tmp_path):
    path = _redos_case_file(tmp_path, "(a|aa)+$")  # catastrophic for the regex module too
    got = _score_in_a_child(path)
    assert got.returncode == 2
    assert got.stderr.strip().startswith(
        f"metric-explorer: error: {path}: key_fields.id_pattern: the booking-id regex '(a|aa)+$' took over 0.5 s on one text")


@pytest.mark.parametrize("ids, message", [
    (["r1", "r1 "], 'c.json: runs[1].id: duplicate run id "r1" (first at runs[0])'),  # was two runs
    (["   "], "c.json: runs[0].id: must not be empty (spaces only)"),  # was accepted
])
def test_case_set_run_ids_are_stripped_as_the_other_readers_strip_them(ids, message):
    import json

    from explorer.core.io.casefile import loads_case_set

    doc = json.dumps({"format": "metric-explorer/cases@1", "name": "n", "runs": [
        {"id": i, "invocations": [{"expected_calls": [], "actual_calls": [], "answer": "a", "references": ["a"]}]} for i in ids]})
    with pytest.raises(LoadError) as err:
        loads_case_set(doc, "c.json")
    assert str(err.value) == message


def _case_set_with_ids(ids) -> str:
    import json

    return json.dumps({"format": "metric-explorer/cases@1", "name": "n", "runs": [
        {"id": i, "invocations": [{"expected_calls": [], "actual_calls": [], "answer": "a", "references": ["a"]}]} for i in ids]})


def test_case_set_reads_whole_number_ids_as_the_flat_reader_does():
    # the trial's finding: the same runs with ids 7 and 8 loaded from JSONL and were refused in a case set
    from explorer.core.io.casefile import loads_case_set
    from explorer.core.io.loaders.flat import loads_jsonl

    doc = _case_set_with_ids([7, 8])
    flat = "\n".join('{"id": %d, "expected_calls": [], "actual_calls": [], "answer": "a", "reference": "a"}' % i for i in (7, 8))
    assert [r.id for r in loads_case_set(doc, "c.json").runs] == ["7", "8"] == [r.id for r in loads_jsonl(flat, "r.jsonl").runs]


@pytest.mark.parametrize("bad, message", [
    (1.5, "c.json: runs[0].id: expected a string or a whole number, got a number (1.5)"),
    (True, "c.json: runs[0].id: expected a string or a whole number, got a boolean"),
    (None, "c.json: runs[0].id: expected a string or a whole number, got null"),
])
def test_case_set_id_that_is_no_text_nor_whole_number_is_named_as_the_flat_reader_names_it(bad, message):
    from explorer.core.io.casefile import loads_case_set

    with pytest.raises(LoadError) as err:
        loads_case_set(_case_set_with_ids([bad]), "c.json")
    assert str(err.value) == message


def test_a_bad_setting_is_named_not_the_setting_beside_it():
    """The bad-input trial's settings: ``single_tool`` is a list; the error blamed ``trajectory``."""
    from explorer.core.io.exports import settings_from_data

    with pytest.raises(LoadError) as err:
        settings_from_data({"format": "metric-explorer/settings@1",
                            "settings": {"trajectory": "single_tool_use", "single_tool": ["a"]}}, "s.json")
    assert str(err.value) == "s.json: settings.single_tool: single_tool must be a tool name, got [\"a\"]"


@pytest.mark.parametrize("text, message", [
    ("null\n", "r.json: (top level): expected an object or a list of runs, got null"),
    ("true\n", "r.json: (top level): expected an object or a list of runs, got a boolean"),
    ("42\n", "r.json: (top level): expected an object or a list of runs, got a number"),
    ("[]\n", "r.json: (top level): no runs in the file (an empty list)"),
])
def test_a_json_file_that_holds_no_runs_says_what_it_holds(text, message):
    """From the 2026-12-02 newcomer trial: ``null`` was "not JSON, JSONL or CSV" and ``[]`` "cannot
    tell the format"."""
    with pytest.raises(LoadError) as err:
        loads_runs(text, "r.json")
    assert str(err.value) == message


def test_a_fractional_run_id_says_whole_numbers_are_ids_too():
    """From the same trial: ``"id": 1.5`` said "expected a string", though ``"id": 3`` is read as "3"."""
    line = '{"id": 1.5, "expected_calls": "a", "actual_calls": "a", "answer": "x", "reference": "x"}\n'
    with pytest.raises(LoadError) as err:
        loads_runs(line, "r.jsonl")
    assert str(err.value) == "r.jsonl: line 1, id: expected a string or a whole number, got a number (1.5)"
    assert loads_runs(line.replace("1.5", "3"), "r.jsonl").runs[0].id == "3"


def _booking_dataset(tmp_path):
    out = tmp_path / "runs.features"
    assert main(["featurize", "cases/booking_agent.json", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("given", ["{d}", "{d}/*", "{d}/part-00000.parquet"])
def test_featurize_refuses_a_features_dataset_or_its_files(tmp_path, capsys, given):
    """From a newcomer's trial: ``featurize runs.features`` read the dataset's part file as runs and
    said ``unknown field "human"`` (a glob over it found ``_features.json`` and could not tell its
    format)."""
    out = _booking_dataset(tmp_path)
    capsys.readouterr()
    assert main(["featurize", given.format(d=out), "--out", str(tmp_path / "again")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"metric-explorer: error: {out} is a features dataset, its features computed already: read it with "
        f"score, sweep or serve --cases {out}; to compute them again, give the run files it was made from "
        f"(cases/booking_agent.json)"]
    assert not (tmp_path / "again").exists()


def test_a_features_part_file_read_as_parquet_runs_names_its_dataset(tmp_path):
    """The same part file given to the Parquet run reader (``--input-format parquet``, an upload):
    it was refused row by row with ``unknown field "human"``."""
    part = _booking_dataset(tmp_path) / "part-00000.parquet"
    with pytest.raises(LoadError) as err:
        loads_runs(part.read_bytes(), str(part), "parquet")
    assert str(err.value) == f"{part}: is a part of the features dataset {part.parent}, not a run file: give the folder (--cases {part.parent})"


def test_featurize_refuses_a_features_file_moved_out_of_its_dataset(tmp_path, capsys):
    """A newcomer's trial copied ``part-00000.parquet`` to ``runs.parquet`` and gave it to
    featurize: the message named ``.`` as its dataset, and two runs of eight aborted after it."""
    part = _booking_dataset(tmp_path) / "part-00000.parquet"
    lonely = tmp_path / "elsewhere" / "runs.parquet"
    lonely.parent.mkdir()
    shutil.copy(part, lonely)
    capsys.readouterr()
    assert main(["featurize", str(lonely), "--out", str(tmp_path / "again")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"metric-explorer: error: {lonely} is a features file (written by featurize), its features computed already: "
        f"read it with score, sweep or serve --cases {lonely}; to compute them again, give the run files it was made from"]
    with pytest.raises(LoadError) as err:  # the Parquet run reader (an upload) says what it is too
        loads_runs(lonely.read_bytes(), str(lonely), "parquet")
    assert str(err.value) == (f"{lonely}: is a features file (written by featurize), not a run file: read it as "
                              f"features (--cases {lonely}, --input-format auto)")


def test_featurize_reads_a_folder_a_glob_matches_as_the_folder(tmp_path, capsys):
    """A newcomer's trial: ``featurize 'runsd?r'`` (the folder ``runsdir``) said ``is a folder, not
    a file``, while ``featurize runsdir`` worked and --help says INPUT may be a folder or a glob."""
    runs = tmp_path / "runsdir"
    runs.mkdir()
    shutil.copy("cases/booking_agent.json", runs / "a.json")
    out = tmp_path / "f"
    assert main(["featurize", str(tmp_path / "runsd?r"), "--out", str(out)]) == 0
    assert json.loads((out / "_features.json").read_text())["n_runs"] == 10


# --- pipes and devices -----------------------------------------------------------------------------


def test_a_device_that_never_ends_stops_at_the_size_limit(monkeypatch, capsys):
    # broke: `score --cases /dev/zero` read without end (3 GB held after 8 s): a device has no size
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", "100000")
    assert main(["score", "--cases", "/dev/zero"]) == 2
    assert capsys.readouterr().err == "metric-explorer: error: /dev/zero: a pipe or device that gave more than the 100 kB limit\n"


def test_a_named_pipe_is_read_as_cat_reads_it(tmp_path, capsys):
    import os
    import threading

    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)
    record = {"id": "r1", "expected_calls": [{"name": "a", "args": {}}], "actual_calls": [{"name": "a", "args": {}}],
              "answer": "x", "reference": "x", "human_verdict": "acceptable"}
    writer = threading.Thread(target=lambda: fifo.write_text(json.dumps(record) + "\n"))
    writer.start()
    try:
        assert main(["score", "--cases", str(fifo), "--format", "json"]) == 0
    finally:
        writer.join(timeout=10)
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [(r["id"], r["verdict"]) for r in runs] == [("r1", "pass")]  # same calls, F1 1.0


# --- many extra columns -----------------------------------------------------------------------------


def test_thousands_of_extra_fields_are_kept_every_one(tmp_path, capsys):
    # broke: one JSONL run with 5,000 adk_* keys ran past 60 s (the table took one column at a
    # time, pandas copying it all each time), and a CSV of 20,000 such columns checked its header
    # for duplicates with list.count per column (7.6 s). Every value is still in the output.
    record = {"id": "r1", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}
    record.update({f"adk_{i}": i for i in range(5000)})
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(record) + "\n")
    assert main(["score", "--cases", str(runs), "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["runs"][0]
    assert [row[f"adk_{i}"] for i in range(5000)] == list(range(5000))
    header = ["id", "expected_calls", "actual_calls", "answer", "reference"] + [f"adk_c{i}" for i in range(3000)]
    table = tmp_path / "runs.csv"
    table.write_text(",".join(header + ["adk_c7"]) + "\n" + ",".join(["r1", "[]", "[]", "x", "x"] + ["1"] * 3001) + "\n")
    assert main(["score", "--cases", str(table)]) == 2
    assert capsys.readouterr().err == f'metric-explorer: error: {table}: row 1 (header): column "adk_c7" appears twice\n'
