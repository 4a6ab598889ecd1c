"""Agreement between the evaluator's verdicts and a person's, over labelled runs.

The person's verdict is ground truth and ``acceptable`` is the positive class: a *false pass*
is a run the evaluator passed that the person judged unacceptable (FP), a *false fail* a run it
failed that the person judged acceptable (FN).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class Agreement:
    """Confusion counts over labelled runs and the figures derived from them.

    ``precision`` = TP / (TP + FP), ``recall`` = TP / (TP + FN) (None when the denominator is 0);
    ``kappa`` is Cohen's kappa, (p_o - p_e) / (1 - p_e), None when p_e = 1.
    """

    labelled: int
    unlabelled: int
    agree: int
    true_pass: int  # TP: evaluator pass, person acceptable
    false_pass: int  # FP: evaluator pass, person unacceptable
    false_fail: int  # FN: evaluator fail, person acceptable
    true_fail: int  # TN: evaluator fail, person unacceptable
    precision: float | None
    recall: float | None
    kappa: float | None

    def to_dict(self) -> dict:
        """JSON-ready dict of every field."""
        return asdict(self)


def agreement(passed: np.ndarray, human: np.ndarray) -> Agreement:
    """Confusion matrix, precision, recall and Cohen's kappa.

    ``passed``: bool (N,), the evaluator's verdict; ``human``: int8 (N,), 1 acceptable,
    0 unacceptable, -1 unlabelled (left out of every figure but ``unlabelled``).
    """
    passed = np.asarray(passed, dtype=bool)
    human = np.asarray(human)
    acc, unacc = human == 1, human == 0
    tp = int(np.count_nonzero(passed & acc))
    fp = int(np.count_nonzero(passed & unacc))
    fn = int(np.count_nonzero(~passed & acc))
    tn = int(np.count_nonzero(~passed & unacc))
    return agreement_from_counts(tp, fp, fn, tn, int(human.size - (tp + fp + fn + tn)))


def agreement_from_counts(tp: int, fp: int, fn: int, tn: int, unlabelled: int = 0) -> Agreement:
    """The :class:`Agreement` of confusion counts (TP, FP, FN, TN over labelled runs) and the
    number of unlabelled runs: precision, recall and Cohen's kappa as :class:`Agreement` defines them."""
    n = tp + fp + fn + tn
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    kappa = None
    if n:
        p_o = (tp + tn) / n
        p_e = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        kappa = (p_o - p_e) / (1 - p_e) if p_e < 1 else None
    return Agreement(
        labelled=n,
        unlabelled=unlabelled,
        agree=tp + tn,
        true_pass=tp,
        false_pass=fp,
        false_fail=fn,
        true_fail=tn,
        precision=precision,
        recall=recall,
        kappa=kappa,
    )


# --- the same figures from verdict codes, for evaluations over many runs -------------------------
#
# Outcome codes (``verdicts.OUTCOMES``): 0 agree, 1 false pass, 2 false fail, 3 unlabelled. A run's
# code when the evaluator fails it is 2 (person: acceptable), 0 (unacceptable) or 3 (unlabelled);
# when it passes, 0, 1 or 3: the failed code XOR (human + 1) for human in {1, 0, -1} (2^2, 0^1,
# 3^0). So with the failed codes and human + 1 (``flip``) kept per case set an evaluation's codes
# are two int8 passes, a multiply and an XOR (against six comparisons and masks for the
# definition, 22 ms at 10M runs), and
# its confusion counts two more (FP and FN counted, TP and TN from the label totals:
# ``verdicts._combined``, then :func:`agreement_from_counts`).


@dataclass(frozen=True, eq=False)
class PreparedLabels:
    """A person's verdicts prepared once per case set for :func:`outcomes_of` and the confusion
    counts of an evaluation (``verdicts._combined``): ``human`` int8 (N,) (1 / 0 / -1), the counts of
    ``acceptable`` and ``unacceptable`` runs, ``if_failed`` int8 (N,) (read-only), each run's
    outcome code if the evaluator fails it, and ``flip`` int8 (N,) (read-only), ``human + 1``:
    what XOR turns that code into the code if it passes."""

    human: np.ndarray
    acceptable: int
    unacceptable: int
    if_failed: np.ndarray
    flip: np.ndarray


def prepare_labels(human: np.ndarray) -> PreparedLabels:
    """:class:`PreparedLabels` of ``human`` (int8 (N,), values in {-1, 0, 1}: 1 acceptable,
    0 unacceptable, -1 unlabelled). Raises ValueError for another value (the XOR of
    :func:`outcomes_of` holds for these three only)."""
    human = np.asarray(human, dtype=np.int8)
    if human.size and (int(human.min()) < -1 or int(human.max()) > 1):
        raise ValueError("human verdict codes must be -1, 0 or 1")
    acc = int(np.count_nonzero(human == 1))
    unacc = int(np.count_nonzero(human == 0))
    if_failed = np.full(human.shape, 3, dtype=np.int8)
    if_failed[human == 1] = 2
    if_failed[human == 0] = 0
    if_failed.flags.writeable = False
    flip = human + np.int8(1)
    flip.flags.writeable = False
    return PreparedLabels(human, acc, unacc, if_failed, flip)


def outcomes_of(passed: np.ndarray, flip: np.ndarray, if_failed: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """int8 outcome codes (0 agree, 1 false pass, 2 false fail, 3 unlabelled; the codes of
    ``verdicts.outcome_codes``, elementwise equal) of the evaluator's ``passed`` (bool) against
    the person's verdicts as :class:`PreparedLabels` holds them, ``flip`` (int8, human + 1) and
    ``if_failed`` (the same runs: slices of a case set's arrays are fine): ``if_failed XOR
    passed * flip``, two int8 passes. ``out``: an int8 array of that shape to write into (returned)."""
    p = np.asarray(passed, dtype=bool).view(np.int8)
    out = np.multiply(flip, p, out=out, dtype=np.int8)
    out ^= if_failed
    return out
