"""The trade-off curve's data: agreement, false passes and false fails as one threshold moves,
every other setting fixed. The threshold may be the response F1 threshold or the trajectory
threshold (a partial score such as recall at 0.00..1.00, or a match family's mean over
invocations).

Under ``combine="all"`` the verdict at threshold tau is ``other & (score >= tau)``, where
``other`` is every other check and ``score`` the F1 (or the trajectory score); each run's score
is placed once among the sorted thresholds and counted (O(N log T), no (T, N) matrix). Under
``combine="mean"`` neither threshold is read, and with trajectory ``none`` the trajectory
threshold is not: those curves are flat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .features import Features
from .response_features import ResponseFeatures
from .settings import Settings
from .verdicts import evaluate
from ..scoring.passmark import quantise

THRESHOLDS: tuple[float, ...] = tuple(round(k / 100, 9) for k in range(101))
"""0.00, 0.01, ..., 1.00."""
VARIES: tuple[str, ...] = ("f1_threshold", "trajectory_threshold")
"""The thresholds a curve can move."""


@dataclass(frozen=True)
class Curve:
    """Counts over labelled runs at each threshold: ``thresholds`` float64 (T,), ``agree`` /
    ``false_pass`` / ``false_fail`` int64 (T,), ``labelled`` the runs the person judged, ``varies``
    which threshold moved."""

    varies: str
    thresholds: np.ndarray
    agree: np.ndarray
    false_pass: np.ndarray
    false_fail: np.ndarray
    labelled: int


def tradeoff(
    features: Features, settings: Settings, varies: str = "f1_threshold", thresholds: Sequence[float] = THRESHOLDS,
    response: ResponseFeatures | None = None,
) -> Curve:
    """Agreement, false passes and false fails at every value of the ``varies`` threshold
    (``"f1_threshold"`` or ``"trajectory_threshold"``), the other settings as in ``settings``.

    Each point equals ``evaluate(features, settings.with_(**{varies: tau}))`` (the tests check
    it). ``thresholds``: increasing values in [0, 1]. Moving the F1 threshold needs the unigram F1
    response check (``response_scorer="f1"``). Raises ValueError for an unknown ``varies``,
    thresholds not increasing or out of range, or another response scorer with
    ``varies="f1_threshold"``.
    """
    if varies not in VARIES:
        raise ValueError(f"varies must be one of {', '.join(VARIES)}, got {varies!r}")
    thr = quantise(np.asarray([float(t) for t in thresholds], dtype=np.float64))
    if thr.size == 0 or np.any(np.diff(thr) <= 0) or thr[0] < 0.0 or thr[-1] > 1.0:
        raise ValueError("thresholds must be increasing values in [0, 1]")
    if varies == "f1_threshold" and settings.response_scorer != "f1":
        raise ValueError("moving the F1 threshold needs response_scorer 'f1'")
    acceptable = features.human == 1
    unacceptable = features.human == 0
    n_acc, n_unacc = int(np.count_nonzero(acceptable)), int(np.count_nonzero(unacceptable))
    # the checks that do not move: evaluated with the moving threshold at 0 (everyone passes it)
    ev = evaluate(features, settings.with_(**{varies: 0.0}), response)
    t = thr.size
    flat = settings.combine != "all" or (varies == "trajectory_threshold" and settings.trajectory == "none")
    if flat:
        false_pass = np.full(t, np.count_nonzero(ev.passed & unacceptable), dtype=np.int64)
        false_fail = np.full(t, np.count_nonzero(~ev.passed & acceptable), dtype=np.int64)
    else:
        # at threshold 0 the moving check passes every score (scores are in [0, 1]), so the runs
        # passing then are those every other check passes (missing turns, empty answers included)
        other = ev.passed
        # quantised as evaluate compares; F1's is computed once per case set (``Features.f1_q``, the
        # same values: no rounding of N floats per settings change, 80 MB fewer at 10M runs)
        score = features.f1_q if varies == "f1_threshold" else quantise(ev.trajectory_score)
        reached = np.searchsorted(thr, score, side="right")
        reached[np.isnan(score)] = 0  # NaN >= tau is False

        def passing(group: np.ndarray) -> np.ndarray:  # (T,): runs of ``group`` passing at each tau
            counts = np.bincount(reached[group & other], minlength=t + 1)
            return np.cumsum(counts[::-1])[::-1][1:]  # runs reaching more than j thresholds

        false_pass = passing(unacceptable).astype(np.int64)
        false_fail = (n_acc - passing(acceptable)).astype(np.int64)
    labelled = n_acc + n_unacc
    return Curve(varies, thr, labelled - false_pass - false_fail, false_pass, false_fail, labelled)
