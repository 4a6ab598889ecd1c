"""Per-run features of a batch of runs at once: the columns :func:`~explorer.core.evaluation.features.run_row`
gives one run at a time, with the text work done for the whole batch (issue 14).

:func:`feature_rows` is what :func:`~explorer.core.evaluation.features.build_features` and the
parallel loader's workers (:mod:`explorer.core.io.bigload`) call on a few thousand runs at a time.
Every value equals :func:`~explorer.core.evaluation.features.run_row`'s, which stays as the
one-run definition (``tests/test_feature_rows.py`` compares the two on random runs, Unicode
texts, numeric dates in both readings, other id patterns and argument rules):

* trajectory scores: :func:`~explorer.core.scoring.trajectory_metrics.plain_scores` per
  invocation (what ``invocation_scores`` computes, on the calls as ``(name, args)`` pairs);
* unigram F1: :func:`~explorer.core.scoring.overlap_batch.best_f1_many` over every invocation
  of the batch (each distinct text tokenised once, the multiset overlap as array work);
* key fields: every answer and reference that is not identical to the answer's reference is
  scanned once for dates and ids (:func:`~explorer.core.scoring.text_scan.scan_key_fields`),
  and the reasons are made from those values as
  :func:`~explorer.core.scoring.fields.key_fields_reason_best` makes them;
* a run's mean over several invocations is the same Python ``sum(...) / k`` as ``run_row``.
"""

from __future__ import annotations

import itertools
import re
from operator import itemgetter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..io.model import PlainInvocation
from ..scoring.arg_rules import NO_RULES, ArgRules
from ..scoring.fields import reason_from_values
from ..scoring.normalise import is_empty_answer
from ..scoring.overlap_batch import PairIndex, best_f1_indexed, index_pairs
from ..scoring.text_scan import KeyScan, scan_key_fields
from ..scoring.trajectory_metrics import N_SCORES, plain_scores
from .features import EMPTY_ANSWER, EMPTY_REFERENCE, NO_OUTPUT


_NAME = itemgetter(0)  # of a (name, args) call
_ACTUAL = itemgetter(1)  # of a PlainInvocation: its actual calls
_ASCII_ALNUM_SEARCH = re.compile(r"[A-Za-z0-9]").search  # is_empty_answer's first test: a match is not empty


@dataclass(frozen=True, eq=False)
class FeatureRows:
    """The per-run columns of n runs (index i is run i of the batch):

    * ``traj``: float64 (n, ``N_SCORES``), :func:`~explorer.core.evaluation.features.run_trajectory` order;
    * ``f1``: float64 (n,);
    * ``tool_names`` (T sorted names) and ``tool_invocations``: uint16 (n, T) invocations of run i
      that called tool t;
    * ``reason_day`` / ``reason_month``: lists of n texts, the key-field reason read day-first /
      month-first (``""`` when the fields agree);
    * ``human``: int8 (n,), ``n_invocations``: int32 (n,), ``flags``: int8 (n,) of
      ``NO_OUTPUT | EMPTY_ANSWER | EMPTY_REFERENCE`` bits.
    """

    traj: np.ndarray
    f1: np.ndarray
    tool_names: tuple[str, ...]
    tool_invocations: np.ndarray
    reason_day: list[str]
    reason_month: list[str]
    human: np.ndarray
    n_invocations: np.ndarray
    flags: np.ndarray


def _best_reason(scan: KeyScan, answer: int, refs: list[int], day_first: bool) -> str:
    """:func:`~explorer.core.scoring.fields.key_fields_reason_best` from scanned texts: ``""``
    when the answer agrees with any reference, else the reason against the first one."""
    ans_dates, ans_ids = scan.dates(answer, day_first), scan.ids[answer]
    first = ""
    for k, r in enumerate(refs):
        ref_dates, ref_ids = scan.dates(r, day_first), scan.ids[r]
        if ref_dates == ans_dates and ref_ids == ans_ids:  # equal values always agree (same day, same id)
            return ""
        why = reason_from_values(ref_dates, ans_dates, ref_ids, ans_ids)
        if not why:
            return ""
        if k == 0:
            first = why
    return first


def _key_reasons(pairs: PairIndex, copied: np.ndarray, id_rx: re.Pattern[str]) -> tuple[list[str], list[str]]:
    """Per answer of ``pairs``, (reason read day-first, read month-first) as
    :func:`~explorer.core.evaluation.features.invocation_key_reasons` gives them; ``copied``: bool
    per answer, the answer is one of its references (both reasons ``""``). An answer with one
    reference (the common case) is :func:`_best_reason` written out: the reason against it."""
    n = pairs.n
    day = [""] * n
    month = [""] * n
    todo = np.flatnonzero(~copied)
    if not len(todo):
        return day, month
    keep = ~copied[pairs.pair_owner]
    mark = np.zeros(len(pairs.texts), dtype=bool)  # the texts to scan, in increasing order (what np.unique gives)
    mark[pairs.answer[todo]] = True
    mark[pairs.pair_ref[keep]] = True
    used = np.flatnonzero(mark)
    local = np.full(len(pairs.texts), -1, dtype=np.int64)
    local[used] = np.arange(len(used))
    texts = pairs.texts
    scan = scan_key_fields([texts[t] for t in used.tolist()], id_rx)
    numeric = scan.numeric
    dates = scan.all_dates(True)
    ids = scan.ids
    answer = local[pairs.answer].tolist()
    refs = local[pairs.pair_ref].tolist()
    bounds = np.searchsorted(pairs.pair_owner, np.arange(n + 1)).tolist()
    for k in todo.tolist():
        a, lo, hi = answer[k], bounds[k], bounds[k + 1]
        if hi - lo == 1:
            r = refs[lo]
            ans_dates, ans_ids, ref_dates, ref_ids = dates[a], ids[a], dates[r], ids[r]
            if ref_dates == ans_dates and ref_ids == ans_ids:  # equal values always agree (same day, same id)
                why = ""
            else:
                why = reason_from_values(ref_dates, ans_dates, ref_ids, ans_ids)
            day[k] = why
            month[k] = _best_reason(scan, a, [r], False) if numeric[a] or numeric[r] else why
        else:
            rs = refs[lo:hi]
            day[k] = _best_reason(scan, a, rs, True)
            if numeric[a] or any(numeric[r] for r in rs):
                month[k] = _best_reason(scan, a, rs, False)
            else:
                month[k] = day[k]
    return day, month


def _flags(pairs: PairIndex, never_ran: list[bool]) -> np.ndarray:
    """int8 per answer of ``pairs``: the :data:`~explorer.core.evaluation.features.RunRow` flag
    bits of its invocation (``never_ran``: the turn was never run)."""
    texts = pairs.texts
    found = list(map(_ASCII_ALNUM_SEARCH, texts))  # a text with an ASCII letter or digit is never empty
    empty = np.zeros(len(texts), dtype=bool)
    if None in found:
        for k in [k for k, f in enumerate(found) if f is None]:
            empty[k] = is_empty_answer(texts[k])
    flags = np.where(empty[pairs.answer], EMPTY_ANSWER, 0).astype(np.int8)
    ran_not = np.asarray(never_ran, dtype=bool)
    flags[ran_not] = NO_OUTPUT | EMPTY_ANSWER
    empty_ref = np.zeros(pairs.n, dtype=bool)
    empty_ref[pairs.pair_owner[empty[pairs.pair_ref]]] = True
    flags[empty_ref] |= EMPTY_REFERENCE
    return flags


def _tool_invocations(flat: list[PlainInvocation], owner: np.ndarray, n: int) -> tuple[tuple[str, ...], np.ndarray]:
    """(sorted tool names, uint16 (n, T): how many invocations of each run called each tool), from
    the invocations ``flat`` and the run ``owner[k]`` of invocation k (non-decreasing: the
    invocations of a run are consecutive, every run has one)."""
    sizes = np.fromiter(map(len, map(_ACTUAL, flat)), dtype=np.intp, count=len(flat))
    n_calls = int(sizes.sum())
    first: dict[str, int] = {}  # name -> index of its first call
    ids = np.fromiter(map(first.setdefault, map(_NAME, itertools.chain.from_iterable(map(_ACTUAL, flat))), itertools.count()),
                      dtype=np.intp, count=n_calls)
    tool_names = tuple(sorted(first))
    if not n_calls:
        return tool_names, np.zeros((n, 0), dtype=np.uint16)
    column = np.zeros(n_calls, dtype=np.intp)  # first call -> column of the sorted name
    column[[first[t] for t in tool_names]] = np.arange(len(tool_names))
    called = np.zeros((len(flat), len(tool_names)), dtype=bool)  # invocation k called tool t
    called[np.repeat(np.arange(len(flat)), sizes), column[ids]] = True
    if len(flat) == n:
        return tool_names, called.astype(np.uint16)
    return tool_names, np.add.reduceat(called, np.searchsorted(owner, np.arange(n)), axis=0, dtype=np.uint16)


def feature_rows(
    invocations: Sequence[Sequence[PlainInvocation]],
    human: Sequence[int],
    id_rx: re.Pattern[str],
    rules: ArgRules = NO_RULES,
    day_first: bool = True,
) -> FeatureRows:
    """The per-run features of a batch: ``invocations[i]`` the invocations of run i (at least one;
    :meth:`Invocation.plain() <explorer.core.io.model.Invocation.plain>` of each),
    ``human[i]`` its verdict code (1, 0, -1); key-field ids found with ``id_rx``; trajectory
    scores under the argument ``rules`` with their dates read ``day_first``. Equal, run by run, to
    :func:`~explorer.core.evaluation.features.run_row` (module docstring). Raises ValueError when a
    run has no invocation or the lengths differ."""
    n = len(invocations)
    if len(human) != n:
        raise ValueError(f"{n} runs but {len(human)} verdicts")
    sizes = [len(invs) for invs in invocations]
    if n and min(sizes) < 1:
        raise ValueError("a run needs at least one invocation")
    flat = [inv for invs in invocations for inv in invs]

    def _score_array(rows: list[tuple[float, ...]]) -> np.ndarray:
        # float64 (len(rows), N_SCORES): each distinct tuple object converted once (plain_scores
        # returns the same tuple for the same pattern), then repeated by index
        distinct = dict(zip(map(id, rows), rows))  # the rows are alive: their ids are distinct
        if len(distinct) == len(rows):
            return np.array(rows, dtype=np.float64).reshape(len(rows), N_SCORES)
        at = dict(zip(distinct, range(len(distinct))))
        index = np.fromiter(map(at.__getitem__, map(id, rows)), dtype=np.intp, count=len(rows))
        return np.array(list(distinct.values()), dtype=np.float64).reshape(len(distinct), N_SCORES)[index]

    scores = [plain_scores(inv, rules, day_first) for inv in flat]
    pairs = index_pairs([inv.answer for inv in flat], [inv.references for inv in flat])
    f1_flat = best_f1_indexed(pairs)
    copied = np.zeros(len(flat), dtype=bool)  # the answer is one of its references
    copied[pairs.pair_owner[pairs.pair_answer == pairs.pair_ref]] = True
    day_flat, month_flat = _key_reasons(pairs, copied, id_rx)
    flag_flat = _flags(pairs, [inv.no_output for inv in flat])
    tool_names, tool_invocations = _tool_invocations(flat, np.repeat(np.arange(n), sizes), n)
    if len(flat) == n:  # one invocation per run: run_row takes its values as they are (F1 / 1 is F1)
        traj = _score_array(scores)
        return FeatureRows(
            traj=traj, f1=f1_flat, tool_names=tool_names, tool_invocations=tool_invocations,
            reason_day=day_flat, reason_month=month_flat, human=np.asarray(human, dtype=np.int8),
            n_invocations=np.ones(n, dtype=np.int32), flags=flag_flat,
        )
    sizes_arr = np.asarray(sizes, dtype=np.int64)
    first = np.cumsum(sizes_arr) - sizes_arr  # each run's first invocation
    first_list = first.tolist()
    # as run_row for a run of one invocation: its values (F1 / 1 is F1); the others below
    flat_traj = _score_array(scores)
    traj = flat_traj[first]
    f1 = f1_flat[first]
    flags = flag_flat[first]
    reason_day = list(map(day_flat.__getitem__, first_list))
    reason_month = list(map(month_flat.__getitem__, first_list))
    # as run_row: Python's sum(...) / k. For two invocations that is (0 + a + b) / 2, one rounding
    # of a + b whatever summation sum uses (a compensated sum adds an error term that rounds away),
    # so numpy's a + b is the same float; three or more go through sum itself
    two = np.flatnonzero(sizes_arr == 2)
    if len(two):
        traj[two] = (flat_traj[first[two]] + flat_traj[first[two] + 1]) / 2
        f1[two] = (f1_flat[first[two]] + f1_flat[first[two] + 1]) / 2
    for i in np.flatnonzero(sizes_arr > 2).tolist():
        at, k = first_list[i], sizes[i]
        traj[i] = [sum(col) / k for col in zip(*scores[at : at + k])]
        f1[i] = sum(f1_flat[at : at + k].tolist()) / k
    for i in np.flatnonzero(sizes_arr > 1).tolist():
        at, k = first_list[i], sizes[i]
        day_i = month_i = ""
        bits = 0
        for j in range(k):
            day, month = day_flat[at + j], month_flat[at + j]
            if day and not day_i:
                day_i = f"invocation {j + 1}: {day}"
            if month and not month_i:
                month_i = f"invocation {j + 1}: {month}"
            bits |= int(flag_flat[at + j])
        reason_day[i], reason_month[i] = day_i, month_i
        flags[i] = bits
    return FeatureRows(
        traj=traj, f1=f1, tool_names=tool_names, tool_invocations=tool_invocations,
        reason_day=reason_day, reason_month=reason_month, human=np.asarray(human, dtype=np.int8),
        n_invocations=np.asarray(sizes, dtype=np.int32), flags=flags,
    )


def concat_rows(parts: Sequence[FeatureRows]) -> FeatureRows:
    """The rows of several batches, in order, as one :class:`FeatureRows` (tool columns merged
    under the union of their names, sorted)."""
    if len(parts) == 1:
        return parts[0]
    tool_names = tuple(sorted({t for part in parts for t in part.tool_names}))
    index = {t: j for j, t in enumerate(tool_names)}
    n = sum(len(part.f1) for part in parts)
    counts = np.zeros((n, len(tool_names)), dtype=np.uint16)
    start = 0
    for part in parts:
        m = len(part.f1)
        if part.tool_names:
            counts[start : start + m][:, [index[t] for t in part.tool_names]] = part.tool_invocations
        start += m

    def cat(name: str) -> np.ndarray:
        arrays = [getattr(part, name) for part in parts]
        return np.concatenate(arrays) if arrays else np.zeros(0)

    return FeatureRows(
        traj=np.concatenate([part.traj for part in parts]) if parts else np.zeros((0, N_SCORES)),
        f1=cat("f1").astype(np.float64), tool_names=tool_names, tool_invocations=counts,
        reason_day=[r for part in parts for r in part.reason_day],
        reason_month=[r for part in parts for r in part.reason_month],
        human=cat("human").astype(np.int8), n_invocations=cat("n_invocations").astype(np.int32),
        flags=cat("flags").astype(np.int8),
    )
