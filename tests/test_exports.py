"""Exports: settings JSON (written and read back), ADK test_config.json, scored table CSV, labels CSV."""

import io
import json

import pandas as pd
import pytest

from explorer.commands.common import BUNDLED_CASES
from explorer.core.io.casefile import load_case_set
from explorer.core.io.errors import LoadError
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.io.exports import (
    SETTINGS_FORMAT, adk_test_config, settings_from_data, dumps_adk_test_config, dumps_labels_csv, dumps_scored_table, dumps_settings,
    load_settings, loads_settings,
)
from explorer.core.evaluation.features import build_features
from explorer.core.io.loaders.labels import labels_from_runs, loads_labels
from explorer.core.evaluation.settings import Settings

TEN_OF_TEN = Settings(trajectory="any_order", f1_threshold=0.4, deny_check=True, deny_tools=("delete_booking",), key_fields=True)


def test_settings_json_round_trip(tmp_path):
    text = dumps_settings(TEN_OF_TEN)
    data = json.loads(text)
    assert set(data) == {"format", "settings"} and data["format"] == SETTINGS_FORMAT
    assert data["settings"] == TEN_OF_TEN.to_dict()
    assert {k: data["settings"][k] for k in ("trajectory", "compare_args", "f1_threshold", "combine", "deny_check",
                                             "deny_tools", "key_fields", "mean_threshold")} == {
        "trajectory": "any_order", "compare_args": True, "f1_threshold": 0.4, "combine": "all", "deny_check": True,
        "deny_tools": ["delete_booking"], "key_fields": True, "mean_threshold": 0.75}
    path = tmp_path / "settings.json"
    path.write_text(text)
    assert load_settings(path) == TEN_OF_TEN


def test_settings_subset_takes_defaults():
    got = loads_settings(json.dumps({"format": SETTINGS_FORMAT, "settings": {"trajectory": "in_order"}}), "s.json")
    assert got == Settings(trajectory="in_order")


@pytest.mark.parametrize("data, location, problem", [
    ({"settings": {}}, "format", f'expected "{SETTINGS_FORMAT}", missing'),
    ({"format": "metric-explorer/cases@1", "settings": {}}, "format", f"expected \"{SETTINGS_FORMAT}\", got \"metric-explorer/cases@1\""),
    ({"format": SETTINGS_FORMAT}, "(top level)", 'missing "settings"'),
    ({"format": SETTINGS_FORMAT, "settings": [1]}, "settings", "expected an object"),
    ({"format": SETTINGS_FORMAT, "settings": {"threshold": 0.5}}, "settings.threshold", 'unknown setting "threshold"'),
    ({"format": SETTINGS_FORMAT, "settings": {"f1_threshold": 1.5}}, "settings.f1_threshold", "f1_threshold must be a number in [0, 1], got 1.5"),
    ({"format": SETTINGS_FORMAT, "settings": {"trajectory": "sideways"}}, "settings.trajectory", "trajectory must be one of"),
    ({"format": SETTINGS_FORMAT, "settings": {"key_fields": "yes"}}, "settings.key_fields", "key_fields must be true or false"),
    ({"format": SETTINGS_FORMAT, "settings": {"deny_tools": "delete_booking"}}, "settings.deny_tools", "deny_tools must be a list of tool names"),
    ({"format": SETTINGS_FORMAT, "settings": {}, "extra": 1}, "extra", 'unknown field "extra"'),
    ([1], "(top level)", "expected an object"),
])
def test_bad_settings(data, location, problem):
    with pytest.raises(LoadError) as info:
        loads_settings(json.dumps(data), "s.json")
    assert (info.value.file, info.value.location) == ("s.json", location)
    assert info.value.problem.startswith(problem)


NESTING = f'; settings go inside "settings": {{"format": "{SETTINGS_FORMAT}", "settings": {{"trajectory": ...}}}}'


@pytest.mark.parametrize("data, location, problem", [
    # a trial's files: settings written at the top level, with and without the format tag
    ({"format": SETTINGS_FORMAT, "trajectory": "any_order"}, "trajectory", 'unknown field "trajectory"' + NESTING),
    ({"trajectory": "any_order"}, "format", f'expected "{SETTINGS_FORMAT}", missing' + NESTING),
    ({"format": SETTINGS_FORMAT, "trajectory": "any_order", "f1_threshold": 0.5}, "f1_threshold",
     'unknown fields "f1_threshold", "trajectory"; settings go inside "settings": '
     f'{{"format": "{SETTINGS_FORMAT}", "settings": {{"trajectory": ...}}}}'),
    ({"format": SETTINGS_FORMAT, "settings": {}, "extra": 1, "more": 2}, "extra",
     'unknown fields "extra", "more" (known: "format", "settings", "arg_rules")'),
])
def test_settings_at_the_top_level_are_named_as_such(data, location, problem):
    with pytest.raises(LoadError) as info:
        loads_settings(json.dumps(data), "s.json")
    assert (info.value.location, info.value.problem) == (location, problem)


def test_score_names_a_settings_file_as_one(tmp_path, capsys):
    """``score --settings`` read the file as an argument-rules file first, so a settings file
    without its format tag was told 'expected "metric-explorer/arg-rules@1"' (a trial)."""
    from explorer.cli import main

    path = tmp_path / "s.json"
    path.write_text('{"trajectory": "any_order"}')
    assert main(["score", "--settings", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f'metric-explorer: error: {path}: format: expected "{SETTINGS_FORMAT}", missing' + NESTING


def test_settings_not_json_and_empty():
    with pytest.raises(LoadError) as info:
        loads_settings('{"format": ', "s.json")
    assert str(info.value).startswith("s.json: line 1, column 12: invalid JSON")
    with pytest.raises(LoadError, match="s.json: file is empty"):
        loads_settings(b"", "s.json")


def test_adk_test_config_defaults():
    assert adk_test_config(Settings(), with_notes=False) == {"criteria": {
        "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "EXACT", "ignore_args": False},
        "response_match_score": 0.8}}


@pytest.mark.parametrize("mode, match_type", [("exact", "EXACT"), ("in_order", "IN_ORDER"), ("any_order", "ANY_ORDER")])
def test_adk_match_types(mode, match_type):
    crit = adk_test_config(Settings(trajectory=mode, compare_args=False, f1_threshold=0.41))["criteria"]
    assert crit["tool_trajectory_avg_score"] == {"threshold": 1.0, "match_type": match_type, "ignore_args": True}
    assert crit["response_match_score"] == 0.41


def test_adk_notes_say_what_adk_cannot_express():
    cfg = json.loads(dumps_adk_test_config(TEN_OF_TEN))
    notes = " ".join(cfg["_metric_explorer_notes"])
    assert "no deny-list" in notes and "delete_booking" in notes
    assert "no key-field check" in notes
    none_mean = adk_test_config(Settings(trajectory="none", combine="mean"))
    assert set(none_mean["criteria"]) == {"response_match_score"}
    notes = " ".join(none_mean["_metric_explorer_notes"])
    assert "Trajectory not scored" in notes and "no mean combine" in notes
    plain = " ".join(adk_test_config(Settings())["_metric_explorer_notes"])
    assert "deny-list" not in plain and "key-field" not in plain and "mean" not in plain


def test_scored_table_csv():
    features = build_features(load_case_set(BUNDLED_CASES))
    ev = evaluate(features, Settings())
    table = pd.read_csv(io.StringIO(dumps_scored_table(features, ev)), keep_default_na=False)
    assert list(table.columns[:4]) == ["id", "title", "trajectory_score", "trajectory_pass"]
    assert len(table) == 10
    # seed 002's opening run: 4/10 agree, E5 the false pass
    assert (table["outcome"] == "agree").sum() == 4
    assert table.loc[table["outcome"] == "false pass", "id"].tolist() == ["E5"]
    assert table.set_index("id").loc["E2", "reason"] == "extra call get_weather at position 2"


def test_labels_csv_export():
    cs = load_case_set(BUNDLED_CASES)
    text = dumps_labels_csv(labels_from_runs(cs))
    back = loads_labels(text, "l.csv")
    assert {k: v.verdict for k, v in back.items()} == {r.id: r.human_verdict for r in cs.runs}


@pytest.mark.skipif("response_scorer" not in Settings.__dataclass_fields__, reason="Settings has no response_scorer yet")
def test_adk_note_for_a_response_scorer_adk_lacks():
    notes = " ".join(adk_test_config(Settings(response_scorer="cascade"))["_metric_explorer_notes"])
    assert "Response scorer cascade has no ADK counterpart" in notes
    notes = " ".join(adk_test_config(Settings(response_scorer="rouge1"))["_metric_explorer_notes"])
    assert "counterpart" not in notes and "unigram F1" not in notes


def test_bad_settings_names_the_field_that_breaks_a_cross_field_rule():
    ok = loads_settings(json.dumps({"format": SETTINGS_FORMAT, "settings": {"pass_above": 0.5, "fail_below": 0.4}}), "s.json")
    assert (ok.pass_above, ok.fail_below) == (0.5, 0.4)
    with pytest.raises(LoadError) as info:
        loads_settings(json.dumps({"format": SETTINGS_FORMAT, "settings": {"pass_above": 0.3, "fail_below": 0.4}}), "s.json")
    assert info.value.location == "settings.pass_above"
    assert "0.4" in info.value.problem and "0.3" in info.value.problem
    with pytest.raises(LoadError) as info:
        loads_settings(json.dumps({"format": SETTINGS_FORMAT, "settings": {"f1_threshold": 2, "rung": 9}}), "s.json")
    # both are bad on their own: the one named is the one the message is about
    assert (info.value.location, info.value.problem) in (
        ("settings.f1_threshold", "f1_threshold must be a number in [0, 1], got 2"),
        ("settings.rung", "rung must be 1, 2, 3 or 4, got 9"),
    )


@pytest.mark.parametrize("settings, message", [
    ({"combine": True}, 'settings.combine: combine must be "all" or "mean", got true'),
    ({"deny_check": "yes"}, 'settings.deny_check: deny_check must be true or false, got "yes"'),
    ({"single_tool": ["a"]}, 'settings.single_tool: single_tool must be a tool name, got ["a"]'),
])
def test_bad_settings_values_are_spelled_as_the_file_spells_them(settings, message):
    """Found by a newcomer trial: the messages showed Python's spellings (``got True``, ``got
    'yes'``, ``got nan``) of values the person wrote in JSON."""
    with pytest.raises(LoadError) as err:
        settings_from_data({"format": SETTINGS_FORMAT, "settings": settings}, "s.json")
    assert str(err.value) == f"s.json: {message}"


def test_a_nan_threshold_reads_as_the_file_wrote_it():
    with pytest.raises(LoadError) as err:
        settings_from_data(json.loads('{"format": "metric-explorer/settings@1", "settings": {"f1_threshold": NaN}}'), "s.json")
    assert str(err.value) == "s.json: settings.f1_threshold: f1_threshold must be a number in [0, 1], got NaN"
