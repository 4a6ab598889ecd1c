"""Settings sweep: agreement with people for every combination of the scorer's settings at once.

The grid (issue 4, "Settings sweep"): trajectory mode (exact, in_order, any_order, none) ×
compare args (off, on) × combine rule (all, mean) × deny-list (off, on) × key fields (off, on) ×
F1 threshold 0.00..1.00 in steps of 0.01 — 4·2·2·2·2·101 = 6,464 settings.

Every row equals what :func:`explorer.core.evaluation.verdicts.evaluate` gives for that setting (the tests
check each one), but the work is not 6,464 evaluations. The F1 threshold is the only setting with
many values, so it is handled by counting: each run's F1 is placed once among the sorted
thresholds (``np.searchsorted``), giving the number of thresholds it reaches; then for each of
the 32 "gates" (mode × args × deny × key) one ``np.bincount`` of those positions, split by the
person's verdict, and a reverse cumulative sum give the true and false passes at every threshold.
Cost: O(N log T) once + O(32·N + 32·T), not O(N · 6,464).

``combine="mean"`` ignores the F1 threshold (a run passes when mean(trajectory, F1) >=
``mean_threshold``, 0.75), so its 101 rows per gate are equal; they are listed anyway so the grid
is complete and ties are visible.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .verdicts import evaluate
from .features import Features
from .settings import COMBINE_RULES, Settings
from ..scoring.passmark import quantise
from ..scoring.trajectory import MATCH_MODES, TRAJECTORY_MODES

THRESHOLDS: tuple[float, ...] = tuple(quantise(k / 100) for k in range(101))
"""F1 thresholds of the sweep: 0.00, 0.01, ..., 1.00 (each the float ``Settings`` stores)."""

SWEEP_COLUMNS = (
    "rank", "trajectory", "compare_args", "combine", "deny_check", "key_fields", "f1_threshold",
    "agree", "labelled", "false_pass", "false_fail", "true_pass", "true_fail",
)
"""Columns of :func:`sweep`'s table, in order."""

SETTING_COLUMNS = ("trajectory", "compare_args", "combine", "deny_check", "key_fields", "f1_threshold")
"""The columns that together name one setting."""


def _f1_base(base: Settings | None) -> Settings:
    """``base`` (default ``Settings()``) with unigram F1 as the response check: the grid's
    threshold is an F1 threshold, whatever response scorer the person chose elsewhere."""
    base = base or Settings()
    if getattr(base, "response_scorer", "f1") != "f1":
        base = base.with_(response_scorer="f1")
    return base


def n_settings(thresholds: Sequence[float] = THRESHOLDS) -> int:
    """Size of the grid: 4 modes × 2 × 2 × 2 × 2 × len(thresholds) (6,464 for the default)."""
    return len(TRAJECTORY_MODES) * 2 * len(COMBINE_RULES) * 2 * 2 * len(thresholds)


def sweep(features: Features, base: Settings | None = None, thresholds: Sequence[float] = THRESHOLDS) -> pd.DataFrame:
    """Agreement for every setting of the grid, best first.

    ``base`` supplies what the grid does not vary: ``deny_tools`` (the tools the deny-list denies
    when it is on) and ``mean_threshold``. The response check is unigram F1 (the grid varies its
    threshold), whatever ``base.response_scorer`` says. ``thresholds`` must be increasing values in [0, 1].

    Returns a DataFrame with ``SWEEP_COLUMNS``, one row per setting (6,464 by default), sorted by
    most ``agree``, then fewest ``false_pass``, then fewest ``false_fail``, then grid order (mode
    as in ``TRAJECTORY_MODES``, compare args off before on, combine all before mean, deny off
    before on, key fields off before on, threshold ascending). ``rank`` is 1 for the best and
    equal for rows tied on (agree, false_pass, false_fail), so ties stay visible. ``labelled`` is
    the same in every row (runs the person judged). Counts are ints; ``f1_threshold`` float.

    Raises ValueError when ``thresholds`` is empty, not increasing, or outside [0, 1].
    """
    base = _f1_base(base)
    thr = quantise(np.asarray([float(t) for t in thresholds], dtype=np.float64))
    if thr.size == 0 or np.any(np.diff(thr) <= 0) or thr[0] < 0.0 or thr[-1] > 1.0:
        raise ValueError("thresholds must be increasing values in [0, 1]")
    n_thr = thr.size
    human = features.human
    acc = human == 1
    unacc = human == 0
    n_acc = int(np.count_nonzero(acc))
    n_unacc = int(np.count_nonzero(unacc))
    labelled_mask = acc | unacc

    # reach[i] = number of thresholds t with t <= f1[i] (both quantised, as evaluate compares
    # them): run i passes thresholds[:reach[i]]; an empty answer passes none.
    reach = np.searchsorted(thr, features.f1_q, side="right").astype(np.int64)
    if features.empty_answer.any():  # type: ignore[union-attr]
        reach[features.empty_answer] = 0
    # one code per labelled run: 2*reach + (1 if acceptable); bincount per gate gives both counts.
    code = 2 * reach + acc.astype(np.int64)
    n_codes = 2 * (n_thr + 1)

    true = np.ones(features.n, dtype=bool)
    ran = features.has_output  # a turn the agent never ran fails every setting
    deny_fail = features.tool_mask(sorted(base.deny_tools))
    key_ok = features.key_columns(base.day_first)[0]
    hard_by = {(d, k): ran & (~deny_fail if d else true) & (key_ok if k else true) for d in (False, True) for k in (False, True)}

    blocks: list[dict[str, np.ndarray]] = []
    for mode in TRAJECTORY_MODES:
        for compare_args in (False, True):
            if mode == "none":
                traj = None
                traj_pass = true
            else:
                traj = features.trajectory[MATCH_MODES.index(mode), int(compare_args)]
                traj_pass = traj >= 1.0
            for combine in COMBINE_RULES:
                if combine == "mean":
                    mean = features.f1 if traj is None else (traj + features.f1) / 2.0
                    mean_pass = quantise(mean) >= base.mean_threshold
                for deny in (False, True):
                    for key in (False, True):
                        hard = hard_by[(deny, key)]
                        if combine == "all":
                            gate = hard & traj_pass & labelled_mask
                            # runs outside the gate go to an extra last bin (arithmetic, not a
                            # masked selection: a random mask costs branch misses)
                            gated = code + (n_codes - code) * ~gate
                            counts = np.bincount(gated, minlength=n_codes + 1)[:n_codes].reshape(n_thr + 1, 2)
                            # passes at threshold j: runs with reach > j -> suffix sums over reach.
                            suffix = np.cumsum(counts[::-1], axis=0)[::-1]
                            tp = suffix[1:, 1]
                            fp = suffix[1:, 0]
                        else:
                            passed = hard & mean_pass
                            tp = np.full(n_thr, np.count_nonzero(passed & acc))
                            fp = np.full(n_thr, np.count_nonzero(passed & unacc))
                        blocks.append(
                            {
                                "trajectory": np.full(n_thr, mode, dtype=object),
                                "compare_args": np.full(n_thr, compare_args),
                                "combine": np.full(n_thr, combine, dtype=object),
                                "deny_check": np.full(n_thr, deny),
                                "key_fields": np.full(n_thr, key),
                                "f1_threshold": thr,
                                "true_pass": tp.astype(np.int64),
                                "false_pass": fp.astype(np.int64),
                            }
                        )
    cols = {name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]}
    tp, fp = cols["true_pass"], cols["false_pass"]
    ff = n_acc - tp
    tf = n_unacc - fp
    agree = tp + tf
    # sort: most agree, fewest false passes, fewest false fails, then grid order (lexsort is stable,
    # last key is primary).
    grid_order = np.arange(tp.size)
    order = np.lexsort((grid_order, ff, fp, -agree))
    table = pd.DataFrame(
        {
            "trajectory": cols["trajectory"],
            "compare_args": cols["compare_args"],
            "combine": cols["combine"],
            "deny_check": cols["deny_check"],
            "key_fields": cols["key_fields"],
            "f1_threshold": cols["f1_threshold"],
            "agree": agree,
            "labelled": np.full(tp.size, n_acc + n_unacc, dtype=np.int64),
            "false_pass": fp,
            "false_fail": ff,
            "true_pass": tp,
            "true_fail": tf,
        }
    ).iloc[order].reset_index(drop=True)
    key = table[["agree", "false_pass", "false_fail"]].to_numpy()
    new_group = np.ones(len(table), dtype=bool)
    new_group[1:] = np.any(key[1:] != key[:-1], axis=1)
    positions = np.arange(1, len(table) + 1)
    table.insert(0, "rank", np.maximum.accumulate(np.where(new_group, positions, 0)))
    return table


def best(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a :func:`sweep` table tied for first place (``rank == 1``)."""
    return table[table["rank"] == 1]


def heatmap_frame(table: pd.DataFrame, value: str = "agree", **fixed) -> pd.DataFrame:
    """A :func:`sweep` table as a grid for a heatmap: one row per remaining (non-threshold)
    setting combination, one column per F1 threshold, cells ``value`` (``agree``,
    ``false_pass``, ``false_fail``...). ``fixed`` keeps only rows with those values, e.g.
    ``heatmap_frame(t, combine="all", deny_check=True)``. Rows in grid order; raises KeyError
    for an unknown column."""
    rows = table
    for col, want in fixed.items():
        rows = rows[rows[col] == want]
    keys = [c for c in SETTING_COLUMNS[:-1] if c not in fixed]
    grid = rows.pivot_table(index=keys, columns="f1_threshold", values=value, aggfunc="first", sort=False)
    order = {m: k for k, m in enumerate(TRAJECTORY_MODES)}
    return grid.sort_index(key=lambda idx: idx.map(order) if idx.name == "trajectory" else idx)


def row_settings(row: pd.Series | dict, base: Settings | None = None) -> Settings:
    """The :class:`Settings` one sweep row stands for, with ``deny_tools`` and ``mean_threshold``
    from ``base``; ``evaluate(features, row_settings(row))`` reproduces the row's counts."""
    base = _f1_base(base)
    return base.with_(
        trajectory=str(row["trajectory"]),
        compare_args=bool(row["compare_args"]),
        combine=str(row["combine"]),
        deny_check=bool(row["deny_check"]),
        key_fields=bool(row["key_fields"]),
        f1_threshold=float(row["f1_threshold"]),
    )


def sweep_plain(features: Features, base: Settings | None = None, thresholds: Sequence[float] = THRESHOLDS) -> pd.DataFrame:
    """The same table as :func:`sweep` made the slow way, one :func:`evaluate` per setting.

    For tests and the benchmark only (O(N · settings)).
    """
    base = _f1_base(base)
    rows = []
    for mode in TRAJECTORY_MODES:
        for compare_args in (False, True):
            for combine in COMBINE_RULES:
                for deny in (False, True):
                    for key in (False, True):
                        for t in thresholds:
                            s = base.with_(
                                trajectory=mode, compare_args=compare_args, combine=combine,
                                deny_check=deny, key_fields=key, f1_threshold=t,
                            )
                            a = evaluate(features, s).summary
                            rows.append((mode, compare_args, combine, deny, key, s.f1_threshold, a.agree, a.labelled,
                                         a.false_pass, a.false_fail, a.true_pass, a.true_fail))
    return pd.DataFrame(rows, columns=list(SWEEP_COLUMNS[1:]))


def threshold_ranges(table: pd.DataFrame) -> list[dict]:
    """Rows of a sweep table (``SWEEP_COLUMNS``, e.g. :func:`best`'s) grouped by the settings other
    than the F1 threshold, in the order the groups first appear; each group is a dict of those five
    settings plus ``f1_thresholds``, the thresholds it holds as text: runs of consecutive 0.01 steps
    joined as ``"0.00-0.41"``, single ones as ``"0.55"``, separated by ``", "``. Raises KeyError
    when a setting column is missing. Used by ``metric-explorer sweep`` and the app's sweep tab."""
    keys = list(SETTING_COLUMNS[:-1])
    out = []
    for values, group in table.groupby(keys, sort=False):
        steps = sorted(int(round(t * 100)) for t in group["f1_threshold"])
        spans, start, prev = [], steps[0], steps[0]
        for s in steps[1:] + [None]:
            if s is not None and s == prev + 1:
                prev = s
                continue
            spans.append(f"{start / 100:.2f}" if start == prev else f"{start / 100:.2f}-{prev / 100:.2f}")
            if s is not None:
                start = prev = s
        out.append({**dict(zip(keys, values)), "f1_thresholds": ", ".join(spans)})
    return out
