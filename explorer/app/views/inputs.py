"""Scorer settings (the lesson's wording), each widget bound to :class:`explorer.app.state.Inputs`.

Honest controls: a control that does nothing under the current settings is disabled (the
``disabled`` attribute reaches the browser) and a one-line reason says why — the denied tools while
the deny-list check is off, the threshold under the mean rule or the cascade; a typed threshold
outside 0..1 is not applied and a message says so.

The card is grouped: the trajectory (:meth:`InputsView.trajectory_group`: every family of
:mod:`explorer.core.scoring.trajectory_metrics` with its one-line definition, the trajectory
threshold, the argument mode with what it means, the single tool use's tool and the argument
rules), the response check, and the checks for what overlap cannot see. The trajectory threshold
is disabled with its reason where it does nothing (the trajectory not scored, the mean rule, a 1/0
family on runs of one turn), as the F1 threshold is.
"""

from __future__ import annotations

import html

import panel as pn

from ...core.scoring.passmark import show_limit

from ...core.scoring.trajectory_metrics import DEFINITIONS, canonical
from ..state import TRAJECTORY_GROUPS, Inputs, is_partial
from .style import WRAP, LiveHTML, inline_label, not_busy, styled, write_through

TWO_LINE_BUTTONS = (":host .bk-btn { padding: 3px 8px; font-size: 12.5px; white-space: normal; line-height: 1.2; "
                    "flex: 1 1 0; min-width: 0; overflow-wrap: anywhere; }")
"""Side-by-side choices of equal width whose labels wrap onto two lines inside the settings column.
The buttons were as wide as their one-line labels: at 1024x768 "Mean of trajectory and F1" filled
its button to the last pixel (text right edge 316.02 px, content box 316 px, 4 px padding) and
touched its border; halves of the card with 8 px padding keep every label clear of its edges."""
COMPACT_CHOICES = ":host .choices__input--cloned { width: 96px; } :host .choices__inner { min-height: 0; padding-bottom: 2px; }"
"""The denied tools on one line: the search box beside the chosen tools (it wraps when they fill the line)."""
DIMMED_WHEN_DISABLED = ".noUi-target[disabled] { opacity: 0.4; } .noUi-target[disabled] .noUi-handle { cursor: not-allowed; }"
"""A disabled slider looks disabled (Bokeh only stops it moving)."""

DENY_OFF_REASON = "Tick Deny-list check to use these tools."
THRESHOLD_REASONS = {
    "mean": "Not used under “Mean”: a run passes when the mean of trajectory and F1 reaches the mean threshold ({mean}).",
    "cascade": "Not used by the cascade: it passes above and fails below the bands set under Response scorer.",
}
"""Why the threshold is disabled, by the setting that makes it unused (``{mean}``: the mean threshold)."""


def threshold_reason(combine: str, response_scorer: str, mean_threshold: float = 0.75) -> str:
    """The one-line reason the threshold does nothing, or ``""`` when it is used (``combine`` all
    and a response scorer other than the cascade); under the mean rule it names
    ``mean_threshold`` (it said 0.75 whatever the threshold was)."""
    if combine == "mean":
        return THRESHOLD_REASONS["mean"].format(mean=show_limit(mean_threshold))
    if response_scorer == "cascade":
        return THRESHOLD_REASONS["cascade"]
    return ""


ARG_MEANINGS = {
    "exact": "same keys, equal values (ADK’s ==).",
    "ignore": "tool names only (ADK’s ignore_args).",
    "subset": "the call’s args are among the expected ones: no extra keys, a missing one is fine.",
    "superset": "every expected arg is present; extra keys allowed.",
}
"""What each argument mode means, in one line (named from the actual call's side, as LangChain
agentevals names them; ``arg_match``)."""
SINGLE_TOOL_MEANING = "passes a turn that called this tool; arguments play no part."


def definition_html(family: str) -> str:
    """The chosen family in one line: its name (the field's) and its definition, the source in
    the tooltip (``trajectory_metrics.DEFINITIONS``); for ``none`` that the trajectory is not scored."""
    if family == "none":
        return '<div class="me-hint me-definition">The trajectory is not scored: only the other checks decide.</div>'
    d = DEFINITIONS[family]
    kind = "scores 0 to 1" if is_partial(family) else "pass or fail per turn"
    return (f'<div class="me-hint me-definition" title="{html.escape(d.source)}"><b>{html.escape(d.label)}</b> '
            f"({kind}): {html.escape(d.text)}.</div>")


def args_meaning_html(family: str, args: str) -> str:
    """What the argument mode means (or, for single tool use, that arguments play no part)."""
    if canonical(family) == "single_tool_use":
        return f'<div class="me-hint me-definition"><b>Tool</b>: {html.escape(SINGLE_TOOL_MEANING)}</div>'
    if family == "none":
        return ""
    return f'<div class="me-hint me-definition"><b>{html.escape(args)}</b>: {html.escape(ARG_MEANINGS[args])}</div>'


def typed_threshold_message(value: float | None) -> str:
    """What to say about a typed threshold: ``""`` when it can be applied (0..1), else one sentence."""
    if value is None:
        return "Type a number from 0 to 1; the threshold stays as it was."
    if not 0.0 <= value <= 1.0:
        return f"{value:g} is outside 0 to 1, so it was not applied; the threshold stays as it was."
    return ""


class TypedBox:
    """A FloatInput bound to threshold ``name`` of ``inputs`` both ways: a typed value in 0..1
    becomes the threshold as typed (rounding could move it past a score, issue 10); anything else
    is not applied, the box shows the threshold again and ``message`` says why (until the next
    value is applied)."""

    def __init__(self, inputs: Inputs, name: str, box: pn.widgets.FloatInput, message: pn.pane.HTML,
                 follow: bool = True) -> None:
        self.inputs, self.name, self.box, self.message = inputs, name, box, message
        self._resetting = False
        box.param.watch(self._from_box, "value")
        if follow:  # else the owner calls :meth:`follow` after each change of the inputs
            inputs.param.watch(lambda _e: self.follow(), name)

    def _from_box(self, event) -> None:
        if self._resetting:
            return
        value = event.new
        text = typed_threshold_message(value)
        self.message.object = f'<div class="me-input-error">{html.escape(text)}</div>' if text else ""
        self.message.visible = bool(text)
        current = getattr(self.inputs, self.name)
        if text:
            self._resetting = True
            try:
                self.box.value = current
            finally:
                self._resetting = False
        elif value != current:
            setattr(self.inputs, self.name, float(value))

    def follow(self) -> None:
        """The box shows the threshold (after a slider move, a lesson step, a link)."""
        value = getattr(self.inputs, self.name)
        if self.box.value != value:
            self.box.value = value


def _label(text: str, css: str = "me-label", title: str = "") -> pn.pane.HTML:
    tip = f' title="{html.escape(title)}"' if title else ""
    return LiveHTML(f'<div class="{css}"{tip}>{text}</div>', **styled(margin=(4, 10, 0, 10)))


def _reason_pane(css: str) -> pn.pane.HTML:
    return LiveHTML("", css_classes=[css, "me-reason"], visible=False, **styled(margin=(0, 10), sizing_mode="stretch_width"))


class InputsView:
    """The settings card; widgets are created once and stay bound to ``inputs`` both ways.
    ``rules``: the argument rules' toggle and panel (:class:`~explorer.app.views.arg_rules.ArgRulesView`),
    placed beside the argument mode.

    ``follow``: the card follows ``inputs`` by itself (its own watchers). The explorer session
    passes False and calls :meth:`follow` inside its one ``hold`` per settings change, so that the
    card's updates go to the browser in the same message as the figures (issue 15: each message
    makes Bokeh walk the document's whole model list)."""

    def __init__(self, inputs: Inputs, rules=None, follow: bool = True) -> None:
        self.inputs = inputs
        self.rules = rules
        p = inputs.param
        # the families grouped (match, partial credit, off); a choice goes through
        # ``Inputs.choose_trajectory`` (a 1/0 family on one-turn runs puts the threshold back to 1)
        self.trajectory = pn.widgets.Select(
            groups=TRAJECTORY_GROUPS, value=inputs.trajectory, css_classes=["me-trajectory"], sizing_mode="stretch_width",
            margin=(2, 10, 0, 2),
        )
        self.definition = LiveHTML("", css_classes=["me-trajectory-definition"], **styled(margin=(1, 10, 0, 10), sizing_mode="stretch_width"))
        self.trajectory_threshold = pn.widgets.FloatSlider.from_param(
            p.trajectory_threshold, label="Trajectory threshold", start=0.0, end=1.0, step=0.01, format="0.00",
            css_classes=["me-trajectory-threshold"], sizing_mode="stretch_width", min_width=150,
            stylesheets=[DIMMED_WHEN_DISABLED],
        )
        self.trajectory_threshold_input = pn.widgets.FloatInput(
            value=inputs.trajectory_threshold, label="Type it", step=0.01, format="0.00",
            css_classes=["me-trajectory-threshold-input"], width=86,
        )
        self.trajectory_reason = _reason_pane("me-trajectory-threshold-reason")
        self.trajectory_message = LiveHTML("", css_classes=["me-trajectory-threshold-message"], visible=False,
                                           **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self._trajectory_box = TypedBox(inputs, "trajectory_threshold", self.trajectory_threshold_input, self.trajectory_message,
                                        follow=follow)
        self.args = pn.widgets.Select.from_param(
            p.args, label="", css_classes=["me-args"], width=118, margin=(5, 0, 0, 2),
        )
        self.single_tool = pn.widgets.Select(
            options=list(inputs.tools), value=inputs.single_tool or None, css_classes=["me-single-tool"], width=118,
            margin=(5, 0, 0, 2),
        )
        self.args_label = LiveHTML("", **inline_label(86, margin=(11, 0, 0, 10)))
        self.args_meaning = LiveHTML("", css_classes=["me-args-meaning"], **styled(margin=(1, 10, 0, 10), sizing_mode="stretch_width"))
        # the argument mode, or single tool use's tool in its place (swapped, not hidden: a hidden
        # widget still widens the row's minimum width), and the argument rules' toggle
        self.args_row = pn.Row(self.args_label, self.args, *([rules.toggle] if rules is not None else []),
                               sizing_mode="stretch_width", margin=0, styles=WRAP)
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
        # the mean rule's own threshold (seed 002: 0.75), shown while the rule is chosen: a settings
        # file or link with another one was read back as 0.75 before
        self.mean = pn.widgets.FloatSlider.from_param(
            p.mean_threshold, label="Mean threshold", start=0.0, end=1.0, step=0.01, format="0.00",
            css_classes=["me-mean-threshold"], sizing_mode="stretch_width", min_width=150,
            visible=inputs.combine == "mean",
        )
        self.deny_check = pn.widgets.Checkbox.from_param(p.deny_check, label="Deny-list check", css_classes=["me-deny-check"])
        self.deny_tools = pn.widgets.MultiChoice.from_param(
            p.deny_tools, label="", placeholder="Denied tools", css_classes=["me-deny-tools"], sizing_mode="stretch_width",
            stylesheets=[COMPACT_CHOICES], margin=(0, 10, 2, 10),
        )
        self.deny_reason = _reason_pane("me-deny-reason")
        self.key_fields = pn.widgets.Checkbox.from_param(
            p.key_fields, label="Exact check on dates and booking ids", css_classes=["me-key-fields"],
        )
        # one date reading for every check (key fields, cascade field rules, rung 4): issue 10, kind 7
        self.day_first = pn.widgets.Select.from_param(
            p.day_first, label="", css_classes=["me-day-first"], sizing_mode="stretch_width", margin=(2, 10, 0, 2),
        )
        self._f1_box = TypedBox(inputs, "f1_threshold", self.f1_input, self.f1_message, follow=follow)
        not_busy(self.trajectory, self.trajectory_threshold, self.trajectory_threshold_input, self.args, self.single_tool,
                 self.f1, self.f1_input, self.combine, self.mean, self.deny_check, self.deny_tools, self.key_fields,
                 self.day_first)
        self.trajectory.param.watch(self._from_trajectory, ["value"])
        self.single_tool.param.watch(self._from_single_tool, ["value"])
        if follow:
            inputs.param.watch(self._to_trajectory, ["trajectory", "args", "single_tool"])
            inputs.param.watch(self._honest, ["deny_check", "combine", "mean_threshold", "response_scorer", "trajectory",
                                              "trajectory_threshold"])
        self._to_trajectory()
        self._honest()

    def follow(self) -> None:
        """Show the inputs as they are now: the trajectory's widgets and words, the typed
        threshold boxes, the disabled controls and their reasons (sets only what differs)."""
        self._to_trajectory()
        self._trajectory_box.follow()
        self._f1_box.follow()
        self._honest()

    # --- the trajectory ----------------------------------------------------------------------
    def _from_trajectory(self, event) -> None:
        if event.new is not None and event.new != self.inputs.trajectory:
            self.inputs.choose_trajectory(event.new)

    def _from_single_tool(self, event) -> None:
        if event.new and event.new != self.inputs.single_tool:
            self.inputs.single_tool = event.new

    def _to_trajectory(self, *_events) -> None:
        """The family's widgets follow the inputs (a lesson step, a link, the sweep's Apply)."""
        i = self.inputs
        if self.trajectory.value != i.trajectory:
            self.trajectory.value = i.trajectory
        single = canonical(i.trajectory) == "single_tool_use"
        if single and self.single_tool.value != i.single_tool:
            self.single_tool.value = i.single_tool
        self.definition.show(definition_html(i.trajectory))
        chooser = self.single_tool if single else self.args
        if self.args_row[1] is not chooser:
            self.args_row[1] = chooser
        write_through(chooser, visible=i.trajectory != "none")
        self.args_label.show('<div class="me-label me-label-inline">Tool</div>' if single else
                                  '<div class="me-label me-label-inline">Arguments</div>' if i.trajectory != "none" else "")
        meaning = args_meaning_html(i.trajectory, i.args)
        self.args_meaning.show(meaning, visible=bool(meaning))

    # --- honest controls ---------------------------------------------------------------------
    def _honest(self, *_events) -> None:
        """Disable what does nothing under the current settings and say why."""
        i = self.inputs
        deny_off = not i.deny_check
        write_through(self.deny_tools, disabled=deny_off)
        self._reason(self.deny_reason, DENY_OFF_REASON if deny_off else "")
        write_through(self.mean, visible=i.combine == "mean")
        why = threshold_reason(i.combine, i.response_scorer, i.mean_threshold)
        write_through(self.f1, disabled=bool(why))
        write_through(self.f1_input, disabled=bool(why))
        self._reason(self.f1_reason, why)
        why = i.threshold_unused()
        write_through(self.trajectory_threshold, disabled=bool(why))
        write_through(self.trajectory_threshold_input, disabled=bool(why))
        self._reason(self.trajectory_reason, why)

    @staticmethod
    def _reason(pane: LiveHTML, text: str) -> None:
        if text:
            pane.show(f'<div class="me-hint">{html.escape(text)}</div>', visible=True)
        else:
            write_through(pane, visible=False)

    # --- layout ------------------------------------------------------------------------------
    def trajectory_group(self) -> pn.Column:
        """The trajectory metric: the family and its definition, the trajectory threshold (with
        why it is disabled, when it is), the argument mode (or single tool use's tool) with what it
        means, and the argument rules."""
        body = [self.rules.body] if self.rules is not None else []
        label = LiveHTML('<div class="me-label me-label-inline" title="How the calls the agent made are compared with the expected '
                         "calls: ADK's match types, LangChain agentevals' modes and Vertex AI's partial scores, in one "
                         'list">Trajectory</div>', **inline_label(86, margin=(9, 0, 0, 10)))
        return pn.Column(
            pn.Row(label, self.trajectory, sizing_mode="stretch_width", margin=0, styles=WRAP),
            self.definition,
            pn.Row(self.trajectory_threshold, self.trajectory_threshold_input, sizing_mode="stretch_width", margin=0),
            self.trajectory_reason,
            self.trajectory_message,
            self.args_row,
            self.args_meaning,
            *body,
            css_classes=["me-trajectory-group"], sizing_mode="stretch_width", margin=0, styles={"min-width": "0"},
        )

    def response_group(self) -> pn.Column:
        """The answer check's threshold (slider and typed box), the combine rule and, under the
        mean rule, the threshold the mean must reach."""
        return pn.Column(
            pn.Row(self.f1, self.f1_input, sizing_mode="stretch_width", margin=0),
            self.f1_reason,
            self.f1_message,
            _label("Combine scores"),
            self.combine,
            self.mean,
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
            pn.Row(LiveHTML('<div class="me-label me-label-inline" title="How dates such as 03/04/2026 read, for every check: key '
                            "fields, the cascade's field rules, normalisation level 4\">Numeric dates</div>",
                            **inline_label(112, margin=(9, 0, 0, 10))),
                   self.day_first, sizing_mode="stretch_width", margin=0, styles=WRAP),
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

