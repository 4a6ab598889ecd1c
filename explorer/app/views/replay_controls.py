"""Replay controls: Play/Pause, Next event, Restart, Speed and the Inspection time slider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import panel as pn

from ..state import Clock
from .style import styled


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
        self.play = pn.widgets.Button(name="Play", css_classes=["me-play"], button_type="primary", width=90)
        self.next = pn.widgets.Button(name="Next event", css_classes=["me-next"], width=110)
        self.restart = pn.widgets.Button(name="Restart", css_classes=["me-restart"], width=90)
        self.play.on_click(lambda _e: self.on_play())
        self.next.on_click(lambda _e: self.on_next())
        self.restart.on_click(lambda _e: self.on_restart())
        self.speed = pn.widgets.RadioButtonGroup.from_param(
            self.clock.param.speed, name="Speed", css_classes=["me-speed"], button_type="primary",
            button_style="outline", width=200,
        )
        self.time = pn.widgets.FloatSlider.from_param(
            self.clock.param.time, name="Inspection time", start=0.0, end=60.0, step=0.1, format="0.0",
            css_classes=["me-time"], sizing_mode="stretch_width",
        )
        self.label = pn.pane.HTML(
            f'<span class="me-time-text">{time_label(0.0)}</span>', css_classes=["me-time-label"],
            **styled(width=90, margin=(24, 10, 0, 10)),
        )

    def show(self, t: float, playing: bool) -> None:
        """Reflect the clock: the time label and the Play/Pause label."""
        self.label.object = f'<span class="me-time-text">{time_label(t)}</span>'
        name = "Pause" if playing else "Play"
        if self.play.name != name:
            self.play.name = name

    def panel(self) -> pn.Column:
        """The controls card."""
        return pn.Column(
            pn.FlexBox(
                self.play, self.next, self.restart,
                pn.Row(
                    pn.pane.HTML('<div class="me-label me-inline">Speed</div>', **styled(margin=(12, 4, 0, 16))),
                    self.speed,
                ),
                flex_wrap="wrap",
                sizing_mode="stretch_width",
            ),
            pn.Row(self.time, self.label, sizing_mode="stretch_width"),
            pn.pane.HTML(
                '<div class="me-hint">Play reveals the runs two at a time over 60 inspection seconds. '
                "Any change to the settings recomputes the runs and rewinds to 0.</div>",
                **styled(margin=(0, 10), sizing_mode="stretch_width"),
            ),
            css_classes=["me-card", "me-replay"],
            sizing_mode="stretch_width",
        )
