"""Scorer settings (the lesson's wording), each widget bound to :class:`explorer.app.state.Inputs`.

Honest controls: a control that does nothing under the current settings is disabled (the
``disabled`` attribute reaches the browser) and a one-line reason says why — the denied tools while
the deny-list check is off, the threshold under the mean rule or the cascade; a typed threshold
outside 0..1 is not applied and a message says so.

The card is grouped so later issues can add to a group: trajectory (match families, an argument
mode and a trajectory threshold go in :meth:`InputsView.trajectory_group`), the response check,
and the checks for what overlap cannot see.
"""

from __future__ import annotations

import html

import panel as pn

from ..state import Inputs
from .style import LiveHTML, styled

COMPACT_BUTTONS = ":host .bk-btn { padding: 5px 3px; font-size: 13px; }"
TWO_LINE_BUTTONS = ":host .bk-btn { padding: 3px 4px; font-size: 12.5px; white-space: normal; line-height: 1.2; }"
"""Side-by-side choices whose labels take two lines (they fit the settings column's width)."""
DIMMED_WHEN_DISABLED = ".noUi-target[disabled] { opacity: 0.4; } .noUi-target[disabled] .noUi-handle { cursor: not-allowed; }"
"""A disabled slider looks disabled (Bokeh only stops it moving)."""

DENY_OFF_REASON = "Tick Deny-list check to use these tools."
THRESHOLD_REASONS = {
    "mean": "Not used under “Mean”: a run passes when the mean of trajectory and F1 reaches 0.75.",
    "cascade": "Not used by the cascade: it passes above and fails below the bands set under Response scorer.",
}
"""Why the threshold is disabled, by the setting that makes it unused."""


def threshold_reason(combine: str, response_scorer: str) -> str:
    """The one-line reason the threshold does nothing, or ``""`` when it is used (``combine`` all
    and a response scorer other than the cascade)."""
    if combine == "mean":
        return THRESHOLD_REASONS["mean"]
    if response_scorer == "cascade":
        return THRESHOLD_REASONS["cascade"]
    return ""


def typed_threshold_message(value: float | None) -> str:
    """What to say about a typed threshold: ``""`` when it can be applied (0..1), else one sentence."""
    if value is None:
        return "Type a number from 0 to 1; the threshold stays as it was."
    if not 0.0 <= value <= 1.0:
        return f"{value:g} is outside 0 to 1, so it was not applied; the threshold stays as it was."
    return ""


def _label(text: str, css: str = "me-label", title: str = "") -> pn.pane.HTML:
    tip = f' title="{html.escape(title)}"' if title else ""
    return LiveHTML(f'<div class="{css}"{tip}>{text}</div>', **styled(margin=(4, 10, 0, 10)))


def _reason_pane(css: str) -> pn.pane.HTML:
    return LiveHTML("", css_classes=[css, "me-reason"], visible=False, **styled(margin=(0, 10), sizing_mode="stretch_width"))


class InputsView:
    """The settings card; widgets are created once and stay bound to ``inputs`` both ways."""

    def __init__(self, inputs: Inputs) -> None:
        self.inputs = inputs
        p = inputs.param
        self.trajectory = pn.widgets.RadioButtonGroup.from_param(
            p.trajectory, label="Trajectory match", css_classes=["me-trajectory"], color="primary",
            variant="outline", sizing_mode="stretch_width", stylesheets=[COMPACT_BUTTONS],
        )
        self.compare_args = pn.widgets.Checkbox.from_param(
            p.compare_args, label="Compare arguments", css_classes=["me-compare-args"],
        )
        self.f1 = pn.widgets.FloatSlider.from_param(
            p.f1_threshold, label="Response F1 threshold", start=0.0, end=1.0, step=0.01, format="0.00",
            css_classes=["me-f1"], sizing_mode="stretch_width", min_width=150, stylesheets=[DIMMED_WHEN_DISABLED],
        )
        self.f1_input = pn.widgets.FloatInput(
            value=inputs.f1_threshold, label="Type it", step=0.01, format="0.00",
            css_classes=["me-f1-input"], width=86,
        )
        self.f1_reason = _reason_pane("me-f1-reason")
        self.f1_message = LiveHTML("", css_classes=["me-f1-message"], visible=False,
                                       **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.combine = pn.widgets.RadioButtonGroup.from_param(
            p.combine, label="Combine scores", css_classes=["me-combine"], color="primary",
            variant="outline", sizing_mode="stretch_width", stylesheets=[TWO_LINE_BUTTONS],
        )
        self.deny_check = pn.widgets.Checkbox.from_param(p.deny_check, label="Deny-list check", css_classes=["me-deny-check"])
        self.deny_tools = pn.widgets.MultiChoice.from_param(
            p.deny_tools, label="Denied tools", css_classes=["me-deny-tools"], sizing_mode="stretch_width",
        )
        self.deny_reason = _reason_pane("me-deny-reason")
        self.key_fields = pn.widgets.Checkbox.from_param(
            p.key_fields, label="Exact check on dates and booking ids", css_classes=["me-key-fields"],
        )
        # one date reading for every check (key fields, cascade field rules, rung 4): issue 10, kind 7
        self.day_first = pn.widgets.RadioButtonGroup.from_param(
            p.day_first, label="Numeric dates", css_classes=["me-day-first"], color="primary",
            variant="outline", sizing_mode="stretch_width", stylesheets=[TWO_LINE_BUTTONS],
        )
        self._resetting = False
        self.f1_input.param.watch(self._from_box, "value")
        inputs.param.watch(self._to_box, "f1_threshold")
        inputs.param.watch(self._honest, ["deny_check", "combine", "response_scorer"])
        self._honest()

    # --- the typed threshold -----------------------------------------------------------------
    def _from_box(self, event) -> None:
        """A typed value in 0..1 becomes the threshold; anything else is not applied, the box
        shows the threshold again and a message says why (until the next value is applied)."""
        if self._resetting:
            return
        value = event.new
        message = typed_threshold_message(value)
        self.f1_message.object = f'<div class="me-input-error">{html.escape(message)}</div>' if message else ""
        self.f1_message.visible = bool(message)
        if message:
            self._resetting = True
            try:
                self.f1_input.value = self.inputs.f1_threshold
            finally:
                self._resetting = False
        elif value != self.inputs.f1_threshold:
            self.inputs.f1_threshold = float(value)  # as typed: rounding could move it past a score (issue 10)

    def _to_box(self, event) -> None:
        if self.f1_input.value != event.new:
            self.f1_input.value = event.new

    # --- honest controls ---------------------------------------------------------------------
    def _honest(self, *_events) -> None:
        """Disable what does nothing under the current settings and say why."""
        i = self.inputs
        deny_off = not i.deny_check
        self.deny_tools.disabled = deny_off
        self._reason(self.deny_reason, DENY_OFF_REASON if deny_off else "")
        why = threshold_reason(i.combine, i.response_scorer)
        self.f1.disabled = self.f1_input.disabled = bool(why)
        self._reason(self.f1_reason, why)

    @staticmethod
    def _reason(pane: pn.pane.HTML, text: str) -> None:
        if text:
            pane.object = f'<div class="me-hint">{html.escape(text)}</div>'
        pane.visible = bool(text)

    # --- layout ------------------------------------------------------------------------------
    def trajectory_group(self) -> pn.Column:
        """Trajectory match and argument comparison (issue 12 adds its families here)."""
        return pn.Column(
            _label("Trajectory match", title="How the calls the agent made are compared with the expected calls "
                   "(ADK match types): EXACT = same calls, same order, nothing extra; IN_ORDER = other calls may sit "
                   "between; ANY_ORDER = each expected call somewhere"),
            self.trajectory,
            self.compare_args,
            css_classes=["me-trajectory-group"], sizing_mode="stretch_width", margin=0,
        )

    def response_group(self) -> pn.Column:
        """The answer check's threshold (slider and typed box) and the combine rule."""
        return pn.Column(
            pn.Row(self.f1, self.f1_input, sizing_mode="stretch_width", margin=0),
            self.f1_reason,
            self.f1_message,
            _label("Combine scores"),
            self.combine,
            sizing_mode="stretch_width", margin=0,
        )

    def checks_group(self) -> pn.Column:
        """The deny-list, the exact key-field check and how numeric dates read."""
        return pn.Column(
            _label("Checks for what overlap cannot see"),
            self.deny_check,
            self.deny_tools,
            self.deny_reason,
            self.key_fields,
            _label("Numeric dates, for every check"),
            self.day_first,
            sizing_mode="stretch_width", margin=0,
        )

    def panel(self, *more: pn.viewable.Viewable) -> pn.Column:
        """The settings card (``more``: further groups at its end, e.g. the response scorer)."""
        return pn.Column(
            LiveHTML("<h2>Scorer settings</h2>", **styled(margin=(0, 10))),
            self.trajectory_group(),
            self.response_group(),
            self.checks_group(),
            *more,
            css_classes=["me-card", "me-inputs"],
            sizing_mode="stretch_width",
        )

