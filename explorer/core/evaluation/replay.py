"""The replay timeline: when each run is revealed over the inspection seconds, and the state at a time.

Pure (numpy only, no Panel): the app's replay controls call these functions with the current
inspection time ``t`` (seconds, 0..``duration``).

Timeline (docs/ui-contract.md): N runs are revealed in batches of ``batch`` runs (2, or
``ceil(N / 30)`` when N > 60) at equal steps; reveal r of R (1-based, R = ceil(N / batch)) happens
at ``t = duration * r / R``. With ten runs and 60 s: E1-E2 at 12 s, E3-E4 at 24 s, ... E9-E10 at
60 s. Runs are revealed in file order, so the runs revealed at ``t`` are always a prefix.
Play starts at the first reveal when nothing is revealed yet (:func:`play_start_time`), so it shows
the first runs at once instead of 12 s of nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..scoring.passmark import show_pair
from .verdicts import OUTCOMES, Evaluation, matcher_for, reason
from .features import Features
from .metrics import Agreement, agreement
from ..plural import counted
from ..scoring.trajectory import explain_trajectory, family_label

DURATION = 60.0
"""Length of a replay in inspection seconds."""
TIME_EPS = 1e-6
"""A run counts as revealed when its reveal time <= t + TIME_EPS (slider floats like 23.999999)."""


def reveal_batch(n: int) -> int:
    """Runs revealed per step: 2 for up to 60 runs, else ``ceil(n / 30)`` (at most 30 steps)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return 2 if n <= 60 else math.ceil(n / 30)


def reveal_times(n: int, duration: float = DURATION) -> np.ndarray:
    """float64 (n,): the inspection time (s) at which run i is revealed, non-decreasing.

    ``reveal_times(10)`` is ``[12, 12, 24, 24, 36, 36, 48, 48, 60, 60]``; ``reveal_times(3)`` is
    ``[30, 30, 60]``.
    """
    return np.asarray(reveal_timeline(n, duration))  # each run's step time, from the one timeline


@dataclass(frozen=True, eq=False)
class RevealTimes:
    """The reveal times of :func:`reveal_times` held as their distinct values: run ``i`` is
    revealed at ``events[i // batch]`` (s). Reads as that float64 (n,) array where the replay
    functions read one (``len``, ``size``, ``times[i]``, ``searchsorted``, ``numpy.asarray``)
    but keeps R <= 30 floats (or n / 2 up to 60 runs) instead of n: 80 MB fewer per session at
    10M runs (issue 14). Made by :func:`reveal_timeline`."""

    n: int
    batch: int
    events: np.ndarray
    """float64 (R,): the distinct reveal times, ascending (read-only)."""

    @property
    def size(self) -> int:
        """Number of runs (the array's ``size``)."""
        return self.n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> np.float64:
        """The reveal time of run ``i`` (an int; negative counts from the end); IndexError out of range."""
        i = int(i)
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(f"run index {i} out of range for {self.n} runs")
        return self.events[i // self.batch]

    def searchsorted(self, value: float, side: str = "right") -> int:
        """``numpy.searchsorted`` of the (n,) array: how many runs are revealed at times <= ``value``
        (``side="right"``) or < ``value`` (``"left"``); whole steps of ``batch`` runs, at most n."""
        return min(self.n, int(np.searchsorted(self.events, value, side=side)) * self.batch)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.repeat(self.events, self.batch)[: self.n]
        return out if dtype is None else out.astype(dtype)


def reveal_timeline(n: int, duration: float = DURATION) -> RevealTimes:
    """The reveal times of ``n`` runs as a :class:`RevealTimes` (O(R) memory): what a session keeps;
    :func:`reveal_times` is its (n,) array. Reveal ``r`` of ``R`` is at ``duration * r / R``."""
    if n == 0:
        return RevealTimes(0, 1, np.zeros(0, dtype=np.float64))
    batch = reveal_batch(n)
    steps = math.ceil(n / batch)
    events = duration * np.arange(1, steps + 1) / steps
    events.flags.writeable = False
    return RevealTimes(n, batch, events)


def event_times(times: np.ndarray | RevealTimes) -> np.ndarray:
    """The distinct reveal times, ascending (the stops of "Next event"). ``times`` is
    non-decreasing (:func:`reveal_times`), so each value's first occurrence is kept in one O(N)
    pass, without ``numpy.unique``'s sort (about half a second of a session's start at 10M runs);
    a :class:`RevealTimes` has them already."""
    if isinstance(times, RevealTimes):
        return times.events.copy()
    times = np.asarray(times, dtype=np.float64)
    if times.size == 0:
        return times.copy()
    first = np.empty(times.shape, dtype=bool)
    first[0] = True
    np.not_equal(times[1:], times[:-1], out=first[1:])
    return times[first]


def revealed_count(times: np.ndarray | RevealTimes, t: float) -> int:
    """How many runs are revealed at inspection time ``t`` (runs ``0..k-1``)."""
    if not isinstance(times, (np.ndarray, RevealTimes)):
        times = np.asarray(times, dtype=np.float64)
    return int(times.searchsorted(t + TIME_EPS, side="right"))


def next_event_time(times: np.ndarray | RevealTimes, t: float, duration: float = DURATION) -> float:
    """The first reveal time after ``t + TIME_EPS`` (``duration`` when none is left); a binary
    search of the non-decreasing ``times`` (O(log N), no mask of N runs per click)."""
    k = revealed_count(times, t)
    return float(times[k]) if k < len(times) else float(duration)


def play_start_time(times: np.ndarray | RevealTimes, t: float, duration: float = DURATION) -> float:
    """The inspection time Play starts from when pressed at ``t``: the first reveal time when no run
    is revealed yet (the seconds before it show nothing, so Play reveals the first runs at once),
    the first reveal time again when the replay is at its end (play it once more), else ``t``.

    With ``reveal_times(10)``: 0 -> 12, 5 -> 12, 12 -> 12, 30 -> 30, 60 -> 12. With no runs:
    0 (at the end) or ``t``.
    """
    if t >= duration - TIME_EPS:
        t = 0.0
    if times.size and revealed_count(times, t) == 0:
        return float(times[0])
    return float(t)


def advance(t: float, elapsed: float, speed: float, duration: float = DURATION) -> tuple[float, bool]:
    """Time after ``elapsed`` wall seconds played at ``speed`` (x real time), clamped to
    ``[0, duration]``; the flag is True when the replay reached the end."""
    new_t = min(max(t + elapsed * speed, 0.0), duration)
    return new_t, new_t >= duration - TIME_EPS


@dataclass(frozen=True)
class ReplayState:
    """What the views show at inspection time ``t``.

    ``revealed``: number of runs revealed (runs ``0..revealed-1``); ``summary``: agreement over
    the revealed labelled runs; ``false_pass`` / ``false_fail``: revealed run ids with that outcome,
    in run order.
    """

    t: float
    revealed: int
    total: int
    summary: Agreement
    false_pass: list[str]
    false_fail: list[str]


def state_at(features: Features, ev: Evaluation, times: np.ndarray | RevealTimes, t: float) -> ReplayState:
    """The replay state at ``t`` for the evaluation ``ev`` (O(revealed) numpy work)."""
    k = revealed_count(times, t)
    outcome = ev.outcome[:k]
    ids = features.run_ids[:k]
    return ReplayState(
        t=float(t),
        revealed=k,
        total=features.n,
        summary=agreement(ev.passed[:k], features.human[:k]),
        false_pass=list(ids[outcome == OUTCOMES.index("false pass")]),
        false_fail=list(ids[outcome == OUTCOMES.index("false fail")]),
    )


@dataclass(frozen=True)
class TraceEvent:
    """One line of the event trace: at ``time`` (s), ``kind`` (``revealed``, ``check``,
    ``verdict``, ``agreement`` or ``omitted``) about run ``run_id`` (``""`` for agreement lines),
    with the human-readable ``text``."""

    time: float
    kind: str
    run_id: str
    text: str

    def line(self) -> str:
        """``"12.0 s  E1 revealed"``: the time with one decimal, two spaces, the text."""
        return f"{self.time:.1f} s  {self.text}"


def _run_events(features: Features, ev: Evaluation, i: int, t: float) -> list[TraceEvent]:
    s = ev.settings
    rid = str(features.run_ids[i])
    out = [TraceEvent(t, "revealed", rid, f"{rid} revealed")]

    def check(text: str) -> None:
        out.append(TraceEvent(t, "check", rid, f"{rid} {text}"))

    if s.deny_check:
        if ev.deny_pass[i]:
            check("deny-list pass")
        else:
            called = sorted({c.name for inv in features.runs[i].invocations for c in inv.actual_calls} & s.active_deny)
            check(f"deny-list fail: called {', '.join(called)}")
    if features.no_output[i]:  # type: ignore[index]
        check(f"missing turn fail: {reason(features, ev, i)}")
    if s.key_fields:
        check("key fields pass" if ev.key_pass[i] else f"key fields fail: {features.key_columns(s.day_first)[1][i]}")
    if s.trajectory != "none":
        label = family_label(s.trajectory) + {"exact": "", "ignore": " (names only)"}.get(s.args, f" (args {s.args})")
        if ev.trajectory_pass_at(i):
            check(f"trajectory {label} pass")
        else:
            why = explain_trajectory(features.runs[i].invocations, s.trajectory, matcher_for(features, s), s.single_tool)
            check(f"trajectory {label} fail: {why}")
    sign = ">=" if ev.f1_pass_at(i) else "<"
    rc = ev.response  # a response scorer other than F1 (issue 5)
    if rc is not None and rc.cascade is not None:
        check(f"cascade {rc.cascade.stage[i]} {'pass' if rc.passed[i] else 'fail'}")
    elif (rc is not None or s.combine == "all") and features.empty_answer[i]:  # type: ignore[index]
        check(f"{'F1' if rc is None else rc.name} fail: empty answer")
    elif rc is not None:
        ok = bool(rc.passed[i])
        score, limit = show_pair(rc.score[i], s.f1_threshold)
        check(f"{rc.name} {score} {'>=' if ok else '<'} {limit} {'pass' if ok else 'fail'}")
    elif s.combine == "all":
        score, limit = show_pair(ev.f1[i], s.f1_threshold)
        check(f"F1 {score} {sign} {limit} {'pass' if ev.f1_pass_at(i) else 'fail'}")
    else:
        check(f"F1 {ev.f1[i]:.2f}")
    verdict = "pass" if ev.passed[i] else "fail"
    outcome = OUTCOMES[int(ev.outcome[i])]
    why = reason(features, ev, i)
    out.append(TraceEvent(t, "verdict", rid, f"{rid} verdict {verdict} ({why}) — {outcome}"))
    return out


def trace_events(
    features: Features, ev: Evaluation, times: np.ndarray | RevealTimes, t: float, max_runs: int = 60
) -> list[TraceEvent]:
    """Every event that happened up to ``t``, in time order.

    Per revealed run: ``"E1 revealed"``, one ``check`` line per enabled check, then
    ``"E1 verdict fail (F1 0.62 < 0.80) — false fail"``; after each reveal step
    ``"Agreement so far 1/2"`` (revealed labelled runs; ``"Agreement so far: no labelled run yet"``
    while none of them is labelled, never 0/0). Only the last ``max_runs`` revealed runs
    are spelled out (text is built for them alone); earlier ones become one ``omitted`` line.
    """
    k = revealed_count(times, t)
    if k == 0:
        return []
    agree_cum = np.cumsum(ev.outcome[:k] == 0)
    labelled_cum = np.cumsum(features.human[:k] >= 0)
    first = max(0, k - max_runs)
    events: list[TraceEvent] = []
    if first:
        events.append(TraceEvent(float(times[first - 1]), "omitted", "", f"{counted(first, 'earlier run')} not shown"))
    for i in range(first, k):
        events.extend(_run_events(features, ev, i, float(times[i])))
        last_of_step = i == k - 1 or times[i + 1] != times[i]
        if last_of_step:
            events.append(
                TraceEvent(float(times[i]), "agreement", "", f"Agreement so far {agree_cum[i]}/{labelled_cum[i]}"
                           if labelled_cum[i] else "Agreement so far: no labelled run yet")  # never 0/0
            )
    return events
