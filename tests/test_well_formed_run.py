"""Issue 14: the light validation of the big loader accepts only what the flat loader accepts, and
reads it the same way.

:func:`explorer.core.io.loaders.flat.well_formed_run` reads a record written the common way
without building the Run; anything else gives None and goes through ``run_from_record``. The law
checked on random records (valid ones, and valid ones with one field replaced by another JSON
value, removed, or an unknown field added): whenever ``well_formed_run`` returns a result,
``run_from_record`` accepts the record and gives the same id, verdict and invocations.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.core.evaluation.features import HUMAN_CODES
from explorer.core.io.loaders._common import Problem
from explorer.core.io.loaders.flat import run_from_record, well_formed_run

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([1.0, "", " ", "x", "acceptable", "Acceptable", "unacceptable "]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["name", "args", "x"]), inner, max_size=2),
    max_leaves=4,
)
CALL = st.fixed_dictionaries({"name": st.sampled_from(["search", "book", " book "])},
                             optional={"args": st.none() | st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 2), max_size=2),
                                       "extra": st.integers()})
REFERENCE = st.fixed_dictionaries({"reference": st.sampled_from(["ok", "done"])}) | st.fixed_dictionaries(
    {"references": st.lists(st.sampled_from(["ok", "done"]), min_size=1, max_size=2)})
INVOCATION = st.tuples(
    st.fixed_dictionaries({"expected_calls": st.lists(CALL, max_size=3), "actual_calls": st.lists(CALL, max_size=3),
                           "answer": st.sampled_from(["ok", "", "booked"])}),
    REFERENCE,
).map(lambda parts: {**parts[0], **parts[1]})
PATHS = ["id", "title", "user_input", "human_verdict", "human_note", "labels", "invocations", "expected_calls", "actual_calls",
         "answer", "reference", "references", "adk_score", "unknown", "invocations.0", "invocations.0.answer",
         "invocations.0.expected_calls", "expected_calls.0", "expected_calls.0.name", "expected_calls.0.args",
         "actual_calls.0.args", "invocations.0.actual_calls.0"]


@st.composite
def records(draw) -> dict:
    rec: dict = {"id": draw(st.sampled_from(["r1", " r2 ", 7, "r3", "r4", 8, "", "  ", True, 1.5, None]))}
    if draw(st.booleans()):
        rec["invocations"] = draw(st.lists(INVOCATION, max_size=3))
    else:
        rec.update(draw(INVOCATION))
    for key in ("title", "user_input", "human_note", "human_verdict", "adk_score"):
        if draw(st.booleans()):  # mostly what the field holds, sometimes any JSON value
            valid = [None, "", "acceptable", "unacceptable"] if key == "human_verdict" else [None, "", "text"]
            rec[key] = draw(st.sampled_from(valid) | JSON)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):  # one more change somewhere: replace, delete or add
        path = draw(st.sampled_from(PATHS)).split(".")
        node = rec
        for part in path[:-1]:
            node = node[int(part)] if isinstance(node, list) and part.isdigit() and int(part) < len(node) else (
                node.get(part) if isinstance(node, dict) else None)
            if node is None:
                break
        last = path[-1]
        if isinstance(node, dict):
            if draw(st.booleans()):
                node[last] = draw(JSON)
            else:
                node.pop(last, None)
        elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
            node[int(last)] = draw(JSON)
    return rec


@hsettings(max_examples=1500, deadline=None)
@given(records())
def test_accepted_records_are_read_as_run_from_record_reads_them(rec):
    before = copy.deepcopy(rec)
    got = well_formed_run(rec)
    assert rec == before  # nothing changed in the record
    if got is None:
        return
    run = run_from_record(rec)  # raises Problem if the light check let a bad record through
    assert got == (run.id, HUMAN_CODES[run.human_verdict], tuple(inv.plain() for inv in run.invocations))


@pytest.mark.parametrize(
    "rec",
    [
        {"id": "a", "expected_calls": [{"name": "s", "args": {"q": 1}}], "actual_calls": [{"name": "s", "args": {"q": 1}}],
         "answer": "ok", "reference": "ok", "human_verdict": "acceptable", "title": "t", "adk_x": 0.5},
        {"id": 12, "invocations": [{"expected_calls": [], "actual_calls": [{"name": "s"}], "answer": "", "references": ["a", "b"]}]},
    ],
)
def test_the_common_shapes_take_the_light_path(rec):
    run_id, code, invocations = well_formed_run(rec)
    run = run_from_record(rec)
    assert (run_id, code, invocations) == (run.id, HUMAN_CODES[run.human_verdict], tuple(inv.plain() for inv in run.invocations))


@pytest.mark.parametrize(
    "rec",
    [
        {"id": "a", "expected_calls": "s>b", "actual_calls": [], "answer": "ok", "reference": "ok"},  # arrow names
        {"id": "a", "expected_calls": [], "actual_calls": [], "answer": "ok", "reference": "ok", "human_verdict": "Acceptable"},
        {"id": "a", "expected_calls": [], "actual_calls": [], "answer": "ok", "reference": "ok",
         "labels": [{"annotator": "p", "verdict": "acceptable"}]},
        {"id": "a", "expected_calls": [{"name": " "}], "actual_calls": [], "answer": "ok", "reference": "ok"},
        {"id": "a", "expected_calls": [], "actual_calls": [], "answer": "ok", "reference": "ok", "references": ["ok"]},
        {"id": "a", "expected_calls": [], "actual_calls": [], "answer": "ok", "reference": "ok", "extra": 1},
    ],
)
def test_other_shapes_go_to_the_full_path(rec):
    assert well_formed_run(rec) is None
    try:  # the full path builds the run or names the problem
        run_from_record(rec)
    except Problem:
        pass
