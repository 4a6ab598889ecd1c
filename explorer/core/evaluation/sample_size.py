"""How many labelled runs are enough: the runs needed for a 95 % Wilson interval of a chosen
half-width, per class, beside the count there is.

For a proportion p estimated from n runs the Wilson score interval (Wilson 1927) has half-width
w(n) = z·sqrt(p(1-p)n + z²/4) / (n + z²). Setting w(n) = h and squaring gives the quadratic
h²n² + (2h²z² - z²p(1-p))n + h²z⁴ - z⁴/4 = 0, whose larger root, rounded up, is the runs needed
(for p = 0.5, h = 0.05: 380.3 -> 381, a little under the normal-approximation 385). It is planned at
the rate observed now and, for the worst case, at p = 0.5.

Per class: the acceptable runs estimate the true-pass rate (recall), the unacceptable runs the
true-fail rate (1 - false-pass rate); all labelled runs the agreement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .confidence import LEVEL, two_sided_z
from .metrics import Agreement
from ..plural import half_width_words

DEFAULT_HALF_WIDTH = 0.05
"""±5 points."""

MIN_HALF_WIDTH = 1e-4
"""±0.01 points: the narrowest half-width planned for (about 96 million runs per class at p = 0.5).
Below it nobody labels that many runs, and from about 1e-154 h² underflows: the quadratic's root
overflowed to infinity or divided by zero (``--half-width 1e-155`` ended score with OverflowError)."""


def have_and_needed(have: int, needed: int) -> str:
    """``"5 (35 needed)"``: the labelled runs there are and the number needed, thousands separated
    (the CLI, the page and calibrate write it so; ``"4,244 of 375 needed"`` read oddly to a trial
    when there are more than enough)."""
    return f"{have:,} ({needed:,} needed)"


def runs_needed(rate: float, half_width: float, level: float = LEVEL) -> int:
    """Smallest n whose Wilson interval at proportion ``rate`` has half-width <= ``half_width``
    (see the module doc). Raises ValueError unless 0 <= rate <= 1 and
    :data:`MIN_HALF_WIDTH` <= half_width < 0.5."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be in [0, 1], got {rate}")
    if not MIN_HALF_WIDTH <= half_width < 0.5:
        raise ValueError(f"half_width must be at least {MIN_HALF_WIDTH:g} and under 0.5, got {half_width}")
    z = two_sided_z(level)
    z2, h2, pq = z * z, half_width * half_width, rate * (1.0 - rate)
    a, b, c = h2, 2 * h2 * z2 - z2 * pq, h2 * z2 * z2 - z2 * z2 / 4
    root = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
    n = max(1, math.ceil(root - 1e-9))
    return n


@dataclass(frozen=True)
class ClassNeed:
    """One class: ``have`` labelled runs now, ``rate`` the figure they estimate (None with none),
    ``needed`` runs for the target half-width at that rate (at 0.5 when there is no rate yet),
    ``needed_worst_case`` at 0.5, ``more`` = max(0, needed - have)."""

    have: int
    rate: float | None
    needed: int
    needed_worst_case: int

    @property
    def more(self) -> int:
        """Labelled runs still to add."""
        return max(0, self.needed - self.have)

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {"have": self.have, "rate": None if self.rate is None else round(self.rate, 6), "needed": self.needed,
                "needed_worst_case": self.needed_worst_case, "more": self.more}


@dataclass(frozen=True)
class LabelsNeeded:
    """Runs needed for ±``half_width`` on recall (``acceptable``), the true-fail rate
    (``unacceptable``) and agreement (``labelled``)."""

    half_width: float
    acceptable: ClassNeed
    unacceptable: ClassNeed
    labelled: ClassNeed

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {"half_width": self.half_width, "level": LEVEL, "acceptable": self.acceptable.to_dict(),
                "unacceptable": self.unacceptable.to_dict(), "labelled": self.labelled.to_dict(),
                "method": "smallest n with Wilson half-width <= target, at the observed rate and at 0.5"}

    def text(self) -> str:
        """One line, e.g. ``"labels for ±5 points (95 %): acceptable 5 (35 needed; worst case 381), ..."``."""
        a, u = self.acceptable, self.unacceptable
        return (f"labels for {half_width_words(self.half_width)} (95 %): acceptable {a.have:,} ({a.needed:,} needed; "
                f"worst case {a.needed_worst_case:,}), unacceptable {u.have:,} ({u.needed:,} needed; worst case "
                f"{u.needed_worst_case:,}), agreement {have_and_needed(self.labelled.have, self.labelled.needed)}")


def class_need(count: int, have: int, half_width: float = DEFAULT_HALF_WIDTH, level: float = LEVEL) -> ClassNeed:
    """Runs needed for ±``half_width`` on the rate ``count / have`` of one class (planned at 0.5
    when ``have`` is 0), beside ``have``."""
    rate = count / have if have else None
    worst = runs_needed(0.5, half_width, level)
    return ClassNeed(have, rate, worst if rate is None else runs_needed(rate, half_width, level), worst)


def labels_needed(summary: Agreement, half_width: float = DEFAULT_HALF_WIDTH, level: float = LEVEL) -> LabelsNeeded:
    """Runs needed per class for an interval of ±``half_width`` on an evaluation's figures
    (``Evaluation.summary``). Raises ValueError for a half-width outside (0, 0.5)."""
    s = summary
    return LabelsNeeded(
        half_width,
        class_need(s.true_pass, s.true_pass + s.false_fail, half_width, level),
        class_need(s.true_fail, s.true_fail + s.false_pass, half_width, level),
        class_need(s.agree, s.labelled, half_width, level),
    )
