"""An ADK ``test_config.json`` read as settings (``--settings``, the app's settings drop): the
criteria ADK expresses become the explorer's settings, the inverse of the export.

Right values from ADK's definitions (google-adk ``evaluation/eval_config.py`` ``EvalConfig``,
``eval_metrics.py`` ``ToolTrajectoryCriterion``; /work/shared/notes/adk-eval-semantics.md):
a criterion is a number (its threshold) or an object with ``threshold``; the trajectory match
type defaults to EXACT; ``response_match_score`` is ROUGE-1. Found by a newcomer trial: the
shared ADK file was refused with a message about argument-rules files."""

from __future__ import annotations

import json

import pytest

from explorer.cli import main
from explorer.core.evaluation.settings import Settings
from explorer.core.io.errors import LoadError
from explorer.core.io.exports import adk_test_config, loads_settings
from explorer.core.scoring.arg_rules import arg_rules_file_from_data

# /work/shared/formats/adk/test_config.json, as ADK's docs write it
SHARED = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
                       "response_match_score": 0.8}}


def read(data) -> Settings:
    return loads_settings(json.dumps(data), "test_config.json")


def test_the_shared_file_reads_as_in_order_and_rouge1_at_its_thresholds():
    s = read(SHARED)
    assert (s.trajectory, s.trajectory_threshold, s.args) == ("in_order", 1.0, "exact")
    assert (s.response_scorer, s.f1_threshold) == ("rouge1", 0.8)
    # nothing ADK cannot express is switched on
    assert (s.combine, s.deny_check, s.key_fields) == ("all", False, False)


def test_number_forms_defaults_and_absent_criteria():
    # a bare number is the threshold, the match type then ADK's default EXACT
    s = read({"criteria": {"tool_trajectory_avg_score": 0.5}})
    assert (s.trajectory, s.trajectory_threshold) == ("exact", 0.5)
    # no response_match_score: ADK does not check the answer -> threshold 0 (ROUGE-1)
    assert (s.response_scorer, s.f1_threshold) == ("rouge1", 0.0)
    # no tool_trajectory_avg_score: trajectory not scored
    s = read({"criteria": {"response_match_score": {"threshold": 0.4}}})
    assert (s.trajectory, s.f1_threshold) == ("none", 0.4)
    # camelCase keys (ADK's web API) and the enum's numbers (ANY_ORDER = 2); ignore_args
    s = read({"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "matchType": 2, "ignoreArgs": True}}})
    assert (s.trajectory, s.args, s.compare_args) == ("any_order", "ignore", False)


@pytest.mark.parametrize("family", ["exact", "in_order", "any_order"])
@pytest.mark.parametrize("args", ["exact", "ignore"])
def test_export_then_read_gives_the_same_settings(family, args):
    before = Settings(trajectory=family, args=args, compare_args=args != "ignore", trajectory_threshold=0.5,
                      response_scorer="rouge1", f1_threshold=0.35)
    after = read(adk_test_config(before, with_notes=False))
    assert after == before


@pytest.mark.parametrize("criteria, where, words", [
    ({"final_response_match_v2": 0.8}, "criteria.final_response_match_v2", "does not score"),
    ({"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "SOMETIMES"}},
     "criteria.tool_trajectory_avg_score.match_type", "EXACT, IN_ORDER or ANY_ORDER"),
    ({"tool_trajectory_avg_score": {"match_type": "EXACT"}}, "criteria.tool_trajectory_avg_score.threshold", "missing"),
    ({"response_match_score": 1.5}, "criteria.response_match_score", "from 0 to 1"),
    ({"response_match_score": {"threshold": "high"}}, "criteria.response_match_score.threshold", "from 0 to 1"),
    ({"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": "yes"}}, "criteria.tool_trajectory_avg_score.ignore_args", "true or false"),
])
def test_bad_criteria_name_the_file_and_json_path(criteria, where, words):
    with pytest.raises(LoadError) as err:
        read({"criteria": criteria})
    assert str(err.value).startswith(f"test_config.json: {where}: ") and words in str(err.value)


@pytest.mark.parametrize("criteria, message", [
    # a trial: the value was JSON-spelt, then escaped again: got \"FUZZY\"
    ({"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "FUZZY"}},
     'criteria.tool_trajectory_avg_score.match_type: expected EXACT, IN_ORDER or ANY_ORDER, got "FUZZY"'),
    ({"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": "false"}},
     'criteria.tool_trajectory_avg_score.ignore_args: expected true or false, got "false"'),
    ({"response_match_score": {"threshold": "high"}}, 'criteria.response_match_score.threshold: expected a number from 0 to 1, got "high"'),
])
def test_a_bad_value_is_spelt_once_as_the_file_spells_it(criteria, message):
    with pytest.raises(LoadError) as err:
        read({"criteria": criteria})
    assert str(err.value) == f"test_config.json: {message}"


def test_the_rules_reader_takes_it_as_no_rules():
    assert arg_rules_file_from_data(SHARED, "test_config.json").rules == ()


def test_score_with_the_file_is_score_with_the_flags_it_states(tmp_path, capsys):
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps(SHARED))
    assert main(["score", "--settings", str(path), "--format", "json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert main(["score", "--trajectory", "in_order", "--response-scorer", "rouge1", "--f1-threshold", "0.8",
                 "--format", "json"]) == 0
    from_flags = json.loads(capsys.readouterr().out)
    assert from_file["settings"] == from_flags["settings"] and from_file["summary"] == from_flags["summary"]
