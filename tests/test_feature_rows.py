"""Issue 14: the batch features equal the one-run definition, run by run.

:func:`explorer.core.evaluation.feature_rows.feature_rows` (what ``build_features`` and the
parallel loader's workers call) must give exactly :func:`explorer.core.evaluation.features.run_row`
for every run: trajectory scores of every family and argument mode (with and without argument
rules), F1, the tools each invocation called, the key-field reason in both date readings (under
the default and another id pattern), the verdict code, the number of invocations and the flags.
Random runs mix one and several invocations, identical and different call lists, ASCII and
Unicode answers, numeric dates that read differently day- and month-first, ids, empty answers and
references, and turns never run.
"""

from __future__ import annotations

import re

import numpy as np
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from explorer.core.evaluation.feature_rows import feature_rows
from explorer.core.evaluation.features import HUMAN_CODES, build_features, run_row
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall
from explorer.core.scoring.arg_rules import ArgRule, ArgRules
from explorer.core.scoring.fields import DEFAULT_ID_PATTERN

ARG_VALUES = st.sampled_from([0, 1, 1.0, True, "1", "LIS", "2026-03-12", "12/03/2026", None, [1, 2], {"a": 1}])
CALL = st.builds(ToolCall, st.sampled_from(["search", "book", "confirm", "delete"]),
                 st.dictionaries(st.sampled_from(["x", "y", "date"]), ARG_VALUES, max_size=2))
CALLS = st.lists(CALL, max_size=4).map(tuple)
WORDS = ["the", "flight", "on", "12 March", "March 21", "2026-03-12", "03/04/2026", "4/3/2026", "BK-4821", "BK-9999",
         "AB-1234", "Müller", "予約", "１２", "not", "?", "", "  ", "Booked!", "12th of March 2026"]
TEXT = st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join)


@st.composite
def invocation(draw) -> Invocation:
    expected = draw(CALLS)
    actual = expected if draw(st.booleans()) else draw(CALLS)  # identical trajectories are common
    refs = tuple(draw(st.lists(TEXT, min_size=1, max_size=3)))
    answer = draw(st.sampled_from(refs)) if draw(st.integers(0, 3)) == 0 else draw(TEXT)
    return Invocation(expected, actual, answer, refs)


RUNS = st.lists(st.tuples(st.lists(invocation(), min_size=1, max_size=3), st.sampled_from(["acceptable", "unacceptable", None])),
                min_size=0, max_size=10)
RULES = ArgRules((ArgRule("date", "date"), ArgRule("x", "number", tolerance=0.5), ArgRule("y", "ignore")))
SETTINGS = hsettings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(runs, id_pattern: str, rules: ArgRules, day_first: bool) -> None:
    id_rx = re.compile(id_pattern)
    rows = feature_rows([[inv.plain() for inv in invs] for invs, _ in runs], [HUMAN_CODES[v] for _, v in runs], id_rx, rules, day_first)
    assert rows.traj.shape == (len(runs), 36) and rows.f1.shape == (len(runs),)
    for i, (invs, verdict) in enumerate(runs):
        run = Run(f"r{i}", "", "", tuple(invs), verdict)
        traj, f1, called, reason_day, reason_month, human, k, flags = run_row(run, id_rx, rules, day_first)
        assert tuple(rows.traj[i].tolist()) == traj  # identical floats
        assert rows.f1[i] == f1
        got_called = {t: int(c) for t, c in zip(rows.tool_names, rows.tool_invocations[i]) if c}
        assert got_called == called
        assert (rows.reason_day[i], rows.reason_month[i]) == (reason_day, reason_month)
        assert (rows.human[i], rows.n_invocations[i], rows.flags[i]) == (human, k, flags)


@SETTINGS
@given(RUNS, st.booleans())
def test_batch_rows_equal_run_row(runs, day_first):
    check(runs, DEFAULT_ID_PATTERN, ArgRules(), day_first)


@SETTINGS
@given(RUNS, st.booleans())
def test_batch_rows_equal_run_row_with_rules_and_another_id_pattern(runs, day_first):
    check(runs, r"\b[A-Z]{2}-\d{4}\b", RULES, day_first)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RUNS.filter(bool))
def test_build_features_in_several_batches_equals_one(runs):
    """``build_features`` splits the runs into batches; the tool columns and every array come out
    as with one batch."""
    import explorer.core.evaluation.features as features_module

    cs = CaseSet("t", "", tuple(Run(f"r{i}", "", "", tuple(invs), v) for i, (invs, v) in enumerate(runs)))
    whole = build_features(cs)
    saved = features_module.BATCH_RUNS
    features_module.BATCH_RUNS = 3
    try:
        split = build_features(cs)
    finally:
        features_module.BATCH_RUNS = saved
    assert whole.tool_names == split.tool_names
    for name in ("trajectory", "f1", "tools_called", "tool_invocations", "key_ok", "key_reason", "key_ok_other",
                 "key_reason_other", "human", "n_invocations", "no_output", "empty_answer", "empty_reference"):
        assert np.array_equal(getattr(whole, name), getattr(split, name)), name


def test_a_run_of_two_invocations_by_hand():
    """Trajectory: the first turn matches exactly (1.0), the second makes an extra call (EXACT 0,
    ANY_ORDER 1); the run is their mean. F1: 1.0, and {on, 13, march} vs {on, 12, march, today}
    share 2 tokens: 2*2/(3+4) = 4/7; the mean is (1 + 4/7) / 2. Key fields: the
    second turn states another date, so the reason names it with its turn."""
    book = ToolCall("book", {"date": "2026-03-12"})
    first = Invocation((book,), (book,), "Booked BK-1234.", ("Booked BK-1234.",))
    second = Invocation((book,), (book, ToolCall("weather", {})), "on 13 March", ("on 12 March today",))
    rows = feature_rows([[first.plain(), second.plain()]], [1], re.compile(DEFAULT_ID_PATTERN))
    assert rows.traj[0, 0 * 4 + 0] == 0.5 and rows.traj[0, 2 * 4 + 0] == 1.0  # exact, any_order under exact args
    assert rows.f1[0] == (1.0 + 4 / 7) / 2
    assert rows.reason_day[0] == "invocation 2: date 13 March differs from 12 March"
    assert rows.tool_names == ("book", "weather") and rows.tool_invocations[0].tolist() == [2, 1]


def test_tool_invocations_and_shared_score_rows_by_hand():
    """Run 0: one turn calling search twice and book once; run 1: three turns (search; none;
    search and pay); run 2: one turn, no call; run 3: the same trajectory as run 0 (its score tuple
    is the same object: one row converted, repeated). Tools (sorted): book, pay, search; a tool
    counts once per turn that called it. Run 0 and run 3 expected ``search, book`` and made an
    extra search: EXACT 0, ANY_ORDER 1, precision 2/3, recall 1."""
    s, b, p = ToolCall("search", {}), ToolCall("book", {}), ToolCall("pay", {})
    one = Invocation((s, b), (s, s, b), "ok", ("ok",))
    runs = [[one.plain()],
            [Invocation((s,), (s,), "a", ("a",)).plain(), Invocation((), (), "b", ("b",)).plain(), Invocation((s,), (s, p), "c", ("c",)).plain()],
            [Invocation((), (), "x", ("x",)).plain()],
            [Invocation((s, b), (s, s, b), "ok", ("ok",)).plain()]]
    rows = feature_rows(runs, [1, 0, -1, 1], re.compile(DEFAULT_ID_PATTERN))
    assert rows.tool_names == ("book", "pay", "search")
    assert rows.tool_invocations.dtype == np.uint16
    assert rows.tool_invocations.tolist() == [[1, 0, 1], [0, 1, 2], [0, 0, 0], [1, 0, 1]]
    for i in (0, 3):
        assert rows.traj[i, 0 * 4 : 0 * 4 + 4].tolist() == [0.0] * 4  # exact, every argument mode
        assert rows.traj[i, 2 * 4 : 2 * 4 + 4].tolist() == [1.0] * 4  # any_order
        assert rows.traj[i, 5 * 4 : 5 * 4 + 4].tolist() == [2 / 3] * 4  # precision
        assert rows.traj[i, 6 * 4 : 6 * 4 + 4].tolist() == [1.0] * 4  # recall
    assert rows.traj[2].tolist() == [1.0] * 36  # nothing expected, nothing called, an answer: identical
    # one turn per run, every score tuple shared: the same rows
    single = feature_rows([[one.plain()], [one.plain()], [Invocation((), (), "x", ("x",)).plain()]], [1, 1, 1], re.compile(DEFAULT_ID_PATTERN))
    assert single.traj.shape == (3, 36) and single.traj[0].tolist() == single.traj[1].tolist() == rows.traj[0].tolist()
    assert single.traj[2].tolist() == [1.0] * 36
    assert single.tool_invocations.tolist() == [[1, 1], [1, 1], [0, 0]] and single.tool_names == ("book", "search")
    none = feature_rows([[Invocation((), (), "x", ("x",)).plain()]], [1], re.compile(DEFAULT_ID_PATTERN))
    assert none.tool_names == () and none.tool_invocations.shape == (1, 0) and none.tool_invocations.dtype == np.uint16
    empty = feature_rows([], [], re.compile(DEFAULT_ID_PATTERN))
    assert empty.traj.shape == (0, 36) and empty.tool_invocations.shape == (0, 0)


def test_flags_by_hand():
    """Flag bits (NO_OUTPUT 1, EMPTY_ANSWER 2, EMPTY_REFERENCE 4) for answers with no ASCII letter
    or digit, where only the normalisation ladder decides: "é" and "１２" (full-width digits) keep
    a character, "…", "—", "?" and a no-break space keep none; a turn never run (no call, blank
    answer) is NO_OUTPUT | EMPTY_ANSWER; an empty reference adds EMPTY_REFERENCE."""
    s = ToolCall("search", {})
    answers = ["é", "１２", "…", "—", "?", "\u00a0", "ok"]
    runs = [[Invocation((s,), (s,), a, ("ok",)).plain()] for a in answers]
    runs.append([Invocation((s,), (), "  ", ("ok",)).plain()])  # never ran
    runs.append([Invocation((s,), (s,), "ok", ("?", "ok")).plain()])  # one reference empty
    runs.append([Invocation((s,), (s,), "ok", ("ok",)).plain(), Invocation((s,), (s,), "…", ("",)).plain()])  # bits of both turns
    rows = feature_rows(runs, [1] * len(runs), re.compile(DEFAULT_ID_PATTERN))
    assert rows.flags.tolist() == [0, 0, 2, 2, 2, 2, 0, 1 | 2, 4, 2 | 4]


def test_runs_of_two_and_three_invocations_average_as_python_sum():
    """F1 per turn by hand: "a b c" vs "a b" 2*2/5, "a" vs "a b c" 2*1/4, "a b c d e f g" vs "a"
    2*1/8; a run's value is Python's sum(...) / k of its turns (run_row's definition; two turns
    are added by numpy, three by sum). Trajectory: turn 1 exact, turn 2 an extra call (precision
    1/2), turn 3 a missing call (recall 1/2, precision 1)."""
    s, b = ToolCall("search", {}), ToolCall("book", {})
    t1 = Invocation((s,), (s,), "a b c", ("a b",)).plain()
    t2 = Invocation((s,), (s, b), "a", ("a b c",)).plain()
    t3 = Invocation((s, b), (s,), "a b c d e f g", ("a",)).plain()
    rows = feature_rows([[t1, t2], [t1, t2, t3], [t3]], [1, 0, 1], re.compile(DEFAULT_ID_PATTERN))
    f1 = [2 * 2 / 5, 2 * 1 / 4, 2 * 1 / 8]
    assert rows.f1.tolist() == [sum(f1[:2]) / 2, sum(f1) / 3, f1[2]]
    for mode in range(4):
        assert rows.traj[:, 0 * 4 + mode].tolist() == [sum([1.0, 0.0]) / 2, sum([1.0, 0.0, 0.0]) / 3, 0.0]  # exact
        assert rows.traj[:, 5 * 4 + mode].tolist() == [sum([1.0, 0.5]) / 2, sum([1.0, 0.5, 1.0]) / 3, 1.0]  # precision
        assert rows.traj[:, 6 * 4 + mode].tolist() == [sum([1.0, 1.0]) / 2, sum([1.0, 1.0, 0.5]) / 3, 0.5]  # recall
    assert rows.n_invocations.tolist() == [2, 3, 1]
