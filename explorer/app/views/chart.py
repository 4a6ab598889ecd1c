"""The trade-off chart (Bokeh): agreement, false passes and false fails against the F1 threshold,
for the current other settings, with the current threshold marked and, around the agreement, its
95 % Wilson interval at each threshold as a shaded band (issue 11; the summary bar's method)."""

from __future__ import annotations

import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, Legend, LegendItem, Span
from bokeh.plotting import figure

from ...core.evaluation.confidence import wilson_arrays
from ..tradeoff import Sweep
from .style import LiveHTML, styled

COLOURS = {"agree": "#0f766e", "false_pass": "#c0392b", "false_fail": "#c77c02"}
CHART_HEIGHT = 165
"""Figure height in px (the chart shares the first screen with the settings and the runs table)."""


class ChartView:
    """One Bokeh figure per session; :meth:`show` replaces the data and moves the marker."""

    def __init__(self, n_runs: int) -> None:
        self.source = ColumnDataSource(data={"threshold": [], "agree": [], "false_pass": [], "false_fail": [],
                                             "agree_low": [], "agree_high": []})
        fig = figure(
            height=CHART_HEIGHT, sizing_mode="stretch_width", x_range=(0, 1), y_range=(-0.3, max(n_runs, 1) + 0.5),
            toolbar_location=None, tools="", x_axis_label="Response F1 threshold", y_axis_label="runs",
        )
        band = fig.varea_step("threshold", "agree_low", "agree_high", source=self.source, step_mode="after",
                              fill_color=COLOURS["agree"], fill_alpha=0.13)
        items = [LegendItem(label="agreement 95 % CI", renderers=[band])]
        for key, label, dash in (
            ("agree", "agreement", "solid"), ("false_pass", "false passes", "solid"), ("false_fail", "false fails", "dashed"),
        ):
            r = fig.step("threshold", key, source=self.source, line_width=2.5, color=COLOURS[key], mode="after", line_dash=dash)
            items.append(LegendItem(label=label, renderers=[r]))
        self.marker = Span(location=0.8, dimension="height", line_color="#334155", line_width=1.5, line_dash="dotted")
        fig.add_layout(self.marker)
        fig.add_layout(Legend(items=items, orientation="horizontal", location="top_left", background_fill_alpha=0.85,
                              label_text_font_size="8.5pt", padding=2, spacing=10, margin=4))
        fig.add_tools(HoverTool(
            tooltips=[("F1 ≥", "@threshold{0.00}"), ("agree", "@agree"), ("95 % CI", "@agree_low{0.0}–@agree_high{0.0} runs"),
                      ("false passes", "@false_pass"),
                      ("false fails", "@false_fail")],
            mode="vline",
        ))
        fig.outline_line_color = None
        fig.grid.grid_line_color = "#e5e7eb"
        fig.axis.axis_line_color = "#94a3b8"
        fig.axis.major_label_text_color = "#334155"
        fig.yaxis.minor_tick_line_color = None
        fig.background_fill_color = "#ffffff"
        fig.border_fill_color = "#ffffff"
        self.figure = fig
        # the Bokeh pane hands its css_classes to nobody in the DOM: the contract class sits on a wrapper
        self.pane = pn.Column(pn.pane.Bokeh(fig, sizing_mode="stretch_width"), css_classes=["me-chart"], sizing_mode="stretch_width")

    def show(self, sweep: Sweep, threshold: float) -> None:
        """Plot ``sweep`` with the agreement's Wilson band (in runs: the limits times the
        labelled runs) and mark ``threshold``."""
        low, high = wilson_arrays(sweep.agree, sweep.labelled)
        self.source.data = {
            "threshold": sweep.thresholds, "agree": sweep.agree,
            "false_pass": sweep.false_pass, "false_fail": sweep.false_fail,
            "agree_low": low * sweep.labelled, "agree_high": high * sweep.labelled,
        }
        self.marker.location = threshold

    def panel(self) -> pn.Column:
        """The card."""
        return pn.Column(
            LiveHTML(
                "<h2>Trade-off <span class=\"me-hint\">agreement (band: 95 % CI), false passes, false fails of all runs at "
                "each Response F1 threshold, other settings as chosen; dotted: current threshold</span></h2>",
                **styled(margin=(0, 10), sizing_mode="stretch_width"),
            ),
            self.pane,
            css_classes=["me-card", "me-chart-card"],
            sizing_mode="stretch_width",
        )
