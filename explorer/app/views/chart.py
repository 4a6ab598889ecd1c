"""The trade-off chart (Bokeh): agreement, false passes and false fails against the F1 threshold
or the trajectory threshold (``me-chart-x``, issue 12) or, under the mean rule, the mean threshold
(the one threshold that rule reads; ``me-chart-x`` is hidden then), for the current other
settings, with the current threshold marked and, around the agreement, its 95 % Wilson interval at each threshold as a
shaded band (issue 11; the summary bar's method)."""

from __future__ import annotations

import html
from typing import Callable

import panel as pn
from bokeh.models import BasicTicker, ColumnDataSource, HoverTool, Legend, LegendItem, NumeralTickFormatter, Span
from bokeh.plotting import figure

from ...core.evaluation.confidence import wilson_arrays
from ..tradeoff import Sweep
from .style import LiveHTML, styled

COLOURS = {"agree": "#0f766e", "false_pass": "#c0392b", "false_fail": "#c77c02"}
CHART_HEIGHT = 165
"""Figure height in px (the chart shares the first screen with the settings and the runs table)."""
X_AXES = {"F1 threshold": "f1_threshold", "Trajectory threshold": "trajectory_threshold"}
"""The chart's x-axis choices: label -> the threshold the curve moves."""
AXIS_WORDS = {"f1_threshold": "Response F1 threshold", "trajectory_threshold": "Trajectory threshold",
              "mean_threshold": "Mean threshold (mean of trajectory and response score)"}
"""The x-axis title for each threshold the chart can move."""
HINTS = {
    "f1_threshold": "agreement (band: 95 % CI) of all runs at every Response F1 threshold, the other settings as chosen; dotted: the current one",
    "trajectory_threshold": "agreement (band: 95 % CI) of all runs at every trajectory threshold, the other settings as chosen; dotted: the current one",
    "mean_threshold": "agreement (band: 95 % CI) of all runs at every mean threshold (a run passes when the mean of its "
                      "trajectory and response scores reaches it), the other settings as chosen; dotted: the current one",
}
"""The caption beside the chart's title, by the threshold on the x-axis."""
MARKER_NAME = "me-chart-marker"
"""Bokeh ``name`` of the dotted line at the current threshold (the browser tests read its location)."""
FIGURE_NAME = "me-chart-figure"
"""Bokeh ``name`` of the trade-off figure (the browser tests read its x-axis title)."""


RUN_COUNT_FORMAT = "0,0"
"""Numbro format of an axis that counts runs: whole, thousands separated (``100,000``)."""


class ChartView:
    """One Bokeh figure per session; :meth:`show` replaces the data and moves the marker.
    ``on_axis()`` is called when the person picks the other x-axis (the session draws again).
    The person picks F1 or trajectory threshold; the session charts the mean threshold instead
    under the mean rule (:meth:`show` with ``varies="mean_threshold"`` hides the choice, and the
    choice is kept for when the rule goes back to ``all``)."""

    def __init__(self, n_runs: int, on_axis: Callable[[], None] | None = None) -> None:
        self.x = pn.widgets.RadioButtonGroup(
            options=X_AXES, value="f1_threshold", css_classes=["me-chart-x"], color="primary",
            variant="outline", margin=(0, 10), stylesheets=[":host .bk-btn { padding: 2px 8px; font-size: 12.5px; }"],
        )
        self._quiet = False
        self.charted = "f1_threshold"
        """The threshold the chart last drew along its x-axis (``"mean_threshold"`` under the mean rule)."""
        self.x.param.watch(lambda _e: on_axis() if on_axis is not None and not self._quiet else None, ["value"])
        self.hint = LiveHTML("", **styled(margin=(0, 10), sizing_mode="stretch_width", styles={"flex": "1 1 300px", "min-width": "0"}))
        self.source = ColumnDataSource(data={"threshold": [], "agree": [], "false_pass": [], "false_fail": [],
                                             "agree_low": [], "agree_high": []})
        fig = figure(
            height=CHART_HEIGHT, sizing_mode="stretch_width", x_range=(0, 1), y_range=(-0.3, max(n_runs, 1) + 0.5),
            toolbar_location=None, tools="", x_axis_label="Response F1 threshold", y_axis_label="runs",
            name=FIGURE_NAME,
        )
        band = fig.varea_step("threshold", "agree_low", "agree_high", source=self.source, step_mode="after",
                              fill_color=COLOURS["agree"], fill_alpha=0.13)
        items = [LegendItem(label="agreement 95 % CI", renderers=[band])]
        for key, label, dash in (
            ("agree", "agreement", "solid"), ("false_pass", "false passes", "solid"), ("false_fail", "false fails", "dashed"),
        ):
            r = fig.step("threshold", key, source=self.source, line_width=2.5, color=COLOURS[key], mode="after", line_dash=dash)
            items.append(LegendItem(label=label, renderers=[r]))
        self.hover = None
        self.marker = Span(location=0.8, dimension="height", line_color="#334155", line_width=1.5, line_dash="dotted",
                           name=MARKER_NAME)
        fig.add_layout(self.marker)
        # beside the plot, not in it: inside, it covered the agreement line at the top (10/10 at low
        # thresholds is what the lesson's last step points to); above it, it took a fifth of the
        # plot's short height (the frame fell under 100 px)
        fig.add_layout(Legend(items=items, orientation="vertical", location="top_left", background_fill_alpha=0.0,
                              border_line_color=None, label_text_font_size="8.5pt", padding=0, spacing=4, margin=4),
                       "right")
        self.hover = HoverTool(
            tooltips=self._tooltips("f1_threshold"),
            mode="vline",
        )
        fig.add_tools(self.hover)
        fig.outline_line_color = None
        fig.grid.grid_line_color = "#e5e7eb"
        fig.axis.axis_line_color = "#94a3b8"
        fig.axis.major_label_text_color = "#334155"
        fig.yaxis.minor_tick_line_color = None
        # the y axis counts runs: whole numbers only (a set of 1-3 runs showed 0.5, 1.5, 2.5)
        whole_runs = BasicTicker(min_interval=1, desired_num_ticks=6)
        fig.yaxis.ticker = whole_runs
        fig.ygrid.ticker = whole_runs
        # and written as counts: a 100k-run set's axis read 1.000e+5, 8.000e+4 (Bokeh's default)
        fig.yaxis.formatter = NumeralTickFormatter(format=RUN_COUNT_FORMAT)
        fig.background_fill_color = "#ffffff"
        fig.border_fill_color = "#ffffff"
        self.figure = fig
        # the Bokeh pane hands its css_classes to nobody in the DOM: the contract class sits on a wrapper
        self.pane = pn.Column(pn.pane.Bokeh(fig, sizing_mode="stretch_width"), css_classes=["me-chart"], sizing_mode="stretch_width")

    @staticmethod
    def _tooltips(varies: str) -> list[tuple[str, str]]:
        first = {"f1_threshold": "F1 ≥", "trajectory_threshold": "trajectory ≥", "mean_threshold": "mean ≥"}[varies]
        return [(first, "@threshold{0.00}"), ("agree", "@agree"),
                ("95 % CI", "@agree_low{0.0}–@agree_high{0.0} runs"), ("false passes", "@false_pass"),
                ("false fails", "@false_fail")]

    @property
    def varies(self) -> str:
        """The threshold on the x-axis: ``"f1_threshold"`` or ``"trajectory_threshold"``."""
        return self.x.value

    def choose_axis(self, varies: str) -> None:
        """Put ``varies`` on the x-axis without asking for a redraw (the caller draws)."""
        if self.x.value != varies:
            self._quiet = True
            try:
                self.x.value = varies
            finally:
                self._quiet = False

    def show(self, sweep: Sweep, threshold: float, varies: str = "f1_threshold", unused: str = "", note: str = "") -> None:
        """Plot ``sweep`` (moving the ``varies`` threshold: ``"f1_threshold"``,
        ``"trajectory_threshold"`` or ``"mean_threshold"``) with the agreement's Wilson band and
        mark ``threshold``; ``unused``: why that threshold changes nothing under these settings
        (the lines are then flat); ``note``: a sentence added to the caption. The F1 / trajectory
        choice (``me-chart-x``) shows except while the mean threshold is charted."""
        self.charted = varies
        words = AXIS_WORDS[varies]
        if self.figure.xaxis[0].axis_label != words:
            self.figure.xaxis[0].axis_label = words
            self.hover.tooltips = self._tooltips(varies)
        if self.x.visible != (varies != "mean_threshold"):
            self.x.visible = varies != "mean_threshold"
        hint = HINTS[varies] + (f". {unused} The lines are flat." if unused else "") + (f". {note}" if note else "")
        if not sweep.labelled:  # no run labelled: the lines lie at 0: say why, lest 0 read as the answer
            hint = ("No run is labelled yet, so the lines stay at 0: select a run and press a (acceptable) or u "
                    "(unacceptable), or drop a labels CSV on Your data.")
        self.hint.show(f"<div class=\"me-hint\">{html.escape(hint)}</div>")
        low, high = wilson_arrays(sweep.agree, sweep.labelled)  # the band, in runs: limits x labelled runs
        self.source.data = {
            "threshold": sweep.thresholds, "agree": sweep.agree,
            "false_pass": sweep.false_pass, "false_fail": sweep.false_fail,
            "agree_low": low * sweep.labelled, "agree_high": high * sweep.labelled,
        }
        self.marker.location = threshold

    def panel(self) -> pn.Column:
        """The card."""
        return pn.Column(
            pn.Row(LiveHTML("<h2>Trade-off</h2>", **styled(margin=(0, 0, 0, 10))), self.x, self.hint,
                   sizing_mode="stretch_width", styles={"flex-wrap": "wrap", "min-width": "0", "align-items": "baseline"}),
            self.pane,
            css_classes=["me-card", "me-chart-card"],
            sizing_mode="stretch_width",
        )
