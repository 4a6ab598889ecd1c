"""Calibrating similarity thresholds on labelled pairs (seed 000, "Calibrating a threshold on
labelled pairs"): precision, recall and F-measure at each candidate threshold, and the
pass-above / fail-below bands for a target precision.

Definitions (a pair *passes* at threshold t when its score reaches t,
:func:`explorer.core.scoring.passmark.reaches`: scores are quantised to 12 decimals first, so the
candidate thresholds and bands are quantised scores and a threshold printed in full reproduces its
bands exactly in ``score``, the sweep and the app; "acceptable" is the person's label): TP = acceptable and passes, FP = unacceptable and passes, FN = acceptable and fails,
TN = unacceptable and fails; precision = TP / (TP + FP) (NaN when nothing passes), recall =
TP / (TP + FN), F-measure = 2PR / (P + R). Candidate thresholds are the distinct scores.

Bands for a target precision P:

* ``pass_above``: the lowest candidate threshold whose precision is >= P (the most good answers
  accepted while the pass band stays at least P clean); None when no threshold reaches P;
* ``fail_below``: the highest candidate threshold t <= ``pass_above`` such that, of the pairs
  scoring below t, at least a fraction P are unacceptable (the same target on the fail side);
  None when no such t exists;
* everything in between is the gray band that goes to the judge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..scoring.passmark import quantise

TABLE_COLUMNS = ("threshold", "passed", "tp", "fp", "fn", "tn", "precision", "recall", "f_measure")


def _inputs(scores, acceptable) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64)
    a = np.asarray(acceptable, dtype=bool)
    if s.ndim != 1 or s.shape != a.shape:
        raise ValueError(f"scores and labels must be 1-D of equal length, got {s.shape} and {a.shape}")
    if s.size == 0:
        raise ValueError("no labelled pairs to calibrate on")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    return quantise(s), a


def threshold_table(scores, acceptable) -> pd.DataFrame:
    """One row per distinct score t (ascending): ``TABLE_COLUMNS``.

    ``scores``: float (N,); ``acceptable``: bool (N,) the person's labels. Vectorised: counts by
    ``searchsorted`` over the sorted scores of each class. Raises ValueError on empty input,
    unequal lengths or NaN scores.
    """
    s, a = _inputs(scores, acceptable)
    thresholds = np.unique(s)
    good = np.sort(s[a])
    bad = np.sort(s[~a])
    tp = good.size - np.searchsorted(good, thresholds, side="left")
    fp = bad.size - np.searchsorted(bad, thresholds, side="left")
    fn = good.size - tp
    tn = bad.size - fp
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
        recall = np.where(good.size > 0, tp / max(good.size, 1), np.nan)
        f = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    return pd.DataFrame(
        {
            "threshold": thresholds,
            "passed": tp + fp,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "precision": precision,
            "recall": recall,
            "f_measure": f,
        }
    )


@dataclass(frozen=True)
class Bands:
    """Chosen bands and what falls in each.

    ``pass_above`` / ``fail_below``: thresholds (None when the target cannot be met on that
    side); ``counts``: ``{"pass" | "gray" | "fail": {"acceptable": int, "unacceptable": int}}``
    where pass is ``score >= pass_above``, fail is ``score < fail_below``, gray the rest;
    ``pass_precision``: share acceptable in the pass band; ``fail_purity``: share unacceptable
    in the fail band (NaN when a band is empty).
    """

    target_precision: float
    pass_above: float | None
    fail_below: float | None
    counts: dict[str, dict[str, int]]
    pass_precision: float
    fail_purity: float

    def to_dict(self) -> dict:
        """JSON-ready dict (NaN as None)."""
        clean = lambda x: None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)  # noqa: E731
        return {
            "target_precision": self.target_precision,
            "pass_above": clean(self.pass_above),
            "fail_below": clean(self.fail_below),
            "counts": self.counts,
            "pass_precision": clean(self.pass_precision),
            "fail_purity": clean(self.fail_purity),
        }


def choose_bands(scores, acceptable, target_precision: float = 0.8) -> Bands:
    """Pass-above and fail-below for ``target_precision`` in (0, 1] (rules in the module
    docstring), with the counts of acceptable and unacceptable pairs in each band. Raises
    ValueError for a target outside (0, 1] or bad inputs (as :func:`threshold_table`)."""
    if isinstance(target_precision, bool) or not 0.0 < float(target_precision) <= 1.0:
        raise ValueError(f"target precision must be in (0, 1], got {target_precision!r}")
    s, a = _inputs(scores, acceptable)
    table = threshold_table(s, a)
    t = table["threshold"].to_numpy()
    ok = (table["precision"].to_numpy() >= target_precision) & (table["tp"].to_numpy() > 0)
    pass_above = float(t[np.flatnonzero(ok)[0]]) if ok.any() else None
    # fail side: below t are the pairs with score < t: tn + fn of the table row at t
    below = (table["tn"] + table["fn"]).to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        purity = np.where(below > 0, table["tn"].to_numpy() / np.maximum(below, 1), np.nan)
    limit = pass_above if pass_above is not None else np.inf
    ok_fail = (purity >= target_precision) & (below > 0) & (t <= limit)
    fail_below = float(t[np.flatnonzero(ok_fail)[-1]]) if ok_fail.any() else None
    hi = s >= pass_above if pass_above is not None else np.zeros(s.shape, dtype=bool)
    lo = s < fail_below if fail_below is not None else np.zeros(s.shape, dtype=bool)
    gray = ~hi & ~lo
    counts = {
        band: {"acceptable": int((mask & a).sum()), "unacceptable": int((mask & ~a).sum())}
        for band, mask in (("pass", hi), ("gray", gray), ("fail", lo))
    }
    n_hi, n_lo = int(hi.sum()), int(lo.sum())
    return Bands(
        target_precision=float(target_precision),
        pass_above=pass_above,
        fail_below=fail_below,
        counts=counts,
        pass_precision=counts["pass"]["acceptable"] / n_hi if n_hi else float("nan"),
        fail_purity=counts["fail"]["unacceptable"] / n_lo if n_lo else float("nan"),
    )


def seed_reading(scores, acceptable, precision_above: float = 0.8) -> dict[str, int]:
    """The two numbers seed 000 reads off its table: ``bad_accepted_when_all_good_pass`` (bad
    pairs scoring at or above the lowest good score) and ``good_rejected_for_precision``
    (good pairs below the lowest threshold whose precision is strictly above
    ``precision_above``; all good ones when none is)."""
    s, a = _inputs(scores, acceptable)
    lowest_good = s[a].min()
    bad_accepted = int((s[~a] >= lowest_good).sum())
    table = threshold_table(s, a)
    ok = table["precision"].to_numpy() > precision_above
    rejected = int(table["fn"].to_numpy()[np.flatnonzero(ok)[0]]) if ok.any() else int(a.sum())
    return {"bad_accepted_when_all_good_pass": bad_accepted, "good_rejected_for_precision": rejected}
