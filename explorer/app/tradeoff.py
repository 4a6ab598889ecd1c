"""Trade-off sweep: agreement, false passes and false fails at every F1 threshold, at every
trajectory threshold or, under the mean rule, at every mean threshold (pure numpy).

The app's chart data: :func:`explorer.core.evaluation.tradeoff.tradeoff` moving the F1 threshold
or, for the chart of a partial score, the trajectory threshold; under combine ``mean`` the mean
threshold (the only threshold that rule reads). For the current other settings, the verdict at
threshold tau is (combine ``all``) ``hard & trajectory_pass & (f1 >= tau)``, (combine ``mean``)
``hard & ((trajectory + response) / 2 >= tau)``; a threshold the rule does not read gives flat
curves. Each run's score is placed once among the sorted thresholds and counted (O(N log T), no
(T, N) matrix: 1M runs), no loop over runs or thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.evaluation.features import Features
from ..core.evaluation.settings import Settings
from ..core.evaluation.tradeoff import tradeoff
from ..core.evaluation.verdicts import Evaluation

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


def sweep(features: Features, settings: Settings, thresholds: np.ndarray = THRESHOLDS, varies: str = "f1_threshold",
          evaluation: Evaluation | None = None) -> Sweep:
    """Agreement, false passes and false fails for every value (increasing, in [0, 1]) of the
    ``varies`` threshold (``"f1_threshold"``, ``"trajectory_threshold"`` or ``"mean_threshold"``),
    other settings fixed; for the F1 and trajectory thresholds ``settings`` uses the unigram F1
    response check. ``evaluation``: the page's evaluation of ``settings`` (any response scorer,
    the cascade's review decisions in), from which the mean threshold's curve is counted (its
    point at ``settings.mean_threshold`` is then the summary's agreement); ignored for the other
    thresholds."""
    c = tradeoff(features, settings, varies, thresholds, evaluation=evaluation)
    return Sweep(np.asarray(thresholds, dtype=np.float64), c.agree, c.false_pass, c.false_fail, c.labelled)
