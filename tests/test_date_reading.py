"""Issue 10, kind 7: one date reading per case set, applied by every check.

The issue's run: answer "Your flight is on 04/03/2026.", reference "... April 3, 2026."
By hand: month-first, 04/03/2026 is 3 April 2026, the reference's date -> the key-field check and
the cascade's date rule both pass; day-first it is 4 March 2026 -> both fail with
"date 4 March 2026 differs from 3 April 2026". Before, ``--month-first`` reached only the
cascade, so the two checks contradicted each other.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, HealthCheck

from explorer.app.url import query_from_settings, settings_from_query
from explorer.cli import main
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import ADK_GRID, sweep
from explorer.core.evaluation.verdicts import evaluate, result_table
from explorer.core.io.exports import loads_settings
from explorer.core.io.loaders import loads_runs
from explorer.core.scoring.cascade import CascadeSettings, field_failure
from explorer.core.scoring.fields import extract_dates, key_fields_reason_best

US_STYLE = {"id": "us_style", "expected_calls": "", "actual_calls": "", "answer": "Your flight is on 04/03/2026.",
            "reference": "Your flight is on April 3, 2026.", "human_verdict": "acceptable"}
DIFFERS = "date 4 March 2026 differs from 3 April 2026"


def formats():
    """The issue's run as JSONL, CSV and an ADK result (no format can say how it reads dates)."""
    adk = {"eval_set_id": "s", "eval_case_results": [{"eval_id": "us_style", "eval_metric_result_per_invocation": [{
        "actual_invocation": {"final_response": {"parts": [{"text": US_STYLE["answer"]}]}},
        "expected_invocation": {"final_response": {"parts": [{"text": US_STYLE["reference"]}]}}}]}]}
    csv = "id,expected_calls,actual_calls,answer,reference\nus_style,,,Your flight is on 04/03/2026.,\"Your flight is on April 3, 2026.\"\n"
    return [(json.dumps(US_STYLE) + "\n", "r.jsonl"), (csv, "r.csv"), (json.dumps(adk), "r.evalset_result.json")]


@pytest.mark.parametrize("text, name", formats())
@pytest.mark.parametrize("day_first, key_ok", [(False, True), (True, False), (None, False)])
def test_key_fields_and_the_cascade_rules_agree_in_every_format(text, name, day_first, key_ok):
    cs = loads_runs(text, name)
    f = build_features(cs)
    s = Settings(key_fields=True, trajectory="none", f1_threshold=0.0, day_first=day_first)
    ev = evaluate(f, s)
    assert bool(ev.key_pass[0]) is key_ok
    if not key_ok:
        assert result_table(f, ev)["reason"][0] == DIFFERS
    # the cascade's field rules read the same way (stage 2, before any embedding)
    reading = True if day_first is None else day_first
    failure = field_failure(cs.runs[0].invocations[0].answer, cs.runs[0].invocations[0].references, (), CascadeSettings(day_first=reading))
    assert (failure is None) is key_ok
    if failure is not None:
        assert failure == ("field:date", DIFFERS)


@pytest.mark.skipif(not __import__("explorer.core.scoring.embedding", fromlist=["x"]).similarity_available(), reason="needs the similarity extra")
@pytest.mark.parametrize("flag, key_ok", [("--month-first", True), ("--day-first", False)])
def test_cli_one_flag_for_every_check(tmp_path, capsys, flag, key_ok):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(US_STYLE) + "\n")
    assert main(["score", "--cases", str(path), "--key-fields", "--response-scorer", "cascade", "--trajectory", "none",
                 flag, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = out["runs"][0]
    assert out["settings"]["day_first"] is (not key_ok) and out["response"]["day_first"] is (not key_ok)
    if key_ok:
        assert run["decided_by"] != "key fields" and run["response_stage"] != "field:date"
    else:
        assert (run["decided_by"], run["reason"], run["response_stage"]) == ("key fields", DIFFERS, "field:date")


def test_settings_json_and_url_carry_the_reading(tmp_path, capsys):
    s = loads_settings('{"format": "metric-explorer/settings@1", "settings": {"day_first": false}}', "s.json")
    assert s.day_first is False
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(US_STYLE) + "\n")
    settings_path = tmp_path / "s.json"
    settings_path.write_text('{"format": "metric-explorer/settings@1", "settings": {"day_first": false, "key_fields": true}}')
    assert main(["score", "--cases", str(path), "--settings", str(settings_path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["decided_by"] != "key fields"
    # a flag given overrides the settings file
    assert main(["score", "--cases", str(path), "--settings", str(settings_path), "--day-first", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["decided_by"] == "key fields"
    got, notices = settings_from_query({"day_first": "false"}, Settings(), [])
    assert (got.day_first, notices) == (False, [])
    assert query_from_settings(got)["day_first"] == "false" and "day_first" not in query_from_settings(Settings())
    bad, notices = settings_from_query({"day_first": "maybe"}, Settings(), [])
    assert bad.day_first is None and "Ignored day_first=maybe" in notices[0]


def test_app_control_switches_every_check_without_reloading():
    from explorer.app.main import ExplorerSession
    from explorer.app.workspace import shared_from_case_set

    cs = loads_runs(json.dumps(US_STYLE) + "\n", "r.jsonl")
    s = ExplorerSession(shared_from_case_set(cs), {"key_fields": "true", "trajectory": "none", "f1_threshold": "0"})
    assert s.inputs.day_first is True and not s.ev.key_pass[0]
    features = s.features
    s.inputs.day_first = False
    assert s.ev.settings.day_first is False and s.ev.key_pass[0] and s.features is features  # array work, same features
    s.inputs.day_first = True
    assert s.ev.settings.day_first is None  # the case set's own reading again


def test_sweep_reads_the_base_reading():
    cs = loads_runs(json.dumps(US_STYLE) + "\n", "r.jsonl")
    f = build_features(cs)
    for day_first, passes in ((False, 1), (True, 0)):
        t = sweep(f, Settings(day_first=day_first), grid=ADK_GRID)  # none x compare args off/on: two rows
        row = t[(t["trajectory"] == "none") & (t["combine"] == "all") & t["key_fields"] & ~t["deny_check"] & (t["f1_threshold"] == 0.0)]
        assert row["true_pass"].tolist() == [passes, passes]


@pytest.mark.parametrize("text", ["21-Oct-2026", "21/Oct/2026", "21.Oct.2026", "21-October-2026", "Oct-21-2026"])
def test_day_month_name_forms_with_dashes(text):
    assert [str(d) for d in extract_dates(f"Your flight is on {text}.")] == ["21 October 2026"]


def test_the_case_set_file_reading_is_the_default():
    data = {"format": "metric-explorer/cases@1", "name": "x", "key_fields": {"day_first": False}, "runs": [
        {"id": "r", "invocations": [{"expected_calls": [], "actual_calls": [], "answer": US_STYLE["answer"],
                                     "references": [US_STYLE["reference"]]}]}]}
    f = build_features(loads_runs(json.dumps(data), "c.json"))
    assert f.day_first is False
    assert evaluate(f, Settings(key_fields=True)).key_pass[0]
    assert not evaluate(f, Settings(key_fields=True, day_first=True)).key_pass[0]


from test_vectorised_equals_plain import case_sets  # noqa: E402  (random runs with numeric dates)


@hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case_sets())
def test_both_readings_equal_the_plain_check(cs):
    f = build_features(cs)
    rx = re.compile(cs.id_pattern)
    for reading in (True, False):
        want = np.array([all(key_fields_reason_best(inv.answer, inv.references, reading, rx) == "" or inv.answer in inv.references
                             for inv in run.invocations) for run in cs.runs])
        assert (evaluate(f, Settings(key_fields=True, day_first=reading)).key_pass == want).all()
