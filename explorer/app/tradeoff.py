"""Trade-off sweep: agreement, false passes and false fails at every F1 threshold (pure numpy).

For the current other settings, the verdict at threshold tau is (combine ``all``)
``hard & trajectory_pass & (f1 >= tau)``; with combine ``mean`` the threshold is not used, so the
curves are flat. Each run's F1 is placed once among the sorted thresholds and counted (O(N log T),
no (T, N) matrix: 1M runs), no loop over runs or thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.evaluation.verdicts import evaluate
from ..core.evaluation.features import Features
from ..core.evaluation.settings import Settings

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
    thresholds = np.asarray(thresholds, dtype=np.float64)
    acceptable = features.human == 1
    unacceptable = features.human == 0
    n_acc, n_unacc = int(np.count_nonzero(acceptable)), int(np.count_nonzero(unacceptable))
    t = thresholds.size
    if settings.combine == "all" and t and np.all(np.diff(thresholds) >= 0):
        # sort once, count: run i passes at threshold j iff ``other[i]`` and j < reached[i], the
        # number of thresholds <= f1[i] (f1 >= tau); O(N log T), no (T, N) matrix (1M runs)
        other = base.deny_pass & base.key_pass & base.trajectory_pass  # (N,)
        f1 = features.f1
        reached = np.searchsorted(thresholds, f1, side="right")
        reached[np.isnan(f1)] = 0  # NaN >= tau is False
        def passing(group: np.ndarray) -> np.ndarray:  # (T,): runs of ``group`` passing at each tau
            counts = np.bincount(reached[group & other], minlength=t + 1)
            return np.cumsum(counts[::-1])[::-1][1:]  # runs reaching more than j thresholds
        false_pass = passing(unacceptable)
        false_fail = n_acc - passing(acceptable)
    elif settings.combine == "all":
        other = base.deny_pass & base.key_pass & base.trajectory_pass  # (N,)
        passed = other[None, :] & (features.f1[None, :] >= thresholds[:, None])  # (T, N)
        false_pass = np.count_nonzero(passed & unacceptable, axis=1)
        false_fail = np.count_nonzero(~passed & acceptable, axis=1)
    else:  # the threshold is not used: one count, repeated
        false_pass = np.full(t, np.count_nonzero(base.passed & unacceptable), dtype=np.int64)
        false_fail = np.full(t, np.count_nonzero(~base.passed & acceptable), dtype=np.int64)
    labelled = n_acc + n_unacc
    return Sweep(thresholds, labelled - false_pass - false_fail, false_pass.astype(np.int64), false_fail.astype(np.int64), labelled)
