"""Columns of an evaluation made when they are read, not on every settings change (issue 14).

A settings change needs each run's *verdict*; the trajectory score and the mean as numbers, and
the passes of checks the verdict did not use (F1's and the trajectory's under the mean rule),
are read by fewer places, and mostly for a few runs: the run table's page, the selected run's
reason. At 10M runs a score column is 80 MB of float64 decoded from the one-byte codes (or added
up), a pass column 10 MB from 80 MB of scores, made into fresh memory on every change.
:class:`ColumnOnRead` holds how to make the column: ``whole()`` makes all of it once and keeps it
(the chart, the CLI's table, exports), ``at(index)`` only the runs asked for. Both give exactly
the values the whole column holds (the same float64 operations, elementwise).

:func:`mean_check` computes the ``combine="mean"`` check for a block of runs from the same parts,
so the check needs no whole mean column either (``verdicts._combined`` calls it per block).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..scoring.passmark import lowest_reaching, lowest_reaching_mean
from .coded import GATHER_CHUNK, gather
from .features import Features


@dataclass(eq=False)
class ColumnOnRead:
    """An (N,) column (float64 scores, or a check's bool passes) made when read.
    ``make_whole()`` -> the column (read-only is fine); ``make_at(index)`` -> the values at
    ``index`` (an int gives a scalar, an index or bool array an array), the same as
    ``make_whole()[index]``. ``whole()`` makes the column once and keeps it; ``at`` reads the kept
    column once there is one. ``coded``: ``(values, codes)`` when the column is ``values[codes]``
    (a coded trajectory score, :meth:`Features.trajectory_codes`), for checks that work on the
    codes (:func:`mean_check`); else None."""

    make_whole: Callable[[], np.ndarray]
    make_at: Callable[[Any], Any]
    _whole: np.ndarray | None = field(default=None, repr=False)
    coded: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def of(cls, column: np.ndarray) -> "ColumnOnRead":
        """A column that is already made (a view of stored scores, NaN, F1, a check's passes)."""
        return cls(lambda: column, lambda index: column[index], column)

    @classmethod
    def when_read(cls, make_whole: Callable[[], np.ndarray]) -> "ColumnOnRead":
        """A column made whole on its first read, runs asked for or all (a column whose making
        is cheap but not free, e.g. a pass column from stored codes: 3 ms at 10M runs)."""
        column = cls(make_whole, lambda index: None)
        column.make_at = lambda index: column.whole()[index]
        return column

    def whole(self) -> np.ndarray:
        """The column, (N,) (made on the first call, then kept)."""
        if self._whole is None:
            self._whole = self.make_whole()
        return self._whole

    def at(self, index: Any) -> Any:
        """The values of the runs at ``index`` (as numpy indexing of the whole column gives them)."""
        return self._whole[index] if self._whole is not None else self.make_at(index)


def trajectory_on_read(features: Features, family: str, args: str, single_tool: str = "") -> ColumnOnRead:
    """Each run's score in ``family`` under ``args`` (:meth:`Features.trajectory_scores`), made
    when read: from the codes when the scores are stored as codes (only the runs read are
    decoded; ``coded`` set), else the stored array itself. Raises ValueError for an unknown family
    or mode."""
    coded = features.trajectory_codes(family, args)
    if coded is None:
        return ColumnOnRead.of(features.trajectory_scores(family, args, single_tool))
    values, codes = coded
    return ColumnOnRead(lambda: features.trajectory_scores(family, args, single_tool),
                        lambda index: gather(values, codes[index]), coded=(values, codes))


def mean_on_read(trajectory: ColumnOnRead, response: np.ndarray) -> ColumnOnRead:
    """``(trajectory + response) / 2`` (float64 (N,)), made when read; ``response``: float64 (N,)."""

    def whole() -> np.ndarray:
        mean = trajectory.whole() + response
        mean /= 2.0
        return mean

    return ColumnOnRead(whole, lambda index: (trajectory.at(index) + response[index]) / 2.0)


def mean_check(trajectory: ColumnOnRead, response: np.ndarray, threshold: float) -> Callable[[int, int], np.ndarray]:
    """The ``combine="mean"`` check for runs ``lo .. hi-1``: a function ``(lo, hi)`` -> bool
    (hi - lo,) (safe to call from several threads at once), ``quantise((trajectory + response) / 2) >= quantise(threshold)``
    (:func:`explorer.core.scoring.passmark.reaches` of :func:`mean_on_read`'s column, elementwise;
    NaN never reaches). ``response``: float64 (N,).

    A coded trajectory (``trajectory.coded``): each run's response score is compared with
    :func:`~explorer.core.scoring.passmark.lowest_reaching_mean` of its code's value, looked up
    by code (no sum, no halving: 42 -> 23 ms on 10M synthetic codes, one thread). Else each mean is made and compared
    with :func:`~explorer.core.scoring.passmark.lowest_reaching` of the threshold."""
    if trajectory.coded is not None:
        values, codes = trajectory.coded
        partner = lowest_reaching_mean(values, float(threshold))  # response >= partner[code] exactly when the mean reaches
        scratch = threading.local()  # a buffer per thread (the verdicts' blocks run in several)

        def coded_block(lo: int, hi: int) -> np.ndarray:
            buffer = getattr(scratch, "buffer", None)
            if buffer is None or buffer.size < hi - lo:
                buffer = scratch.buffer = np.empty(hi - lo)
            least = buffer[: hi - lo]
            for start in range(lo, hi, GATHER_CHUNK):  # gather's chunks, into the one buffer
                stop = min(hi, start + GATHER_CHUNK)
                np.take(partner, codes[start:stop], out=least[start - lo:stop - lo], mode="clip")
            with np.errstate(invalid="ignore"):
                return response[lo:hi] >= least

        return coded_block
    lowest = lowest_reaching(float(threshold))  # quantise(x) >= quantise(threshold) exactly when x >= lowest

    def block(lo: int, hi: int) -> np.ndarray:
        mean = np.add(trajectory.at(slice(lo, hi)), response[lo:hi], dtype=np.float64)
        mean /= 2.0
        with np.errstate(invalid="ignore"):
            return mean >= lowest

    return block


__all__ = ["ColumnOnRead", "trajectory_on_read", "mean_on_read", "mean_check"]
