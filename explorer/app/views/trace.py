"""The event trace: time-stamped lines of what happened up to the inspection time."""

from __future__ import annotations


import panel as pn

from ...core.evaluation.replay import TraceEvent
from .style import LiveHTML, styled
from ..highlight import escape_whole


def trace_html(events: list[TraceEvent]) -> str:
    """One escaped ``<div class="me-ev me-ev-KIND">`` per event (text is ``TraceEvent.line()``, its
    hyphenated words such as ``"BK-4470"`` kept on one line, :func:`~explorer.app.highlight.escape_whole`),
    inside a scroller that stays pinned to the newest line."""
    if not events:
        return '<div class="me-empty">Nothing yet: press Play or Next event.</div>'
    lines = "".join(f'<div class="me-ev me-ev-{e.kind}">{escape_whole(e.line())}</div>' for e in events)
    return f'<div class="me-trace-scroll"><div class="me-trace-lines">{lines}</div></div>'


class TraceView:
    """The trace card."""

    def __init__(self) -> None:
        self.pane = LiveHTML("", css_classes=["me-trace"], **styled(sizing_mode="stretch_width"))

    def show(self, events: list[TraceEvent]) -> None:
        """Show ``events`` (already cut to the inspection time)."""
        self.pane.show(trace_html(events))

    def panel(self) -> pn.Column:
        """The trace (a tab beside the runs table)."""
        return pn.Column(
            LiveHTML('<div class="me-hint">What happened up to the replay time: each revealed run, its checks and '
                         "verdict, and the agreement so far.</div>", **styled(margin=(2, 10))),
            self.pane,
            sizing_mode="stretch_width",
            margin=0,
        )
