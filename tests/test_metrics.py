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


# --- the same figures from outcome codes and labels prepared once (metrics.outcomes_of) -----------

from hypothesis import given, settings as hsettings, strategies as st  # noqa: E402

from explorer.core.evaluation.metrics import agreement_of_outcomes, outcomes_of, prepare_labels  # noqa: E402
from explorer.core.evaluation.verdicts import OUTCOMES, outcome_codes  # noqa: E402


def test_outcome_codes_from_prepared_labels_by_hand():
    # every (verdict, person) pair once: pass/acceptable agree, pass/unacceptable false pass,
    # fail/acceptable false fail, fail/unacceptable agree, either/unlabelled unlabelled
    passed = np.array([1, 1, 0, 0, 1, 0], dtype=bool)
    human = np.array([1, 0, 1, 0, -1, -1], dtype=np.int8)
    labels = prepare_labels(human)
    assert (labels.acceptable, labels.unacceptable) == (2, 2)
    assert [OUTCOMES[c] for c in outcomes_of(passed, labels)] == [
        "agree", "false pass", "false fail", "agree", "unlabelled", "unlabelled"]
    a = agreement_of_outcomes(outcomes_of(passed, labels), labels)
    assert (a.true_pass, a.false_pass, a.false_fail, a.true_fail, a.labelled, a.unlabelled) == (1, 1, 1, 1, 4, 2)
    assert a.precision == 0.5 and a.recall == 0.5 and a.kappa == pytest.approx(0.0)


def test_the_seed_opening_from_outcome_codes():
    # the same ten runs as test_opening_run_figures: TP 0, FP 1, FN 5, TN 4, kappa -0.2
    passed = np.array([0, 0, 0, 0, 1, 0, 0, 0, 0, 0], dtype=bool)
    labels = prepare_labels(np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0], dtype=np.int8))
    a = agreement_of_outcomes(outcomes_of(passed, labels), labels)
    assert (a.true_pass, a.false_pass, a.false_fail, a.true_fail, a.agree) == (0, 1, 5, 4, 4)
    assert a.kappa == pytest.approx(-0.2)


@hsettings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from([-1, 0, 1])), max_size=60))
def test_outcome_codes_and_agreement_equal_the_definitions(pairs):
    passed = np.array([p for p, _ in pairs], dtype=bool)
    human = np.array([h for _, h in pairs], dtype=np.int8)
    labels = prepare_labels(human)
    codes = outcomes_of(passed, labels)
    assert codes.dtype == np.int8 and np.array_equal(codes, outcome_codes(passed, human))
    assert agreement_of_outcomes(codes, labels) == agreement(passed, human)


def test_prepared_labels_refuse_another_code_and_stay_read_only():
    with pytest.raises(ValueError, match="-1, 0 or 1"):
        prepare_labels(np.array([1, 2], dtype=np.int8))
    labels = prepare_labels(np.array([1, 0, -1], dtype=np.int8))
    assert labels.if_failed.tolist() == [2, 0, 3] and not labels.if_failed.flags.writeable
