"""The guided lesson: seven step buttons (``me-lesson-1`` ... ``me-lesson-7``) and the chosen step's text."""

from __future__ import annotations

import html
from typing import Callable

import panel as pn

from ...core.evaluation.settings import Settings
from ..lesson import STEPS, LessonStep
from .style import styled

INTRO = (
    "Seed 002's story in seven steps. Choosing a step sets the inputs; change them freely afterwards."
)


class LessonView:
    """Buttons for :data:`STEPS`; ``on_step`` receives the chosen :class:`LessonStep`."""

    def __init__(self, on_step: Callable[[LessonStep], None]) -> None:
        self.on_step = on_step
        self.buttons = []
        for step in STEPS:
            b = pn.widgets.Button(
                name=step.title, css_classes=["me-lesson-step", f"me-lesson-{step.number}"],
                button_type="light", sizing_mode="stretch_width", margin=(2, 10),
                stylesheets=[":host .bk-btn { text-align: left; white-space: normal; font-size: 14px; padding: 5px 10px; }"],
            )
            b.on_click(lambda _e, s=step: self.choose(s))
            self.buttons.append(b)
        self.text = pn.pane.HTML(
            '<div class="me-empty">No step chosen yet.</div>', css_classes=["me-lesson-text"],
            **styled(sizing_mode="stretch_width", margin=(8, 10)),
        )

    def mark_current(self, settings: Settings, opening: Settings) -> None:
        """Highlight the step whose settings are ``settings`` (none when the inputs left every step)."""
        for b, s in zip(self.buttons, STEPS):
            kind = "primary" if s.settings(opening) == settings else "light"
            if b.button_type != kind:
                b.button_type = kind

    def choose(self, step: LessonStep) -> None:
        """Show ``step``'s explanation and apply its settings (what a click on its button does)."""
        self.text.object = (
            f'<div class="me-lesson-title">{html.escape(step.title)}</div>'
            f"<p>{html.escape(step.explanation)}</p>"
        )
        self.on_step(step)

    def panel(self) -> pn.Column:
        """The lesson card."""
        return pn.Column(
            pn.pane.HTML(f'<h2>Guided lesson</h2><div class="me-hint">{html.escape(INTRO)}</div>', **styled(margin=(0, 10))),
            *self.buttons,
            self.text,
            css_classes=["me-card", "me-lesson"],
            sizing_mode="stretch_width",
        )
