"""Per-run features, computed once when a case set loads, as numpy arrays.

Every later settings change is array work over these (see :mod:`explorer.core.evaluation.verdicts`);
nothing here depends on the settings a person changes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from ..scoring.arg_match import ARG_MODES
from ..scoring.arg_rules import NO_RULES, ArgRules
from ..scoring.fields import key_fields_reason_best
from ..io.model import CaseSet, Invocation, Run
from ..scoring.overlap import tokens
from ..scoring.trajectory_metrics import N_SCORES, ROW_OF, SCORE_ROWS, canonical, invocation_scores

HUMAN_CODES = {"acceptable": 1, "unacceptable": 0, None: -1}
"""Person's verdict as int8: 1 acceptable, 0 unacceptable, -1 unlabelled."""


@dataclass(frozen=True, eq=False)
class Features:
    """Columns over N runs (index i is ``runs[i]``).

    * ``trajectory``: float64 (S, A, N): run trajectory score in [0, 1] (mean over invocations)
      of family ``SCORE_ROWS[s]`` (exact, in_order, any_order, subset, unordered, precision,
      recall, f1, lcs; :mod:`explorer.core.scoring.trajectory_metrics`) under argument mode
      ``ARG_MODES[a]`` (exact, ignore, subset, superset) and the rules ``arg_rules``; read it with
      :meth:`trajectory_scores`;
    * ``f1``: float64 (N,): mean over invocations of the best unigram F1 over references, in [0, 1];
    * ``tool_names``: the T tool names seen in actual calls, sorted;
    * ``tools_called``: bool (N, T): run i made at least one call to ``tool_names[t]``;
    * ``tool_invocations``: uint16 (N, T): how many of run i's invocations called
      ``tool_names[t]`` (single tool use);
    * ``key_ok``: bool (N,): every invocation's dates and booking ids agree with a reference;
    * ``key_reason``: object (N,): why not, ``""`` when ``key_ok``;
    * ``human``: int8 (N,): 1 acceptable, 0 unacceptable, -1 unlabelled;
    * ``n_invocations``: int32 (N,);
    * ``arg_rules``: the argument rules ``trajectory`` was computed under (the case set's, or
      those given to :func:`build_features`); other rules need :func:`with_arg_rules`;
    * ``day_first``: the case set's date reading (for ``date`` rules and their reasons).
    """

    runs: tuple[Run, ...]
    run_ids: np.ndarray
    trajectory: np.ndarray
    f1: np.ndarray
    tool_names: tuple[str, ...]
    tools_called: np.ndarray
    key_ok: np.ndarray
    key_reason: np.ndarray
    human: np.ndarray
    n_invocations: np.ndarray
    tool_invocations: np.ndarray | None = None
    arg_rules: ArgRules = NO_RULES
    day_first: bool = True

    @property
    def n(self) -> int:
        """Number of runs N."""
        return len(self.runs)

    def trajectory_scores(self, family: str, args: str = "exact", single_tool: str = "") -> np.ndarray:
        """float64 (N,): every run's score in ``family`` (any family or alias) under argument mode
        ``args``; ``single_tool_use`` needs ``single_tool`` (arguments play no part in it: the
        share of a run's invocations that called the tool). A view of ``trajectory`` (do not
        write to it). Raises ValueError for an unknown family or mode."""
        family = canonical(family)
        if family == "single_tool_use":
            return self.single_tool_scores(single_tool)
        if family not in ROW_OF:
            raise ValueError(f"unknown trajectory family {family!r}")
        if args not in ARG_MODES:
            raise ValueError(f"unknown argument mode {args!r}; expected one of {', '.join(ARG_MODES)}")
        return self.trajectory[ROW_OF[family], ARG_MODES.index(args)]

    def single_tool_scores(self, tool: str) -> np.ndarray:
        """float64 (N,): the share of each run's invocations that called ``tool`` (Vertex AI
        trajectory_single_tool_use per invocation, mean over invocations); 0 for a tool no run
        called."""
        if tool not in self.tool_names:
            return np.zeros(self.n, dtype=np.float64)
        t = self.tool_names.index(tool)
        counts = self.tools_called[:, t] if self.tool_invocations is None else self.tool_invocations[:, t]
        return counts.astype(np.float64) / self.n_invocations

    def with_human(self, human: np.ndarray) -> "Features":
        """A copy sharing every array but ``human`` (int8 (N,), values in {-1, 0, 1})."""
        human = np.asarray(human, dtype=np.int8)
        if human.shape != (self.n,):
            raise ValueError(f"human must have shape ({self.n},), got {human.shape}")
        return replace(self, human=human)

    def tool_mask(self, tools: Sequence[str]) -> np.ndarray:
        """bool (N,): run called at least one of ``tools`` (unknown names are ignored)."""
        idx = [self.tool_names.index(t) for t in tools if t in self.tool_names]
        if not idx:
            return np.zeros(self.n, dtype=bool)
        return self.tools_called[:, idx].any(axis=1)


def _token_counts(text: str) -> Counter:
    return Counter(tokens(text))


def invocation_f1(inv: Invocation) -> float:
    """Best unigram F1 of the answer over the references: the value of
    :func:`explorer.core.scoring.overlap.best_f1`, with the answer's tokens counted once and the multiset
    overlap summed directly (min of the two counts per token) instead of building ``cand & ref``."""
    cand = _token_counts(inv.answer)
    n_cand = sum(cand.values())
    best = 0.0
    if n_cand == 0:
        return best
    for ref_text in inv.references:
        ref = _token_counts(ref_text)
        n_ref = sum(ref.values())
        if n_ref == 0:
            continue
        get = ref.get
        overlap = 0
        for word, c in cand.items():
            r = get(word)
            if r:
                overlap += c if c < r else r
        f1 = 2.0 * overlap / (n_cand + n_ref)
        if f1 > best:
            best = f1
    return best


def invocation_key_reason(inv: Invocation, day_first: bool, id_rx: re.Pattern[str]) -> str:
    """:func:`explorer.core.scoring.fields.key_fields_reason_best` for one invocation; an answer equal
    to one of its references agrees with it by definition (same dates, same ids)."""
    if inv.answer in inv.references:
        return ""
    return key_fields_reason_best(inv.answer, inv.references, day_first, id_rx)


RunRow = tuple[tuple[float, ...], float, dict[str, int], str, int, int]
"""One run's features: (the trajectory scores of :func:`run_trajectory`, F1, tool name ->
number of invocations that called it, key-field reason or ``""``, person's verdict code, number
of invocations)."""


def run_trajectory(run: Run, rules: ArgRules = NO_RULES, day_first: bool = True) -> tuple[float, ...]:
    """The run's trajectory scores, ``N_SCORES`` floats in
    :func:`~explorer.core.scoring.trajectory_metrics.invocation_scores` order (family row-major,
    then argument mode): the mean over invocations of each."""
    invs = run.invocations
    if len(invs) == 1:
        return invocation_scores(invs[0], rules, day_first)
    rows = [invocation_scores(inv, rules, day_first) for inv in invs]
    k = len(rows)
    return tuple(sum(col) / k for col in zip(*rows))


def run_row(run: Run, day_first: bool, id_rx: re.Pattern[str], rules: ArgRules = NO_RULES) -> RunRow:
    """Every per-run feature of ``run`` as a plain tuple (see :data:`RunRow`); what
    :func:`build_features` and the parallel loader (:mod:`explorer.core.io.bigload`) store per run."""
    invs = run.invocations
    k = len(invs)
    traj = run_trajectory(run, rules, day_first)
    if k == 1:
        f1 = invocation_f1(invs[0]) / 1
        called = dict.fromkeys({c.name for c in invs[0].actual_calls}, 1)
    else:
        f1 = sum(invocation_f1(inv) for inv in invs) / k
        called = {}
        for inv in invs:
            for name in {c.name for c in inv.actual_calls}:
                called[name] = called.get(name, 0) + 1
    reason = ""
    for j, inv in enumerate(invs, start=1):
        why = invocation_key_reason(inv, day_first, id_rx)
        if why:
            reason = f"invocation {j}: {why}" if k > 1 else why
            break
    return traj, f1, called, reason, HUMAN_CODES[run.human_verdict], k


def tool_counts(called: Sequence[dict[str, int]]) -> tuple[tuple[str, ...], np.ndarray]:
    """(sorted tool names, uint16 (N, T) invocations per run calling each) from one dict per run."""
    n = len(called)
    tool_names = tuple(sorted(set().union(*called))) if n else ()
    tool_index = {t: k for k, t in enumerate(tool_names)}
    counts = np.zeros((n, len(tool_names)), dtype=np.uint16)
    rows = [i for i, names in enumerate(called) for _ in names]
    cols = [tool_index[t] for names in called for t in names]
    counts[rows, cols] = [c for names in called for c in names.values()]
    return tool_names, counts


def features_from_rows(
    runs: Sequence[Run], run_ids: Sequence[str], traj: np.ndarray, f1: np.ndarray,
    called: Sequence[dict[str, int]] | tuple[tuple[str, ...], np.ndarray],
    key_reason: np.ndarray, human: np.ndarray, n_inv: np.ndarray, arg_rules: ArgRules = NO_RULES,
    day_first: bool = True,
) -> Features:
    """Assemble :class:`Features` from per-run columns: ``traj`` float64 (N, ``N_SCORES``) in
    :func:`run_trajectory` order (or already (S, A, N)), ``f1`` float64 (N,), ``called`` either one dict (tool name ->
    invocations calling it) per run or (tool names, (N, T) counts; a bool array counts 1),
    ``key_reason`` object (N,), ``human`` int8, ``n_inv`` int32; ``arg_rules`` the rules ``traj``
    was computed under, with dates read ``day_first``."""
    n = len(f1)
    if isinstance(called, tuple) and len(called) == 2 and isinstance(called[1], np.ndarray):
        tool_names, counts = called
    else:
        tool_names, counts = tool_counts(called)
    counts = np.asarray(counts).astype(np.uint16, copy=False)
    return Features(
        runs=runs,
        run_ids=np.asarray(run_ids, dtype=object),
        trajectory=trajectory_array(traj, n),
        f1=np.asarray(f1, dtype=np.float64),
        tool_names=tuple(tool_names),
        tools_called=counts > 0,
        key_ok=np.array([r == "" for r in key_reason], dtype=bool),
        key_reason=np.asarray(key_reason, dtype=object),
        human=np.asarray(human, dtype=np.int8),
        n_invocations=np.asarray(n_inv, dtype=np.int32),
        tool_invocations=counts,
        arg_rules=arg_rules,
        day_first=day_first,
    )


def trajectory_array(traj: np.ndarray | Sequence[Sequence[float]], n: int) -> np.ndarray:
    """float64 (S, A, N) ``Features.trajectory`` from rows of ``N_SCORES`` scores per run (an
    (S, A, N) array is returned as it is)."""
    arr = np.asarray(traj, dtype=np.float64)
    if arr.ndim == 3 and arr.shape == (len(SCORE_ROWS), len(ARG_MODES), n):
        return arr
    rows = arr.reshape(n, len(SCORE_ROWS), len(ARG_MODES))
    return np.ascontiguousarray(rows.transpose(1, 2, 0))


def build_features(
    case_set: CaseSet, progress: Callable[[int, int], None] | None = None, arg_rules: ArgRules | None = None,
) -> Features:
    """Compute every per-run feature of ``case_set`` once (one pass over the runs).

    Cost: O(total calls² per invocation + answer tokens); the only Python loop over runs in the
    product. Key fields and date rules use the set's ``day_first`` and ``id_pattern``.
    ``arg_rules``: the argument rules the trajectory scores are computed under (default: the
    case set's own ``arg_rules``; rules from ``--arg-rules`` or a settings file replace them).
    ``progress(done, total)``, when given, is called with runs done and N every 10,000 runs and at
    the end.

    A case set loaded by :func:`explorer.core.io.bigload.load_jsonl_features` already carries its
    features (computed in parallel while loading); they are returned as they are when they were
    computed under the same rules, else the trajectory scores are computed again.
    """
    rules = (getattr(case_set, "arg_rules", None) or NO_RULES) if arg_rules is None else arg_rules
    runs = case_set.runs
    ready = getattr(runs, "features", None)
    if isinstance(ready, Features):
        if ready.arg_rules != rules:
            ready = with_arg_rules(ready, rules, case_set.day_first, progress)
        if progress:
            progress(ready.n, ready.n)
        return ready
    n = len(runs)
    id_rx = re.compile(case_set.id_pattern)
    traj = np.empty((n, N_SCORES), dtype=np.float64)
    f1 = np.empty(n, dtype=np.float64)
    called: list[dict[str, int]] = []
    key_reason = np.empty(n, dtype=object)
    human = np.empty(n, dtype=np.int8)
    n_inv = np.empty(n, dtype=np.int32)
    day_first = case_set.day_first
    for i, run in enumerate(runs):
        t, f, c, r, h, k = run_row(run, day_first, id_rx, rules)
        traj[i] = t
        f1[i] = f
        called.append(c)
        key_reason[i] = r
        human[i] = h
        n_inv[i] = k
        if progress and (i + 1) % 10_000 == 0:
            progress(i + 1, n)
    if progress:
        progress(n, n)
    return features_from_rows(runs, [r.id for r in runs], traj, f1, called, key_reason, human, n_inv, rules, day_first)


def with_arg_rules(
    features: Features, arg_rules: ArgRules, day_first: bool | None = None, progress: Callable[[int, int], None] | None = None
) -> Features:
    """``features`` with the trajectory scores computed again under ``arg_rules`` (a Python loop
    over the runs, as at load; every other column is shared). What a change of the argument
    rules costs: rules change which calls match, so they are applied to the features, not in
    :func:`~explorer.core.evaluation.verdicts.evaluate`. ``day_first`` reads dates for ``date``
    rules (default: the features' own, the case set's)."""
    day_first = features.day_first if day_first is None else day_first
    if arg_rules == features.arg_rules and day_first == features.day_first:
        return features
    n = features.n
    traj = np.empty((n, N_SCORES), dtype=np.float64)
    for i, run in enumerate(features.runs):
        traj[i] = run_trajectory(run, arg_rules, day_first)
        if progress and (i + 1) % 10_000 == 0:
            progress(i + 1, n)
    return replace(features, trajectory=trajectory_array(traj, n), arg_rules=arg_rules, day_first=day_first)
