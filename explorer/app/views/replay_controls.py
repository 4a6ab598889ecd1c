"""Replay controls in one strip: Play/Pause, Next event, Restart, Speed, the replay-time slider and
``t = 25.0 s``; the revealed-so-far line goes underneath (given by the session).

The clock runs in the page (:class:`~explorer.app.views.replay_clock.ReplayClock`, issue 15): the
buttons and the slider are handled there, and the page tells the server the clock's time when the
revealed runs change or the person moves it. This class keeps the session's
:class:`~explorer.app.state.Clock` and the page's clock in step both ways: a page report (of the
page's latest ``epoch``) sets the Clock; any other change of the Clock (a settings change rewinds,
Reset, the session's commands) is sent to the page as a move with the next ``epoch``.
"""

from __future__ import annotations

from typing import Any, Sequence

import panel as pn

from ...core.evaluation.replay import DURATION, RevealTimes, event_times
from ..state import SPEED_OPTIONS, Clock
from .replay_clock import ReplayClock
from .style import WRAP, LiveHTML, flex_item, styled

REPLAY_TIME_HELP = (
    "The replay's clock: over 60 seconds the runs are revealed two at a time, each with its checks and "
    "verdict, as if you were inspecting them one after another. Drag to jump to a moment."
)


def time_label(t: float) -> str:
    """``"t = 25.0 s"``."""
    return f"t = {t:.1f} s"


class ReplayControls:
    """The replay widgets over the session's ``clock``; ``times`` are the runs' reveal times (s,
    run order: ``replay.reveal_times`` or its compact ``replay.reveal_timeline``)."""

    def __init__(self, clock: Clock, times: Sequence[float] | RevealTimes) -> None:
        self.clock = clock
        self.times = [float(t) for t in event_times(times)]
        self.play = pn.widgets.Button(label="Play", css_classes=["me-play"], color="primary", width=84,
                                      description="Reveal the runs: the first ones at once, then two every 12 s (at 1x)")
        self.next = pn.widgets.Button(label="Next event", css_classes=["me-next"], width=100)
        self.restart = pn.widgets.Button(label="Restart", css_classes=["me-restart"], width=84)
        self.speed = pn.widgets.RadioButtonGroup.from_param(
            self.clock.param.speed, label="Speed", css_classes=["me-speed"], color="primary",
            variant="outline", width=176,
        )
        # moved by the page's clock (and by the person, whose moves the page reports)
        self.time = pn.widgets.FloatSlider(
            value=clock.time, label="Replay time (s), drag to jump", start=0.0, end=DURATION, step=0.1, format="0.0",
            css_classes=["me-time"], sizing_mode="stretch_width", styles=flex_item(200),
        )
        self.label = LiveHTML(
            f'<span class="me-time-text" title="{REPLAY_TIME_HELP}">{time_label(clock.time)}</span>', css_classes=["me-time-label"],
            **styled(width=102, margin=(22, 6, 0, 4)),  # "t = 60.0 s" is 84 px, 99 px in presenter mode
        )
        self.page_clock: ReplayClock | None = None
        self._epoch = 0
        self._hearing = False
        clock.param.watch(self._moved, ["time", "playing"])

    def show(self, t: float, playing: bool) -> None:
        """Reflect the clock: the time label and the Play/Pause label."""
        self.label.show(f'<span class="me-time-text" title="{REPLAY_TIME_HELP}">{time_label(t)}</span>')
        label = "Pause" if playing else "Play"
        if self.play.label != label:
            self.play.label = label

    # --- the page's clock ----------------------------------------------------------------------
    def _heard(self, event: Any) -> None:
        """A report from the page, ``[epoch, time, playing]``: applied when it answers the server's
        latest move, in one message to the page for everything it changes."""
        report = event.new
        if not isinstance(report, (list, tuple)) or len(report) != 3 or report[0] != self._epoch:
            return
        t = min(max(float(report[1]), 0.0), DURATION)
        self._hearing = True
        try:
            with pn.io.hold():
                self.clock.param.update(time=t, playing=bool(report[2]))
        finally:
            self._hearing = False

    def _moved(self, *_events: Any) -> None:
        """The Clock changed: a move of the server's is sent to the page with the next epoch; what
        the page reported is only recorded (a page built again later starts from it)."""
        if self.page_clock is None:
            return
        state = {"time": float(self.clock.time), "playing": bool(self.clock.playing)}
        if not self._hearing:
            self._epoch += 1
            state["epoch"] = self._epoch
        self.page_clock.param.update(**state)

    def panel(self, state_line: pn.viewable.Viewable) -> ReplayClock:
        """The controls card with ``state_line`` (the revealed-so-far figures) underneath, inside
        the page's clock."""
        card = pn.Column(
            pn.Row(
                self.play, self.next, self.restart,
                LiveHTML('<div class="me-label me-inline">Speed</div>', **styled(margin=(14, 2, 0, 10))),
                self.speed, self.time, self.label,
                sizing_mode="stretch_width", css_classes=["me-replay-row"], styles=WRAP,
            ),
            state_line,
            css_classes=["me-card", "me-replay"],
            # the card's CSS margin (3px 4px, .me-card) is not taken off its width inside the clock's
            # wrapper: stretched to 100 % it ran 8 px past the other cards
            sizing_mode="stretch_width", styles={"width": "calc(100% - 8px)"},
        )
        self.page_clock = ReplayClock(
            strip=card, times=self.times, duration=DURATION, speeds=list(SPEED_OPTIONS.values()),
            time=float(self.clock.time), playing=bool(self.clock.playing), epoch=self._epoch,
            css_classes=["me-replay-clock"], sizing_mode="stretch_width", margin=0,
        )
        self.page_clock.param.watch(self._heard, ["report"])
        return self.page_clock
