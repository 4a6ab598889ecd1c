"""Score columns of an evaluation made when they are read, not on every settings change (issue 14).

A settings change needs each run's *verdict*; the trajectory score and the mean as numbers are
read by fewer places, and mostly for a few runs: the run table's page, the selected run's
reason. At 10M runs each is 80 MB of float64 that was decoded from the one-byte codes (or added
up) into fresh memory on every change: about 30 ms of a 65 ms re-score. :class:`ScoresOnRead`
holds how to make the column: ``whole()`` makes all of it once and keeps it (the chart, the CLI's
table, exports), ``at(index)`` only the runs asked for. Both give exactly the values the whole
column holds (the same float64 operations, elementwise).

:func:`mean_check` computes the ``combine="mean"`` check for a block of runs from the same parts,
so the check needs no whole mean column either (``verdicts._combined`` calls it per block).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..scoring.passmark import lowest_reaching
from .coded import gather
from .features import Features

@dataclass(eq=False)
class ScoresOnRead:
    """A float64 (N,) score column made when read. ``make_whole()`` -> the column (read-only is
    fine); ``make_at(index)`` -> the values at ``index`` (an int gives a float, an index or bool
    array an array), the same as ``make_whole()[index]``. ``whole()`` makes the column once and
    keeps it; ``at`` reads the kept column once there is one."""

    make_whole: Callable[[], np.ndarray]
    make_at: Callable[[Any], Any]
    _whole: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def of(cls, column: np.ndarray) -> "ScoresOnRead":
        """A column that is already made (a view of stored scores, NaN, F1)."""
        return cls(lambda: column, lambda index: column[index], column)

    def whole(self) -> np.ndarray:
        """float64 (N,): every run's score (made on the first call, then kept)."""
        if self._whole is None:
            self._whole = self.make_whole()
        return self._whole

    def at(self, index: Any) -> Any:
        """The scores of the runs at ``index`` (as numpy indexing of the whole column gives them)."""
        return self._whole[index] if self._whole is not None else self.make_at(index)


def trajectory_on_read(features: Features, family: str, args: str, single_tool: str = "") -> ScoresOnRead:
    """Each run's score in ``family`` under ``args`` (:meth:`Features.trajectory_scores`), made
    when read: from the codes when the scores are stored as codes (only the runs read are
    decoded), else the stored array itself. Raises ValueError for an unknown family or mode."""
    coded = features.trajectory_codes(family, args)
    if coded is None:
        return ScoresOnRead.of(features.trajectory_scores(family, args, single_tool))
    values, codes = coded
    return ScoresOnRead(lambda: features.trajectory_scores(family, args, single_tool), lambda index: gather(values, codes[index]))


def mean_on_read(trajectory: ScoresOnRead, response: np.ndarray) -> ScoresOnRead:
    """``(trajectory + response) / 2`` (float64 (N,)), made when read; ``response``: float64 (N,)."""

    def whole() -> np.ndarray:
        mean = trajectory.whole() + response
        mean /= 2.0
        return mean

    return ScoresOnRead(whole, lambda index: (trajectory.at(index) + response[index]) / 2.0)


def mean_check(trajectory: ScoresOnRead, response: np.ndarray, threshold: float) -> Callable[[int, int], np.ndarray]:
    """The ``combine="mean"`` check for runs ``lo .. hi-1``: a function ``(lo, hi)`` -> bool
    (hi - lo,), ``quantise((trajectory + response) / 2) >= quantise(threshold)``
    (:func:`explorer.core.scoring.passmark.reaches` of :func:`mean_on_read`'s column, elementwise;
    NaN never reaches), each mean compared with
    :func:`~explorer.core.scoring.passmark.lowest_reaching` of the threshold. ``response``: float64 (N,)."""
    lowest = lowest_reaching(float(threshold))  # quantise(x) >= quantise(threshold) exactly when x >= lowest

    def block(lo: int, hi: int) -> np.ndarray:
        mean = np.add(trajectory.at(slice(lo, hi)), response[lo:hi], dtype=np.float64)
        mean /= 2.0
        with np.errstate(invalid="ignore"):
            return mean >= lowest

    return block


__all__ = ["ScoresOnRead", "trajectory_on_read", "mean_on_read", "mean_check"]
