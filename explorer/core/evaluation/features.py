"""Per-run features, computed once when a case set loads, as numpy arrays.

Every later settings change is array work over these (see :mod:`explorer.core.evaluation.verdicts`);
nothing here depends on the settings a person changes.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from ..gcpause import collector_paused
from ..scoring.arg_match import ARG_MODES
from ..scoring.arg_rules import NO_RULES, ArgRules
from ..scoring.fields import IdPatternTooSlow, compile_id_pattern, has_numeric_date, key_fields_reason_best
from ..io.model import CaseSet, Invocation, Run
from ..scoring.normalise import is_empty_answer
from ..scoring.overlap import tokens
from ..scoring.passmark import quantise
from ..scoring.trajectory_metrics import N_SCORES, ROW_OF, SCORE_ROWS, canonical, invocation_scores
from .metrics import PreparedLabels, prepare_labels

HUMAN_CODES = {"acceptable": 1, "unacceptable": 0, None: -1}
"""Person's verdict as int8: 1 acceptable, 0 unacceptable, -1 unlabelled."""


_SHARED_ACROSS_LABELS = ("f1_q", "has_output", "has_answer", "any_no_output", "any_empty_answer", "longest_run_id")
"""``Features`` values computed once that :meth:`Features.with_human` hands on to its copy."""


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
    * ``day_first``: the case set's own date reading (``date`` argument rules read dates so);
    * ``arg_rules``: the argument rules ``trajectory`` was computed under (the case set's, or
      those given to :func:`build_features`); other rules need :func:`with_arg_rules`.
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
    tool_invocations: np.ndarray | None = None
    arg_rules: ArgRules = NO_RULES

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

    def trajectory_scores_copy(self, family: str, args: str, single_tool: str = "") -> np.ndarray:
        """float64 (N,): :meth:`trajectory_scores` as a new writable array of its own (scores stored
        as codes are decoded straight into it, not through the row cache). Raises ValueError as
        :meth:`trajectory_scores`."""
        from .coded import CodedScores

        fam = canonical(family)
        if isinstance(self.trajectory, CodedScores) and fam in ROW_OF and args in ARG_MODES:
            return self.trajectory.decoded_row(ROW_OF[fam], ARG_MODES.index(args))
        return np.array(self.trajectory_scores(family, args, single_tool), dtype=np.float64)

    def trajectory_codes(self, family: str, args: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(values, codes)`` of the scores of ``family`` under ``args`` when they are stored as
        codes (:class:`~explorer.core.evaluation.coded.CodedScores`, issue 14): float64 (K,)
        distinct values and unsigned (N,) codes, ``values[codes]`` being the scores; None when the
        scores are a plain array (or the family is ``single_tool_use``). Raises ValueError for an
        unknown family or mode."""
        from .coded import CodedScores

        family = canonical(family)
        if family == "single_tool_use":
            return None
        if family not in ROW_OF:
            raise ValueError(f"unknown trajectory family {family!r}")
        if args not in ARG_MODES:
            raise ValueError(f"unknown argument mode {args!r}; expected one of {', '.join(ARG_MODES)}")
        if not isinstance(self.trajectory, CodedScores):
            return None
        return self.trajectory.values, self.trajectory.codes[ROW_OF[family], ARG_MODES.index(args)]

    def trajectory_pass(self, family: str, args: str, threshold: float, single_tool: str = "") -> np.ndarray:
        """bool (N,): each run's score in ``family`` under ``args`` reaches ``threshold``
        (``quantise(score) >= threshold``, :mod:`explorer.core.scoring.passmark`; ``threshold``
        as :class:`Settings` stores it, quantised). With the scores stored as codes
        (:class:`~explorer.core.evaluation.coded.CodedScores`, issue 14) the comparison is made
        once per distinct value and looked up. Raises ValueError as :meth:`trajectory_scores`."""
        from .coded import CodedScores

        family = canonical(family)
        if isinstance(self.trajectory, CodedScores) and family in ROW_OF:
            if args not in ARG_MODES:
                raise ValueError(f"unknown argument mode {args!r}; expected one of {', '.join(ARG_MODES)}")
            return self.trajectory.reaches((ROW_OF[family], ARG_MODES.index(args)), threshold)
        return quantise(self.trajectory_scores(family, args, single_tool)) >= threshold

    def trajectory_reach(self, family: str, args: str, thresholds: np.ndarray, single_tool: str = "") -> np.ndarray:
        """intp (N,): how many of ``thresholds`` (increasing, quantised as :class:`Settings`
        stores them) each run's score in ``family`` under ``args`` reaches:
        ``np.searchsorted(thresholds, quantise(score), side="right")``, so the run passes
        ``thresholds[:reach]``. With the scores stored as codes
        (:class:`~explorer.core.evaluation.coded.CodedScores`, issue 14) the search is made once
        per distinct value and looked up: the same counts, without decoding N floats. Raises
        ValueError as :meth:`trajectory_scores`."""
        from .coded import CodedScores

        family = canonical(family)
        if isinstance(self.trajectory, CodedScores) and family in ROW_OF:
            if args not in ARG_MODES:
                raise ValueError(f"unknown argument mode {args!r}; expected one of {', '.join(ARG_MODES)}")
            return self.trajectory.reach((ROW_OF[family], ARG_MODES.index(args)), thresholds)
        return np.searchsorted(thresholds, quantise(self.trajectory_scores(family, args, single_tool)), side="right")

    def single_tool_scores(self, tool: str) -> np.ndarray:
        """float64 (N,): the share of each run's invocations that called ``tool`` (Vertex AI
        trajectory_single_tool_use per invocation, mean over invocations); 0 for a tool no run
        called."""
        if tool not in self.tool_names:
            return np.zeros(self.n, dtype=np.float64)
        t = self.tool_names.index(tool)
        counts = self.tools_called[:, t] if self.tool_invocations is None else self.tool_invocations[:, t]
        return counts.astype(np.float64) / self.n_invocations

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
    def prepared_labels(self) -> PreparedLabels:
        """``human`` prepared once for the outcome codes and agreement of every evaluation
        (:func:`explorer.core.evaluation.metrics.prepare_labels`: the label counts and each run's
        outcome if failed, int8 (N,))."""
        return prepare_labels(self.human)

    @functools.cached_property
    def has_output(self) -> np.ndarray:
        """bool (N,): ``~no_output`` (computed once)."""
        out = ~self.no_output  # type: ignore[operator]
        out.flags.writeable = False
        return out

    @functools.cached_property
    def any_no_output(self) -> bool:
        """A run has a turn the agent never ran (``no_output.any()``, computed once: a pass over
        N that every evaluation asks)."""
        return bool(self.no_output.any())  # type: ignore[union-attr]

    @functools.cached_property
    def any_empty_answer(self) -> bool:
        """A run has an empty answer (``empty_answer.any()``, computed once)."""
        return bool(self.empty_answer.any())  # type: ignore[union-attr]

    @functools.cached_property
    def longest_run_id(self) -> int:
        """Characters of the longest run id (0 with no runs), computed once: the width of the
        runs table's ID column."""
        longest = getattr(self.run_ids, "longest", None)  # a stored text column counts in Arrow
        return int(longest()) if longest is not None else max(map(len, self.run_ids), default=0)

    @functools.cached_property
    def has_answer(self) -> np.ndarray:
        """bool (N,): ``~empty_answer`` (computed once)."""
        out = ~self.empty_answer  # type: ignore[operator]
        out.flags.writeable = False
        return out

    def with_human(self, human: np.ndarray) -> "Features":
        """A copy sharing every array but ``human`` (int8 (N,), values in {-1, 0, 1}); ``self``
        when ``human`` holds the same verdicts. The copy shares the columns computed once that
        do not depend on the verdicts (``f1_q``, ``has_output``, ``has_answer`` and whether any run
        lacks either): each session of a served case set makes its own copy, and at 10M runs
        ``f1_q`` alone is 80 MB.
        Raises ValueError for another shape."""
        human = np.asarray(human, dtype=np.int8)
        if human.shape != (self.n,):
            raise ValueError(f"human must have shape ({self.n},), got {human.shape}")
        if human is self.human or np.array_equal(human, self.human):
            return self
        out = replace(self, human=human)
        for name in _SHARED_ACROSS_LABELS:
            if name in self.__dict__:  # functools.cached_property keeps its value in the instance dict
                out.__dict__[name] = self.__dict__[name]
        return out

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


BATCH_RUNS = 10_000
"""Runs per call of :func:`~explorer.core.evaluation.feature_rows.feature_rows` in :func:`build_features`."""

NO_OUTPUT, EMPTY_ANSWER, EMPTY_REFERENCE = 1, 2, 4
"""Bits of a :data:`RunRow`'s flags."""

RunRow = tuple[tuple[float, ...], float, dict[str, int], str, str, int, int, int]
"""One run's features: (the trajectory scores of :func:`run_trajectory`, F1, tool name ->
number of invocations that called it, key-field reason or ``""`` read day-first, the same read
month-first, person's verdict code, number of invocations, flags: ``NO_OUTPUT | EMPTY_ANSWER |
EMPTY_REFERENCE`` bits)."""


def run_trajectory(run: Run, rules: ArgRules = NO_RULES, day_first: bool = True) -> tuple[float, ...]:
    """The run's trajectory scores, ``N_SCORES`` floats in
    :func:`~explorer.core.scoring.trajectory_metrics.invocation_scores` order (family row-major,
    then argument mode): the mean over invocations of each. A turn the agent never ran scores 0
    in every family."""
    invs = run.invocations
    if len(invs) == 1:
        return invocation_scores(invs[0], rules, day_first)
    rows = [invocation_scores(inv, rules, day_first) for inv in invs]
    k = len(rows)
    return tuple(sum(col) / k for col in zip(*rows))


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


def run_row(run: Run, id_rx: re.Pattern[str], rules: ArgRules = NO_RULES, day_first: bool = True) -> RunRow:
    """Every per-run feature of ``run`` as a plain tuple (see :data:`RunRow`); what
    :func:`build_features` and the parallel loader (:mod:`explorer.core.io.bigload`) store per run.
    Trajectory scores under the argument ``rules``, their dates read ``day_first``."""
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


def tool_counts(called: Sequence[dict[str, int] | set[str]]) -> tuple[tuple[str, ...], np.ndarray]:
    """(sorted tool names, uint16 (N, T) invocations per run calling each) from one dict per run
    (a set of names counts 1 each)."""
    called = [c if isinstance(c, dict) else dict.fromkeys(c, 1) for c in called]
    n = len(called)
    tool_names = tuple(sorted(set().union(*called))) if n else ()
    tool_index = {t: k for k, t in enumerate(tool_names)}
    counts = np.zeros((n, len(tool_names)), dtype=np.uint16)
    rows = [i for i, names in enumerate(called) for _ in names]
    cols = [tool_index[t] for names in called for t in names]
    counts[rows, cols] = [c for names in called for c in names.values()]
    return tool_names, counts


def trajectory_array(traj: np.ndarray | Sequence[Sequence[float]], n: int) -> np.ndarray:
    """float64 (S, A, N) ``Features.trajectory`` from rows of ``N_SCORES`` scores per run (an
    (S, A, N) array is returned as it is)."""
    arr = np.asarray(traj, dtype=np.float64)
    if arr.ndim == 3 and arr.shape == (len(SCORE_ROWS), len(ARG_MODES), n):
        return arr
    rows = arr.reshape(n, len(SCORE_ROWS), len(ARG_MODES))
    return np.ascontiguousarray(rows.transpose(1, 2, 0))


def features_from_rows(
    runs: Sequence[Run], run_ids: Sequence[str], traj: np.ndarray, f1: np.ndarray,
    called: Sequence[dict[str, int]] | tuple[tuple[str, ...], np.ndarray],
    key_reason: np.ndarray, human: np.ndarray, n_inv: np.ndarray, *, key_reason_other: np.ndarray | None = None,
    flags: np.ndarray | None = None, day_first: bool = True, arg_rules: ArgRules = NO_RULES,
) -> Features:
    """Assemble :class:`Features` from per-run columns: ``traj`` float64 (N, ``N_SCORES``) in
    :func:`run_trajectory` order (or already (S, A, N)) under the argument rules ``arg_rules``,
    ``f1`` float64 (N,), ``called`` either one dict (tool name -> invocations calling it) per run
    or (tool names, (N, T) counts; a bool array counts 1), ``key_reason`` object (N,) under the
    reading ``day_first`` and ``key_reason_other`` under the other one (None: the same),
    ``human`` int8, ``n_inv`` int32, ``flags`` int (N,) of :data:`RunRow` flag bits (None: none
    set)."""
    n = len(f1)
    if isinstance(called, tuple) and len(called) == 2 and isinstance(called[1], np.ndarray):
        tool_names, counts = called
    else:
        tool_names, counts = tool_counts(called)
    counts = np.asarray(counts).astype(np.uint16, copy=False)
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
        trajectory=trajectory_array(traj, n),
        f1=np.asarray(f1, dtype=np.float64),
        tool_names=tuple(tool_names),
        tools_called=counts > 0,
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
        tool_invocations=counts,
        arg_rules=arg_rules,
    )


def build_features(
    case_set: CaseSet, progress: Callable[[int, int], None] | None = None, arg_rules: ArgRules | None = None,
) -> Features:
    """Compute every per-run feature of ``case_set`` once (one pass over the runs).

    Cost: O(total calls² per invocation + answer tokens); computed in batches of
    ``BATCH_RUNS`` runs by :func:`~explorer.core.evaluation.feature_rows.feature_rows` (the text
    work as array work over each batch; equal to :func:`run_row` run by run). Key fields are computed under both date readings (the second only for texts with a
    numeric date), ``day_first`` being the set's own; ids use its ``id_pattern``.
    ``arg_rules``: the argument rules the trajectory scores are computed under (default: the
    case set's own ``arg_rules``; rules from ``--arg-rules`` or a settings file replace them;
    ``date`` rules read dates as the set does). ``progress(done, total)``, when given, is called
    with runs done and N after every batch of ``BATCH_RUNS`` runs and at the end.

    A case set loaded by :func:`explorer.core.io.bigload.load_jsonl_features` already carries its
    features (computed in parallel while loading); they are returned as they are when they were
    computed under the same rules, else the trajectory scores are computed again.
    """
    rules = (getattr(case_set, "arg_rules", None) or NO_RULES) if arg_rules is None else arg_rules
    runs = case_set.runs
    ready = getattr(runs, "features", None)
    if isinstance(ready, Features):
        if ready.arg_rules != rules:
            ready = with_arg_rules(ready, rules, progress)
        if progress:
            progress(ready.n, ready.n)
        return ready
    with collector_paused():  # the batches' tuples and lists hold no cycles: 2.2x faster on 32,000 runs
        return _computed_features(case_set, rules, progress)


def _computed_features(case_set: CaseSet, rules: ArgRules, progress: Callable[[int, int], None] | None) -> Features:
    """:func:`build_features` of runs that carry no features yet."""
    from .feature_rows import concat_rows, feature_rows

    runs = case_set.runs
    n = len(runs)
    id_rx = compile_id_pattern(case_set.id_pattern)
    parts = []
    for start in range(0, n, BATCH_RUNS):
        batch = runs[start : start + BATCH_RUNS]
        try:
            parts.append(feature_rows(
                [[inv.plain() for inv in run.invocations] for run in batch], [HUMAN_CODES[run.human_verdict] for run in batch], id_rx,
                rules, case_set.day_first,
            ))
        except IdPatternTooSlow as exc:
            from ..io.errors import LoadError

            raise LoadError(case_set.source or case_set.name, "key_fields.id_pattern", str(exc)) from None
        if progress and start + BATCH_RUNS < n:
            progress(start + BATCH_RUNS, n)
    if progress:
        progress(n, n)
    rows = concat_rows(parts)
    own, other = (rows.reason_day, rows.reason_month) if case_set.day_first else (rows.reason_month, rows.reason_day)
    return features_from_rows(
        runs, [r.id for r in runs], rows.traj, rows.f1, (rows.tool_names, rows.tool_invocations), own, rows.human,
        rows.n_invocations, key_reason_other=other, flags=rows.flags, day_first=case_set.day_first, arg_rules=rules,
    )


def with_arg_rules(
    features: Features, arg_rules: ArgRules, progress: Callable[[int, int], None] | None = None
) -> Features:
    """``features`` with the trajectory scores computed again under ``arg_rules`` (a Python loop
    over the runs, as at load; every other column is shared). What a change of the argument
    rules costs: rules change which calls match, so they are applied to the features, not in
    :func:`~explorer.core.evaluation.verdicts.evaluate`. ``date`` rules read dates as the case set
    does (``features.day_first``; ``Settings.day_first`` does not reach them)."""
    if arg_rules == features.arg_rules:
        return features
    n = features.n
    traj = np.empty((n, N_SCORES), dtype=np.float64)
    for i, run in enumerate(features.runs):
        traj[i] = run_trajectory(run, arg_rules, features.day_first)
        if progress and (i + 1) % 10_000 == 0:
            progress(i + 1, n)
    return replace(features, trajectory=trajectory_array(traj, n), arg_rules=arg_rules)


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
