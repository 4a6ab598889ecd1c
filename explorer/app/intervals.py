"""How the app writes a figure with its 95 % interval (issue 11), in one place for every view (pure).

The intervals themselves come from :mod:`explorer.core.evaluation.confidence` (Wilson score for
proportions, a seeded percentile bootstrap for kappa and alpha), :mod:`~explorer.core.evaluation.compare`
(Newcombe's paired interval) and :mod:`~explorer.core.evaluation.prevalence` (Rogan–Gladen); the
CLI states the same methods.
"""

from __future__ import annotations

from ..core.evaluation.confidence import METHODS, RESAMPLES, SEED, Interval, percent_range

MINUS = "\u2212"
WILSON_TIP = (f"95 % confidence interval, {METHODS['proportions']}, as metric-explorer score reports it. "
              "With few runs it is wide: the runs cannot pin the figure down more closely.")
"""Tooltip of a proportion's interval."""
BOOTSTRAP_TIP = f"95 % confidence interval: percentile bootstrap over runs, {RESAMPLES:,} resamples, seed {SEED}."
"""Tooltip of a kappa's (or alpha's) interval."""


NA_REASONS = {
    "agreement": "no labelled run",
    "precision": "no labelled run passed",
    "recall": "no acceptable run",
    "false_pass_rate": "no unacceptable run",
    "false_fail_rate": "no acceptable run",
}
"""Why a proportion is n/a: its denominator is 0 (as ``metric-explorer score`` says it)."""


def na_reason(name: str, iv: Interval | None = None) -> str:
    """Why figure ``name`` (a :class:`SummaryIntervals` figure) is undefined, in a few words:
    ``"no labelled run passed"`` for precision (TP + FP = 0), ``"no acceptable run"`` for recall
    (TP + FN = 0), as the CLI; for kappa the interval's reason (``"the evaluator and the person
    give every run the same verdict"``: p_e = 1), ``"no labelled run"`` when there is none."""
    if name in NA_REASONS:
        return NA_REASONS[name]
    if iv is None or iv.n == 0:
        return "no labelled run"
    reason = (iv.reason if iv is not None else "") or "no labelled run"
    return reason.removeprefix("kappa is undefined: ")


def signed(x: float, digits: int = 2) -> str:
    """``-0.2`` -> ``"−0.20"`` (a true minus sign), ``0.5`` -> ``"0.50"``."""
    return f"{x:.{digits}f}".replace("-", MINUS)


def pct(x: float) -> str:
    """``0.1682`` -> ``"17"`` (whole percent, no sign)."""
    return f"{100 * x:.0f}"


def pct_ci(iv: Interval) -> str:
    """``"95 % CI 17–69 %"`` for a proportion's interval (:func:`~explorer.core.evaluation.confidence.percent_range`:
    a decimal when it is narrower than 2 points); ``"no interval (<reason>)"`` when
    undefined (``Interval.reason``, e.g. a Rogan–Gladen variance of 0)."""
    if iv.low is None or iv.high is None:
        return iv.no_interval_text()
    return f"95 % CI {percent_range(iv.low, iv.high)} %"


def num_ci(iv: Interval | None) -> str:
    """``"[−0.52, 0.00]"`` for a kappa's or a share's interval in its own units; ``""`` when
    undefined."""
    if iv is None or iv.low is None or iv.high is None:
        return ""
    return f"[{signed(iv.low)}, {signed(iv.high)}]"


def kappa_text(iv: Interval | None) -> str:
    """``"0.50 · 95 % CI −0.10 to 1.00"``, ``"0.00 · no interval (every run has the same verdict
    from the evaluator, so kappa is 0 in every resample)"`` (a bootstrap with no spread, or too
    few defined resamples), or ``"n/a"`` (undefined: every label in one class, or no run to compare)."""
    if iv is None or iv.value is None:
        return "n/a"
    if iv.low is None or iv.high is None:
        return f"{signed(iv.value)} · {iv.no_interval_text()}"
    return f"{signed(iv.value)} · 95 % CI {signed(iv.low)} to {signed(iv.high)}"


def share_text(iv: Interval) -> str:
    """``"3/4 (75 %, 95 % CI 30–95 %)"`` for a proportion with a count; ``"75 % (95 % CI …)"``
    without one; ``"n/a (no runs)"`` when undefined."""
    if iv.value is None:
        return "n/a (no runs)"
    head = f"{iv.count:,}/{iv.n:,} " if iv.count is not None else ""
    inner = f"{pct(iv.value)} %, {pct_ci(iv)}" if iv.low is not None else f"{pct(iv.value)} %"
    return f"{head}({inner})"


def change_tone(iv: Interval) -> str:
    """How a change with its 95 % interval ``iv`` may be coloured: ``"better"`` when the whole
    interval lies above 0, ``"worse"`` when it lies below 0, else ``"unclear"`` (it spans 0, or
    has no interval or no value): a change whose interval holds 0 is shown neutral, never as
    better or worse (``+20 points (95 % CI −20 to +52)`` is ``"unclear"``)."""
    if iv.value is None or iv.low is None or iv.high is None:
        return "unclear"
    if iv.low > 0:
        return "better"
    if iv.high < 0:
        return "worse"
    return "unclear"


def points_text(iv: Interval) -> str:
    """A change of a proportion in percentage points with its interval:
    ``"+20 points (95 % CI −13 to +49)"``; ``"n/a"`` when undefined."""
    if iv.value is None:
        return "n/a"

    def p(x: float) -> str:
        v = round(100 * x)
        return f"+{v}" if v > 0 else (f"{MINUS}{-v}" if v < 0 else "0")

    ci = "" if iv.low is None or iv.high is None else f" (95 % CI {p(iv.low)} to {p(iv.high)})"
    word = "point" if abs(round(100 * iv.value)) == 1 else "points"
    return f"{p(iv.value)} {word}{ci}"
