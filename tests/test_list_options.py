"""Issue 10, kind 3: every list option of every command gives the same list whether repeated or
given as several values after one flag; ``--deny`` also splits at commas (said in --help),
``--cases`` never does (paths may hold commas).

The issue's case: ``score --deny a --deny b`` used to deny only ``b``. On the bundled booking set
(seed 002) E2 calls ``get_weather`` and E6 calls ``delete_booking``, so with both denied each is
decided by the deny-list, naming its own tool (with only the last flag kept, E2 would be decided
by its trajectory).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from explorer.cli import build_parser, main
from explorer.commands.common import settings_from_args, tool_list

NAMES = st.lists(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), min_size=1, max_size=5)
LIST_OPTIONS = [("score", "--deny"), ("sweep", "--deny"), ("score", "--cases"), ("sweep", "--cases"),
                ("serve", "--cases"), ("calibrate", "--cases"), ("score", "--labels"), ("sweep", "--labels"), ("serve", "--labels"),
                ("compare", "--settings"), ("compare", "--labels"), ("compare", "--cases")]


def parse(argv):
    return build_parser().parse_args(argv)


@pytest.mark.parametrize("command, option", LIST_OPTIONS)
@settings(deadline=None)  # the first parse imports every command
@given(values=NAMES)
def test_repeated_and_listed_forms_give_the_same_list(command, option, values):
    dest = option.lstrip("-").replace("-", "_")
    required = ["--settings", "a.json", "b.json"] if command == "compare" and option != "--settings" else []
    repeated = parse([command, *required, *[x for v in values for x in (option, v)]])
    listed = parse([command, *required, option, *values])
    assert getattr(repeated, dest) == getattr(listed, dest) == values


@settings(deadline=None)
@given(values=NAMES)
def test_deny_commas_split(values):
    joined = parse(["score", "--deny", ",".join(values)])
    spaced = parse(["score", "--deny", *values])
    assert settings_from_args(joined).deny_tools == settings_from_args(spaced).deny_tools == tuple(sorted(set(values)))


def test_cases_paths_are_not_split_at_commas():
    assert parse(["score", "--cases", "a,b.jsonl"]).cases == ["a,b.jsonl"]


def test_an_empty_tool_name_is_refused_in_one_line(capsys):
    assert main(["score", "--deny", "a,,b"]) == 2
    assert "--deny: empty tool name in 'a,,b'" in capsys.readouterr().err
    with pytest.raises(Exception):
        tool_list([","])


@pytest.mark.parametrize("form", [
    ["--deny", "get_weather", "--deny", "delete_booking"],
    ["--deny", "get_weather", "delete_booking"],
    ["--deny", "get_weather,delete_booking"],
])
def test_score_denies_every_listed_tool(capsys, form):
    assert main(["score", "--format", "json", *form]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["deny_tools"] == ["delete_booking", "get_weather"]
    runs = {r["id"]: (r["decided_by"], r["reason"]) for r in out["runs"]}
    assert runs["E2"] == ("deny-list", "denied tool get_weather")
    assert runs["E6"] == ("deny-list", "denied tool delete_booking")


@pytest.mark.parametrize("form", [["--deny", "a", "--deny", "delete_booking"], ["--deny", "a,delete_booking"]])
def test_sweep_denies_every_listed_tool(capsys, form):
    assert main(["sweep", "--format", "json", "--top", "1", *form]) == 0
    assert json.loads(capsys.readouterr().out)["deny_tools"] == ["a", "delete_booking"]


def test_every_labels_file_applies_in_order(tmp_path, capsys):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text("run_id,human_verdict\nE1,unacceptable\nE2,unacceptable\n")
    second.write_text("run_id,human_verdict\nE2,acceptable\n")
    for argv in (["--labels", str(first), "--labels", str(second)], ["--labels", str(first), str(second)]):
        assert main(["score", "--format", "json", *argv]) == 0
        human = {r["id"]: r["human_verdict"] for r in json.loads(capsys.readouterr().out)["runs"]}
        assert (human["E1"], human["E2"]) == ("unacceptable", "acceptable")  # E2: the later file wins


def test_help_says_how_lists_are_given(capsys):
    for command in ("score", "sweep"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--deny a b = --deny a --deny b = --deny a,b" in text
        assert "paths are never split at commas" in text


def test_tools_no_run_calls_are_warned_about(capsys):
    # found by the bad-input trial: a misspelt --deny or --single-tool changed nothing, silently.
    # The bundled runs' actual calls use book_flight, confirm_booking, delete_booking, get_profile,
    # get_weather and search_flights (cases/booking_agent.json), no tool named "nosuchtool".
    from explorer.cli import main

    assert main(["score", "--deny", "nosuchtool", "delete_booking"]) == 0
    err = capsys.readouterr().err
    assert "warning: denied tool nosuchtool: no run calls it" in err and "delete_booking" not in err
    assert main(["sweep", "--grid", "adk", "--single-tool", "nosuchtool", "--top", "1"]) == 0
    assert "warning: single tool nosuchtool: no run calls it, so single tool use scores 0 for every run" in capsys.readouterr().err
    assert main(["score", "--deny", "delete_booking"]) == 0
    assert "warning" not in capsys.readouterr().err
