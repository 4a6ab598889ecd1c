"""The replay timeline (explorer.core.evaluation.replay), values worked out by hand from docs/ui-contract.md:
N runs revealed two at a time (ceil(N/30) when N > 60), reveal r of R at t = 60 r / R."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from explorer.core.io.casefile import load_case_set
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.replay import (
    advance,
    event_times,
    next_event_time,
    play_start_time,
    reveal_batch,
    reveal_times,
    reveal_timeline,
    revealed_count,
    state_at,
    trace_events,
)
from explorer.core.evaluation.settings import Settings

BUNDLED = Path(__file__).resolve().parents[1] / "cases" / "booking_agent.json"
TEN = np.array([12, 12, 24, 24, 36, 36, 48, 48, 60, 60], dtype=float)


@pytest.fixture(scope="module")
def features():
    return build_features(load_case_set(BUNDLED))


def test_ten_runs_two_at_a_time_every_twelve_seconds():
    assert reveal_times(10).tolist() == TEN.tolist()
    assert event_times(reveal_times(10)).tolist() == [12, 24, 36, 48, 60]


def test_small_and_empty_sets():
    assert reveal_times(0).size == 0
    assert reveal_times(1).tolist() == [60.0]
    assert reveal_times(3).tolist() == [30.0, 30.0, 60.0]  # R = 2 reveals


def test_large_sets_use_at_most_thirty_steps():
    assert reveal_batch(60) == 2
    assert reveal_batch(61) == 3  # ceil(61 / 30)
    times = reveal_times(90)  # batch 3, R = 30, reveal r at 2 r seconds
    assert times[:4].tolist() == [2.0, 2.0, 2.0, 4.0]
    assert times[-1] == 60.0
    assert event_times(times).size == 30
    t61 = reveal_times(61)  # batch 3, R = ceil(61 / 3) = 21
    assert t61[0] == pytest.approx(60 / 21)
    assert t61[-1] == 60.0 and t61[-2] == pytest.approx(60 * 20 / 21)


def test_revealed_count_at_times():
    assert revealed_count(TEN, 0.0) == 0
    assert revealed_count(TEN, 11.9) == 0
    assert revealed_count(TEN, 12.0) == 2
    assert revealed_count(TEN, 25.0) == 4
    assert revealed_count(TEN, 24.0 - 1e-9) == 4  # slider float noise counts as 24 s
    assert revealed_count(TEN, 60.0) == 10


def test_next_event_is_the_next_reveal():
    assert next_event_time(TEN, 0.0) == 12.0
    assert next_event_time(TEN, 12.0) == 24.0
    assert next_event_time(TEN, 25.0) == 36.0
    assert next_event_time(TEN, 60.0) == 60.0


def test_advance_scales_by_speed_and_stops_at_the_end():
    assert advance(10.0, 0.5, 4.0) == (12.0, False)
    assert advance(59.0, 1.0, 2.0) == (60.0, True)
    assert advance(0.0, 0.1, 0.5) == (pytest.approx(0.05), False)


def test_state_at_25_seconds_shows_the_first_four_runs(features):
    ev = evaluate(features, Settings())
    st = state_at(features, ev, reveal_times(features.n), 25.0)
    # E1 reworded, E2 weather, E3 profile: good runs failed by EXACT / F1 0.8; E4 bad and failed
    assert st.revealed == 4
    assert (st.summary.agree, st.summary.labelled) == (1, 4)
    assert st.false_fail == ["E1", "E2", "E3"]
    assert st.false_pass == []


def test_state_at_zero_and_at_the_end(features):
    ev = evaluate(features, Settings())
    times = reveal_times(features.n)
    start = state_at(features, ev, times, 0.0)
    assert start.revealed == 0 and start.summary.labelled == 0 and start.summary.agree == 0
    end = state_at(features, ev, times, 60.0)
    assert (end.summary.agree, end.summary.labelled) == (4, 10)
    assert end.false_pass == ["E5"]
    assert end.false_fail == ["E1", "E2", "E3", "E7", "E8"]


def test_trace_at_twelve_seconds(features):
    ev = evaluate(features, Settings())
    lines = [e.line() for e in trace_events(features, ev, reveal_times(features.n), 12.0)]
    assert lines[0] == "12.0 s  E1 revealed"
    assert "12.0 s  E1 trajectory EXACT pass" in lines
    assert "12.0 s  E1 F1 0.62 < 0.80 fail" in lines
    assert "12.0 s  E1 verdict fail (F1 0.62 < 0.80) — false fail" in lines
    assert "12.0 s  E2 trajectory EXACT fail: extra call get_weather at position 2" in lines
    assert lines[-1] == "12.0 s  Agreement so far 0/2"
    assert not any("E3" in line for line in lines)
    assert trace_events(features, ev, reveal_times(features.n), 0.0) == []


def test_trace_shows_enabled_checks_and_running_agreement(features):
    s = Settings(trajectory="any_order", deny_check=True, deny_tools=("delete_booking",), key_fields=True)
    ev = evaluate(features, s)
    lines = [e.line() for e in trace_events(features, ev, reveal_times(features.n), 36.0)]
    assert "36.0 s  E6 deny-list fail: called delete_booking" in lines
    assert any(line.startswith("36.0 s  E5 key fields fail: ") for line in lines)
    # E1 (F1 0.62) fails, E2-E4 agree at 24 s; E5, E6 caught by key fields and deny-list
    assert "24.0 s  Agreement so far 3/4" in lines
    assert lines[-1] == "36.0 s  Agreement so far 5/6"


def test_trace_keeps_only_the_last_runs(features):
    ev = evaluate(features, Settings())
    events = trace_events(features, ev, reveal_times(features.n), 60.0, max_runs=2)
    assert events[0].line() == "48.0 s  8 earlier runs not shown"
    assert {e.run_id for e in events[1:]} == {"E9", "E10", ""}


def test_play_starts_at_the_first_reveal_when_nothing_is_revealed():
    # issue 9: Play showed nothing for 12 s; the first batch (E1-E2 at 12 s) now comes at once
    assert play_start_time(TEN, 0.0) == 12.0
    assert play_start_time(TEN, 5.0) == 12.0  # scrubbed to before the first reveal
    assert play_start_time(TEN, 12.0) == 12.0
    assert play_start_time(TEN, 30.0) == 30.0  # E1-E4 revealed: go on from here
    assert play_start_time(TEN, 60.0) == 12.0  # at the end: again from the start
    assert play_start_time(np.zeros(0), 60.0) == 0.0 and play_start_time(np.zeros(0), 7.0) == 7.0


@given(st.integers(0, 400), st.floats(0.0, 60.0, allow_nan=False))
def test_stops_and_next_event_by_their_definitions(n, t):
    """``event_times`` is the distinct reveal times ascending and ``next_event_time`` the first
    reveal time after t (+ TIME_EPS), for every set size (also above 60 runs, where batches
    grow) and time: checked against the definitions computed plainly."""
    times = reveal_times(n)
    assert event_times(times).tolist() == sorted(set(times.tolist()))
    later = [x for x in times.tolist() if x > t + 1e-6]
    assert next_event_time(times, t) == (later[0] if later else 60.0)


@given(st.integers(0, 400), st.lists(st.floats(-1.0, 61.0, allow_nan=False), min_size=1, max_size=8))
def test_the_compact_timeline_reads_as_the_reveal_times(n, ts):
    """A session keeps ``reveal_timeline(n)`` (R floats), not ``reveal_times(n)`` (n floats): the
    same bits run by run, and the same answers from every replay function at any time."""
    full, compact = reveal_times(n), reveal_timeline(n)
    batch = reveal_batch(n)
    steps = -(-n // batch)
    by_definition = [60.0 * (i // batch + 1) / steps for i in range(n)]  # reveal r of R at 60 r / R
    assert full.tolist() == by_definition and len(compact) == compact.size == n
    assert [compact[i] for i in range(n)] == by_definition
    assert event_times(compact).tolist() == event_times(full).tolist()
    assert compact.events.size <= max(30, (n + 1) // 2)
    for t in ts:
        assert revealed_count(compact, t) == revealed_count(full, t)
        assert next_event_time(compact, t) == next_event_time(full, t)
        assert play_start_time(compact, t) == play_start_time(full, t)


def test_the_compact_timeline_at_ten_runs_and_its_ends():
    """Ten runs by hand: E1-E2 at 12 s ... E9-E10 at 60 s; out-of-range runs are refused."""
    ten = reveal_timeline(10)
    assert ten.events.tolist() == [12, 24, 36, 48, 60] and ten.batch == 2
    assert (ten[0], ten[3], ten[-1]) == (12.0, 24.0, 60.0)
    assert revealed_count(ten, 24.0 - 1e-9) == 4 and revealed_count(ten, 60.0) == 10
    with pytest.raises(IndexError):
        ten[10]


def test_state_and_trace_are_the_same_over_the_compact_timeline(features):
    """The replay's state and event trace at every reveal and between reveals, over the compact
    timeline and over the full reveal times of the bundled set."""
    ev = evaluate(features, Settings())
    full, compact = reveal_times(features.n), reveal_timeline(features.n)
    for t in (0.0, 11.9, 12.0, 25.0, 47.999999, 60.0):
        assert state_at(features, ev, compact, t) == state_at(features, ev, full, t)
        assert trace_events(features, ev, compact, t) == trace_events(features, ev, full, t)


def test_trace_agreement_over_unlabelled_runs_is_no_0_of_0(features):
    """The running agreement while no revealed run has a label: words, not ``0/0``; from the first
    labelled run on, the count (E1, E2 unlabelled here; under ANY_ORDER E3 passes and is acceptable,
    E4 misses confirm_booking and is unacceptable: both agree at 24 s)."""
    human = features.human.copy()
    human[:2] = -1
    relabelled = features.with_human(human)
    ev = evaluate(relabelled, Settings(trajectory="any_order"))
    lines = [e.line() for e in trace_events(relabelled, ev, reveal_times(relabelled.n), 24.0)]
    assert "12.0 s  Agreement so far: no labelled run yet" in lines
    assert lines[-1] == "24.0 s  Agreement so far 2/2"
