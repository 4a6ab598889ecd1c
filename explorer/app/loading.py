"""Serving a big run file while it loads: a background load and the page shown meanwhile.

A 1M-run JSONL file takes a minute or more to load (``explorer.core.io.bigload``). ``serve`` then
starts the server at once and loads in a background thread; until the data is ready every new page
shows a progress bar (MB read, parsed and featurised, of the file's size) and swaps itself for the
explorer when the load ends. A load error is printed as one line and ends the server (exit 2),
as it would before serving.
"""

from __future__ import annotations

import html
import os
import sys
import threading
from typing import Callable, Generic, TypeVar

import panel as pn

from ..core.io.errors import LoadError
from .views.style import LiveHTML, styled

T = TypeVar("T")
POLL_MS = 500
"""How often a waiting page updates its progress bar (ms)."""


class BackgroundLoad(Generic[T]):
    """Runs ``load(progress)`` in a daemon thread. ``progress(done, total)`` (bytes) updates
    :attr:`done` / :attr:`total`; :attr:`result` is set when it returns. A LoadError (or any
    other exception) is printed to stderr as ``metric-explorer: error: ...`` and the process exits
    with status 2 (``on_error`` overrides that, for tests)."""

    def __init__(self, load: Callable[[Callable[[int, int], None]], T], name: str,
                 on_error: Callable[[str], None] | None = None) -> None:
        self.name = name
        self.done = 0
        self.total = 0
        self.result: T | None = None
        self.error: str | None = None
        self._load = load
        self._on_error = on_error or _exit_with
        self._thread = threading.Thread(target=self._run, name="metric-explorer-load", daemon=True)

    def start(self) -> "BackgroundLoad[T]":
        """Start loading; returns self."""
        self._thread.start()
        return self

    def join(self, timeout: float | None = None) -> None:
        """Wait for the load to end (tests, scripts)."""
        self._thread.join(timeout)

    @property
    def finished(self) -> bool:
        """True once the load has ended (:attr:`result` or :attr:`error` set) or never started."""
        return not self._thread.is_alive()

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def _run(self) -> None:
        try:
            self.result = self._load(self._progress)
        except LoadError as exc:
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - reported as one line, like the CLI does
            self.error = f"{self.name}: {type(exc).__name__}: {exc}"
        if self.error is not None:
            self._on_error(self.error)

    def percent(self) -> int:
        """Share of the file's bytes processed, 0..100."""
        return int(100 * self.done / self.total) if self.total else 0

    def status(self) -> str:
        """``"Loading big.jsonl: 412 of 1,565 MB (26%)"`` (plain text)."""
        if self.error is not None:
            return f"Loading failed: {self.error}"
        if not self.total:
            return f"Loading {self.name}: starting"
        return f"Loading {self.name}: {self.done / 1e6:,.0f} of {self.total / 1e6:,.0f} MB ({self.percent()}%)"


JOB_POLL_MS = 200
"""How often a session looks whether its :class:`LatestJob` has finished (ms)."""


class LatestJob(Generic[T]):
    """One view's background computations in a session, one at a time, the latest winning: the
    Settings sweep, the Calibration tab and a change of argument rules.

    :meth:`submit` starts ``work(progress)`` in a thread (:class:`BackgroundLoad`, named ``name``)
    when none computes; while one does (a thread cannot be stopped) the new work waits, and a later
    submit replaces the waiting one, so only the latest asked for is computed next and handed over.
    A periodic callback of the session (:data:`JOB_POLL_MS`) calls :meth:`poll`, which on the
    session's thread calls ``done(result, None)`` or ``done(None, error)`` for the latest work,
    drops a result made stale by a later submit, and otherwise ``waiting(job, queued)`` when given
    (a progress line; ``queued``: a later work waits). Outside a session (tests, scripts) nothing
    polls by itself: call :meth:`poll`. Labelling ten runs in a row used to start ten sweeps side
    by side, the last one's result coming ten sweeps' time later on a server's shared cores."""

    def __init__(self, name: str, waiting: Callable[[BackgroundLoad[T], bool], None] | None = None) -> None:
        self.name = name
        self.job: BackgroundLoad[T] | None = None
        """The work computing, or computed and not handed over yet (None when idle)."""
        self._waiting = waiting
        self._next: tuple[Callable[[Callable[[int, int], None]], T], Callable[[T | None, str | None], None], str] | None = None
        self._done: Callable[[T | None, str | None], None] | None = None
        self._callback = None

    @property
    def queued(self) -> bool:
        """True while a later work waits for the one computing."""
        return self._next is not None

    def submit(self, work: Callable[[Callable[[int, int], None]], T], done: Callable[[T | None, str | None], None],
               name: str | None = None) -> None:
        """Compute ``work`` in the background and hand its outcome to ``done`` (see the class);
        ``name`` (default the job's) heads the error of a work that raised."""
        if self.job is not None and not self.job.finished:
            self._next = (work, done, name or self.name)
        else:
            self._launch(work, done, name or self.name)
        if self._callback is None and pn.state.curdoc is not None:
            self._callback = pn.state.add_periodic_callback(self.poll, period=JOB_POLL_MS, start=True)

    def _launch(self, work: Callable[[Callable[[int, int], None]], T], done: Callable[[T | None, str | None], None],
                name: str) -> None:
        self._next = None
        self._done = done
        self.job = BackgroundLoad(work, name, on_error=lambda _message: None).start()

    def poll(self) -> None:
        """Hand over the finished work's outcome, start the one that waited, or report progress."""
        job = self.job
        if job is None:
            return
        if not job.finished:
            if self._waiting is not None:
                self._waiting(job, self._next is not None)
            return
        if self._next is not None:  # asked for while this one computed: its result is stale
            self._launch(*self._next)
            return
        done = self._done
        self.stop()
        if done is not None:
            done(job.result, None if job.result is not None else job.error or f"{self.name} gave no result")

    def stop(self) -> None:
        """Drop the work computing and any waiting (their results are never handed over)."""
        self.job = None
        self._next = None
        self._done = None
        if self._callback is not None and self._callback.running:
            self._callback.stop()
        self._callback = None


def _exit_with(message: str) -> None:
    print(f"metric-explorer: error: {message}", file=sys.stderr, flush=True)
    os._exit(2)  # the server runs in the main thread; the load cannot raise into it


def waiting_page(job: BackgroundLoad[T], make_app: Callable[[T], pn.viewable.Viewable]) -> pn.viewable.Viewable:
    """The explorer when ``job`` is done; else a progress bar and status line (class
    ``me-loading``) that replaces itself with ``make_app(job.result)`` when the load ends."""
    if job.result is not None:
        return make_app(job.result)
    text = LiveHTML("", css_classes=["me-loading"], **styled(sizing_mode="stretch_width"))
    bar = pn.indicators.Progress(value=job.percent(), max=100, width=480, css_classes=["me-loading-bar"])
    root = pn.Column(
        LiveHTML('<div class="me-header"><div class="me-title">Metric Trade-off Explorer</div></div>', **styled()),
        text, bar, sizing_mode="stretch_width",
    )

    def show() -> None:
        text.object = f'<div class="me-loading-text">{html.escape(job.status())}</div>'
        bar.value = job.percent()

    show()

    def poll() -> None:
        if job.result is not None:
            callback.stop()
            root.objects = [make_app(job.result)]
        else:
            show()

    callback = pn.state.add_periodic_callback(poll, period=POLL_MS, start=True)
    pn.state.on_session_destroyed(lambda _ctx: callback.stop() if callback.running else None)
    return root
