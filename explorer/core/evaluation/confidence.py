"""How sure a summary figure is: 95 % intervals for agreement, precision, recall, the false-pass and
false-fail rates (Wilson score) and Cohen's kappa (percentile bootstrap over runs).

Methods (stated in every report as :data:`METHODS`):

* a proportion k / n (agreement, precision, recall, false-pass rate, false-fail rate) gets the
  **Wilson score interval** (Wilson, E. B. 1927, "Probable inference, the law of succession, and
  statistical inference", JASA 22:209-212), computed by ``statsmodels``'
  ``proportion_confint(method="wilson")``. :func:`wilson_arrays` is the same interval as numpy
  work over arrays, for figures computed across every sweep setting at once (the tests check the
  two agree on every k / n they try);
* Cohen's kappa (Cohen, J. 1960, "A coefficient of agreement for nominal scales", Educational and
  Psychological Measurement 20:37-46) gets a **seeded percentile bootstrap over runs**: runs are
  resampled with replacement ``resamples`` times (default 2,000, seed 0) and the interval is the
  2.5th and 97.5th percentiles of the resampled kappas. Kappa depends on a run only through its
  cell of the 2×2 table, so resampling N runs is drawing the four cell counts from a multinomial
  with the observed cell shares: the same distribution, drawn in one vectorised call whatever N is.

A percentile bootstrap with no spread is not an interval: when the limits coincide (e.g. the
evaluator gives every run the same verdict, so kappa is 0 in every resample; or it agrees with the
person on every run, so kappa is 1 in every resample) the limits are None and ``Interval.reason``
says why in plain words (:func:`kappa_no_spread_reason`), as when too few resamples are defined.

Words (the person's verdict is ground truth, *acceptable* the positive class):
agreement = (TP + TN) / labelled; precision = TP / (TP + FP); recall = TP / (TP + FN);
false-pass rate = FP / (FP + TN), the share of unacceptable runs the evaluator passed;
false-fail rate = FN / (TP + FN), the share of acceptable runs it failed (1 - recall).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from .metrics import Agreement
from ..plural import counted

LEVEL = 0.95
"""Confidence level of every interval in the product."""
RESAMPLES = 2_000
"""Bootstrap resamples (the issue asks for at least 2,000)."""
SEED = 0
"""Seed of every bootstrap, so a report is the same each time it is made."""
METHODS = {
    "level": LEVEL,
    "proportions": "Wilson score interval (Wilson 1927)",
    "kappa": f"percentile bootstrap over runs, {RESAMPLES} resamples, seed {SEED} (Cohen 1960 kappa)",
}
"""The methods, as reports state them."""


@dataclass(frozen=True)
class Interval:
    """A figure with its interval: ``value`` in [0, 1] for a proportion ([-1, 1] for kappa),
    ``low`` <= ``value`` <= ``high`` (None when the figure is undefined, e.g. precision with no
    pass), ``n`` the number it is out of (runs, or pairs of labels), ``count`` the numerator of a
    proportion (None for kappa), ``method`` a short name (``"wilson"``, ``"bootstrap"``...),
    ``reason`` a plain sentence saying why there is no interval when ``low``/``high`` are None
    (``""`` when there is one)."""

    value: float | None
    low: float | None
    high: float | None
    n: int
    count: int | None = None
    method: str = "wilson"
    reason: str = ""

    def to_dict(self) -> dict:
        """``{"value", "low", "high", "n"}`` rounded to 6 decimals (the JSON shape of issue 11),
        plus ``"reason"`` when the limits are None and a reason is known."""
        r = lambda x: None if x is None else round(float(x), 6)  # noqa: E731
        d = {"value": r(self.value), "low": r(self.low), "high": r(self.high), "n": int(self.n)}
        if (self.low is None or self.high is None) and self.reason:
            d["reason"] = self.reason
        return d

    def no_interval_text(self) -> str:
        """``"no interval (too few runs: ...)"``, or ``"no interval"`` without a reason."""
        return f"no interval ({self.reason})" if self.reason else "no interval"

    def percent_text(self) -> str:
        """``"95 % CI 17–69 %"`` (:func:`percent_range`), or ``"no interval (reason)"`` when undefined."""
        if self.low is None or self.high is None:
            return self.no_interval_text()
        return f"95 % CI {percent_range(self.low, self.high)} %"

    def text(self) -> str:
        """Compact form: ``"4/10 · 95 % CI 17–69 %"`` for a proportion, ``"-0.20 · 95 % CI -0.60 to 0.40"``
        for kappa (:func:`range_text`), ``"n/a (0 runs)"`` when undefined."""
        if self.value is None:
            return f"n/a ({counted(self.n, 'run')})"
        if self.count is not None:
            return f"{self.count:,}/{self.n:,} · {self.percent_text()}"
        if self.low is None or self.high is None:
            return f"{self.value:.2f} · {self.no_interval_text()}"
        return f"{self.value:.2f} · 95 % CI {range_text(self.low, self.high)}"


def percent_range(low: float, high: float) -> str:
    """A proportion's interval as percents, ``0.1682, 0.6921`` -> ``"17–69"`` (an en dash): whole
    percents while the interval is 2 points wide or more, else one decimal (0.2 points or more),
    else two, so a narrow interval of many runs never reads ``"20–20"`` (the false-pass rate of the
    100k-run bench file, 9,893 of 49,706: ``19.6–20.3``)."""
    digits = percent_digits(low, high)
    return f"{100 * low:.{digits}f}–{100 * high:.{digits}f}"


def percent_digits(low: float, high: float) -> int:
    """The decimals :func:`percent_range` writes an interval's percents with: 0 when it is 2
    points wide or more, 1 down to 0.2 points, else 2."""
    width = round(100 * (high - low), 9)  # 0.21 - 0.19 is 0.0199999...: 2 points
    return 0 if width >= 2 else 1 if width >= 0.2 else 2


def range_text(low: float, high: float, digits: int = 2) -> str:
    """An interval's limits as text: ``"0.10–1.00"`` (an en dash) when neither is negative as
    shown, ``"-0.52 to 0.00"`` when one is, so the minus sign is never read as part of a dash
    (a trial read ``-0.52–0.00``)."""
    lo, hi = f"{low:.{digits}f}", f"{high:.{digits}f}"
    return f"{lo} to {hi}" if lo.startswith("-") or hi.startswith("-") else f"{lo}–{hi}"


def wilson(count: int, n: int, level: float = LEVEL) -> Interval:
    """Wilson score interval of the proportion ``count / n`` (Wilson 1927), by statsmodels'
    ``proportion_confint(method="wilson")``. ``n == 0`` gives value, low and high None.
    Raises ValueError when ``count`` is outside [0, n]."""
    count, n = int(count), int(n)
    if n < 0 or not 0 <= count <= max(n, 0):
        raise ValueError(f"count must be in [0, n], got {count}/{n}")
    if n == 0:
        return Interval(None, None, None, 0, 0, "wilson", "no run to count")
    low, high = proportion_confint(count, n, alpha=1 - level, method="wilson")
    # exactly 0 at count = 0 and 1 at count = n (the library leaves 0.9999999999999999)
    low, high = (0.0 if count == 0 else float(low)), (1.0 if count == n else float(high))
    return Interval(count / n, low, high, n, count, "wilson")


@lru_cache(maxsize=16)
def two_sided_z(level: float = LEVEL) -> float:
    """The standard normal quantile of a two-sided interval at ``level`` (1.959964 at 0.95):
    ``norm.ppf(1 - (1 - level) / 2)``, kept per level (scipy's ppf costs ~0.1 ms a call, and the
    summary bar asks for it several times per settings change, issue 15)."""
    return float(norm.ppf(1 - (1 - level) / 2))


def wilson_arrays(count: np.ndarray, n: np.ndarray | int, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score limits (Wilson 1927) for arrays of ``count`` out of ``n``, as numpy work:
    centre (k + z²/2) / (n + z²), half-width z·sqrt(k(n-k)/n + z²/4) / (n + z²). Returns float64
    (low, high) of the broadcast shape, NaN where ``n == 0``. For figures over every sweep setting;
    :func:`wilson` (statsmodels) is the reference the tests compare it with."""
    k = np.asarray(count, dtype=np.float64)
    nn = np.asarray(n, dtype=np.float64)
    z = two_sided_z(level)
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = nn + z2
        centre = (k + z2 / 2) / denom
        half = z * np.sqrt(np.maximum(k * (nn - k) / nn, 0.0) + z2 / 4) / denom
    # the limits are exactly 0 at k = 0 and 1 at k = n (floating point would leave 1e-17)
    low = np.where(nn > 0, np.where(k <= 0, 0.0, np.clip(centre - half, 0.0, 1.0)), np.nan)
    high = np.where(nn > 0, np.where(k >= nn, 1.0, np.clip(centre + half, 0.0, 1.0)), np.nan)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def kappa_from_counts(tp, fp, fn, tn) -> np.ndarray:
    """Cohen's kappa (Cohen 1960) of 2×2 tables given as arrays of cell counts (any shape):
    (p_o - p_e) / (1 - p_e) with p_o = (TP + TN) / n and p_e = ((TP + FP)(TP + FN) + (FN + TN)(FP + TN)) / n².
    float64, NaN where n = 0 or p_e = 1 (every run in one class on both sides)."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = (tp + tn) / n
        p_e = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        kappa = (p_o - p_e) / (1.0 - p_e)
    return np.where((n > 0) & (p_e < 1.0 - 1e-12), kappa, np.nan)


def bootstrap_kappa(tp: int, fp: int, fn: int, tn: int, resamples: int = RESAMPLES, seed: int = SEED,
                    level: float = LEVEL, sides: tuple[str, str] = ("the evaluator", "the person")) -> Interval:
    """Cohen's kappa of the 2×2 table (TP, FP, FN, TN) with a percentile bootstrap interval over
    runs: ``resamples`` draws of the four cells from Multinomial(n, observed shares) (equal in
    distribution to resampling the n runs with replacement), the ``(1-level)/2`` and
    ``(1+level)/2`` percentiles of the defined resampled kappas. Value None when kappa is
    undefined (p_e = 1 or n = 0); low/high None when fewer than half the resamples are defined or
    the two percentiles coincide (no spread), with ``reason`` in words naming ``sides`` (the rows'
    rater, TP + FP its passes, then the columns', TP + FN). Raises ValueError for a negative count
    or ``resamples < 1``."""
    cells = np.array([tp, fp, fn, tn], dtype=np.int64)
    if np.any(cells < 0) or resamples < 1:
        raise ValueError("counts must be >= 0 and resamples >= 1")
    n = int(cells.sum())
    value = float(kappa_from_counts(*cells))
    if n == 0:
        return Interval(None, None, None, n, None, "bootstrap", "no run to compare")
    if np.isnan(value):
        return Interval(None, None, None, n, None, "bootstrap",
                        f"kappa is undefined: {sides[0]} and {sides[1]} give every run the same verdict")
    draws = np.random.default_rng(seed).multinomial(n, cells / n, size=resamples)
    kappas = kappa_from_counts(draws[:, 0], draws[:, 1], draws[:, 2], draws[:, 3])
    iv = _percentile_interval(value, kappas, n, level)
    if iv.low is None:
        return Interval(value, None, None, n, None, "bootstrap",
                        "too few runs: kappa is undefined in most resamples (they hold one verdict only)")
    if iv.high - iv.low <= NO_SPREAD:
        return Interval(value, None, None, n, None, "bootstrap", kappa_no_spread_reason(tp, fp, fn, tn, sides))
    return iv


NO_SPREAD = 1e-12
"""Limits closer than this are one value: a bootstrap with no spread, not an interval."""


def kappa_no_spread_reason(tp: int, fp: int, fn: int, tn: int, sides: tuple[str, str] = ("the evaluator", "the person")) -> str:
    """Why the bootstrap of kappa over the 2×2 table (TP, FP, FN, TN) has no spread, in words:
    one side gives every run the same verdict (kappa is 0 in every resample, as p_o = p_e),
    the two sides agree on every run (1 in every resample), or else too few runs."""
    first, second = sides
    if tp + fp == 0 or fn + tn == 0:
        return f"every run has the same verdict from {first}, so kappa is 0 in every resample"
    if tp + fn == 0 or fp + tn == 0:
        return f"every run has the same verdict from {second}, so kappa is 0 in every resample"
    if fp + fn == 0:
        return f"{first} and {second} agree on every run, so kappa is 1 in every resample"
    return "too few runs: kappa takes the same value in nearly every resample"


def _percentile_interval(value: float, stats: np.ndarray, n: int, level: float, count: int | None = None) -> Interval:
    """``value`` with the percentile interval of the bootstrap ``stats`` (NaNs left out; None
    limits when fewer than half are defined)."""
    ok = stats[~np.isnan(stats)]
    if ok.size < max(1, stats.size // 2):
        return Interval(value, None, None, n, count, "bootstrap")
    low, high = np.quantile(ok, [(1 - level) / 2, (1 + level) / 2])
    return Interval(value, float(low), float(high), n, count, "bootstrap")


@dataclass(frozen=True)
class SummaryIntervals:
    """The summary figures of one evaluation with their 95 % intervals (see the module doc for
    the definitions). ``to_dict`` gives ``{"method": METHODS, "agreement": {value, low, high, n}, ...}``."""

    agreement: Interval
    precision: Interval
    recall: Interval
    false_pass_rate: Interval
    false_fail_rate: Interval
    kappa: Interval

    FIGURES = ("agreement", "precision", "recall", "false_pass_rate", "false_fail_rate", "kappa")

    def to_dict(self) -> dict:
        """JSON-ready: the methods and each figure's ``{"value", "low", "high", "n"}``."""
        return {"method": dict(METHODS), **{name: getattr(self, name).to_dict() for name in self.FIGURES}}


def summary_intervals(summary: Agreement, resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL) -> SummaryIntervals:
    """Intervals for every figure of an :class:`~explorer.core.evaluation.metrics.Agreement`
    (``Evaluation.summary``): Wilson for the five proportions, bootstrap for kappa (seeded, so the
    same counts always give the same intervals). O(resamples), independent of the number of runs
    (about 2 ms); the last :data:`INTERVALS_CACHED` tables' intervals are kept (a room of people
    trying the same settings asks for the same few tables over and over, issue 15)."""
    return _intervals_of_counts(summary.true_pass, summary.false_pass, summary.false_fail, summary.true_fail,
                                resamples, seed, level)


INTERVALS_CACHED = 4096
"""2×2 tables whose intervals :func:`summary_intervals` keeps (per process; a few hundred bytes each)."""


@lru_cache(maxsize=INTERVALS_CACHED)
def _intervals_of_counts(tp: int, fp: int, fn: int, tn: int, resamples: int, seed: int, level: float) -> SummaryIntervals:
    return SummaryIntervals(
        agreement=wilson(tp + tn, tp + fp + fn + tn, level),  # every labelled run is in one cell
        precision=wilson(tp, tp + fp, level),
        recall=wilson(tp, tp + fn, level),
        false_pass_rate=wilson(fp, fp + tn, level),
        false_fail_rate=wilson(fn, tp + fn, level),
        kappa=bootstrap_kappa(tp, fp, fn, tn, resamples, seed, level),
    )
