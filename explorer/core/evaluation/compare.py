"""Compare two settings on the same runs: which runs' verdicts flipped, the change in agreement
with a paired interval, and McNemar's exact test on the flips.

Over the runs with a ground-truth verdict, each run is right or wrong under setting A and under
setting B. *Fixed* runs are wrong under A and right under B; *broken* runs right under A and wrong
under B. Only these discordant runs carry information about which setting agrees more:

* change in agreement = (fixed - broken) / labelled, with **Newcombe's hybrid score interval for
  paired proportions** (Newcombe, R. G. 1998, "Improved confidence intervals for the difference
  between binomial proportions based on paired data", Statistics in Medicine 17:2635-2650,
  method 10: Wilson score limits of each proportion, combined with the phi correlation of the
  paired table);
* **McNemar's exact test** (McNemar 1947; exact form = the two-sided binomial test of
  ``fixed`` successes in ``fixed + broken`` trials at p = 1/2, ``scipy.stats.binomtest``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from .confidence import LEVEL, Interval, wilson

SIGNIFICANCE = 0.05
"""p below this reads "unlikely to be chance" in :func:`mcnemar_words`."""


def paired_difference_interval(both: int, only_first: int, only_second: int, neither: int,
                               level: float = LEVEL) -> Interval:
    """Difference p1 - p2 of two paired proportions with Newcombe's (1998) method 10 interval.

    The paired table over n items: ``both`` (success on both), ``only_first``, ``only_second``,
    ``neither``; p1 = (both + only_first) / n, p2 = (both + only_second) / n. With (l_i, u_i) the
    Wilson limits of p_i and phi the table's correlation, with Newcombe's correction
    (A = both·neither - only_first·only_second; phi = (A - n/2)/sqrt(row and column products)
    when A > n/2, 0 when 0 <= A <= n/2, A/sqrt(...) when A < 0; 0 when a margin is empty):
    low = d - sqrt((p1 - l1)² - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)²),
    high = d + sqrt((p2 - l2)² - 2 phi (p2 - l2)(u1 - p1) + (u1 - p1)²).
    ``count`` is None; ``n`` the number of items. Value None when n = 0.
    """
    n = both + only_first + only_second + neither
    if n == 0:
        return Interval(None, None, None, 0, None, "newcombe")
    first = wilson(both + only_first, n, level)
    second = wilson(both + only_second, n, level)
    p1, l1, u1 = first.value, first.low, first.high
    p2, l2, u2 = second.value, second.low, second.high
    rows = (both + only_first) * (only_second + neither)
    cols = (both + only_second) * (only_first + neither)
    phi = 0.0
    if rows > 0 and cols > 0:
        a = both * neither - only_first * only_second
        if a > n / 2:
            phi = (a - n / 2) / np.sqrt(float(rows) * float(cols))
        elif a < 0:
            phi = a / np.sqrt(float(rows) * float(cols))
    d = p1 - p2
    low = d - np.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    high = d + np.sqrt(max((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2, 0.0))
    return Interval(d, float(max(low, -1.0)), float(min(high, 1.0)), n, None, "newcombe")


def mcnemar_exact_p(one_way: int, other_way: int) -> float:
    """McNemar's exact p-value: the two-sided binomial test of ``one_way`` successes in
    ``one_way + other_way`` trials at p = 1/2 (scipy). 1.0 when nothing flipped. 3 vs 1 gives
    10/16 = 0.625 (P(X <= 1) + P(X >= 3) for X ~ Bin(4, 1/2))."""
    if one_way < 0 or other_way < 0:
        raise ValueError("flip counts must be >= 0")
    total = one_way + other_way
    if total == 0:
        return 1.0
    return float(binomtest(one_way, total, 0.5, alternative="two-sided").pvalue)


def mcnemar_words(one_way: int, other_way: int, p: float, labelled: int | None = None) -> str:
    """The test in words, e.g. ``"with 3 runs flipped one way and 1 the other, p = 0.625: not
    enough runs to tell"``; with ``labelled`` 0 (no run has a verdict from people) there is
    nothing to test, and it says so rather than that the settings agree with people."""
    if labelled == 0:
        return "no labelled run: nothing to test (label runs to compare the two settings against people)"
    if one_way + other_way == 0:
        return "no labelled run flipped: the two settings agree with people on the same runs"
    runs = "run" if one_way == 1 else "runs"
    head = f"with {one_way} {runs} flipped one way and {other_way} the other, p = {p:.3g}"
    if p < SIGNIFICANCE:
        return f"{head}: unlikely to be chance (p < {SIGNIFICANCE:g})"
    return f"{head}: not enough runs to tell"


@dataclass(frozen=True)
class Comparison:
    """Setting B against setting A on the same runs and ground truth.

    ``agreement_a`` / ``agreement_b``: each setting's agreement (Wilson); ``change``: B - A with
    the paired Newcombe interval; ``fixed`` / ``broken``: run ids (wrong under A and right under B
    / right under A and wrong under B), in run order; ``changed_unlabelled``: ids whose verdict
    changed but that have no ground truth (unlabelled or disputed), not counted in the test;
    ``p_value``: McNemar's exact p on (fixed, broken); ``reading``: the test in words.
    """

    labelled: int
    agreement_a: Interval
    agreement_b: Interval
    change: Interval
    fixed: tuple[str, ...]
    broken: tuple[str, ...]
    changed_unlabelled: tuple[str, ...]
    p_value: float
    reading: str

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {
            "labelled": self.labelled,
            "agreement_a": self.agreement_a.to_dict(),
            "agreement_b": self.agreement_b.to_dict(),
            "change": self.change.to_dict(),
            "fixed": list(self.fixed),
            "broken": list(self.broken),
            "changed_unlabelled": list(self.changed_unlabelled),
            "mcnemar_exact_p": round(self.p_value, 6),
            "reading": self.reading,
            "method": {
                "change": "Newcombe 1998 hybrid score interval for paired proportions (method 10)",
                "test": "McNemar's exact test: two-sided binomial test on the discordant runs (scipy binomtest)",
            },
        }


def compare_verdicts(run_ids, passed_a: np.ndarray, passed_b: np.ndarray, human: np.ndarray, level: float = LEVEL) -> Comparison:
    """Compare two verdict arrays (bool (N,), e.g. ``Evaluation.passed`` of settings A and B) on
    the int8 (N,) ground truth ``human`` (1/0/-1, ``Features.human`` or ``GroundTruth.human``).
    Numpy work over N; raises ValueError when the shapes differ."""
    a = np.asarray(passed_a, dtype=bool)
    b = np.asarray(passed_b, dtype=bool)
    human = np.asarray(human)
    ids = np.asarray(run_ids, dtype=object)
    if not (a.shape == b.shape == human.shape == ids.shape):
        raise ValueError(f"shapes differ: ids {ids.shape}, A {a.shape}, B {b.shape}, human {human.shape}")
    has = human >= 0
    truth = human == 1
    right_a = has & (a == truth)
    right_b = has & (b == truth)
    fixed = has & ~right_a & right_b
    broken = has & right_a & ~right_b
    both = int(np.count_nonzero(right_a & right_b))
    neither = int(np.count_nonzero(has & ~right_a & ~right_b))
    n_fixed, n_broken = int(np.count_nonzero(fixed)), int(np.count_nonzero(broken))
    n = int(np.count_nonzero(has))
    p = mcnemar_exact_p(n_fixed, n_broken)
    return Comparison(
        labelled=n,
        agreement_a=wilson(both + n_broken, n, level),
        agreement_b=wilson(both + n_fixed, n, level),
        change=paired_difference_interval(both, n_fixed, n_broken, neither, level),
        fixed=tuple(str(x) for x in ids[fixed]),
        broken=tuple(str(x) for x in ids[broken]),
        changed_unlabelled=tuple(str(x) for x in ids[~has & (a != b)]),
        p_value=p,
        reading=mcnemar_words(n_fixed, n_broken, p, n),
    )


def compare_evaluations(features, ev_a, ev_b, level: float = LEVEL) -> Comparison:
    """:func:`compare_verdicts` of two :class:`~explorer.core.evaluation.verdicts.Evaluation` s of
    the same ``features`` (setting A, then B), on ``features.human`` (use
    ``features.with_human(truth.human)`` to compare on a consensus). O(N) numpy work."""
    return compare_verdicts(features.run_ids, ev_a.passed, ev_b.passed, features.human, level)
