"""The active case set's lesson as a stepper at the top of the page (:mod:`explorer.app.lessons`:
the booking-agent lesson on the booking set, the refund-agent lesson on the refund set; a set
without a lesson shows no stepper): Prev / Next, a chip per step with the figure the story gives
(``me-lesson-1`` ... ``me-lesson-<n>``), and the shown step's text.

The shown step follows the inputs: whenever the settings equal a step's (chosen here, opened from
a link, or set by hand) that step is highlighted and its text shown, so text and highlight never
disagree. Each step's text ends with every setting it sets, in words, and with the figure the
lesson expects next to the figure the current settings give.
"""

from __future__ import annotations

import html
from typing import Callable

import panel as pn

from ...core.evaluation.metrics import Agreement
from ...core.evaluation.settings import Settings
from ..lesson import LessonStep
from ..lessons import BOOKING, Lesson
from ..words import figure, settings_words
from .style import WRAP, LiveHTML, flex_item, hide_tooltip_on_click, styled, tooltip_below, write_through

STEP_CHIP = ":host .bk-btn { padding: 3px 7px; font-size: 12.5px; white-space: nowrap; }"
NAV_BUTTON = ":host .bk-btn { padding: 3px 8px; font-size: 13px; }"


def short_title(step: LessonStep) -> str:
    """The title without its number: ``"ANY_ORDER accepts the reordered profile read"``."""
    head, _, rest = step.title.partition(". ")
    return rest if head.isdigit() and rest else step.title


def step_head_html(step: LessonStep, now: Agreement, on_step: bool, n_steps: int = len(BOOKING.steps)) -> str:
    """The shown step's head line: ``Step 3 of 7: <title>``, the lesson's figure and the one the
    current settings give (or, off the lesson path, that no step matches), escaped."""
    e = html.escape
    got = figure(now.agree, now.labelled)
    if on_step:
        same = got == step.expected
        mark = (' <span class="me-step-same">✓</span>' if same else
                ' <span class="me-step-differs">differs: these runs or labels are not the lesson\'s</span>')
        figures = (f'<span class="me-step-figures">lesson <b>{e(step.expected)}</b> · '
                   f"yours <b>{e(got)}</b>{mark}</span>")
        head = f'<span class="me-step-count">Step {step.number} of {n_steps}:</span> <b>{e(short_title(step))}</b>'
    else:
        figures = (f'<span class="me-step-figures">Your settings: <b>{e(got)}</b> agree · '
                   f"step {step.number} gives <b>{e(step.expected)}</b></span>")
        head = '<span class="me-step-count">Your own settings</span> (not one of the lesson\'s steps)'
    return f'<div class="me-step-head">{head} {figures}</div>'


def step_html(step: LessonStep, opening: Settings, on_step: bool = True) -> str:
    """The shown step's text: its explanation and every setting it sets, in words (escaped). Off
    the lesson path (``on_step`` False): that no step is shown, and where Prev / Next lead."""
    e = html.escape
    if not on_step:
        return (
            '<p class="me-step-text">The settings were changed away from the lesson. Choose a step to follow '
            f"the story again; Prev and Next go on from step {step.number} ({e(short_title(step))}).</p>"
        )
    return (
        f'<p class="me-step-text">{e(step.explanation)} <span class="me-step-settings"><b>Step {step.number} sets:</b> '
        f"{e(settings_words(step.settings(opening)))}.</span></p>"
    )


class LessonView:
    """The stepper of ``lesson`` (default the booking-agent lesson; None: no lesson, the stepper
    is hidden); ``on_step`` receives the chosen :class:`LessonStep` (it applies its settings)."""

    def __init__(self, on_step: Callable[[LessonStep], None], lesson: Lesson | None = BOOKING) -> None:
        self.on_step = on_step
        self.lesson = lesson
        self.steps: tuple[LessonStep, ...] = lesson.steps if lesson is not None else ()
        self.buttons: list[pn.widgets.Button] = []
        for step in self.steps:
            b = pn.widgets.Button(
                label=f"{step.number} · {step.expected}", css_classes=["me-lesson-step", f"me-lesson-{step.number}"],
                color="light", margin=(2, 2), stylesheets=[STEP_CHIP], description=tooltip_below(step.title),
            )
            hide_tooltip_on_click(b)
            b.on_click(lambda _e, s=step: self.choose(s))
            self.buttons.append(b)
        self.prev = pn.widgets.Button(label="◀ Prev", css_classes=["me-lesson-prev"], margin=(2, 4, 2, 2), stylesheets=[NAV_BUTTON])
        self.next = pn.widgets.Button(label="Next ▶", css_classes=["me-lesson-next"], margin=(2, 2, 2, 4), stylesheets=[NAV_BUTTON])
        self.prev.on_click(lambda _e: self.step_by(-1))
        self.next.on_click(lambda _e: self.step_by(+1))
        self.head = LiveHTML("", css_classes=["me-lesson-head"], **styled(sizing_mode="stretch_width", margin=(6, 8, 0, 8),
                                                                             styles=flex_item(380)))
        self.text = LiveHTML("", css_classes=["me-lesson-text"], **styled(sizing_mode="stretch_width", margin=(0, 8)))
        self.shown = self.steps[0] if self.steps else None
        """The step whose text is shown (the one the inputs are on, else the last one shown)."""
        self.current: LessonStep | None = None
        """The step whose settings the inputs are on, or None."""
        self._opening: Settings | None = None
        self._step_settings: tuple[Settings, ...] = ()

    def mark_current(self, settings: Settings, opening: Settings, now: Agreement) -> None:
        """Highlight and show the step whose settings are ``settings`` (none highlighted when the
        inputs left every step; the text then says so); ``now``: the current all-runs figures."""
        if not self.steps:
            return
        if self._opening != opening:  # the steps' settings, worked out once per opening settings
            self._opening, self._step_settings = opening, tuple(s.settings(opening) for s in self.steps)
        self.current = next((s for s, st in zip(self.steps, self._step_settings) if st == settings), None)
        if self.current is not None:
            self.shown = self.current
        for b, s in zip(self.buttons, self.steps):
            color = "primary" if s is self.current else "light"
            if b.color != color:
                # both names at once: Panel keeps ``button_type`` (to be removed in Panel 2) in step
                # with ``color`` by a second update of the model otherwise
                write_through(b, color=color, button_type=color)
        write_through(self.prev, disabled=self.current is not None and self.current.number == 1)
        write_through(self.next, disabled=self.current is not None and self.current.number == len(self.steps))
        self.head.show(step_head_html(self.shown, now, self.current is not None, len(self.steps)))
        self.text.show(step_html(self.shown, opening, self.current is not None))

    def choose(self, step: LessonStep) -> None:
        """Apply ``step``'s settings (what a click on its chip does); the text follows through
        :meth:`mark_current`."""
        self.shown = step
        self.on_step(step)

    def step_by(self, delta: int) -> None:
        """Prev (-1) / Next (+1) from the shown step; off the lesson path, Next re-applies the
        shown step's neighbour and Prev/Next never leave the lesson's steps."""
        if not self.steps:
            return
        k = min(max(self.shown.number - 1 + delta, 0), len(self.steps) - 1)
        self.choose(self.steps[k])

    def panel(self) -> pn.Column:
        """The stepper band: the lesson's name, Prev, the step chips, Next and the head line, then
        the step's text."""
        name = html.escape(self.lesson.name) if self.lesson is not None else ""
        label = LiveHTML('<div class="me-lesson-label" title="Each chip is a step of the lesson and the agreement '
                         f'it gives">{name}</div>', **styled(margin=(9, 4, 0, 8)))
        return pn.Column(
            pn.Row(label, self.prev, *self.buttons, self.next, self.head, sizing_mode="stretch_width", styles=WRAP),
            self.text,
            css_classes=["me-card", "me-lesson"], sizing_mode="stretch_width", visible=self.lesson is not None,
        )
