"""Replay controls in one strip: Play/Pause, Next event, Restart, Speed, the replay-time slider and
``t = 25.0 s``; the revealed-so-far line goes underneath (given by the session)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import panel as pn

from ..state import Clock
from .style import WRAP, LiveHTML, flex_item, styled

REPLAY_TIME_HELP = (
    "The replay's clock: over 60 seconds the runs are revealed two at a time, each with its checks and "
    "verdict, as if you were inspecting them one after another. Drag to jump to a moment."
)


def time_label(t: float) -> str:
    """``"t = 25.0 s"``."""
    return f"t = {t:.1f} s"


@dataclass
class ReplayControls:
    """The replay widgets; ``on_play``, ``on_next`` and ``on_restart`` are the session's handlers."""

    clock: Clock
    on_play: Callable[[], None]
    on_next: Callable[[], None]
    on_restart: Callable[[], None]

    def __post_init__(self) -> None:
        self.play = pn.widgets.Button(label="Play", css_classes=["me-play"], color="primary", width=84,
                                      description="Reveal the runs: the first ones at once, then two every 12 s (at 1x)")
        self.next = pn.widgets.Button(label="Next event", css_classes=["me-next"], width=100)
        self.restart = pn.widgets.Button(label="Restart", css_classes=["me-restart"], width=84)
        self.play.on_click(lambda _e: self.on_play())
        self.next.on_click(lambda _e: self.on_next())
        self.restart.on_click(lambda _e: self.on_restart())
        self.speed = pn.widgets.RadioButtonGroup.from_param(
            self.clock.param.speed, label="Speed", css_classes=["me-speed"], color="primary",
            variant="outline", width=176,
        )
        self.time = pn.widgets.FloatSlider.from_param(
            self.clock.param.time, label="Replay time (s), drag to jump", start=0.0, end=60.0, step=0.1, format="0.0",
            css_classes=["me-time"], sizing_mode="stretch_width", styles=flex_item(200),
        )
        self.label = LiveHTML(
            f'<span class="me-time-text" title="{REPLAY_TIME_HELP}">{time_label(0.0)}</span>', css_classes=["me-time-label"],
            **styled(width=74, margin=(22, 6, 0, 4)),
        )

    def show(self, t: float, playing: bool) -> None:
        """Reflect the clock: the time label and the Play/Pause label."""
        self.label.object = f'<span class="me-time-text" title="{REPLAY_TIME_HELP}">{time_label(t)}</span>'
        label = "Pause" if playing else "Play"
        if self.play.label != label:
            self.play.label = label

    def panel(self, state_line: pn.viewable.Viewable) -> pn.Column:
        """The controls card with ``state_line`` (the revealed-so-far figures) underneath."""
        return pn.Column(
            pn.Row(
                self.play, self.next, self.restart,
                LiveHTML('<div class="me-label me-inline">Speed</div>', **styled(margin=(14, 2, 0, 10))),
                self.speed, self.time, self.label,
                sizing_mode="stretch_width", css_classes=["me-replay-row"], styles=WRAP,
            ),
            state_line,
            css_classes=["me-card", "me-replay"],
            sizing_mode="stretch_width",
        )
