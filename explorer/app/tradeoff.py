"""Trade-off sweep: agreement, false passes and false fails at every F1 threshold, or at every
trajectory threshold (pure numpy).

The app's chart data: :func:`explorer.core.evaluation.tradeoff.tradeoff` moving the F1 threshold
or, for the chart of a partial score, the trajectory threshold. For the
current other settings, the verdict at threshold tau is (combine ``all``)
``hard & trajectory_pass & (f1 >= tau)``; with combine ``mean`` the threshold is not used, so the
curves are flat. Each run's F1 is placed once among the sorted thresholds and counted (O(N log T),
no (T, N) matrix: 1M runs), no loop over runs or thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.evaluation.features import Features
from ..core.evaluation.settings import Settings
from ..core.evaluation.tradeoff import tradeoff

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


def sweep(features: Features, settings: Settings, thresholds: np.ndarray = THRESHOLDS, varies: str = "f1_threshold") -> Sweep:
    """Agreement, false passes and false fails for every value (increasing, in [0, 1]) of the
    ``varies`` threshold (``"f1_threshold"`` or ``"trajectory_threshold"``), other settings fixed;
    ``settings`` uses the unigram F1 response check."""
    c = tradeoff(features, settings, varies, thresholds)
    return Sweep(np.asarray(thresholds, dtype=np.float64), c.agree, c.false_pass, c.false_fail, c.labelled)
