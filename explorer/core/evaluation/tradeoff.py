"""The trade-off curve's data: agreement, false passes and false fails as one threshold moves,
every other setting fixed. The threshold may be the response F1 threshold, the trajectory
threshold (a partial score such as recall at 0.00..1.00, or a match family's mean over
invocations) or, under ``combine="mean"``, the mean threshold.

Under ``combine="all"`` the verdict at threshold tau is ``other & (score >= tau)``, where
``other`` is every other check and ``score`` the F1 (or the trajectory score); under
``combine="mean"`` moving the mean threshold it is ``other & (mean >= tau)``, ``mean`` each run's
``(trajectory + response) / 2`` as :func:`~explorer.core.evaluation.verdicts.evaluate` computes it
(``Evaluation.mean_score``: the response value alone with trajectory ``none``) and ``other`` the
missing-turn, deny-list and key-field checks. "Reaches" is
:func:`~explorer.core.scoring.passmark.reaches` (quantised to 12 decimals, equal passes), as the
verdicts compare. Each run's score is placed once among the sorted thresholds and counted
(O(N log T), no (T, N) matrix). Under ``combine="mean"`` neither the F1 nor the trajectory
threshold is read, under ``combine="all"`` the mean threshold is not, and with trajectory
``none`` the trajectory threshold is not: those curves are flat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .features import Features
from .response_features import ResponseFeatures
from .settings import Settings
from .verdicts import DECIDED_BY, Evaluation, evaluate
from ..scoring.passmark import lowest_reaching, quantise

THRESHOLDS: tuple[float, ...] = tuple(round(k / 100, 9) for k in range(101))
"""0.00, 0.01, ..., 1.00."""
VARIES: tuple[str, ...] = ("f1_threshold", "trajectory_threshold", "mean_threshold")
"""The thresholds a curve can move."""
_MEAN_CODE = DECIDED_BY.index("mean")


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
    response: ResponseFeatures | None = None, evaluation: Evaluation | None = None,
) -> Curve:
    """Agreement, false passes and false fails at every value of the ``varies`` threshold
    (``"f1_threshold"``, ``"trajectory_threshold"`` or ``"mean_threshold"``), the other settings
    as in ``settings``.

    Each point equals ``evaluate(features, settings.with_(**{varies: tau}))`` (the tests check
    it). ``thresholds``: increasing values in [0, 1]. Moving the F1 threshold needs the unigram F1
    response check (``response_scorer="f1"``); moving the mean threshold (under
    ``combine="mean"``) takes any response scorer, its value in the mean
    (:func:`mean_threshold_curve`). ``response``: the case set's response columns, needed for a
    scorer other than F1. ``evaluation``: the evaluation of ``settings`` already made (the page's,
    with the cascade's review decisions), used by the mean threshold's curve instead of
    evaluating again; ignored otherwise. Raises ValueError for an unknown ``varies``, thresholds
    not increasing or out of range, or another response scorer with ``varies="f1_threshold"``.
    """
    if varies not in VARIES:
        raise ValueError(f"varies must be one of {', '.join(VARIES)}, got {varies!r}")
    thr = quantise(np.asarray([float(t) for t in thresholds], dtype=np.float64))
    if thr.size == 0 or np.any(np.diff(thr) <= 0) or thr[0] < 0.0 or thr[-1] > 1.0:
        raise ValueError("thresholds must be increasing values in [0, 1]")
    if varies == "f1_threshold" and settings.response_scorer != "f1":
        raise ValueError("moving the F1 threshold needs response_scorer 'f1'")
    if varies == "mean_threshold" and settings.combine == "mean":
        ev = evaluation if evaluation is not None else evaluate(features, settings, response)
        return mean_threshold_curve(features, ev, thr)
    acceptable = features.human == 1
    unacceptable = features.human == 0
    n_acc, n_unacc = int(np.count_nonzero(acceptable)), int(np.count_nonzero(unacceptable))
    # the checks that do not move: evaluated with the moving threshold at 0 (everyone passes it)
    ev = evaluate(features, settings.with_(**{varies: 0.0}), response)
    t = thr.size
    flat = (settings.combine != "all" or varies == "mean_threshold"
            or (varies == "trajectory_threshold" and settings.trajectory == "none"))
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


def mean_threshold_curve(features: Features, ev: Evaluation, thresholds: Sequence[float] = THRESHOLDS) -> Curve:
    """Agreement, false passes and false fails at every mean threshold in ``thresholds``
    (increasing values in [0, 1]) for the mean rule's evaluation ``ev``
    (``ev.settings.combine == "mean"``), its other settings fixed: point ``j`` equals
    ``evaluate(features, ev.settings.with_(mean_threshold=thresholds[j])).summary``.

    Per run, from ``ev``'s arrays: ``ev.mean_score`` (float64 (N,), ``(trajectory + response) / 2``
    as the verdicts compute it; the response value alone with trajectory ``none``) and
    ``ev.decided_by`` (the runs no missing-turn, deny-list or key-field check fails are those the
    mean decides). A run passes at tau when its mean reaches tau as the verdicts compare,
    ``quantise(mean) >= quantise(tau)`` (:func:`~explorer.core.scoring.passmark.reaches`), here
    ``mean >= lowest_reaching(tau)``; NaN never reaches. Every threshold at once: each mean is
    placed among the T thresholds' lowest reaching floats (``numpy.searchsorted``, O(N log T)) and
    the runs are counted by how many thresholds they reach (``bincount``, reversed cumulative sum),
    no (T, N) matrix. Raises ValueError when ``ev`` is not under the mean rule, or for thresholds
    not increasing or outside [0, 1]."""
    if ev.settings.combine != "mean":
        raise ValueError(f"the mean threshold's curve needs combine 'mean', got {ev.settings.combine!r}")
    thr = quantise(np.asarray([float(t) for t in thresholds], dtype=np.float64))
    if thr.size == 0 or np.any(np.diff(thr) <= 0) or thr[0] < 0.0 or thr[-1] > 1.0:
        raise ValueError("thresholds must be increasing values in [0, 1]")
    acceptable = features.human == 1
    unacceptable = features.human == 0
    n_acc = int(np.count_nonzero(acceptable))
    labelled = n_acc + int(np.count_nonzero(unacceptable))
    # a run reaches tau exactly when mean >= lowest_reaching(tau) (quantise is monotone); the
    # lowest floats increase with the thresholds, so "reaches thr[j]" is "reached > j"
    lowest = np.array([lowest_reaching(float(t)) for t in thr], dtype=np.float64)
    mean = np.asarray(ev.mean_score, dtype=np.float64)
    reached = np.searchsorted(lowest, mean, side="right")
    reached[np.isnan(mean)] = 0  # NaN >= tau is False (searchsorted puts NaN past the end)
    decided = ev.decided_by == _MEAN_CODE  # every other check passes: the mean decides
    t = thr.size

    def passing(group: np.ndarray) -> np.ndarray:  # (T,): runs of ``group`` passing at each tau
        counts = np.bincount(reached[group & decided], minlength=t + 1)
        return np.cumsum(counts[::-1])[::-1][1:]  # runs reaching more than j thresholds

    false_pass = passing(unacceptable).astype(np.int64)
    false_fail = (n_acc - passing(acceptable)).astype(np.int64)
    return Curve("mean_threshold", thr, labelled - false_pass - false_fail, false_pass, false_fail, labelled)
