"""An empty or blank value of a path or name option is a usage error naming the option. A trial
found ``score --out ''`` ignored (the CSV went to stdout), ``--cases ''`` read as the current
folder (".: is a folder, not a file"), ``--locale ''`` and ``--single-tool ''`` taken as given;
``featurize --out ''`` pointed at the current folder, the one it would replace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.core.io.casefile import load_case_set
from explorer.core.io.errors import LoadError

PATH_OPTIONS = [
    ["score", "--cases", ""], ["score", "--settings", ""], ["score", "--arg-rules", ""], ["score", "--labels", ""],
    ["score", "--format", "csv", "--out", ""], ["score", "--cache-dir", ""], ["score", "--expectations", ""],
    ["sweep", "--cases", ""], ["calibrate", "--pairs", ""], ["calibrate", "--cases", ""],
    ["compare", "--settings", "", "b.json"], ["featurize", "x.jsonl", "--out", ""], ["featurize", "", "--out", "f"],
    ["featurize", "x.jsonl", "--out", "f", "--arg-rules", ""], ["serve", "--cases", ""],
]
NAME_OPTIONS = [
    ["score", "--locale", ""], ["score", "--single-tool", ""], ["sweep", "--single-tool", ""], ["calibrate", "--locale", ""],
    ["score", "--join-key", ""], ["score", "--verdict-attribute", ""], ["score", "--verdict-score", ""],
    ["score", "--annotator", ""], ["featurize", "x.jsonl", "--out", "f", "--scheduler", ""],
    ["featurize", "x.jsonl", "--out", "f", "--memory-limit", ""], ["serve", "--address", ""],
]


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("argv", PATH_OPTIONS, ids=" ".join)
def test_an_empty_path_is_a_usage_error_naming_the_option(argv, capsys):
    option = next((a for a in argv if a.startswith("--") and argv[argv.index(a) + 1] == ""), "INPUT")
    err = _usage_error(argv, capsys)
    assert f"{argv[0]}: error: argument {option}: expected a path, got an empty string" in err


@pytest.mark.parametrize("argv", NAME_OPTIONS, ids=" ".join)
def test_an_empty_name_is_a_usage_error_naming_the_option(argv, capsys):
    option = argv[argv.index("") - 1]
    err = _usage_error(argv, capsys)
    assert f"{argv[0]}: error: argument {option}: expected a name, got an empty string" in err


def test_a_blank_path_is_named_as_given(capsys):
    assert "argument --out: expected a path, got '  '" in _usage_error(["score", "--format", "csv", "--out", "  "], capsys)


def test_score_out_empty_writes_nothing_to_stdout(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--format", "csv", "--out", ""])
    assert capsys.readouterr().out == ""  # the CSV went to stdout before


@pytest.mark.parametrize("pattern", ["", "[A-Z]*", "(BK-\\d+)?"])
def test_an_id_pattern_matching_the_empty_string_is_refused(pattern, tmp_path, capsys):
    # featurize --id-pattern '' was taken: every answer then held an empty booking id
    err = _usage_error(["featurize", "x.jsonl", "--out", str(tmp_path / "f"), "--id-pattern", pattern], capsys)
    assert f"argument --id-pattern: {pattern!r} matches the empty string, so every answer would hold an empty booking id" in err
    data = json.loads((Path(__file__).parents[1] / "cases" / "booking_agent.json").read_text())
    data["key_fields"]["id_pattern"] = pattern
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(data))
    with pytest.raises(LoadError) as info:
        load_case_set(path)
    assert str(info.value) == (f"{path}: key_fields.id_pattern: {json.dumps(pattern)} matches the empty string, "
                               "so every answer would hold an empty booking id")


@pytest.mark.parametrize("pattern, size", [("a{1000000000}", "1,000,000,000"), ("((BK{100}){100}){100}", "1,010,000")])
def test_an_id_pattern_that_repeats_too_much_is_refused_before_it_is_built(pattern, size, tmp_path, capsys):
    # a trial: key_fields.id_pattern "a{1000000000}" held 4 GB for 13 s in regex.compile, then a
    # MemoryError traceback. Nested repeats multiply: B and K{100} are 101 items, x 100 x 100.
    data = json.loads((Path(__file__).parents[1] / "cases" / "booking_agent.json").read_text())
    data["key_fields"]["id_pattern"] = pattern
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(data))
    assert main(["score", "--cases", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (f"metric-explorer: error: {path}: key_fields.id_pattern: {json.dumps(pattern)} repeats too much: it "
                   f"expands to {size} items, over the 10,000 a booking-id pattern may (a booking id is a few characters long)\n")


def test_expanded_size_counts_repeats_times_what_they_repeat():
    from explorer.core.scoring.fields import DEFAULT_ID_PATTERN, expanded_size

    # \b [A-Z]{2,3} - \d{3,6} \b: 1 + 3 + 1 + 6 + 1
    assert expanded_size(DEFAULT_ID_PATTERN) == 12
    assert expanded_size("(ab){10}") == 20 and expanded_size("a{5,}") == 5 and expanded_size("x|y{4}") == 5
    assert expanded_size("((a{100}){100}){100}") == 1_000_000
