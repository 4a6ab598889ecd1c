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
