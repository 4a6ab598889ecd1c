"""Applying settings to features: vectorised verdicts, outcomes, reasons and a summary.

:func:`evaluate` is numpy work over the arrays of :class:`~explorer.core.evaluation.features.Features`
(no Python loop over runs). Reasons are text, so :func:`reasons` builds them only for the rows
asked for (a table page, the CLI's output).

Check order (the first failing check *decides* the verdict): a turn the agent never ran first
(``missing turn``: no call and an empty answer, :attr:`~explorer.core.io.model.Invocation.no_output`;
always on, in every combine rule), then the hard checks, deny-list then key fields, then
trajectory, then F1 (``combine="all"``) or the mean (``combine="mean"``). An answer empty after
normalisation never passes the response check (``empty answer``, with every scorer). Scores
reach a threshold by :func:`explorer.core.scoring.passmark.reaches` (equal passes).
With ``Settings.response_scorer`` other than ``f1`` the response check is that scorer's (a
:class:`~explorer.core.evaluation.response_features.ResponseFeatures` column), and ``decided_by`` names the
scorer, or for the cascade the stage that failed the run.
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from .features import Features
from ..gcpause import collector_paused
from ..scoring.cascade import STAGES
from .metrics import Agreement, PreparedLabels, agreement_from_counts, outcomes_of
from .coded import lookup_bool
from .columns_on_read import ColumnOnRead, mean_check, mean_on_read, trajectory_on_read
from .response_features import ResponseCheck, ResponseFeatures
from ..scoring.normalise import is_empty_answer
from .settings import Settings
from ..io.model import Run
from ..scoring.arg_match import ArgMatcher
from ..scoring.cascade import EMPTY_REASON, WINDOW_NOTE
from ..scoring.passmark import lowest_reaching, quantise, show_pair, show_score
from ..scoring.trajectory import NO_OUTPUT_REASON, explain_trajectory, family_label, rule_notes
from ..scoring.trajectory_metrics import DEFINITIONS, canonical

DECIDED_BY = (
    "deny-list", "key fields", "trajectory", "F1", "mean", "all checks",
    "rouge1", "exact", "cosine", "normalized-exact", "field", "semantic", "judge", "needs review",
    "empty answer", "missing turn",
)
"""Names of ``Evaluation.decided_by`` codes: 0..5 as before; 6..8 the response check of scorer
``rouge1`` / ``exact`` / ``cosine``; 9..14 the cascade stage that failed the run (codes
``9 + cascade.STAGES`` index; ``result_table`` names the detailed stage, e.g. ``field:date``);
14 ``empty answer`` also for every other scorer; 15 ``missing turn``."""
_SCORER_CODE = {"f1": 3, "rouge1": 6, "exact": 7, "cosine": 8}
_CASCADE_BASE = 9
_EMPTY = DECIDED_BY.index("empty answer")
_MISSING = DECIDED_BY.index("missing turn")
ROUGE_SCRIPT_NOTE = "ADK's ROUGE-1 reads only a-z and 0-9, and this text is not Latin script"
"""Said in the reason of a run whose ROUGE-1 is 0 because of the script it is written in."""
OUTCOMES = ("agree", "false pass", "false fail", "unlabelled")
"""Names of ``Evaluation.outcome`` codes 0..3."""
_DENY, _KEY, _TRAJ, _F1, _MEAN, _ALL = range(6)
_REVIEW_STAGE = STAGES.index("needs review")


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The evaluator's result for every run under one ``settings``.

    Arrays have shape (N,). ``trajectory_score`` and ``mean_score`` are NaN where not used
    (trajectory ``none``; combine ``all``). They and the passes ``trajectory_pass`` and
    ``f1_pass`` are made when first read (:mod:`explorer.core.evaluation.columns_on_read`: at
    10M runs a score column is 80 MB a settings change would make for nothing, and the verdicts
    read the passes a block at a time), and the ``..._at(index)`` methods make only the runs
    asked for. ``decided_by`` and ``outcome`` are int8 codes into ``DECIDED_BY`` and
    ``OUTCOMES``. ``f1`` / ``f1_pass`` are unigram F1 and "F1 reaches the threshold and the answer
    is not empty" always; ``response`` is the chosen scorer's check when it is not ``f1`` (None
    otherwise), and then ``passed`` uses ``response.passed`` in place of ``f1_pass``.
    """

    settings: Settings
    trajectory_on_read: ColumnOnRead
    trajectory_pass_on_read: ColumnOnRead
    f1: np.ndarray
    f1_pass_on_read: ColumnOnRead
    deny_pass: np.ndarray
    key_pass: np.ndarray
    mean_on_read: ColumnOnRead
    passed: np.ndarray
    decided_by: np.ndarray
    outcome: np.ndarray
    summary: Agreement
    response: ResponseCheck | None = None

    @property
    def trajectory_score(self) -> np.ndarray:
        """float64 (N,): each run's trajectory score (NaN with trajectory ``none``)."""
        return self.trajectory_on_read.whole()

    @property
    def mean_score(self) -> np.ndarray:
        """float64 (N,): mean(trajectory score, response value) under ``combine="mean"`` (NaN
        under ``all``)."""
        return self.mean_on_read.whole()

    @property
    def trajectory_pass(self) -> np.ndarray:
        """bool (N,): each run's trajectory score reaches ``trajectory_threshold`` (all True with
        trajectory ``none``). Under ``combine="mean"`` the verdict does not use it, so it is made
        when first read."""
        return self.trajectory_pass_on_read.whole()

    @property
    def f1_pass(self) -> np.ndarray:
        """bool (N,): F1 reaches ``f1_threshold`` and the answer is not empty. Under
        ``combine="mean"`` the verdict does not use it, so it is made when first read."""
        return self.f1_pass_on_read.whole()

    def trajectory_pass_at(self, index):
        """``trajectory_pass[index]`` (an int gives a bool)."""
        return self.trajectory_pass_on_read.at(index)

    def f1_pass_at(self, index):
        """``f1_pass[index]`` (an int gives a bool), made for those runs only."""
        return self.f1_pass_on_read.at(index)

    def trajectory_score_at(self, index):
        """``trajectory_score[index]`` (an int gives a float), made for those runs only."""
        return self.trajectory_on_read.at(index)

    def mean_score_at(self, index):
        """``mean_score[index]``, made for those runs only."""
        return self.mean_on_read.at(index)

    @property
    def response_score(self) -> np.ndarray:
        """float64 (N,): the response scorer's score (F1 by default; cascade: cosine, NaN where
        an earlier stage decided)."""
        return self.f1 if self.response is None else self.response.score

    @property
    def response_pass(self) -> np.ndarray:
        """bool (N,): the response check passes."""
        return self.f1_pass if self.response is None else self.response.passed

    @property
    def response_stage(self) -> np.ndarray | None:
        """object (N,) the cascade stage that decided each run's response check
        (``normalized-exact``, ``field:date``, ``semantic``, ``judge:person``, ``needs review``),
        None when the scorer is not the cascade."""
        return None if self.response is None or self.response.cascade is None else self.response.cascade.stage

    @property
    def needs_review(self) -> np.ndarray:
        """bool (N,): the cascade left the run in the gray band, undecided (all False otherwise)."""
        if self.response is None or self.response.cascade is None:
            return np.zeros(self.passed.shape, dtype=bool)
        return self.response.cascade.stage_code == _REVIEW_STAGE

    def ids_with(self, features: Features, outcome: str) -> list[str]:
        """Run ids whose outcome is ``outcome`` (one of ``OUTCOMES``), in run order."""
        return list(features.run_ids[self.outcome == OUTCOMES.index(outcome)])


def outcome_codes(passed: np.ndarray, human: np.ndarray) -> np.ndarray:
    """int8 (N,) codes into ``OUTCOMES``: agree, false pass, false fail, unlabelled."""
    passed = np.asarray(passed, dtype=bool)
    human = np.asarray(human)
    # false pass 1, false fail 2, unlabelled 3 (the three cases exclude each other), else agree 0
    out = (passed & (human == 0)).view(np.int8).copy()
    out += (~passed & (human == 1)).view(np.int8) * np.int8(2)
    out += (human < 0).view(np.int8) * np.int8(3)
    return out


@functools.lru_cache(maxsize=8)
def _constant(n: int, kind: str) -> np.ndarray:
    """A read-only (N,) array of one value, made once per N and shared by evaluations:
    ``"true"`` (bool, all True), a contiguous array because it enters ``&`` with the other checks,
    which numpy computes ~5x slower with a stride-0 operand (12-19 ms against 3 ms at 10M,
    measured); ``"nan"`` (float64, all NaN, only read and indexed), a ``numpy.broadcast_to`` view
    of NaN (stride 0): no memory per run, where the array it replaces held 80 MB at 10M runs
    (issue 14)."""
    if kind == "nan":
        return np.broadcast_to(np.float64(np.nan), (n,))
    arr = np.ones(n, dtype=bool)
    arr.flags.writeable = False
    return arr


@functools.lru_cache(maxsize=8)
def _constant_code(n: int, code: int) -> np.ndarray:
    """A read-only int8 (N,) array of ``DECIDED_BY`` code ``code``, made once per (N, code) and
    shared by evaluations: the ``decided_by`` of a rule where no check decides (the mean rule with
    the deny-list, key fields and missing turns all off). Contiguous, as it is compared whole."""
    arr = np.full(n, code, dtype=np.int8)
    arr.flags.writeable = False
    return arr


def _first_failing(checks: list[tuple[np.ndarray | None, int]], otherwise: int, n: int) -> np.ndarray:
    """int8 (N,): for each run the code of the first check in ``checks`` (pass array, code) that
    it fails, else ``otherwise``; a check given as None is off (everyone passes it). The
    definition :func:`_combined` computes a block at a time (the tests compare them)."""
    decided = np.full(n, otherwise, dtype=np.int8)
    for ok, code in reversed(checks):
        if ok is not None:
            # decided := code where the check fails; arithmetic, as a masked write over a random
            # mask is ~100x slower (branch misses)
            fails = (~ok).view(np.int8)
            decided += (np.int8(code) - decided) * fails
    return decided


BLOCK_RUNS = 1 << 16
"""Runs :func:`_combined` works on at a time: a block's temporaries (a few hundred kB) stay in the
processor's cache and reuse their memory, where whole-N ones (10 MB each at 10M runs, a dozen a
settings change) were written to fresh pages (issue 14)."""
VERDICT_THREADS = 2
"""Threads that work out the verdicts' blocks side by side (at most the machine's CPUs)."""
THREADS_FROM_RUNS = 1 << 20
"""Case sets of fewer runs have their verdicts worked out in the calling thread (under ~5 ms there)."""
THREAD_BLOCK_RUNS = 1 << 18
"""Runs a block holds when several threads share the blocks: each block's numpy calls release
the GIL and the Python between them holds it, so smaller blocks wait on each other. Measured on
10M synthetic runs, 2 threads, three shapes of checks: 2^18 took 11-22 ms against 17-35 ms at
2^16 (and 18-37 ms in one thread at 2^16, the best there); on the 10M dataset the all rule's
change 40-43 -> 26-27 ms."""


def _combined(
    checks: list[tuple[np.ndarray | Callable[[int, int], np.ndarray] | None, int]],
    also: np.ndarray | Callable[[int, int], np.ndarray] | None, otherwise: int,
    labels: PreparedLabels, block_runs: int | None = None, threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The verdict of every run from its checks, a block of runs at a time: ``(passed, decided,
    outcome, false passes, false fails)``. A check's passes are a bool (N,) array or a function
    ``(lo, hi)`` giving them for runs ``lo .. hi-1`` (made per block; called from several threads
    at once). ``checks``: (passes, ``DECIDED_BY`` code) in the order they decide, passes None
    for a check that is off (everyone passes it); ``also``: the passes of a check that must pass
    too without deciding (the mean's), or None; ``otherwise``: the code of a run that fails no
    check. ``passed``: bool (N,), every check (and ``also``) passes; ``decided``: int8 (N,), the
    first failing check's code (:func:`_first_failing`, elementwise; read-only and shared when no
    check is on);
    ``outcome``: int8 (N,), :func:`~explorer.core.evaluation.metrics.outcomes_of` of ``passed``
    (:func:`outcome_codes`, elementwise). ``labels``: the case set's (``Features.prepared_labels``).
    ``threads``: how many threads share the blocks (default :data:`VERDICT_THREADS` from
    :data:`THREADS_FROM_RUNS` runs on, else 1; numpy releases the GIL in each block's work);
    ``block_runs``: runs a block (default :data:`BLOCK_RUNS`, :data:`THREAD_BLOCK_RUNS` with
    several threads)."""
    on = [(ok, code) for ok, code in checks if ok is not None]
    n = labels.human.size
    if threads is None:
        threads = min(VERDICT_THREADS, os.cpu_count() or 1) if n >= THREADS_FROM_RUNS else 1
    if block_runs is None:
        block_runs = THREAD_BLOCK_RUNS if threads > 1 else BLOCK_RUNS
    passed = np.empty(n, dtype=bool)
    # no check decides: every run's code is ``otherwise``, one shared read-only array (no 10 MB written per change at 10M runs)
    decided = np.empty(n, dtype=np.int8) if on else _constant_code(n, otherwise)
    outcome = np.empty(n, dtype=np.int8)

    def part(check: np.ndarray | Callable[[int, int], np.ndarray], lo: int, hi: int) -> np.ndarray:
        return check(lo, hi) if callable(check) else check[lo:hi]

    def blocks(first: int, last: int) -> tuple[int, int]:  # runs first .. last-1; its own scratch arrays
        fails = np.empty(min(n, block_runs), dtype=bool)
        step = np.empty(min(n, block_runs), dtype=np.int8)
        fp = fn = 0
        for lo in range(first, last, block_runs):
            hi = min(last, lo + block_runs)
            m = hi - lo
            d, p, o = decided[lo:hi], passed[lo:hi], outcome[lo:hi]
            parts = [part(ok, lo, hi) for ok, _ in on]
            if on:
                d.fill(otherwise)
            for ok, (_, code) in zip(reversed(parts), reversed(on)):
                # decided := code where the check fails; arithmetic (a masked write is slower)
                f, t = fails[:m], step[:m]
                np.invert(ok, out=f)
                np.subtract(np.int8(code), d, out=t)
                t *= f.view(np.int8)
                d += t
            oks = parts + ([part(also, lo, hi)] if also is not None else [])
            if oks:
                np.copyto(p, oks[0])
                for ok in oks[1:]:
                    p &= ok
            else:
                p.fill(True)
            outcomes_of(p, labels.flip[lo:hi], labels.if_failed[lo:hi], out=o)
            fp += int(np.count_nonzero(o == 1))
            fn += int(np.count_nonzero(o == 2))
        return fp, fn

    n_blocks = -(-n // block_runs)
    if threads > 1 and n_blocks > 1:  # contiguous shares of whole blocks, one a thread
        cuts = [min(n, (n_blocks * k // threads) * block_runs) for k in range(threads + 1)]
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="verdicts") as pool:
            counts = list(pool.map(blocks, cuts[:-1], cuts[1:]))
    else:
        counts = [blocks(0, n)]
    fp, fn = (sum(c) for c in zip(*counts))
    return passed, decided, outcome, fp, fn


def evaluate(
    features: Features, settings: Settings, response: ResponseFeatures | None = None, decisions: np.ndarray | None = None
) -> Evaluation:
    """Verdict per run for ``settings``; O(N) numpy work, no loop over runs.

    ``combine="all"``: pass iff deny-list and key fields pass (when enabled), trajectory score
    >= ``trajectory_threshold`` (unless ``none``; 1.0 by default: every invocation matches) and
    F1 >= ``f1_threshold``. ``combine="mean"``: deny-list and key fields first, then
    mean(trajectory score, F1) >= ``mean_threshold`` (F1 alone with ``none``). The trajectory
    score is the family's (a match family's mean of 1/0, or a partial score) under
    ``settings.args`` and the features' argument rules.

    ``response``: the case set's cached response columns, needed when ``settings.response_scorer``
    is not ``f1``; its check replaces F1 (``ResponseCheck.value`` in the mean). ``decisions``:
    int8 (N,) the person's review decisions for the cascade's gray band (-1 undecided). Raises
    ValueError when a response scorer is chosen without ``response``, SimilarityUnavailable when
    it needs the missing similarity extra.
    """
    n = features.n
    true = _constant(n, "true")
    if settings.trajectory == "none":
        traj = ColumnOnRead.of(_constant(n, "nan"))
        traj_pass = ColumnOnRead.of(true)
    else:
        # the scores as numbers are made when read, and the passes too (read from the codes a
        # block at a time by the verdicts; the mean rule does not use them)
        traj = trajectory_on_read(features, settings.trajectory, settings.args, settings.single_tool)
        traj_pass = _trajectory_pass_on_read(features, settings, traj)
    f1 = features.f1
    answered = features.has_answer if features.any_empty_answer else None
    f1_pass = _f1_pass_on_read(features.f1_q, settings.f1_threshold, answered)
    check = None
    if settings.response_scorer != "f1":
        if response is None:
            raise ValueError(f"response scorer {settings.response_scorer!r} needs the case set's ResponseFeatures")
        check = response.check(settings, decisions)
        if answered is not None:
            check = replace(check, passed=check.passed & answered)
    resp_value = f1 if check is None else check.value
    deny_pass = ~features.tool_mask(sorted(settings.active_deny)) if settings.deny_check else true
    key_pass = features.key_columns(settings.day_first)[0] if settings.key_fields else true
    # checks that are off are left out of the work (``None``): everyone passes them
    ran_check = features.has_output if features.any_no_output else None
    deny_check = deny_pass if settings.deny_check else None
    key_check = key_pass if settings.key_fields else None
    labels = features.prepared_labels  # outcome codes and counts from the labels prepared once per case set
    if settings.combine == "all":
        mean = ColumnOnRead.of(_constant(n, "nan"))
        traj_check = None if settings.trajectory == "none" else _block_of(traj_pass)
        resp_pass = _block_of(f1_pass) if check is None else check.passed
        # passes every check (trajectory "none": its check is off)
        passed, decided, outcome, fp, fn = _combined(
            [(ran_check, _MISSING), (deny_check, _DENY), (key_check, _KEY), (traj_check, _TRAJ), (resp_pass, _F1)], None, _ALL, labels
        )
        if check is not None:  # name the scorer (cascade: the stage) where the response check decided
            resp_code = _cascade_codes(check) if check.cascade is not None else np.int8(_SCORER_CODE[check.name])
            decided = np.where(decided == _F1, resp_code, decided).astype(np.int8)
        if answered is not None:  # the response check failed on an empty answer: say so (the cascade has its own stage)
            resp_code = np.int8(_SCORER_CODE.get(settings.response_scorer, _F1))
            decided = np.where((decided == resp_code) & ~answered, np.int8(_EMPTY), decided).astype(np.int8)
    else:
        if settings.trajectory == "none" and check is None:
            mean = ColumnOnRead.of(resp_value)
            # F1 alone: its quantised values are kept (Features.f1_q), no N floats rounded per change
            mean_pass = _block_of(_f1_pass_on_read(features.f1_q, settings.mean_threshold, None))
        elif settings.trajectory == "none":
            mean = ColumnOnRead.of(resp_value)
            mean_pass = _block_of(_reaching_on_read(resp_value, settings.mean_threshold))
        else:  # (traj + response) / 2 made when read; the check a block of runs at a time
            mean = mean_on_read(traj, resp_value)
            mean_pass = mean_check(traj, resp_value, settings.mean_threshold)  # made a block at a time with the verdicts
        passed, decided, outcome, fp, fn = _combined(
            [(ran_check, _MISSING), (deny_check, _DENY), (key_check, _KEY)], mean_pass, _MEAN, labels
        )
    return Evaluation(
        settings=settings,
        trajectory_on_read=traj,
        trajectory_pass_on_read=traj_pass,
        f1=f1,
        f1_pass_on_read=f1_pass,
        deny_pass=deny_pass,
        key_pass=key_pass,
        mean_on_read=mean,
        passed=passed,
        decided_by=decided,
        outcome=outcome,
        summary=agreement_from_counts(labels.acceptable - fn, fp, fn, labels.unacceptable - fp,
                                      n - labels.acceptable - labels.unacceptable),
        response=check,
    )


def _block_of(column: ColumnOnRead) -> Callable[[int, int], np.ndarray]:
    """A check's passes for :func:`_combined`: ``(lo, hi)`` -> ``column.at(slice(lo, hi))``."""
    return lambda lo, hi: column.at(slice(lo, hi))


def _trajectory_pass_on_read(features: Features, settings: Settings, traj: ColumnOnRead) -> ColumnOnRead:
    """bool (N,) the trajectory score reaches ``settings.trajectory_threshold``
    (:meth:`Features.trajectory_pass`), made when read: from the codes of a coded score (``traj.coded``;
    compared once per distinct value, :meth:`~explorer.core.evaluation.coded.CodedScores.reaches`),
    only the runs read; else made whole on its first read."""

    def whole() -> np.ndarray:
        return features.trajectory_pass(settings.trajectory, settings.args, settings.trajectory_threshold, settings.single_tool)

    if traj.coded is None:
        return ColumnOnRead.when_read(whole)
    values, codes = traj.coded
    with np.errstate(invalid="ignore"):
        table = quantise(values) >= settings.trajectory_threshold
    return ColumnOnRead(whole, lambda index: lookup_bool(table, codes[index]))


def _reaching_on_read(scores: np.ndarray, threshold: float) -> ColumnOnRead:
    """bool (N,) ``reaches(scores, threshold)`` (:mod:`explorer.core.scoring.passmark`), made when read."""
    lowest = lowest_reaching(float(threshold))

    def at(index):
        with np.errstate(invalid="ignore"):
            return scores[index] >= lowest

    return ColumnOnRead(lambda: at(slice(None)), at)


def _f1_pass_on_read(f1_q: np.ndarray, threshold: float, answered: np.ndarray | None) -> ColumnOnRead:
    """bool (N,) F1 reaches ``threshold`` (``f1_q``: the quantised F1, ``Features.f1_q``;
    ``threshold`` quantised, as :class:`Settings` stores it: equal passes), and the answer is
    not empty where ``answered`` (bool (N,)) is given, made when read."""

    def at(index):
        ok = f1_q[index] >= threshold
        return ok & answered[index] if answered is not None else ok

    return ColumnOnRead(lambda: at(slice(None)), at)


def _cascade_codes(check: ResponseCheck) -> np.ndarray:
    """int8 (N,) ``DECIDED_BY`` codes of the cascade's stages."""
    return (check.cascade.stage_code + np.int8(_CASCADE_BASE)).astype(np.int8)  # type: ignore[union-attr]


def _first_turn(run, test) -> int:
    """1-based number of the first invocation of ``run`` for which ``test(inv)`` holds (1 if none)."""
    return next((k for k, inv in enumerate(run.invocations, start=1) if test(inv)), 1)


def _turn(run, k: int, why: str) -> str:
    """``why`` prefixed ``turn k: `` for a run of several invocations."""
    return f"turn {k}: {why}" if len(run.invocations) > 1 else why


def _score_note(rc: ResponseCheck | None, i: int) -> str:
    """`` (why)`` when the response score needs a word: ROUGE-1 0 on non-Latin text, cosine of a
    windowed text; else ``""``."""
    if rc is None or rc.note is None or not rc.note[i]:
        return ""
    return f" ({ROUGE_SCRIPT_NOTE})" if rc.name == "rouge1" else f" ({WINDOW_NOTE})"


def reason(features: Features, ev: Evaluation, i: int, run: Run | None = None) -> str:
    """One-line reason for run ``i``'s verdict, e.g. ``"missing call confirm_booking"``,
    ``"extra call get_weather at position 2"``, ``"denied tool delete_booking"``,
    ``"date 21 March differs from 12 March"``, ``"F1 0.62 < 0.80"``, ``"turn 2: the agent
    produced nothing"``, ``"empty answer"``. Thresholds print with 2 decimals (more when their
    value has more) and scores with enough digits that a failing comparison never reads as
    equal (``F1 0.5185 < 0.519``, ``trajectory recall 0.667 < 0.67``):
    :func:`~explorer.core.scoring.passmark.show_pair`. ``run``: ``features.runs[i]`` when the
    caller has it; else it is read only for the reasons that look into the run (a missing turn, an
    empty answer, a denied tool, a trajectory, an argument rule's note): a stored run is parsed from
    its record, ~0.1 ms."""
    s = ev.settings
    code = int(ev.decided_by[i])
    if run is None and (code in (_MISSING, _EMPTY, _DENY, _TRAJ) or _has_rule_notes(features, s)):
        run = features.runs[i]
    if code == _MISSING:
        return _turn(run, _first_turn(run, lambda inv: inv.no_output), NO_OUTPUT_REASON)
    if code == _EMPTY:
        return _turn(run, _first_turn(run, lambda inv: is_empty_answer(inv.answer)), EMPTY_REASON)
    if code == _DENY:
        for inv in run.invocations:
            for call in inv.actual_calls:
                if call.name in s.active_deny:
                    return f"denied tool {call.name}"
    if code == _KEY:
        return str(features.key_columns(s.day_first)[1][i])
    if code == _TRAJ:
        return trajectory_reason(features, s, i, float(ev.trajectory_score_at(i)), run)
    if code == _F1:
        return "F1 {} < {}".format(*show_pair(ev.f1[i], s.f1_threshold))
    rc = ev.response
    if rc is not None and code >= _CASCADE_BASE and rc.cascade is not None:
        return rc.cascade.reason(rc.cascade_features, i, s.pass_above, s.fail_below)  # type: ignore[arg-type]
    if rc is not None and code > _ALL:
        return "{} {} < {}".format(rc.name, *show_pair(rc.score[i], s.f1_threshold)) + _score_note(rc, i)
    resp = "F1" if rc is None else ("cascade" if rc.cascade is not None else rc.name)
    notes = _rule_notes(features, s, i, run)
    if code == _MEAN:
        value = ev.f1[i] if rc is None else rc.value[i]
        parts = f"{resp} {value:.2f}" if s.trajectory == "none" else f"{_traj_words(s, ev.trajectory_score_at(i))}, {resp} {value:.2f}"
        sign = ">=" if ev.passed[i] else "<"
        mean, limit = show_pair(ev.mean_score_at(i), s.mean_threshold)
        return f"mean {mean} {sign} {limit} ({parts}{notes}){_score_note(rc, i)}"
    if rc is not None and rc.cascade is not None:
        why = rc.cascade.reason(rc.cascade_features, i, s.pass_above, s.fail_below)  # type: ignore[arg-type]
        return f"all checks pass (cascade {rc.cascade.stage[i]}: {why}{notes})"
    score, limit = show_pair(ev.f1[i] if rc is None else rc.score[i], s.f1_threshold)
    if s.trajectory == "none":
        return f"all checks pass ({resp} {score} >= {limit}){_score_note(rc, i)}"
    return f"all checks pass ({_traj_words(s, ev.trajectory_score_at(i))}, {resp} {score} >= {limit}{notes}){_score_note(rc, i)}"

def matcher_for(features: Features, settings: Settings) -> ArgMatcher:
    """How calls are compared under ``settings``: its argument mode with the features' rules and
    date reading."""
    return ArgMatcher(settings.args, features.arg_rules, features.day_first)


def _is_partial(family: str) -> bool:
    return DEFINITIONS[canonical(family)].kind == "partial"


def _traj_words(s: Settings, score: float) -> str:
    """``trajectory 1.00`` (a match family), ``trajectory recall 0.67`` (a partial score); under
    combine all the score is written as :func:`score_texts` writes it (never reading below a
    threshold it reaches), under the mean rule (no trajectory threshold read) with 2 decimals."""
    text = show_score(score, s.trajectory_threshold) if s.combine == "all" else f"{score:.2f}"
    return f"trajectory {family_label(s.trajectory)} {text}" if _is_partial(s.trajectory) else f"trajectory {text}"


def score_texts(scores: Sequence[float] | np.ndarray, threshold: float) -> list[str]:
    """Scores as the tables and panels show them beside their pass or fail mark:
    :func:`~explorer.core.scoring.passmark.show_score` against ``threshold`` (2 decimals, more
    when 2 would read on the wrong side of it: recall 2/3 against 0.67 reads ``0.667``); NaN
    (no score) reads ``"-"``. One string per score."""
    return ["-" if v != v else show_score(float(v), threshold) for v in scores]


def response_score_text(score: float, s: Settings) -> str:
    """The response scorer's score as shown beside its verdict: against ``f1_threshold``, or for
    the cascade against both ``pass_above`` and ``fail_below`` (the more decimals of the two), as
    :func:`~explorer.core.scoring.passmark.show_score` writes it; ``"-"`` for NaN."""
    if score != score:
        return "-"
    if s.response_scorer != "cascade":
        return show_score(score, s.f1_threshold)
    return max(show_score(score, s.pass_above), show_score(score, s.fail_below), key=len)


def _has_rule_notes(features: Features, s: Settings) -> bool:
    """Whether a passing run's reason may carry an argument rule's note (:func:`_rule_notes`)."""
    return not (s.trajectory == "none" or not features.arg_rules or canonical(s.trajectory) == "single_tool_use")


def _rule_notes(features: Features, s: Settings, i: int, run: Run | None = None) -> str:
    """``"; web_search.query ignored by rule"`` when an argument rule let a paired call through."""
    if not _has_rule_notes(features, s):
        return ""
    notes = rule_notes((run or features.runs[i]).invocations, matcher_for(features, s))
    return f"; {notes}" if notes else ""


def trajectory_reason(features: Features, s: Settings, i: int, score: float, run: Run | None = None) -> str:
    """Why run ``i`` fails the trajectory check: ``"missing call confirm_booking"`` (one
    invocation, a match family at threshold 1), ``"trajectory 0.50 < 1.00: invocation 2: ..."``
    (several invocations or another threshold), ``"trajectory recall 0.50 < 0.67: missing call
    confirm_booking"`` (a partial score); a key judged by a rule names it (``book_table at
    position 1: people 2 ≠ 3 (number rule ±0.5)``). ``run``: ``features.runs[i]`` when the caller
    has it."""
    run = run or features.runs[i]
    why = explain_trajectory(run.invocations, s.trajectory, matcher_for(features, s), s.single_tool)
    if _is_partial(s.trajectory):
        return "trajectory {} {} < {}: {}".format(family_label(s.trajectory), *show_pair(score, s.trajectory_threshold), why)
    if features.n_invocations[i] > 1 or s.trajectory_threshold < 1.0:
        return "trajectory {} < {}: {}".format(*show_pair(score, s.trajectory_threshold), why)
    return why


def reasons(features: Features, ev: Evaluation, rows: Iterable[int] | None = None,
            runs: Sequence[Run] | None = None) -> list[str]:
    """Reasons for ``rows`` (default: every run); ``runs``: those rows' runs when the caller has
    them (one each, in order)."""
    idx = range(features.n) if rows is None else rows
    if runs is None:
        return [reason(features, ev, int(i)) for i in idx]
    return [reason(features, ev, int(i), run) for i, run in zip(idx, runs)]


TABLE_COLUMNS = (
    "id", "title", "trajectory_score", "trajectory_pass", "f1", "f1_pass", "deny_pass", "key_pass",
    "mean_score", "verdict", "human_verdict", "outcome", "decided_by", "reason",
)


def result_table(features: Features, ev: Evaluation, rows: Sequence[int] | np.ndarray | None = None) -> pd.DataFrame:
    """The scored table for ``rows`` (default: all): one row per run, ``TABLE_COLUMNS``.

    ``verdict`` is ``"pass"``/``"fail"``; ``human_verdict`` is ``"acceptable"``,
    ``"unacceptable"`` or ``""``; check columns are bool; scores float (NaN where not used).
    With a response scorer other than F1, ``response_score`` (and for the cascade
    ``response_stage``; where a score needs a word, ``response_note``: ROUGE-1 0 because the text
    is not Latin script, a cosine of a text longer than the model's window) follow, and ``decided_by`` names the scorer or the detailed cascade stage.
    Extra loader columns (e.g. ``adk_*``) follow when the runs carry them. Built with the cyclic
    garbage collector paused (:func:`~explorer.core.gcpause.collector_paused`): the rows' runs are
    all held at once, and the collector's passes over them cost 5.5 of the 14 CPU-s of reading
    100k stored runs.
    """
    with collector_paused():
        return _result_table(features, ev, rows)


def _result_table(features: Features, ev: Evaluation, rows: Sequence[int] | np.ndarray | None) -> pd.DataFrame:
    idx = np.arange(features.n) if rows is None else np.asarray(rows, dtype=np.int64)
    # each row's run read once (a stored run is parsed from its record: ~0.1 ms; the title, the
    # reason and the loader's extra columns read it 3-4 times a row before, 59 of the 93 s of
    # `score` over a 100k-run dataset)
    runs = [features.runs[i] for i in idx]
    human_names = np.array(["unacceptable", "acceptable", ""], dtype=object)
    df = pd.DataFrame(
        {
            "id": features.run_ids[idx],
            "title": [run.title for run in runs],
            "trajectory_score": ev.trajectory_score_at(idx),
            "trajectory_pass": ev.trajectory_pass_at(idx),
            "f1": ev.f1[idx],
            "f1_pass": ev.f1_pass_at(idx),
            "deny_pass": ev.deny_pass[idx],
            "key_pass": ev.key_pass[idx],
            "mean_score": ev.mean_score_at(idx),
            "verdict": np.where(ev.passed[idx], "pass", "fail"),
            "human_verdict": human_names[features.human[idx]],
            "outcome": np.array(OUTCOMES, dtype=object)[ev.outcome[idx]],
            "decided_by": np.array(DECIDED_BY, dtype=object)[ev.decided_by[idx]],
            "reason": reasons(features, ev, idx, runs),
        }
    )
    if ev.response is not None:
        df["response_score"] = ev.response.score[idx]
        if ev.response.note is not None and ev.response.note[idx].any():  # e.g. ROUGE-1 0 on Japanese text
            df["response_note"] = [_score_note(ev.response, int(i))[2:-1] for i in idx]
        stage = ev.response_stage
        if stage is not None:
            df["response_stage"] = stage[idx]
            cascade_decided = (ev.decided_by[idx] >= _CASCADE_BASE) & (ev.decided_by[idx] < _CASCADE_BASE + len(STAGES))
            df.loc[cascade_decided, "decided_by"] = stage[idx][cascade_decided]
    extra_keys = sorted({k for run in runs for k in run.extra})
    if extra_keys:  # joined at once: one column at a time took 12.5 s for 2,000 adk_* columns (pandas re-copies)
        extras = pd.DataFrame({key: [run.extra.get(key) for run in runs] for key in extra_keys}, index=df.index)
        df = pd.concat([df, extras], axis=1)
    return df
