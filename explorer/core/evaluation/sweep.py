"""Settings sweep: agreement with people for every combination of the scorer's settings at once.

The grid (:data:`FULL_GRID`, issue 12) crosses the trajectory families with the argument modes
and the other settings:

* trajectory: the match families exact, in_order, any_order, subset, unordered; the partial
  scores precision, recall, f1, lcs; and none (``superset`` is any_order's row and ``strict``
  exact's, the same definitions; ``single_tool_use`` joins when ``base.single_tool`` names a
  tool);
* argument mode: exact, ignore, subset, superset (one row, ``exact``, for none and single tool
  use, which read no arguments);
* combine rule (all, mean) × deny-list (off, on) × key fields (off, on);
* trajectory threshold: 0.00..1.00 in steps of 0.05 for a partial score under ``combine="all"``;
  1.0 otherwise (a match family passes at 1.0, as ADK's default; ``mean`` does not read it);
* F1 threshold 0.00..1.00 in steps of 0.01.

5·4·(1+1)·2·2·101 + 4·4·(21+1)·2·2·101 + 1·(1+1)·2·2·101 = 16,160 + 142,208 + 808 = 159,176
settings (8,888 more with single tool use). :data:`ADK_GRID` is the grid of issue 4 (exact,
in_order, any_order, none × compare args off/on × combine × deny × key × F1 = 6,464 settings),
``metric-explorer sweep --grid adk``; the app's sweep tab shows the full grid.

Every row equals what :func:`explorer.core.evaluation.verdicts.evaluate` gives for that setting (the tests
check each one), but the work is not one evaluation per setting. The thresholds are handled by
counting: each run's F1 and trajectory score are placed once among the sorted thresholds
(``np.searchsorted``; for scores stored as codes, once per distinct value), giving how many of
each it reaches. Each labelled run that ran falls in one of four classes (deny-list passed or
failed × key fields passed or failed; every other run in a fifth, never counted), and a gate
(deny × key) is a set of classes. So for each (family, args) row one ``np.bincount`` of the
(trajectory position, F1 position, the person's verdict, class) codes, summed over the classes
of each gate, and a reverse cumulative sum over both threshold axes give the true and false
passes at every pair of thresholds for the four gates at once. Cost: O(N log T) per score +
O(rows · (N + T_traj · T_f1)). (Until issue 14 it was one bincount per gate, four per row, over
an int64 array made per gate: 4x the passes over N and 3 arrays of 8N bytes at a time.)

``combine="mean"`` ignores both thresholds (a run passes when mean(trajectory, F1) >=
``mean_threshold``, 0.75), so its 101 rows per gate are equal; they are listed anyway so the grid
is complete and ties are visible.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from .verdicts import evaluate
from .features import Features
from .settings import COMBINE_RULES, Settings
from ..scoring.arg_match import ARG_MODES
from ..scoring.passmark import lowest_reaching, quantise
from .coded import gather
from ..scoring.trajectory_metrics import DEFINITIONS

N_CLASSES = 5
"""Classes of runs in the sweep: a labelled run that ran, by deny-list and key-field result (4),
and the runs never counted (1)."""
THRESHOLDS: tuple[float, ...] = tuple(quantise(k / 100) for k in range(101))
"""F1 thresholds of the sweep: 0.00, 0.01, ..., 1.00 (each the float ``Settings`` stores)."""
TRAJECTORY_THRESHOLDS: tuple[float, ...] = tuple(quantise(k / 20) for k in range(21))
"""Trajectory thresholds swept for a partial score: 0.00, 0.05, ..., 1.00."""


@dataclass(frozen=True)
class SweepGrid:
    """Which settings a sweep crosses (besides combine, deny-list, key fields and F1 threshold).

    ``families``: trajectory families in grid order (``none`` allowed); ``arg_modes``: argument
    modes crossed with each family that compares arguments; ``arg_free_modes``: those listed for
    a family that reads none (``none``, ``single_tool_use``); ``trajectory_thresholds``:
    increasing values in [0, 1] swept for a partial score under ``combine="all"`` (every other
    row uses 1.0)."""

    families: tuple[str, ...]
    arg_modes: tuple[str, ...]
    arg_free_modes: tuple[str, ...]
    trajectory_thresholds: tuple[float, ...]

    def rows(self, single_tool: str = "") -> list[tuple[str, str, tuple[float, ...], tuple[float, ...]]]:
        """(family, args, trajectory thresholds under ``all``, under ``mean``) in grid order;
        ``single_tool_use`` is added after the partial scores when ``single_tool`` is given."""
        families = list(self.families)
        if single_tool and "single_tool_use" not in families:
            at = families.index("none") if "none" in families else len(families)
            families.insert(at, "single_tool_use")
        out = []
        for fam in families:
            free = fam in ("none", "single_tool_use")
            partial = fam != "none" and DEFINITIONS[fam].kind == "partial"
            for args in (self.arg_free_modes if free else self.arg_modes):
                out.append((fam, args, self.trajectory_thresholds if partial else (1.0,), (1.0,)))
        return out


FULL_GRID = SweepGrid(
    families=("exact", "in_order", "any_order", "subset", "unordered", "precision", "recall", "f1", "lcs", "none"),
    arg_modes=ARG_MODES,
    arg_free_modes=("exact",),
    trajectory_thresholds=TRAJECTORY_THRESHOLDS,
)
"""Every family and argument mode (159,176 settings with the default F1 thresholds)."""
ADK_GRID = SweepGrid(
    families=("exact", "in_order", "any_order", "none"),
    arg_modes=("ignore", "exact"),
    arg_free_modes=("ignore", "exact"),
    trajectory_thresholds=(1.0,),
)
"""ADK's match types × compare args off/on (issue 4's 6,464 settings)."""

DENY_CHECKS: tuple[bool, ...] = (False, True)
"""The deny-list values a sweep crosses by default: off, then on."""


def deny_checks_for(base: Settings | None, features: Features) -> tuple[bool, ...]:
    """The deny-list values worth sweeping for ``base``'s ``deny_tools`` on ``features``:
    :data:`DENY_CHECKS` (off, on) when some run calls a denied tool, else ``(False,)``. A
    deny-list that denies no tool a run calls passes every run, so each "on" setting would repeat
    its "off" one. "No tool to deny" is the same on the page (its deny-tools chooser offers only
    the tools runs call: none chosen, or a set with no calls) and in ``metric-explorer sweep``
    (no ``--deny``, or only tools no run calls)."""
    called = set(features.tool_names)
    return DENY_CHECKS if any(t in called for t in (base.deny_tools if base else ())) else (False,)

SWEEP_COLUMNS = (
    "rank", "trajectory", "args", "compare_args", "combine", "deny_check", "key_fields", "trajectory_threshold",
    "f1_threshold", "agree", "labelled", "false_pass", "false_fail", "true_pass", "true_fail",
)
"""Columns of :func:`sweep`'s table, in order (``compare_args`` is ``args != "ignore"``)."""

SETTING_COLUMNS = ("trajectory", "args", "combine", "deny_check", "key_fields", "trajectory_threshold", "f1_threshold")
"""The columns that together name one setting."""


def _f1_base(base: Settings | None) -> Settings:
    """``base`` (default ``Settings()``) with unigram F1 as the response check: the grid's
    threshold is an F1 threshold, whatever response scorer the person chose elsewhere."""
    base = base or Settings()
    if getattr(base, "response_scorer", "f1") != "f1":
        base = base.with_(response_scorer="f1")
    return base


def n_settings(
    thresholds: Sequence[float] = THRESHOLDS, grid: SweepGrid = FULL_GRID, single_tool: str = "",
    deny_checks: Sequence[bool] = DENY_CHECKS,
) -> int:
    """Size of the grid: for each (family, args) row, (trajectory thresholds under ``all`` + 1
    under ``mean``) × deny × key × len(thresholds). 159,176 for :data:`FULL_GRID` (168,064 with
    single tool use), 6,464 for :data:`ADK_GRID`; half that with one of ``deny_checks``."""
    return sum((len(tt_all) + len(tt_mean)) * len(deny_checks) * 2 * len(thresholds)
               for _, _, tt_all, tt_mean in grid.rows(single_tool))


def _checked(values: Sequence[float], what: str) -> np.ndarray:
    arr = quantise(np.asarray([float(t) for t in values], dtype=np.float64))
    if arr.size == 0 or np.any(np.diff(arr) <= 0) or arr[0] < 0.0 or arr[-1] > 1.0:
        raise ValueError(f"{what} must be increasing values in [0, 1]")
    return arr


SWEEP_THREADS = 2
"""Threads that count the sweep's rows side by side (at most the machine's CPUs)."""
THREADS_FROM_RUNS = 1 << 20
"""Case sets of fewer runs are swept in the calling thread (a row takes under ~15 ms there)."""
BLOCK_RUNS = 1 << 18
"""Runs a sweep row counts at a time: each block's codes, mean scores and pass flags (2 MB at
most) reuse their memory, where whole-N temporaries (80 MB each at 10M runs) were written to
fresh pages and read back (issue 14). At 10M runs 2^16 to 2^18 ran alike in one thread; with two
threads 2^18 was faster (less Python between numpy calls, which holds the GIL): 3.7-3.9 s against
4.0-4.2 s for the full grid, and 4.3-4.7 s at 2^20."""


def _row_counts(
    features: Features, fam: str, args: str, tts: np.ndarray, base: Settings, f1_code: np.ndarray, mean_code: np.ndarray,
    n_thr: int, block_runs: int,
) -> tuple[np.ndarray, np.ndarray]:
    """One (family, args) row of the sweep counted ``block_runs`` runs at a time: int64 counts
    of the (trajectory position, F1 position, verdict, class) codes, length
    ``(len(tts) + 1) * (n_thr + 1) * 2 * N_CLASSES`` (the trajectory position is how many of
    ``tts`` the run's quantised score reaches; all of them for ``none``), and int64 counts of the
    (mean check, verdict, class) codes for ``combine="mean"``, length ``4 * N_CLASSES`` (the
    check ``quantise((score + F1) / 2) >= mean_threshold`` as evaluate computes it; F1 alone for
    ``none``). ``f1_code``: int32 (N,) (F1 position, verdict, class) codes; ``mean_code``: int8
    (N,) (verdict, class) codes."""
    n = features.n
    n_tt = tts.size
    stride = (n_thr + 1) * 2 * N_CLASSES
    counts = np.zeros((n_tt + 1) * stride, dtype=np.int64)
    by_mean = np.zeros(4 * N_CLASSES, dtype=np.int64)
    coded = None if fam == "none" else features.trajectory_codes(fam, args)
    if coded is not None:  # scores stored as codes: thresholds searched once per distinct value
        values, row_codes = coded
        reach_table = np.searchsorted(tts, quantise(values), side="right").astype(np.int64) * stride
    elif fam != "none":
        scores = features.trajectory_scores(fam, args, base.single_tool)  # (N,) float64
    f1, f1_q = features.f1, features.f1_q
    lowest_mean = lowest_reaching(base.mean_threshold)
    for lo in range(0, n, block_runs):
        sl = slice(lo, min(n, lo + block_runs))
        if fam == "none":
            code = f1_code[sl].astype(np.int64)
            code += n_tt * stride
            mean_pass = f1_q[sl] >= base.mean_threshold  # the mean is F1 alone
        else:
            if coded is not None:
                code = gather(reach_table, row_codes[sl])
                mean = gather(values, row_codes[sl])
            else:
                mean = np.array(scores[sl], dtype=np.float64)
                code = np.searchsorted(tts, quantise(mean), side="right").astype(np.int64)
                code *= stride
            code += f1_code[sl]
            mean += f1[sl]
            mean /= 2.0
            mean_pass = mean >= lowest_mean  # quantise(mean) >= mean_threshold (passmark.lowest_reaching)
        counts += np.bincount(code, minlength=counts.size)
        mean_pass_code = mean_pass.view(np.int8) * np.int8(2 * N_CLASSES)
        mean_pass_code += mean_code[sl]
        by_mean += np.bincount(mean_pass_code, minlength=by_mean.size)
    return counts, by_mean


def sweep(
    features: Features, base: Settings | None = None, thresholds: Sequence[float] = THRESHOLDS, grid: SweepGrid = FULL_GRID,
    block_runs: int | None = None, deny_checks: Sequence[bool] = DENY_CHECKS,
) -> pd.DataFrame:
    """Agreement for every setting of ``grid``, best first.

    ``base`` supplies what the grid does not vary: ``deny_tools`` (the tools the deny-list denies
    when it is on), ``mean_threshold`` and ``single_tool`` (single tool use joins the grid when
    it names a tool). The response check is unigram F1 (the grid varies its threshold), whatever
    ``base.response_scorer`` says. ``thresholds`` (F1) must be increasing values in [0, 1].

    Returns a DataFrame with ``SWEEP_COLUMNS``, one row per setting (:func:`n_settings`),
    sorted by most ``agree``, then fewest ``false_pass``, then fewest ``false_fail``, then grid
    order (family and args as in ``grid``, combine all before mean, deny off before on, key
    fields off before on, trajectory threshold then F1 threshold ascending). ``rank`` is 1 for
    the best and equal for rows tied on (agree, false_pass, false_fail), so ties stay visible.
    ``labelled`` is the same in every row (runs the person judged). Counts are ints; thresholds
    float.

    ``block_runs``: runs counted at a time within a row (default :data:`BLOCK_RUNS`; the counts
    are sums over blocks, the same whatever the size).

    ``deny_checks``: the deny-list values crossed, off before on (default both;
    :func:`deny_checks_for` gives ``(False,)`` when no run calls a denied tool, as
    ``metric-explorer sweep`` and the page's sweep tab use: the deny-list then passes every run,
    so each "on" row would repeat its "off" row).

    Raises ValueError when ``thresholds`` or the grid's trajectory thresholds are empty, not
    increasing, or outside [0, 1], or ``block_runs`` is not positive.
    """
    base = _f1_base(base)
    block_runs = BLOCK_RUNS if block_runs is None else int(block_runs)
    if block_runs <= 0:
        raise ValueError("block_runs must be a positive number of runs")
    thr = _checked(thresholds, "thresholds")
    n_thr = thr.size
    human = features.human
    acc = human == 1
    unacc = human == 0
    n_acc = int(np.count_nonzero(acc))
    n_unacc = int(np.count_nonzero(unacc))
    labelled_mask = acc | unacc

    # f1_reach[i] = number of F1 thresholds t <= f1[i] (both quantised, as evaluate compares
    # them): run i passes thresholds[:f1_reach[i]]; an empty answer passes none.
    # (N,) arrays are built in place and in the narrowest type that holds them: at 10M runs each
    # int64 temporary is 80 MB, and the sweep's peak was the served process's (issue 14)
    # f1_reach, int32: the code below stays under (thresholds + 1) * 2 * N_CLASSES
    # (searched a block at a time: ``searchsorted`` gives intp, 80 MB at 10M runs)
    f1_code = np.empty(features.n, dtype=np.int32)
    for lo in range(0, features.n, block_runs):
        f1_code[lo : lo + block_runs] = np.searchsorted(thr, features.f1_q[lo : lo + block_runs], side="right")
    if features.any_empty_answer:
        f1_code[features.empty_answer] = 0
    ran = features.has_output  # a turn the agent never ran fails every setting
    deny_fail = features.tool_mask(sorted(base.deny_tools))
    key_ok = features.key_columns(base.day_first)[0]
    # the class of each run: 0..3 = deny-list failed (2) + key fields failed (1) for a labelled run
    # that ran; 4 = never counted (unlabelled, or the turn never ran). Gate (deny, key) = the
    # classes whose failed checks are off: one bincount per row serves the four gates.
    cls = deny_fail.astype(np.int8) * np.int8(2)
    cls += ~key_ok
    cls[~(ran & labelled_mask)] = N_CLASSES - 1
    gate_classes = {(d, k): [c for c in range(N_CLASSES - 1) if not (d and c & 2) and not (k and c & 1)]
                    for d in (False, True) for k in (False, True)}
    # the F1 position, the verdict and the class in one code; the trajectory position is added per row
    f1_code *= 2
    f1_code += acc
    f1_code *= N_CLASSES
    f1_code += cls
    # for combine="mean": (verdict, class) codes, int8 (< 2 * N_CLASSES); the mean check is added per row
    mean_code = acc.view(np.int8) * np.int8(N_CLASSES)
    mean_code += cls
    del cls

    blocks: list[dict[str, np.ndarray]] = []
    rows = grid.rows(base.single_tool)
    names = {"trajectory": list(dict.fromkeys(r[0] for r in rows)), "args": list(dict.fromkeys(r[1] for r in rows)),
             "combine": list(COMBINE_RULES)}

    def add(fam, args, combine, deny, key, tts, tp, fp):
        # small int codes per block, names looked up once at the end (object arrays per block are slow)
        n = tp.size
        blocks.append({
            "trajectory": np.full(n, names["trajectory"].index(fam), dtype=np.int8),
            "args": np.full(n, names["args"].index(args), dtype=np.int8),
            "combine": np.full(n, names["combine"].index(combine), dtype=np.int8),
            "deny_check": np.full(n, deny), "key_fields": np.full(n, key),
            "trajectory_threshold": np.repeat(tts, n_thr), "f1_threshold": np.tile(thr, tts.size),
            "true_pass": tp.astype(np.int64), "false_pass": fp.astype(np.int64),
        })

    row_tts = [_checked(tt_all, "trajectory thresholds") for _, _, tt_all, _ in rows]

    def count(k: int) -> tuple[np.ndarray, np.ndarray]:
        return _row_counts(features, rows[k][0], rows[k][1], row_tts[k], base, f1_code, mean_code, n_thr, block_runs)

    threads = min(SWEEP_THREADS, os.cpu_count() or 1) if features.n >= THREADS_FROM_RUNS else 1
    if threads > 1:  # numpy's take, bincount and arithmetic release the GIL: rows count side by side
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sweep") as pool:
            row_counts = list(pool.map(count, range(len(rows))))
    else:
        row_counts = [count(k) for k in range(len(rows))]
    for (fam, args, tt_all, tt_mean), tts, (counts, by_mean) in zip(rows, row_tts, row_counts):
        n_tt = tts.size
        counts = counts.reshape(n_tt + 1, n_thr + 1, 2, N_CLASSES)
        by_mean = by_mean.reshape(2, 2, N_CLASSES)
        for combine in COMBINE_RULES:
            for deny in deny_checks:
                for key in (False, True):
                    classes = gate_classes[(deny, key)]
                    if combine == "all":
                        gated = counts[..., classes].sum(axis=-1)  # (trajectory, F1, verdict)
                        # passes at (j, k): runs reaching more than j trajectory and k F1 thresholds
                        suffix = np.cumsum(np.cumsum(gated[::-1, ::-1], axis=0), axis=1)[::-1, ::-1]
                        tp = suffix[1:, 1:, 1].reshape(-1)
                        fp = suffix[1:, 1:, 0].reshape(-1)
                        add(fam, args, combine, deny, key, tts, tp, fp)
                    else:
                        t_mean = np.asarray(tt_mean, dtype=np.float64)
                        tp = np.full(n_thr * t_mean.size, by_mean[1, 1, classes].sum())
                        fp = np.full(n_thr * t_mean.size, by_mean[1, 0, classes].sum())
                        add(fam, args, combine, deny, key, t_mean, tp, fp)
    cols = {name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]}
    blocks.clear()  # the per-block arrays are no longer needed: keep the peak memory down
    for col, values in names.items():
        cols[col] = np.asarray(values, dtype=object)[cols[col]]
    tp, fp = cols["true_pass"], cols["false_pass"]
    ff = n_acc - tp
    tf = n_unacc - fp
    agree = tp + tf
    # sort: most agree, fewest false passes, fewest false fails, then grid order (lexsort is stable,
    # last key is primary).
    grid_order = np.arange(tp.size)
    order = np.lexsort((grid_order, ff, fp, -agree))
    args_col = cols["args"]
    table = pd.DataFrame(
        {
            "trajectory": cols["trajectory"][order],
            "args": args_col[order],
            "compare_args": (args_col != "ignore")[order],
            "combine": cols["combine"][order],
            "deny_check": cols["deny_check"][order],
            "key_fields": cols["key_fields"][order],
            "trajectory_threshold": cols["trajectory_threshold"][order],
            "f1_threshold": cols["f1_threshold"][order],
            "agree": agree[order],
            "labelled": np.full(tp.size, n_acc + n_unacc, dtype=np.int64),
            "false_pass": fp[order],
            "false_fail": ff[order],
            "true_pass": tp[order],
            "true_fail": tf[order],
        }
    )
    key = np.stack([agree[order], fp[order], ff[order]], axis=1)
    new_group = np.ones(len(table), dtype=bool)
    new_group[1:] = np.any(key[1:] != key[:-1], axis=1)
    positions = np.arange(1, len(table) + 1)
    table.insert(0, "rank", np.maximum.accumulate(np.where(new_group, positions, 0)))
    return table


def best(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a :func:`sweep` table tied for first place (``rank == 1``)."""
    return table[table["rank"] == 1]


_FAMILY_ORDER = {f: k for k, f in enumerate((*FULL_GRID.families[:-1], "single_tool_use", "none"))}
_ARGS_ORDER = {a: k for k, a in enumerate(ARG_MODES)}


def heatmap_frame(table: pd.DataFrame, value: str = "agree", **fixed) -> pd.DataFrame:
    """A :func:`sweep` table as a grid for a heatmap: one row per remaining (non-F1-threshold)
    setting combination, one column per F1 threshold, cells ``value`` (``agree``,
    ``false_pass``, ``false_fail``...). ``fixed`` keeps only rows with those values, e.g.
    ``heatmap_frame(t, combine="all", deny_check=True)``. Rows in family order
    (:data:`FULL_GRID`'s), then argument mode (``ARG_MODES``), then the other settings; raises
    KeyError for an unknown column."""
    rows = table
    for col, want in fixed.items():
        rows = rows[rows[col] == want]
    keys = [c for c in SETTING_COLUMNS[:-1] if c not in fixed]
    grid = rows.pivot_table(index=keys, columns="f1_threshold", values=value, aggfunc="first", sort=False)
    rank = {"trajectory": _FAMILY_ORDER, "args": _ARGS_ORDER}
    return grid.sort_index(key=lambda idx: idx.map(lambda v: rank[idx.name].get(v, len(rank[idx.name]))) if idx.name in rank else idx)


def row_settings(row: pd.Series | dict, base: Settings | None = None) -> Settings:
    """The :class:`Settings` one sweep row stands for, with ``deny_tools``, ``mean_threshold``
    and ``single_tool`` from ``base``; ``evaluate(features, row_settings(row))`` reproduces the
    row's counts."""
    base = _f1_base(base)
    return base.with_(
        trajectory=str(row["trajectory"]),
        args=str(row["args"]),
        combine=str(row["combine"]),
        deny_check=bool(row["deny_check"]),
        key_fields=bool(row["key_fields"]),
        trajectory_threshold=float(row["trajectory_threshold"]),
        f1_threshold=float(row["f1_threshold"]),
    )


def sweep_plain(
    features: Features, base: Settings | None = None, thresholds: Sequence[float] = THRESHOLDS, grid: SweepGrid = FULL_GRID,
) -> pd.DataFrame:
    """The same table as :func:`sweep` made the slow way, one :func:`evaluate` per setting.

    For tests and the benchmark only (O(N · settings)).
    """
    base = _f1_base(base)
    rows = []
    for fam, args, tt_all, tt_mean in grid.rows(base.single_tool):
        for combine in COMBINE_RULES:
            for deny in (False, True):
                for key in (False, True):
                    for tt in (tt_all if combine == "all" else tt_mean):
                        for t in thresholds:
                            s = base.with_(
                                trajectory=fam, args=args, combine=combine, deny_check=deny, key_fields=key,
                                trajectory_threshold=tt, f1_threshold=t,
                            )
                            a = evaluate(features, s).summary
                            rows.append((fam, args, args != "ignore", combine, deny, key, s.trajectory_threshold, s.f1_threshold,
                                         a.agree, a.labelled, a.false_pass, a.false_fail, a.true_pass, a.true_fail))
    return pd.DataFrame(rows, columns=list(SWEEP_COLUMNS[1:]))


GROUP_KEYS = ("trajectory", "args", "compare_args", "combine", "deny_check", "key_fields", "trajectory_threshold")
"""The settings a best group shares (all but the F1 threshold); :func:`threshold_ranges` uses those
the table has."""


def threshold_ranges(table: pd.DataFrame) -> list[dict]:
    """Rows of a sweep table (``SWEEP_COLUMNS``, e.g. :func:`best`'s) grouped by the settings other
    than the F1 threshold (the :data:`GROUP_KEYS` columns the table has), in the order the groups
    first appear; each group is a dict of those settings plus ``f1_thresholds``, the thresholds it
    holds as text: runs of consecutive 0.01 steps joined as ``"0.00-0.41"``, single ones as
    ``"0.55"``, separated by ``", "``. Raises KeyError without an ``f1_threshold`` column. Used by
    ``metric-explorer sweep`` and the app's sweep tab."""
    keys = [k for k in GROUP_KEYS if k in table]
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


def distinct_results(table: pd.DataFrame, n: int | None = None) -> pd.DataFrame:
    """One row per distinct result of a :func:`sweep` table (its ``rank`` groups: settings tied
    on agree, false_pass and false_fail), best first, the first ``n`` of them (all when None).
    Each row: ``rank``, ``settings`` (how many settings give that result), the settings of its
    first row in the table's order (``trajectory`` ... ``trajectory_threshold``, the
    :data:`GROUP_KEYS` the table has), ``f1_thresholds`` (the F1 thresholds at which those
    settings give it, as :func:`threshold_ranges` writes them: ``"0.00-0.41"``), ``groups`` (how
    many such settings-but-the-F1-threshold groups tie) and the result's columns (``agree``,
    ``labelled``, ``false_pass``, ``false_fail``, and ``agreement_low`` / ``agreement_high`` when
    the table has them). Counts are the table's own. The sweep table of ``metric-explorer
    sweep``: 20 rows of one tie (``--grid adk`` on the bundled runs: 84 settings at 9/10) listed
    one result and hid the others."""
    rank = table["rank"].to_numpy()
    starts = np.flatnonzero(np.r_[True, rank[1:] != rank[:-1]]) if len(rank) else np.array([], dtype=np.int64)
    ends = np.r_[starts[1:], len(rank)]
    keys = [k for k in GROUP_KEYS if k in table]
    results = [c for c in ("agree", "labelled", "false_pass", "false_fail", "agreement_low", "agreement_high") if c in table]
    rows = []
    for start, end in list(zip(starts, ends))[: n if n is not None else len(starts)]:
        tie = table.iloc[start:end]
        groups = threshold_ranges(tie)
        first = tie.iloc[0]
        rows.append({"rank": int(first["rank"]), "settings": end - start, **{k: first[k] for k in keys},
                     "f1_thresholds": groups[0]["f1_thresholds"], "groups": len(groups), **{c: first[c] for c in results}})
    return pd.DataFrame(rows, columns=["rank", "settings", *keys, "f1_thresholds", "groups", *results])
