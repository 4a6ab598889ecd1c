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

from ..scoring.fields import key_fields_reason_best
from ..io.model import CaseSet, Invocation, Run
from ..scoring.overlap import tokens
from ..scoring.trajectory import MATCH_MODES, any_order_match, in_order_match

HUMAN_CODES = {"acceptable": 1, "unacceptable": 0, None: -1}
"""Person's verdict as int8: 1 acceptable, 0 unacceptable, -1 unlabelled."""


@dataclass(frozen=True, eq=False)
class Features:
    """Columns over N runs (index i is ``runs[i]``).

    * ``trajectory``: float64 (3, 2, N): run trajectory score (mean of per-invocation 1/0) for
      mode ``MATCH_MODES[m]`` (exact, in_order, any_order) and ``compare_args`` index a (0 = ignore
      args, 1 = compare args);
    * ``f1``: float64 (N,): mean over invocations of the best unigram F1 over references, in [0, 1];
    * ``tool_names``: the T tool names seen in actual calls, sorted;
    * ``tools_called``: bool (N, T): run i made at least one call to ``tool_names[t]``;
    * ``key_ok``: bool (N,): every invocation's dates and booking ids agree with a reference;
    * ``key_reason``: object (N,): why not, ``""`` when ``key_ok``;
    * ``human``: int8 (N,): 1 acceptable, 0 unacceptable, -1 unlabelled;
    * ``n_invocations``: int32 (N,).
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

    @property
    def n(self) -> int:
        """Number of runs N."""
        return len(self.runs)

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


def _names_in_order(expected: list[str], actual: list[str]) -> bool:
    """Greedy subsequence test on names (ADK IN_ORDER with ``ignore_args``)."""
    it = iter(actual)
    return all(name in it for name in expected)


def _names_any_order(expected: list[str], actual: list[str]) -> bool:
    """Each expected name consumes a distinct equal actual name (ADK ANY_ORDER, ``ignore_args``).
    Name equality is an equivalence, so ADK's greedy pairing succeeds iff the multiset of
    expected names is contained in the actual one."""
    if len(expected) > len(actual):
        return False
    need = Counter(expected)
    have = Counter(actual)
    return all(have[name] >= k for name, k in need.items())


def invocation_hits(inv: Invocation) -> tuple[bool, bool, bool, bool, bool, bool]:
    """The six 1/0 trajectory results of one invocation, ordered as ``Features.trajectory``'s
    first two axes flattened: (exact, ignore args), (exact, args), (in_order, ignore), (in_order,
    args), (any_order, ignore), (any_order, args).

    Equal to :func:`explorer.core.scoring.trajectory.invocation_matches` for each (the property tests check
    it); faster because names are compared once, a result with args can only hold where the
    result on names holds, and an identical trajectory passes every mode.
    """
    expected, actual = inv.expected_calls, inv.actual_calls
    if len(expected) == len(actual) and all(
        a.name == e.name and (a.args is e.args or dict(a.args) == dict(e.args)) for a, e in zip(actual, expected)
    ):
        return (True, True, True, True, True, True)
    names_e = [c.name for c in expected]
    names_a = [c.name for c in actual]
    exact_n = names_e == names_a
    in_order_n = _names_in_order(names_e, names_a)
    any_order_n = _names_any_order(names_e, names_a)
    # with args compared, a match needs the names to match first (same greedy, stricter equality)
    exact_a = False  # equal names and equal args would have taken the fast path above
    in_order_a = in_order_n and in_order_match(expected, actual, True)
    any_order_a = any_order_n and any_order_match(expected, actual, True)
    return (exact_n, exact_a, in_order_n, in_order_a, any_order_n, any_order_a)


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


RunRow = tuple[tuple[float, float, float, float, float, float], float, set[str], str, int, int]
"""One run's features: (six trajectory scores in :func:`invocation_hits` order, F1, names of the
tools called, key-field reason or ``""``, person's verdict code, number of invocations)."""


def run_row(run: Run, day_first: bool, id_rx: re.Pattern[str]) -> RunRow:
    """Every per-run feature of ``run`` as a plain tuple (see :data:`RunRow`); what
    :func:`build_features` and the parallel loader (:mod:`explorer.core.io.bigload`) store per run."""
    invs = run.invocations
    k = len(invs)
    if k == 1:
        inv = invs[0]
        traj = tuple(float(h) for h in invocation_hits(inv))
        f1 = invocation_f1(inv) / 1
    else:
        hits = [invocation_hits(inv) for inv in invs]
        traj = tuple(sum(h[j] for h in hits) / k for j in range(6))
        f1 = sum(invocation_f1(inv) for inv in invs) / k
    called = {c.name for inv in invs for c in inv.actual_calls}
    reason = ""
    for j, inv in enumerate(invs, start=1):
        why = invocation_key_reason(inv, day_first, id_rx)
        if why:
            reason = f"invocation {j}: {why}" if k > 1 else why
            break
    return traj, f1, called, reason, HUMAN_CODES[run.human_verdict], k


def features_from_rows(
    runs: Sequence[Run], run_ids: Sequence[str], traj: np.ndarray, f1: np.ndarray, called: Sequence[set[str]] | tuple[tuple[str, ...], np.ndarray],
    key_reason: np.ndarray, human: np.ndarray, n_inv: np.ndarray,
) -> Features:
    """Assemble :class:`Features` from per-run columns: ``traj`` float64 (N, 6) in
    :func:`invocation_hits` order, ``f1`` float64 (N,), ``called`` either one set of tool names
    per run or (tool names, bool (N, T)), ``key_reason`` object (N,), ``human`` int8, ``n_inv`` int32."""
    n = len(f1)
    if isinstance(called, tuple) and len(called) == 2 and isinstance(called[1], np.ndarray):
        tool_names, tools_called = called
    else:
        tool_names = tuple(sorted(set().union(*called))) if n else ()
        tool_index = {t: k for k, t in enumerate(tool_names)}
        tools_called = np.zeros((n, len(tool_names)), dtype=bool)
        rows = [i for i, names in enumerate(called) for _ in names]
        cols = [tool_index[t] for names in called for t in names]
        tools_called[rows, cols] = True
    trajectory = np.ascontiguousarray(np.asarray(traj, dtype=np.float64).reshape(n, len(MATCH_MODES), 2).transpose(1, 2, 0))
    return Features(
        runs=runs,
        run_ids=np.asarray(run_ids, dtype=object),
        trajectory=trajectory,
        f1=np.asarray(f1, dtype=np.float64),
        tool_names=tuple(tool_names),
        tools_called=tools_called,
        key_ok=np.array([r == "" for r in key_reason], dtype=bool),
        key_reason=np.asarray(key_reason, dtype=object),
        human=np.asarray(human, dtype=np.int8),
        n_invocations=np.asarray(n_inv, dtype=np.int32),
    )


def build_features(
    case_set: CaseSet, progress: Callable[[int, int], None] | None = None
) -> Features:
    """Compute every per-run feature of ``case_set`` once (one pass over the runs).

    Cost: O(total calls² per invocation + answer tokens); the only Python loop over runs in the
    product. Key fields use the set's ``day_first`` and ``id_pattern``. ``progress(done, total)``,
    when given, is called with runs done and N every 10,000 runs and at the end.

    A case set loaded by :func:`explorer.core.io.bigload.load_jsonl_features` already carries its
    features (computed in parallel while loading); they are returned as they are.
    """
    runs = case_set.runs
    ready = getattr(runs, "features", None)
    if isinstance(ready, Features):
        if progress:
            progress(ready.n, ready.n)
        return ready
    n = len(runs)
    id_rx = re.compile(case_set.id_pattern)
    traj = np.empty((n, 6), dtype=np.float64)
    f1 = np.empty(n, dtype=np.float64)
    called: list[set[str]] = []
    key_reason = np.empty(n, dtype=object)
    human = np.empty(n, dtype=np.int8)
    n_inv = np.empty(n, dtype=np.int32)
    day_first = case_set.day_first
    for i, run in enumerate(runs):
        t, f, c, r, h, k = run_row(run, day_first, id_rx)
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
    return features_from_rows(runs, [r.id for r in runs], traj, f1, called, key_reason, human, n_inv)
