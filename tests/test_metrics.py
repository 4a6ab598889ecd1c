"""Confusion matrix, precision, recall and Cohen's kappa, computed by hand."""

import numpy as np
import pytest

from explorer.core.evaluation.metrics import agreement


def test_opening_run_figures():
    # seed 002 opening: 5 good runs all fail, E5 (bad) passes, 4 bad fail
    passed = np.array([0, 0, 0, 0, 1, 0, 0, 0, 0, 0], dtype=bool)
    human = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0], dtype=np.int8)
    a = agreement(passed, human)
    assert (a.true_pass, a.false_pass, a.false_fail, a.true_fail) == (0, 1, 5, 4)
    assert a.agree == 4 and a.labelled == 10
    assert a.precision == 0.0 and a.recall == 0.0
    # p_o = 0.4; p_e = (1*5 + 9*5)/100 = 0.5; kappa = (0.4-0.5)/0.5 = -0.2
    assert a.kappa == pytest.approx(-0.2)


def test_unlabelled_left_out():
    passed = np.array([1, 1, 0, 0], dtype=bool)
    human = np.array([1, -1, 0, -1], dtype=np.int8)
    a = agreement(passed, human)
    assert a.labelled == 2 and a.unlabelled == 2 and a.agree == 2
    assert a.precision == 1.0 and a.recall == 1.0 and a.kappa == pytest.approx(1.0)


def test_undefined_figures_are_none():
    a = agreement(np.array([False, False]), np.array([0, 0], dtype=np.int8))
    assert a.precision is None and a.recall is None and a.kappa is None
    a = agreement(np.array([], dtype=bool), np.array([], dtype=np.int8))
    assert a.labelled == 0 and a.kappa is None


def test_kappa_textbook_example():
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7, p_e = 0.5, kappa = 0.4
    passed = np.array([1] * 25 + [0] * 25, dtype=bool)
    human = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15, dtype=np.int8)
    assert agreement(passed, human).kappa == pytest.approx(0.4)


# --- outcome codes from labels prepared once (metrics.outcomes_of), and the verdicts a block at a time

from hypothesis import given, settings as hsettings, strategies as st  # noqa: E402

from explorer.core.evaluation.metrics import agreement_from_counts, outcomes_of, prepare_labels  # noqa: E402
from explorer.core.evaluation.verdicts import OUTCOMES, _combined, _first_failing, outcome_codes  # noqa: E402


def test_outcome_codes_from_prepared_labels_by_hand():
    # every (verdict, person) pair once: pass/acceptable agree, pass/unacceptable false pass,
    # fail/acceptable false fail, fail/unacceptable agree, either/unlabelled unlabelled
    passed = np.array([1, 1, 0, 0, 1, 0], dtype=bool)
    labels = prepare_labels(np.array([1, 0, 1, 0, -1, -1], dtype=np.int8))
    assert (labels.acceptable, labels.unacceptable) == (2, 2)
    assert [OUTCOMES[c] for c in outcomes_of(passed, labels.flip, labels.if_failed)] == [
        "agree", "false pass", "false fail", "agree", "unlabelled", "unlabelled"]
    # a slice of the runs with its slice of the labels, written into a given array
    out = np.full(2, 9, dtype=np.int8)
    assert outcomes_of(passed[1:3], labels.flip[1:3], labels.if_failed[1:3], out=out) is out and out.tolist() == [1, 2]


def test_agreement_from_counts_is_agreement():
    # the seed's opening (test_opening_run_figures): TP 0, FP 1, FN 5, TN 4
    passed = np.array([0, 0, 0, 0, 1, 0, 0, 0, 0, 0], dtype=bool)
    human = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0], dtype=np.int8)
    assert agreement_from_counts(0, 1, 5, 4) == agreement(passed, human)
    assert agreement_from_counts(0, 1, 5, 4, unlabelled=3).unlabelled == 3


def test_the_verdicts_of_the_seed_opening_a_block_at_a_time():
    # two checks (trajectory, then F1) over the seed's ten runs, blocks of 3 runs: E5 (bad) passes
    # both; the good runs fail the trajectory check; E9, E10 fail F1 only
    traj = np.array([0, 0, 0, 0, 1, 1, 0, 0, 1, 1], dtype=bool)
    f1 = np.array([1, 1, 1, 1, 1, 0, 1, 1, 0, 0], dtype=bool)
    labels = prepare_labels(np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0], dtype=np.int8))
    passed, decided, outcome, fp, fn = _combined([(traj, 2), (None, 0), (f1, 3)], None, 5, labels, block_runs=3)
    assert passed.tolist() == [False] * 4 + [True] + [False] * 5
    assert decided.tolist() == [2, 2, 2, 2, 5, 3, 2, 2, 3, 3]
    assert [OUTCOMES[c] for c in outcome] == ["false fail"] * 3 + ["agree", "false pass", "agree"] + ["false fail"] * 2 + ["agree"] * 2
    assert (fp, fn) == (1, 5)


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.sampled_from([-1, 0, 1])), max_size=40),
       st.integers(1, 9), st.sampled_from(["all", "second off", "none"]), st.sampled_from(["none", "array", "function"]),
       st.booleans(), st.sampled_from([1, 2, 3]))
def test_verdicts_a_block_at_a_time_equal_the_definitions(rows, block_runs, on, also_as, checks_as_functions, threads):
    # blocks of 1-9 runs, shared by 1-3 threads; checks given as arrays or as functions of a block;
    # with no check on, every run is decided by the rule itself (``otherwise``)
    a, b, c, also = (np.array([r[k] for r in rows], dtype=bool) for k in range(4))
    human = np.array([r[4] for r in rows], dtype=np.int8)
    labels = prepare_labels(human)
    checks = {"all": [(a, 0), (b, 1), (c, 3)], "second off": [(a, 0), (None, 1), (c, 3)], "none": [(None, 0), (None, 1)]}[on]
    given_checks = [(None if ok is None else (lambda lo, hi, ok=ok: ok[lo:hi].copy()) if checks_as_functions else ok, code)
                    for ok, code in checks]
    with_also = also_as != "none"
    given_also = {"none": None, "array": also, "function": lambda lo, hi: also[lo:hi].copy()}[also_as]
    passed, decided, outcome, fp, fn = _combined(given_checks, given_also, 5, labels, block_runs=block_runs, threads=threads)
    want = np.ones(len(rows), dtype=bool)
    for ok, _ in checks:
        if ok is not None:
            want &= ok
    if with_also:
        want &= also
    assert np.array_equal(passed, want)
    assert np.array_equal(decided, _first_failing(checks, 5, len(rows)))
    assert np.array_equal(outcome, outcome_codes(want, human))
    whole = agreement(want, human)
    assert (fp, fn) == (whole.false_pass, whole.false_fail)
    codes = outcomes_of(want, labels.flip, labels.if_failed)
    assert codes.dtype == np.int8 and np.array_equal(codes, outcome_codes(want, human))


def test_prepared_labels_refuse_another_code_and_stay_read_only():
    with pytest.raises(ValueError, match="-1, 0 or 1"):
        prepare_labels(np.array([1, 2], dtype=np.int8))
    labels = prepare_labels(np.array([1, 0, -1], dtype=np.int8))
    assert labels.if_failed.tolist() == [2, 0, 3] and not labels.if_failed.flags.writeable
    assert labels.flip.tolist() == [2, 1, 0] and not labels.flip.flags.writeable
