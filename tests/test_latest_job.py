"""explorer.app.loading.LatestJob: one background computation at a time per view, the latest
asked for winning (the sweep, the Calibration tab and argument-rule changes share it; each used
to start a thread per request, so ten label changes ran ten sweeps side by side)."""

from __future__ import annotations

import threading

from explorer.app.loading import LatestJob


def _wait(job):
    job.join(30)


def test_work_asked_for_while_one_computes_waits_and_only_the_latest_runs():
    release = threading.Event()
    ran: list[str] = []
    got: list[tuple] = []

    def work(name, block=False):
        def run(_progress):
            ran.append(name)
            if block:
                release.wait(30)
            return name
        return run

    jobs: LatestJob[str] = LatestJob("the test")
    jobs.submit(work("A", block=True), lambda r, e: got.append(("A", r, e)))
    first = jobs.job
    jobs.submit(work("B"), lambda r, e: got.append(("B", r, e)))
    jobs.submit(work("C"), lambda r, e: got.append(("C", r, e)))  # replaces B, which never runs
    assert jobs.queued and jobs.job is first
    jobs.poll()  # A still computes: nothing handed over
    assert got == []
    release.set()
    _wait(first)
    jobs.poll()  # A has ended: its result is stale, C starts
    assert got == [] and jobs.job is not first and not jobs.queued
    _wait(jobs.job)
    jobs.poll()
    assert got == [("C", "C", None)] and jobs.job is None
    assert ran == ["A", "C"]


def test_a_work_that_raises_hands_over_its_error_named():
    got: list[tuple] = []

    def boom(_progress):
        raise ValueError("no pairs")

    jobs: LatestJob[str] = LatestJob("the calibration")
    jobs.submit(boom, lambda r, e: got.append((r, e)))
    _wait(jobs.job)
    jobs.poll()
    assert got == [(None, "the calibration: ValueError: no pairs")]


def test_stop_drops_the_running_and_the_waiting_work():
    release = threading.Event()
    got: list[str] = []
    jobs: LatestJob[str] = LatestJob("the test")
    jobs.submit(lambda _p: release.wait(30) and "A", lambda r, e: got.append("A"))
    running = jobs.job
    jobs.submit(lambda _p: "B", lambda r, e: got.append("B"))
    jobs.stop()
    release.set()
    _wait(running)
    jobs.poll()
    assert got == [] and jobs.job is None and not jobs.queued


def test_progress_is_reported_while_the_work_computes():
    release = threading.Event()
    seen: list[bool] = []
    jobs: LatestJob[str] = LatestJob("the rules", waiting=lambda job, queued: seen.append(queued))
    jobs.submit(lambda _p: release.wait(30) and "A", lambda r, e: None)
    jobs.poll()
    jobs.submit(lambda _p: "B", lambda r, e: None)
    jobs.poll()
    release.set()
    assert seen == [False, True]
