"""Scorer inputs (seed 002 wording), each widget bound to :class:`explorer.app.state.Inputs`."""

from __future__ import annotations

import panel as pn

from ..state import Inputs
from .style import styled


COMPACT_BUTTONS = ":host .bk-btn { padding: 6px 4px; font-size: 13px; }"


def _label(text: str, css: str = "me-label") -> pn.pane.HTML:
    return pn.pane.HTML(f'<div class="{css}">{text}</div>', **styled(margin=(8, 10, 0, 10)))


def typed_threshold(inputs: Inputs) -> pn.widgets.FloatInput:
    """A FloatInput bound to ``inputs.f1_threshold`` both ways; a typed value outside 0..1 (or an
    emptied box) is not applied and the box shows the current threshold again."""
    box = pn.widgets.FloatInput(
        value=inputs.f1_threshold, name="Type a threshold", step=0.01, format="0.00",
        css_classes=["me-f1-input"], width=120,
    )

    def from_box(event) -> None:
        value = event.new
        if value is None or not 0.0 <= value <= 1.0:
            box.value = inputs.f1_threshold
        elif value != inputs.f1_threshold:
            inputs.f1_threshold = float(value)  # as typed: rounding could move it past a score (issue 10)

    def to_box(event) -> None:
        if box.value != event.new:
            box.value = event.new

    box.param.watch(from_box, "value")
    inputs.param.watch(to_box, "f1_threshold")
    return box


def inputs_panel(inputs: Inputs) -> pn.Column:
    """The inputs card. Widgets are created once and stay bound to ``inputs`` both ways."""
    p = inputs.param
    trajectory = pn.widgets.RadioButtonGroup.from_param(
        p.trajectory, name="Trajectory match", css_classes=["me-trajectory"], button_type="primary",
        button_style="outline", sizing_mode="stretch_width", stylesheets=[COMPACT_BUTTONS],
    )
    compare_args = pn.widgets.Checkbox.from_param(p.compare_args, name="Compare arguments", css_classes=["me-compare-args"])
    f1 = pn.widgets.FloatSlider.from_param(
        p.f1_threshold, name="Response F1 threshold", start=0.0, end=1.0, step=0.01, format="0.00",
        css_classes=["me-f1"], sizing_mode="stretch_width",
    )
    f1_input = typed_threshold(inputs)
    combine = pn.widgets.RadioButtonGroup.from_param(
        p.combine, name="Combine scores", css_classes=["me-combine"], button_type="primary",
        button_style="outline", orientation="vertical", sizing_mode="stretch_width",
    )
    deny_check = pn.widgets.Checkbox.from_param(p.deny_check, name="Deny-list check", css_classes=["me-deny-check"])
    deny_tools = pn.widgets.MultiChoice.from_param(
        p.deny_tools, name="Denied tools", css_classes=["me-deny-tools"], sizing_mode="stretch_width",
    )
    key_fields = pn.widgets.Checkbox.from_param(
        p.key_fields, name="Exact check on dates and booking ids", css_classes=["me-key-fields"]
    )
    # one date reading for every check (key fields, cascade field rules, rung 4): issue 10, kind 7
    day_first = pn.widgets.RadioButtonGroup.from_param(
        p.day_first, name="Numeric dates", css_classes=["me-day-first"], button_type="primary",
        button_style="outline", orientation="vertical", sizing_mode="stretch_width",
    )
    return pn.Column(
        pn.pane.HTML("<h2>Scorer settings</h2>", **styled(margin=(0, 10))),
        _label("Trajectory match"),
        trajectory,
        compare_args,
        f1,
        f1_input,
        _label("Combine scores"),
        combine,
        _label("Checks for what overlap cannot see"),
        deny_check,
        deny_tools,
        key_fields,
        _label("Numeric dates, for every check"),
        day_first,
        css_classes=["me-card", "me-inputs"],
        sizing_mode="stretch_width",
    )
