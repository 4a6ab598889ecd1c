"""Per-run features, computed once when a case set loads, as numpy arrays.

Every later settings change is array work over these (see :mod:`explorer.core.evaluation.verdicts`);
nothing here depends on the settings a person changes.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

from ..scoring.fields import has_numeric_date, key_fields_reason_best
from ..io.model import CaseSet, Invocation, Run
from ..scoring.normalise import is_empty_answer
from ..scoring.overlap import tokens
from ..scoring.passmark import quantise
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
    * ``key_ok``: bool (N,): every invocation's dates and booking ids agree with a reference,
      numeric dates (``03/04/2026``) read as the case set reads them (``day_first``);
    * ``key_reason``: object (N,): why not, ``""`` when ``key_ok``;
    * ``human``: int8 (N,): 1 acceptable, 0 unacceptable, -1 unlabelled;
    * ``n_invocations``: int32 (N,);
    * ``key_ok_other`` / ``key_reason_other``: the key-field check under the other date reading
      (the same arrays when no run states a numeric date), so switching the reading
      (``Settings.day_first``) is array work: :meth:`key_columns`;
    * ``no_output``: bool (N,): a turn of the run is one the agent never ran
      (:attr:`~explorer.core.io.model.Invocation.no_output`: no call, empty answer); the run
      fails, decided by ``missing turn`` (issue 10, kind 1);
    * ``empty_answer``: bool (N,): a turn's answer is empty after normalisation
      (:func:`~explorer.core.scoring.normalise.is_empty_answer`); the run's response check
      never passes (kind 5);
    * ``empty_reference``: bool (N,): a turn has a reference that is empty after normalisation
      (reported as a warning when the runs load);
    * ``day_first``: the case set's own date reading.
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
    key_ok_other: np.ndarray | None = None
    key_reason_other: np.ndarray | None = None
    no_output: np.ndarray | None = None
    empty_answer: np.ndarray | None = None
    empty_reference: np.ndarray | None = None
    day_first: bool = True

    def __post_init__(self) -> None:
        n = len(self.f1)
        if self.key_ok_other is None:
            object.__setattr__(self, "key_ok_other", self.key_ok)
            object.__setattr__(self, "key_reason_other", self.key_reason)
        for name in ("no_output", "empty_answer", "empty_reference"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.zeros(n, dtype=bool))

    @property
    def n(self) -> int:
        """Number of runs N."""
        return len(self.runs)

    def key_columns(self, day_first: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(``key_ok``, ``key_reason``) with numeric dates read day-first (True) or month-first
        (False); None: the case set's own reading."""
        if day_first is None or bool(day_first) == self.day_first:
            return self.key_ok, self.key_reason
        return self.key_ok_other, self.key_reason_other  # type: ignore[return-value]

    @functools.cached_property
    def f1_q(self) -> np.ndarray:
        """float64 (N,): ``f1`` quantised as every threshold comparison reads it
        (:func:`explorer.core.scoring.passmark.quantise`); computed once."""
        out = quantise(self.f1)
        out.flags.writeable = False
        return out

    @functools.cached_property
    def has_output(self) -> np.ndarray:
        """bool (N,): ``~no_output`` (computed once)."""
        out = ~self.no_output  # type: ignore[operator]
        out.flags.writeable = False
        return out

    @functools.cached_property
    def has_answer(self) -> np.ndarray:
        """bool (N,): ``~empty_answer`` (computed once)."""
        out = ~self.empty_answer  # type: ignore[operator]
        out.flags.writeable = False
        return out

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

    A turn the agent never ran (:attr:`~explorer.core.io.model.Invocation.no_output`) scores 0
    in every mode. Equal to :func:`explorer.core.scoring.trajectory.invocation_matches` for each (the property tests check
    it); faster because names are compared once, a result with args can only hold where the
    result on names holds, and an identical trajectory passes every mode.
    """
    expected, actual = inv.expected_calls, inv.actual_calls
    if inv.no_output:  # a turn the agent never ran scores 0
        return (False, False, False, False, False, False)
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


def invocation_key_reasons(inv: Invocation, id_rx: re.Pattern[str]) -> tuple[str, str]:
    """(reason read day-first, reason read month-first) of :func:`invocation_key_reason`; the
    second is computed only when a text states a numeric date (the only form the reading
    changes), else it is the first."""
    if inv.answer in inv.references:
        return "", ""
    day = key_fields_reason_best(inv.answer, inv.references, True, id_rx)
    if not has_numeric_date(inv.answer) and not any(has_numeric_date(r) for r in inv.references):
        return day, day
    return day, key_fields_reason_best(inv.answer, inv.references, False, id_rx)


NO_OUTPUT, EMPTY_ANSWER, EMPTY_REFERENCE = 1, 2, 4
"""Bits of a :data:`RunRow`'s flags."""

RunRow = tuple[tuple[float, float, float, float, float, float], float, set[str], str, str, int, int, int]
"""One run's features: (six trajectory scores in :func:`invocation_hits` order, F1, names of the
tools called, key-field reason or ``""`` read day-first, the same read month-first, person's
verdict code, number of invocations, flags: ``NO_OUTPUT | EMPTY_ANSWER | EMPTY_REFERENCE`` bits)."""


def run_flags(run: Run) -> int:
    """The :data:`RunRow` flag bits of ``run``: a turn the agent never ran, a turn whose answer is
    empty after normalisation, a turn with an empty reference."""
    flags = 0
    for inv in run.invocations:
        if inv.no_output:
            flags |= NO_OUTPUT | EMPTY_ANSWER
        elif is_empty_answer(inv.answer):
            flags |= EMPTY_ANSWER
        if any(is_empty_answer(r) for r in inv.references):
            flags |= EMPTY_REFERENCE
    return flags


def run_row(run: Run, id_rx: re.Pattern[str]) -> RunRow:
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
    reason_day = reason_month = ""
    for j, inv in enumerate(invs, start=1):
        day, month = invocation_key_reasons(inv, id_rx)
        if day and not reason_day:
            reason_day = f"invocation {j}: {day}" if k > 1 else day
        if month and not reason_month:
            reason_month = f"invocation {j}: {month}" if k > 1 else month
        if reason_day and reason_month:
            break
    return traj, f1, called, reason_day, reason_month, HUMAN_CODES[run.human_verdict], k, run_flags(run)


def features_from_rows(
    runs: Sequence[Run], run_ids: Sequence[str], traj: np.ndarray, f1: np.ndarray, called: Sequence[set[str]] | tuple[tuple[str, ...], np.ndarray],
    key_reason: np.ndarray, human: np.ndarray, n_inv: np.ndarray, *, key_reason_other: np.ndarray | None = None,
    flags: np.ndarray | None = None, day_first: bool = True,
) -> Features:
    """Assemble :class:`Features` from per-run columns: ``traj`` float64 (N, 6) in
    :func:`invocation_hits` order, ``f1`` float64 (N,), ``called`` either one set of tool names
    per run or (tool names, bool (N, T)), ``key_reason`` object (N,) under the reading
    ``day_first`` and ``key_reason_other`` under the other one (None: the same), ``human`` int8,
    ``n_inv`` int32, ``flags`` int (N,) of :data:`RunRow` flag bits (None: none set)."""
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
    key_reason = np.asarray(key_reason, dtype=object)
    key_ok = np.array([r == "" for r in key_reason], dtype=bool)
    if key_reason_other is None or all(a == b for a, b in zip(key_reason_other, key_reason)):
        key_reason_other, key_ok_other = key_reason, key_ok
    else:
        key_reason_other = np.asarray(key_reason_other, dtype=object)
        key_ok_other = np.array([r == "" for r in key_reason_other], dtype=bool)
    bits = np.zeros(n, dtype=np.int8) if flags is None else np.asarray(flags, dtype=np.int8)
    return Features(
        runs=runs,
        run_ids=np.asarray(run_ids, dtype=object),
        trajectory=trajectory,
        f1=np.asarray(f1, dtype=np.float64),
        tool_names=tuple(tool_names),
        tools_called=tools_called,
        key_ok=key_ok,
        key_reason=key_reason,
        human=np.asarray(human, dtype=np.int8),
        n_invocations=np.asarray(n_inv, dtype=np.int32),
        key_ok_other=key_ok_other,
        key_reason_other=key_reason_other,
        no_output=(bits & NO_OUTPUT) != 0,
        empty_answer=(bits & EMPTY_ANSWER) != 0,
        empty_reference=(bits & EMPTY_REFERENCE) != 0,
        day_first=bool(day_first),
    )


def build_features(
    case_set: CaseSet, progress: Callable[[int, int], None] | None = None
) -> Features:
    """Compute every per-run feature of ``case_set`` once (one pass over the runs).

    Cost: O(total calls² per invocation + answer tokens); the only Python loop over runs in the
    product. Key fields are computed under both date readings (the second only for texts with a
    numeric date), ``day_first`` being the set's own; ids use its ``id_pattern``.
    ``progress(done, total)``, when given, is called with runs done and N every 10,000 runs and
    at the end.

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
    reason_day = np.empty(n, dtype=object)
    reason_month = np.empty(n, dtype=object)
    human = np.empty(n, dtype=np.int8)
    n_inv = np.empty(n, dtype=np.int32)
    flags = np.empty(n, dtype=np.int8)
    for i, run in enumerate(runs):
        t, f, c, rd, rm, h, k, b = run_row(run, id_rx)
        traj[i] = t
        f1[i] = f
        called.append(c)
        reason_day[i] = rd
        reason_month[i] = rm
        human[i] = h
        n_inv[i] = k
        flags[i] = b
        if progress and (i + 1) % 10_000 == 0:
            progress(i + 1, n)
    if progress:
        progress(n, n)
    own, other = (reason_day, reason_month) if case_set.day_first else (reason_month, reason_day)
    return features_from_rows(
        runs, [r.id for r in runs], traj, f1, called, own, human, n_inv,
        key_reason_other=other, flags=flags, day_first=case_set.day_first,
    )


def load_warnings(features: Features, shown: int = 5) -> list[str]:
    """Warnings to report when runs load (one line each, ``[]`` when all is well): runs with a
    reference that is empty after normalisation (only spaces and punctuation), which no answer
    can match, since an empty answer never passes (issue 10, kind 5). Names up to ``shown`` runs."""
    out = []
    empty = np.flatnonzero(features.empty_reference)
    if empty.size:
        ids = ", ".join(str(features.run_ids[i]) for i in empty[:shown])
        more = f" (+{empty.size - shown} more)" if empty.size > shown else ""
        runs = "run has" if empty.size == 1 else "runs have"
        out.append(f"{empty.size} {runs} an empty reference (nothing left after normalisation; no answer can match it): {ids}{more}")
    return out
