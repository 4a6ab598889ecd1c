"""Argument modes and per-tool, per-key argument rules (issue 12): what each compares, where rules
come from, how they reach the features, and the reasons that name them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.cli import main
from explorer.core.evaluation.features import build_features, with_arg_rules
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.verdicts import evaluate, reasons
from explorer.core.io.casefile import case_set_to_data, loads_case_set
from explorer.core.io.errors import LoadError
from explorer.core.io.exports import dumps_settings, loads_settings
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall
from explorer.core.scoring.arg_match import ArgMatcher
from explorer.core.scoring.arg_rules import (
    ArgRule, ArgRules, arg_rules_file_from_data, arg_rules_from_data, dumps_arg_rules, load_arg_rules, values_agree,
)


def call(name="f", **args):
    return ToolCall(name, args)


def rules(*items):
    return arg_rules_from_data(list(items), "test")


# --- JSON value equality and the argument modes ----------------------------------------------


def test_json_value_equality_as_adk_compares_args():
    m = ArgMatcher()
    assert m.match(call(n=1), call(n=1.0))  # numbers by value
    assert m.match(call(a=1, b=2), call(b=2, a=1))  # key order free
    assert m.match(call(o={"x": 1, "y": [1, 2]}), call(o={"y": [1, 2], "x": 1.0}))  # nested objects too
    assert not m.match(call(l=[1, 2]), call(l=[2, 1]))  # arrays in order
    assert not m.match(call(n="2"), call(n=2))  # a string is not a number
    assert m.match(call(x=True), call(x=1))  # Python's bool is an int: ADK's == says equal
    assert not m.match(call(x=None), call())  # an extra key set to null is an extra key


def test_argument_modes_name_the_actual_calls_side():
    fewer = call("book", flight="TP1")  # lacks an expected key
    expected = call("book", flight="TP1", people=2)
    more = call("book", flight="TP1", people=2, seat="1A")  # has an extra key
    assert [ArgMatcher(m).match(fewer, expected) for m in ("exact", "ignore", "subset", "superset")] == [False, True, True, False]
    assert [ArgMatcher(m).match(more, expected) for m in ("exact", "ignore", "subset", "superset")] == [False, True, False, True]
    wrong = call("book", flight="TP9", people=2, seat="1A")  # a common key differs: only names match
    assert [ArgMatcher(m).match(wrong, expected) for m in ("exact", "ignore", "subset", "superset")] == [False, True, False, False]
    assert not ArgMatcher("ignore").match(call("pay"), expected)  # names always count


# --- the rules ---------------------------------------------------------------------------------


def test_ignore_by_glob_path_at_any_depth():
    r = rules({"key": "*.timestamp", "rule": "ignore"}, {"key": "filters.*", "rule": "ignore"})
    m = ArgMatcher(rules=r)
    # *.timestamp: the top-level key, a nested one and one inside a list item
    assert m.match(call(q="x", timestamp=1), call(q="x", timestamp=2))
    assert m.match(call(meta={"timestamp": 1, "by": "a"}), call(meta={"timestamp": 2, "by": "a"}))
    assert m.match(call(ev=[{"timestamp": 1}]), call(ev=[{"timestamp": 9}]))
    assert m.match(call(q="x"), call(q="x", timestamp=2))  # present on one side only: still ignored
    assert not m.match(call(meta={"timestamp": 1, "by": "a"}), call(meta={"timestamp": 1, "by": "b"}))
    # filters.*: everything under filters, not the key filters itself
    assert m.match(call(filters={"from": "a", "limit": 5}), call(filters={"from": "b"}))
    assert not m.match(call(filters=None), call(filters={"from": "b"}))


def test_tool_glob_and_first_rule_wins():
    r = rules({"tool": "book_*", "key": "people", "rule": "ignore"}, {"key": "people", "rule": "number", "tolerance": 0.5})
    m = ArgMatcher(rules=r)
    assert m.match(call("book_table", people=9), call("book_table", people=2))  # the first rule: ignored
    assert m.match(call("pay", people=2.4), call("pay", people=2))  # other tools: the number rule
    assert not m.match(call("pay", people=3), call("pay", people=2))


def test_text_and_rung_rules():
    text = ArgMatcher(rules=rules({"key": "city", "rule": "text"}))
    assert text.match(call(city="  LISBON \t"), call(city="lisbon"))  # case and spaces
    assert not text.match(call(city="Lisbon."), call(city="lisbon"))  # punctuation is rung 3
    assert ArgMatcher(rules=rules({"key": "city", "rule": "rung", "rung": 3})).match(call(city="Lisbon."), call(city="lisbon"))
    assert not text.match(call(city=2), call(city="2"))  # not strings: JSON equality


def test_number_rule():
    exact = ArgMatcher(rules=rules({"key": "people", "rule": "number"}))
    assert exact.match(call(people="2"), call(people=2))  # "2" reads as the number 2
    assert exact.match(call(people=" 2.0 "), call(people=2))
    assert not exact.match(call(people=2.5), call(people=2))
    near = ArgMatcher(rules=rules({"key": "amount", "rule": "number", "tolerance": 0.01}))
    assert near.match(call(amount=12.004), call(amount=12))
    assert near.match(call(amount=12.01), call(amount=12))  # the tolerance is inclusive, in decimal
    assert not near.match(call(amount=12.02), call(amount=12))
    assert not exact.match(call(people="two"), call(people=2))  # unreadable: JSON equality
    assert exact.match(call(people=True), call(people=1))  # booleans are not numbers: JSON equality (True == 1)


def test_date_rule_reads_the_case_sets_day_first():
    r = rules({"key": "date", "rule": "date"})
    assert ArgMatcher(rules=r).match(call(date="12 March 2026"), call(date="2026-03-12"))
    assert ArgMatcher(rules=r).match(call(date="2026-03-12T10:00:00Z"), call(date="12/03/2026"))
    assert ArgMatcher(rules=r, day_first=True).match(call(date="03/04/2026"), call(date="2026-04-03"))
    assert not ArgMatcher(rules=r, day_first=False).match(call(date="03/04/2026"), call(date="2026-04-03"))
    assert not ArgMatcher(rules=r).match(call(date="13 March 2026"), call(date="2026-03-12"))
    assert not ArgMatcher(rules=r).match(call(date="soon"), call(date="2026-03-12"))  # one side has no date


def test_every_rule_accepts_equal_values():
    # reflexivity: JSON-equal args match under every rule (the identical-trajectory fast path rests on it)
    for rule in ArgRule("k", "ignore"), ArgRule("k", "text"), ArgRule("k", "rung", rung=4), ArgRule("k", "number", tolerance=0), ArgRule("k", "date"):
        for v in ("x", "12 March", 3, 2.5, None, True, [1], {"a": 1}):
            assert values_agree(v, v, rule)


# --- reading rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "items, where, problem",
    [
        ([{"key": "a", "rule": "fuzzy"}], "rules[0].rule", "expected one of ignore, text, rung, number, date"),
        ([{"rule": "ignore"}], "rules[0]", 'missing "key"'),
        ([{"key": "a", "rule": "text", "rung": 2}], "rules[0].rung", 'only a "rung" rule takes a rung'),
        ([{"key": "a", "rule": "ignore", "tolerance": 1}], "rules[0].tolerance", 'only a "number" rule takes a tolerance'),
        ([{"key": "a", "rule": "number", "tolerance": -1}], "rules[0].tolerance", "greater than or equal to 0"),
        ([{"key": "a", "rule": "rung", "rung": 7}], "rules[0].rung", "less than or equal to 4"),
        ([{"key": "a", "rule": "ignore", "why": "x"}], "rules[0]", 'unknown field "why"'),
        (["a"], "rules[0]", "expected an object"),
    ],
)
def test_bad_rules_name_the_file_and_the_json_path(items, where, problem):
    with pytest.raises(LoadError) as err:
        arg_rules_file_from_data({"format": "metric-explorer/arg-rules@1", "rules": items}, "rules.json")
    assert str(err.value).startswith(f"rules.json: {where}: ") and problem in str(err.value)


def test_rules_file_round_trip_and_settings_file(tmp_path):
    r = rules({"tool": "web_search", "key": "query", "rule": "ignore"}, {"key": "amount", "rule": "number", "tolerance": 0.5})
    path = tmp_path / "rules.json"
    path.write_text(dumps_arg_rules(r))
    assert load_arg_rules(str(path)) == r
    # a settings file may carry the rules next to its settings; both read back
    text = dumps_settings(Settings(trajectory="recall"), r)
    settings_path = tmp_path / "settings.json"
    settings_path.write_text(text)
    assert loads_settings(text, "s.json").trajectory == "recall"
    assert load_arg_rules(str(settings_path)) == r
    bad = json.loads(text)
    bad["arg_rules"][0]["rule"] = "nope"
    with pytest.raises(LoadError, match=r"s\.json: arg_rules\[0\]\.rule: expected one of"):
        loads_settings(json.dumps(bad), "s.json")


def _case_file(rules_data) -> str:
    run = {"id": "r1", "human_verdict": "acceptable", "invocations": [{
        "expected_calls": [{"name": "web_search", "args": {"query": "AI news", "n": 3}}],
        "actual_calls": [{"name": "web_search", "args": {"query": "AI news 2025", "n": 3}}],
        "answer": "ok", "references": ["ok"]}]}
    return json.dumps({"format": "metric-explorer/cases@1", "name": "t", "arg_rules": rules_data, "runs": [run]})


def test_case_set_rules_are_read_applied_and_written_back():
    cs = loads_case_set(_case_file([{"tool": "web_search", "key": "query", "rule": "ignore"}]), "c.json")
    assert cs.arg_rules == rules({"tool": "web_search", "key": "query", "rule": "ignore"})
    assert case_set_to_data(cs)["arg_rules"] == [{"tool": "web_search", "key": "query", "rule": "ignore"}]
    f = build_features(cs)
    assert f.trajectory_scores("exact", "exact")[0] == 1.0  # the query is ignored by the set's rule
    ev = evaluate(f, Settings())
    assert reasons(f, ev) == ["all checks pass (trajectory 1.00, F1 1.00 >= 0.80; web_search.query ignored by rule)"]
    # the same runs without rules: the query decides
    plain = build_features(cs, arg_rules=ArgRules())
    assert plain.trajectory_scores("exact", "exact")[0] == 0.0
    assert reasons(plain, evaluate(plain, Settings())) == ['web_search at position 1: query "AI news 2025" ≠ "AI news"']
    with pytest.raises(LoadError, match=r"c\.json: arg_rules\[0\]\.rule"):
        loads_case_set(_case_file([{"key": "query", "rule": "maybe"}]), "c.json")


def test_a_failing_key_names_the_rule_that_judged_it():
    cs = CaseSet("t", "", (Run("r1", "", "", (Invocation(
        (call("book_table", people=3, time="19:00"),), (call("book_table", people=2, time="19:00 "),), "ok", ("ok",)),)),),
        arg_rules=rules({"key": "people", "rule": "number", "tolerance": 0.5}, {"key": "time", "rule": "text"}))
    f = build_features(cs)
    ev = evaluate(f, Settings())
    assert reasons(f, ev) == ["book_table at position 1: people 2 ≠ 3 (number rule ±0.5)"]
    ev = evaluate(f, Settings(trajectory="recall", trajectory_threshold=0.5))
    assert reasons(f, ev) == ["trajectory recall 0.00 < 0.50: book_table at position 1: people 2 ≠ 3 (number rule ±0.5)"]


def test_rules_change_features_not_settings_and_recompute_only_the_trajectory():
    cs = loads_case_set(_case_file([]), "c.json")
    f = build_features(cs)
    r = rules({"key": "query", "rule": "ignore"})
    g = with_arg_rules(f, r)
    assert g.arg_rules == r and f.arg_rules == ArgRules()
    assert np.array_equal(g.trajectory, build_features(cs, arg_rules=r).trajectory)
    assert g.f1 is f.f1 and g.key_reason is f.key_reason  # every other column is shared
    assert with_arg_rules(g, r) is g


def test_cli_arg_rules_replace_the_case_sets(tmp_path, capsys):
    cases = tmp_path / "c.json"
    cases.write_text(_case_file([{"key": "query", "rule": "ignore"}]))
    none = tmp_path / "none.json"
    none.write_text(json.dumps({"format": "metric-explorer/arg-rules@1", "rules": []}))
    assert main(["score", "--cases", str(cases), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["agree"] == 1 and out["arg_rules"] == [{"tool": "*", "key": "query", "rule": "ignore"}]
    assert main(["score", "--cases", str(cases), "--arg-rules", str(none), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["false_fail"] == ["r1"] and "arg_rules" not in out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "metric-explorer/arg-rules@1", "rules": [{"key": "q"}]}))
    assert main(["score", "--cases", str(cases), "--arg-rules", str(bad)]) == 2
    assert f"{bad}: rules[0]" in capsys.readouterr().err
