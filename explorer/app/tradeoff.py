"""Trade-off sweep: agreement, false passes and false fails at every F1 threshold (pure numpy).

For the current other settings, the verdict at threshold tau is (combine ``all``)
``hard & trajectory_pass & (f1 >= tau)``; with combine ``mean`` the threshold is not used, so the
curves are flat. One (T, N) boolean matrix, no loop over runs or thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.evaluation import evaluate
from ..core.features import Features
from ..core.settings import Settings

THRESHOLDS = np.round(np.linspace(0.0, 1.0, 101), 2)
"""The 101 thresholds 0.00, 0.01, ..., 1.00."""


@dataclass(frozen=True)
class Sweep:
    """Counts over labelled runs at each threshold; arrays of shape (T,) (int64), ``thresholds``
    float64 (T,)."""

    thresholds: np.ndarray
    agree: np.ndarray
    false_pass: np.ndarray
    false_fail: np.ndarray
    labelled: int


def sweep(features: Features, settings: Settings, thresholds: np.ndarray = THRESHOLDS) -> Sweep:
    """Agreement, false passes and false fails for every threshold, other settings fixed."""
    base = evaluate(features, settings.with_(f1_threshold=0.0))
    if settings.combine == "all":
        other = base.deny_pass & base.key_pass & base.trajectory_pass  # (N,)
        passed = other[None, :] & (features.f1[None, :] >= thresholds[:, None])  # (T, N)
    else:
        passed = np.broadcast_to(base.passed, (thresholds.size, features.n))
    acceptable = features.human == 1
    unacceptable = features.human == 0
    false_pass = np.count_nonzero(passed & unacceptable, axis=1)
    false_fail = np.count_nonzero(~passed & acceptable, axis=1)
    labelled = int(np.count_nonzero(acceptable | unacceptable))
    return Sweep(thresholds, labelled - false_pass - false_fail, false_pass, false_fail, labelled)
