"""The sweep, honestly: every setting's agreement with its 95 % interval, and how many settings the
labelled runs cannot tell apart from the best.

Works on any table shaped like :func:`explorer.core.evaluation.sweep.sweep`'s: it reads only the
``agree`` and ``labelled`` columns (one row per setting, best first or in any order), so it holds
whatever settings the grid enumerates. Intervals are Wilson score intervals (Wilson 1927)
computed for every row at once by :func:`~explorer.core.evaluation.confidence.wilson_arrays`
(numpy; the tests check it equals statsmodels' ``proportion_confint(method="wilson")``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .confidence import LEVEL, Interval, wilson, wilson_arrays
from ..plural import counted

INTERVAL_COLUMNS = ("agreement", "agreement_low", "agreement_high")
"""Columns :func:`with_intervals` adds: agree / labelled and its Wilson limits (float64)."""


def with_intervals(table: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """A copy of a sweep ``table`` with ``INTERVAL_COLUMNS`` appended (NaN when nothing is
    labelled). O(rows) numpy work. Raises KeyError without ``agree`` and ``labelled`` columns."""
    agree = table["agree"].to_numpy(dtype=np.float64)
    labelled = table["labelled"].to_numpy(dtype=np.float64)
    low, high = wilson_arrays(agree, labelled, level)
    out = table.copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["agreement"] = np.where(labelled > 0, agree / labelled, np.nan)
    out["agreement_low"] = low
    out["agreement_high"] = high
    return out


@dataclass(frozen=True)
class SweepReading:
    """The best agreement of a sweep and how sure it is.

    ``best``: the highest agreement with its Wilson interval (``count`` agree, ``n`` labelled);
    ``n_settings`` rows scored; ``n_tied`` settings reaching the best agreement; ``n_within``
    settings whose agreement lies inside the best's interval (ties included); ``warning`` a plain
    sentence when the runs cannot tell the best from others (``""`` when they can).
    """

    best: Interval
    n_settings: int
    n_tied: int
    n_within: int
    warning: str

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {"agreement": self.best.to_dict(), "n_settings": self.n_settings, "n_tied": self.n_tied,
                "n_within_interval": self.n_within, "warning": self.warning,
                "method": "Wilson score interval (Wilson 1927) of the best agreement; within = agreement >= its lower limit"}


def sweep_reading(table: pd.DataFrame, level: float = LEVEL) -> SweepReading:
    """Read a sweep ``table`` (any grid; see the module doc): the best agreement's interval, the
    settings tied with it, the settings within its interval and the warning, e.g.
    ``"84 settings reach 10/10 on 10 runs: the runs cannot tell them apart"``. Numpy work over
    the rows. Raises ValueError for an empty table."""
    if len(table) == 0:
        raise ValueError("empty sweep table")
    agree = table["agree"].to_numpy()
    labelled = int(table["labelled"].to_numpy()[0])
    top = int(agree.max())
    best = wilson(top, labelled, level)
    n_tied = int(np.count_nonzero(agree == top))
    if best.low is None:
        return SweepReading(best, len(table), n_tied, n_tied, "no labelled runs: the sweep cannot rank the settings")
    # agree/labelled >= low, in counts (no division per row)
    n_within = int(np.count_nonzero(agree >= best.low * labelled - 1e-9))
    runs = counted(labelled, "run")
    interval = best.percent_text()
    if n_tied > 1:
        warning = f"{n_tied:,} settings reach {top:,}/{labelled:,} on {runs}: the runs cannot tell them apart"
        if n_within > n_tied:
            more = n_within - n_tied
            warning += f"; {more:,} more {'falls' if more == 1 else 'fall'} within the best's {interval}"
    elif n_within > 1:
        others = n_within - 1
        warning = (f"the best setting reaches {top:,}/{labelled:,} ({interval}), but {counted(others, 'other setting')} "
                   f"{'falls' if others == 1 else 'fall'} within its interval: the runs cannot tell them apart")
    else:
        warning = ""
    return SweepReading(best, len(table), n_tied, n_within, warning)
