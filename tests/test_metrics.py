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
