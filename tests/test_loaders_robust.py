"""Any damage to a valid run, labels or settings file gives runs or one LoadError, never another
exception (hypothesis mutates valid files: a value replaced, a key or item deleted, characters
inserted or removed)."""

import copy
import json

from hypothesis import HealthCheck, given, settings, strategies as st

import pytest
from explorer.core.io.errors import LoadError
from explorer.core.io.exports import loads_settings
from explorer.core.io.loaders import loads_runs
from explorer.core.io.loaders.labels import loads_labels
from test_loaders_adk import camel, multi_invocation_case, new_form_case, old_form_case, result_file
from test_loaders_messages import record

FLAT = [
    {"id": "r1", "expected_calls": [{"name": "a", "args": {"x": 1}}], "actual_calls": "a>b", "answer": "x",
     "references": ["y"], "human_verdict": "acceptable"},
    {"id": "r2", "invocations": [{"expected_calls": [], "actual_calls": [], "answer": "", "reference": ""}]},
]
JSON_BASES = [
    result_file(old_form_case(), new_form_case(), multi_invocation_case()),
    camel(result_file(new_form_case())),
    [record(), record(id="m2")],
    FLAT,
]
TEXT_BASES = [
    ("runs.csv", 'id,title,expected_calls,actual_calls,answer,reference,human_verdict,adk_x\n'
                 'r1,T,a>b,"[{""name"": ""a"", ""args"": {""d"": 1}}]","ok,\nyes",ref,unacceptable,0.5\nr2,,,,,,,\n'),
    ("labels.csv", 'run_id,human_verdict,note\nE1,acceptable,"x, y"\nE2,,\n'),
    ("settings.json", '{"format": "metric-explorer/settings@1", "settings": {"deny_tools": ["a"], "f1_threshold": 0.5}}'),
]
LEAVES = [None, True, 0, 1.5, "", "a", "[", "a>>b", "x\n>", "ok\nyes", [], {}, [1], {"name": 1}, "acceptable", -1]


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))


def damage(draw, value, leaves=LEAVES):
    """``value`` (a fresh copy) with 1-3 damages: a value replaced by one of ``leaves``, a key or
    item deleted, or the whole replaced. Shared with tests/test_loaders_robust_traces.py."""
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(value))))
        if not path:
            value = copy.deepcopy(draw(st.sampled_from(leaves)))  # never mutate the shared leaves
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(leaves)))
    return value


@st.composite
def damaged_json(draw):
    return damage(draw, copy.deepcopy(draw(st.sampled_from(JSON_BASES))))


@settings(max_examples=400, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(damaged_json(), st.sampled_from(["auto", "adk", "jsonl", "messages", "cases"]), st.booleans())
def test_damaged_json_gives_runs_or_load_error(value, input_format, as_lines):
    if as_lines and isinstance(value, list):
        text, name = "\n".join(json.dumps(v) for v in value), "runs.jsonl"
    else:
        text, name = json.dumps(value), "runs.json"
    try:
        loads_runs(text, name, input_format)
    except LoadError as err:
        assert err.file == name and "\n" not in str(err)


@settings(max_examples=400, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(TEXT_BASES), st.lists(st.tuples(st.floats(0, 1), st.sampled_from(list(',"\n\r[]{}>:a1 \\') + [None])),
                                             min_size=1, max_size=4))
def test_damaged_text_gives_a_value_or_load_error(base, edits):
    name, text = base
    chars = list(text)
    for where, char in edits:
        i = min(int(where * len(chars)), max(len(chars) - 1, 0))
        if char is None and chars:
            del chars[i]
        elif char is not None:
            chars.insert(i, char)
    damaged = "".join(chars)
    try:
        if name == "runs.csv":
            loads_runs(damaged, name)
        elif name == "labels.csv":
            loads_labels(damaged, name)
        else:
            loads_settings(damaged, name)
    except LoadError as err:
        assert err.file == name and "\n" not in str(err)


def test_untrusted_text_in_a_message_stays_on_one_line(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text('id,expected_calls,actual_calls,answer,reference,human_verdict\nr1,,,a,a,"ok\nyes"\n')
    try:
        loads_runs(path.read_text(), str(path))
    except LoadError as err:
        assert str(err) == f'{path}: row 2, column human_verdict: expected "acceptable", "unacceptable" or empty, got "ok\\nyes"'
    else:
        raise AssertionError("no error")


def test_a_jsonl_line_nested_too_deeply_is_a_load_error():
    # broke once: the messages loader let RecursionError out of a JSONL line
    text = '{"id": "m1", "outputs": [], "reference_outputs": []}\n' + "[" * 100_000 + "\n"
    try:
        loads_runs(text, "m.jsonl")
    except LoadError as err:
        # the 1,001st "[" is column 1,001 of line 2
        assert str(err) == "m.jsonl: line 2, column 1001: invalid JSON: nested too deeply (over 1,000 levels of [ and {)"
    else:
        raise AssertionError("no error")


DEEP = "over 1,000 levels of [ and {)"


@pytest.mark.parametrize("name, text, where", [
    # a trial's file: one run whose args nest 100,000 lists deep, as .jsonl (read as one JSON
    # document first) and as .json; the message had no line or column. '{"id":"r1","args":' is 18
    # characters, so the 1,000th "[" (level 1,001 under the "{") is column 19 + 999
    ("deep.jsonl", '{"id":"r1","args":' + "[" * 100_000 + "]" * 100_000 + "}", "line 1, column 1018"),
    ("deep.json", '{"id":"r1","args":' + "[" * 100_000 + "]" * 100_000 + "}", "line 1, column 1018"),
    # brackets inside a string do not count; the deep value starts on line 2, column 7
    ("deep2.json", '{"a": "[[[[ \\" {{",\n "b": ' + "[" * 5000 + "]" * 5000 + "}", "line 2, column 1006"),
    # a JSONL file of two runs: the second line is the deep one
    ("two.jsonl", '{"id": "r0", "expected_calls": [], "actual_calls": [], "answer": "a", "reference": "a"}\n'
     '{"id":"r1","args":' + "[" * 100_000 + "]" * 100_000 + "}\n", "line 2, column 1018"),
])
def test_json_nested_too_deeply_names_its_line_and_column(name, text, where):
    with pytest.raises(LoadError) as info:
        loads_runs(text, name)
    assert str(info.value) == f"{name}: {where}: invalid JSON: nested too deeply ({DEEP}"


def test_too_deep_at_counts_brackets_outside_strings():
    from explorer.core.io.reading import too_deep_at

    # level 1 "[" col 1, 2 "[" col 2, a string holding [[\"[, level 3 "{" col 12, level 4 "[" col 18
    assert too_deep_at('[["[[\\"[", {"a": [1]}]]') == (1, 18, 4)
    assert too_deep_at('{\n  [[[', depth=2) == (2, 4, 3)  # the first bracket past level 2
    assert too_deep_at("") == (1, 1, 0)
