"""What the evaluator's pass rate means on unlabelled runs: the raw rate and the Rogan–Gladen
corrected rate.

On the labelled runs the evaluator's true-pass rate (sensitivity, Se = TP / (TP + FN): acceptable
runs it passes) and true-fail rate (specificity, Sp = TN / (TN + FP): unacceptable runs it fails)
are measured. If it behaves the same on the unlabelled runs, the share of them that are really
acceptable is estimated by (Rogan, W. J. & Gladen, B. 1978, "Estimating prevalence from the results
of a screening test", American Journal of Epidemiology 107:71-76)

    corrected = (pass rate + Sp - 1) / (Se + Sp - 1).

Its 95 % interval is the Wald interval of the delta-method (first-order) variance, with the pass
rate p on the n_u unlabelled runs, Se on the n_acc acceptable and Sp on the n_unacc unacceptable
labelled runs as three independent binomial estimates. With J = Se + Sp - 1 and c the corrected
rate, the partial derivatives of c are 1/J (p), -c/J (Se) and (1-c)/J (Sp), so

    Var = [p(1-p)/n_u + c² Se(1-Se)/n_acc + (1-c)² Sp(1-Sp)/n_unacc] / J²,

clipped to [0, 1]. When that variance is 0 (the pass rate, Se and Sp each 0 or 1, as on a few
runs the evaluator gets all right) the Wald interval has no width and is not an interval: the
limits are None and ``Interval.reason`` says why. The correction is **undefined** when Se + Sp - 1 <= 0 (the evaluator does no
better than chance on the labelled runs); an estimate outside [0, 1] is clipped and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .confidence import LEVEL, NO_SPREAD, Interval, two_sided_z, wilson


@dataclass(frozen=True)
class UnlabelledPassRate:
    """The evaluator on unlabelled runs: ``pass_rate`` (Wilson interval, ``n`` unlabelled runs),
    ``corrected`` the Rogan–Gladen estimate of the share acceptable (None when undefined),
    ``sensitivity`` / ``specificity`` as measured on the labelled runs (None without runs of that
    class), ``note`` a sentence when the correction is undefined or clipped (``""`` otherwise)."""

    pass_rate: Interval
    corrected: Interval | None
    sensitivity: float | None
    specificity: float | None
    raw_corrected: float | None
    note: str

    def to_dict(self) -> dict:
        """JSON-ready."""
        r = lambda x: None if x is None else round(float(x), 6)  # noqa: E731
        return {
            "runs": self.pass_rate.n,
            "passed": self.pass_rate.count,
            "pass_rate": self.pass_rate.to_dict(),
            "corrected": None if self.corrected is None else self.corrected.to_dict(),
            "true_pass_rate": r(self.sensitivity),
            "true_fail_rate": r(self.specificity),
            "raw_corrected": r(self.raw_corrected),
            "note": self.note,
            "method": "Rogan & Gladen 1978 correction; Wald interval of the delta-method variance, clipped to [0, 1]",
        }


def rogan_gladen(passed: np.ndarray, human: np.ndarray, unlabelled: np.ndarray | None = None,
                 level: float = LEVEL) -> UnlabelledPassRate | None:
    """The evaluator's pass rate on the unlabelled runs and its Rogan–Gladen correction.

    ``passed`` bool (N,); ``human`` int8 (N,) 1/0/-1; ``unlabelled`` bool (N,) the runs to
    describe (default ``human == -1``; pass ``GroundTruth.unlabelled`` to leave disputed runs
    out). Returns None when there is no unlabelled run. Numpy work over N.
    """
    passed = np.asarray(passed, dtype=bool)
    human = np.asarray(human)
    mask = (human < 0) if unlabelled is None else np.asarray(unlabelled, dtype=bool)
    n_u = int(np.count_nonzero(mask))
    if n_u == 0:
        return None
    k = int(np.count_nonzero(passed & mask))
    rate = wilson(k, n_u, level)
    acc, unacc = human == 1, human == 0
    n_acc, n_unacc = int(np.count_nonzero(acc)), int(np.count_nonzero(unacc))
    se = np.count_nonzero(passed & acc) / n_acc if n_acc else None
    sp = np.count_nonzero(~passed & unacc) / n_unacc if n_unacc else None
    if se is None or sp is None:
        missing = "acceptable" if se is None else "unacceptable"
        return UnlabelledPassRate(rate, None, se, sp, None, f"no correction: no labelled {missing} run to measure the evaluator on")
    j = se + sp - 1.0
    if j <= 0:
        return UnlabelledPassRate(rate, None, se, sp, None,
                                  f"no correction: true-pass rate + true-fail rate - 1 = {j:.2f} <= 0 "
                                  "(the evaluator does no better than chance on the labelled runs)")
    p = k / n_u
    raw = (p + sp - 1.0) / j
    c = min(max(raw, 0.0), 1.0)
    var = (p * (1 - p) / n_u + c * c * se * (1 - se) / n_acc + (1 - c) ** 2 * sp * (1 - sp) / n_unacc) / (j * j)
    z = two_sided_z(level)
    half = z * float(np.sqrt(var))
    note = ""
    if raw < 0 or raw > 1:
        note = f"the corrected rate {raw:.2f} falls outside [0, 1] and is clipped to {c:.0f}"
    if half <= NO_SPREAD:
        corrected = Interval(c, None, None, n_u, None, "rogan-gladen", no_spread_reason(k, n_u, se, n_acc, sp, n_unacc))
    else:
        corrected = Interval(c, max(0.0, c - half), min(1.0, c + half), n_u, None, "rogan-gladen")
    return UnlabelledPassRate(rate, corrected, se, sp, raw, note)


def no_spread_reason(passed: int, n_u: int, se: float, n_acc: int, sp: float, n_unacc: int) -> str:
    """Why the delta-method variance of the correction is 0, in words: the evaluator passes
    ``passed`` of the ``n_u`` unlabelled runs, and its true-pass rate ``se`` (of ``n_acc``) and
    true-fail rate ``sp`` (of ``n_unacc``) are each 0 or 1, so the formula sees no spread."""
    return (f"too few runs to show a spread: the pass rate on the unlabelled runs ({passed}/{n_u}), the true-pass rate "
            f"({round(se * n_acc)}/{n_acc}) and the true-fail rate ({round(sp * n_unacc)}/{n_unacc}) are each 0 % or 100 %, "
            "so the delta-method variance is 0")
