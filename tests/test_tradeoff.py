"""The core trade-off curve (issue 12): moving the F1, the trajectory or (under the mean rule) the
mean threshold, every point equals an evaluation at that threshold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.core.evaluation.features import features_from_rows
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.tradeoff import THRESHOLDS, mean_threshold_curve, tradeoff
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.scoring.trajectory_metrics import N_SCORES


def random_features(seed: int, n: int):
    """Random feature columns; scores are ratios of small integers, so many sit exactly on a
    threshold (2/3, 0.75, 0.5...)."""
    rng = np.random.default_rng(seed)
    traj = rng.integers(0, 5, size=(n, N_SCORES)) / rng.integers(1, 5, size=(n, N_SCORES))
    traj = np.minimum(traj, 1.0)
    f1 = np.where(rng.random(n) < 0.5, np.round(rng.random(n), 2), rng.random(n))
    tools = rng.integers(0, 2, size=(n, 2)).astype(np.uint16)
    key_reason = np.array(["" if ok else "date differs" for ok in rng.random(n) < 0.7], dtype=object)
    human = rng.integers(-1, 2, size=n).astype(np.int8)
    # some runs with a turn never run (1) or an empty answer (2): issue 10's checks must hold on the curve too
    flags = rng.choice([0, 0, 0, 0, 1 | 2, 2], size=n)
    return features_from_rows([None] * n, [f"r{i}" for i in range(n)], traj, f1, (("a", "delete_booking"), tools),
                              key_reason, human, np.ones(n, dtype=np.int32), flags=flags)


@hsettings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000), n=st.integers(1, 50),
    trajectory=st.sampled_from(["exact", "in_order", "subset", "precision", "recall", "f1", "lcs", "none"]),
    args=st.sampled_from(["exact", "ignore", "subset", "superset"]),
    combine=st.sampled_from(["all", "mean"]), deny=st.booleans(), key=st.booleans(),
    varies=st.sampled_from(["f1_threshold", "trajectory_threshold", "mean_threshold"]),
)
def test_every_point_equals_an_evaluation(seed, n, trajectory, args, combine, deny, key, varies):
    features = random_features(seed, n)
    s = Settings(trajectory=trajectory, args=args, combine=combine, deny_check=deny, deny_tools=("delete_booking",),
                 key_fields=key, trajectory_threshold=0.67, f1_threshold=0.5)
    curve = tradeoff(features, s, varies)
    acceptable, unacceptable = features.human == 1, features.human == 0
    for j, tau in enumerate(THRESHOLDS):
        passed = evaluate(features, s.with_(**{varies: float(tau)})).passed
        assert curve.false_pass[j] == np.count_nonzero(passed & unacceptable)
        assert curve.false_fail[j] == np.count_nonzero(~passed & acceptable)
        assert curve.agree[j] == curve.labelled - curve.false_pass[j] - curve.false_fail[j]


def test_bad_input():
    features = random_features(0, 5)
    with pytest.raises(ValueError, match="varies"):
        tradeoff(features, Settings(), "deny_threshold")
    with pytest.raises(ValueError, match="increasing"):
        tradeoff(features, Settings(), "f1_threshold", [0.5, 0.4])
    with pytest.raises(ValueError, match="response_scorer"):
        tradeoff(features, Settings(response_scorer="rouge1"), "f1_threshold")
    with pytest.raises(ValueError, match="combine 'mean'"):
        mean_threshold_curve(features, evaluate(features, Settings()))
    with pytest.raises(ValueError, match="increasing"):
        mean_threshold_curve(features, evaluate(features, Settings(combine="mean")), [0.2, 1.5])


def _booking():
    from explorer.app.shared import load_shared
    from explorer.commands.common import BUNDLED_CASES

    return load_shared(BUNDLED_CASES).features


def _at(curve, tau: float) -> tuple[int, int, int]:
    j = int(np.flatnonzero(np.isclose(curve.thresholds, tau))[0])
    return int(curve.agree[j]), int(curve.false_pass[j]), int(curve.false_fail[j])


def test_mean_threshold_curve_on_the_booking_set_by_hand():
    """Seed 002's ten runs, EXACT (1 or 0) and unigram F1 under the mean rule. F1 by hand
    (tokens in common): E1 8/13, E2 = E3 32/37, E4 19/20, E5 6/7, E6 8/9, E7 16/39, E8 16/19,
    E9 0, E10 1/2; EXACT holds for E1, E5, E7 only. Means (traj + F1) / 2: E1 21/26 = 0.808,
    E2 = E3 16/37 = 0.432, E4 0.475, E5 13/14 = 0.929, E6 4/9 = 0.444, E7 55/78 = 0.705,
    E8 8/19 = 0.421, E9 0, E10 0.25. Acceptable: E1, E2, E3, E7, E8. A run passes when its mean
    reaches the threshold (equal passes)."""
    f = _booking()
    curve = tradeoff(f, Settings(combine="mean"), "mean_threshold")
    assert curve.varies == "mean_threshold" and curve.labelled == 10
    want = {  # tau: (agree, false passes, false fails)
        0.00: (5, 5, 0),   # every run passes, E9's 0 too: the five bad runs are false passes
        0.01: (6, 4, 0),   # E9 fails
        0.25: (6, 4, 0),   # E10's mean is 0.25 exactly: it still passes
        0.26: (7, 3, 0),   # E10 fails
        0.42: (7, 3, 0),   # E8 0.421 still passes: the best, E4 E5 E6 false passes
        0.43: (6, 3, 1),   # E8 fails
        0.44: (4, 3, 3),   # E2 and E3 (0.432) fail
        0.45: (5, 2, 3),   # E6 (0.444) fails
        0.48: (6, 1, 3),   # E4 (0.475) fails
        0.70: (6, 1, 3),   # E7 (0.705) passes
        0.71: (5, 1, 4),   # E7 fails
        0.75: (5, 1, 4),   # seed 002's 5/10: E5 false pass, E2 E3 E7 E8 false fails
        0.80: (5, 1, 4),   # E1 (0.808) passes
        0.81: (4, 1, 5),   # E1 fails
        0.92: (4, 1, 5),   # E5 (0.929) passes
        0.93: (5, 0, 5),   # E5 fails: every run fails
        1.00: (5, 0, 5),
    }
    for tau, counts in want.items():
        assert _at(curve, tau) == counts, tau
    # the curve's point at the rule's threshold is the headline agreement
    assert _at(curve, 0.75)[0] == evaluate(f, Settings(combine="mean")).summary.agree == 5
    assert _at(curve, 0.70)[0] == evaluate(f, Settings(combine="mean", mean_threshold=0.7)).summary.agree == 6


def test_mean_threshold_curve_keeps_the_deny_list_by_hand():
    """ANY_ORDER holds for every run but E4, E9, E10: means E1 0.808, E2 = E3 (1 + 32/37) / 2 =
    0.932, E5 0.929, E6 0.944, E7 0.705, E8 (1 + 16/19) / 2 = 0.921, E4 0.475, E9 0, E10 0.25.
    The deny-list (delete_booking) fails E6 (unacceptable) whatever its mean."""
    f = _booking()
    curve = tradeoff(f, Settings(trajectory="any_order", combine="mean", deny_check=True, deny_tools=("delete_booking",)),
                     "mean_threshold")
    want = {
        0.00: (6, 4, 0),  # all but E6 pass: E4 E5 E9 E10 false passes
        0.48: (9, 1, 0),  # E9, E10, E4 fail by now: only E5 is a false pass
        0.70: (9, 1, 0),
        0.75: (8, 1, 1),  # E7 (0.705) fails
        0.81: (7, 1, 2),  # E1 (0.808) fails
        0.93: (7, 0, 3),  # E5 (0.929) and E8 (0.921) fail
        0.94: (5, 0, 5),  # E2 and E3 (0.932) fail
    }
    for tau, counts in want.items():
        assert _at(curve, tau) == counts, tau


def test_mean_threshold_curve_compares_as_the_verdicts_do():
    """A mean equal to a threshold passes, though its float sum lands below it: (0.02 + 0.12) / 2
    is 0.06999999999999999 in float64, and reaches 0.07 (passmark: quantised to 12 decimals).
    Run a (acceptable) has that mean, run b (unacceptable) (0 + 0.1) / 2 = 0.05."""
    traj = np.array([[0.02] * N_SCORES, [0.0] * N_SCORES])
    f = features_from_rows([None, None], ["a", "b"], traj, np.array([0.12, 0.1]), (("t",), np.zeros((2, 1))),
                           np.array(["", ""], dtype=object), np.array([1, 0], dtype=np.int8), np.ones(2, dtype=np.int32))
    assert (0.02 + 0.12) / 2 < 0.07
    curve = tradeoff(f, Settings(trajectory="recall", combine="mean"), "mean_threshold")
    assert _at(curve, 0.05) == (1, 1, 0)  # b's 0.05 passes
    assert _at(curve, 0.06) == (2, 0, 0)
    assert _at(curve, 0.07) == (2, 0, 0)  # a reaches 0.07 (a plain float >= failed it)
    assert _at(curve, 0.08) == (1, 0, 1)
    assert bool(evaluate(f, Settings(trajectory="recall", combine="mean", mean_threshold=0.07)).passed[0])


def test_mean_threshold_curve_takes_the_evaluation_given():
    """The page's evaluation is counted, not a new one: its response scorer's value is in the mean
    (ROUGE-1 here), so each point is the evaluation's agreement at that threshold."""
    from explorer.core.evaluation.response_features import ResponseFeatures
    from explorer.core.io.casefile import load_case_set
    from explorer.commands.common import BUNDLED_CASES

    cs = load_case_set(BUNDLED_CASES)
    f = _booking()
    rf = ResponseFeatures(cs)
    s = Settings(trajectory="any_order", combine="mean", response_scorer="rouge1")
    ev = evaluate(f, s, rf)
    curve = tradeoff(f, s, "mean_threshold", evaluation=ev)
    assert np.array_equal(curve.agree, tradeoff(f, s, "mean_threshold", response=rf).agree)
    for j in (0, 50, 75, 90, 100):
        assert curve.agree[j] == evaluate(f, s.with_(mean_threshold=float(THRESHOLDS[j])), rf).summary.agree
