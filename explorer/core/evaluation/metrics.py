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
        unlabelled=int(human.size - n),
        agree=tp + tn,
        true_pass=tp,
        false_pass=fp,
        false_fail=fn,
        true_fail=tn,
        precision=precision,
        recall=recall,
        kappa=kappa,
    )
