"""The core trade-off curve (issue 12): moving the F1 or the trajectory threshold, every point equals
an evaluation at that threshold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.core.evaluation.features import features_from_rows
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.tradeoff import THRESHOLDS, tradeoff
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
    varies=st.sampled_from(["f1_threshold", "trajectory_threshold"]),
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
        tradeoff(features, Settings(), "mean_threshold")
    with pytest.raises(ValueError, match="increasing"):
        tradeoff(features, Settings(), "f1_threshold", [0.5, 0.4])
    with pytest.raises(ValueError, match="response_scorer"):
        tradeoff(features, Settings(response_scorer="rouge1"), "f1_threshold")
