"""The Settings sweep tab: agreement of every setting of the grid as a heatmap, the best
settings with their ties and false pass / false fail split, and a button to apply one.

The grid is :func:`explorer.core.evaluation.sweep.sweep`'s (4 trajectory modes × compare args × combine ×
deny-list × key fields × 101 F1 thresholds = 6,464 settings), counted over the session's labelled
runs. :func:`sweep_view_data` is the pure part; :class:`SweepView` draws it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import panel as pn
from bokeh.models import ColorBar, ColumnDataSource, FactorRange, HoverTool, LinearColorMapper
from bokeh.palettes import Viridis256
from bokeh.plotting import figure

from ...core.evaluation.features import Features
from ...core.evaluation.settings import Settings
from ...core.evaluation.sweep import ADK_GRID, best, row_settings, sweep, threshold_ranges
from .style import LiveHTML, styled

ROW_KEYS = ("trajectory", "compare_args", "combine", "deny_check", "key_fields")
"""The settings besides the F1 threshold; one heatmap row per combination (64)."""


def row_label(trajectory: str, compare_args: bool, combine: str, deny_check: bool, key_fields: bool) -> str:
    """Heatmap row name, e.g. ``"exact · args · all · deny · key"`` (``no-args``, ``mean``,
    ``no-deny``, ``no-key`` for the other values)."""
    return " · ".join((
        trajectory, "args" if compare_args else "no-args", combine,
        "deny" if deny_check else "no-deny", "key" if key_fields else "no-key",
    ))


def best_text(group: dict) -> str:
    """One best-settings group in words: ``"trajectory any_order, compare args, combine all,
    deny-list on, key fields on, F1 threshold 0.41-0.62"``."""
    return (
        f"trajectory {group['trajectory']}, {'compare args' if group['compare_args'] else 'ignore args'}, "
        f"combine {group['combine']}, deny-list {'on' if group['deny_check'] else 'off'}, "
        f"key fields {'on' if group['key_fields'] else 'off'}, F1 threshold {group['f1_thresholds']}"
    )


@dataclass(frozen=True)
class SweepData:
    """What the sweep tab shows.

    ``table``: the full sweep table (6,464 rows, best first); ``heat``: one row per (combination,
    threshold) with columns ``row`` (:func:`row_label`), ``f1_threshold``, ``agree``,
    ``false_pass``, ``false_fail``; ``agree`` / ``labelled`` / ``false_pass`` / ``false_fail``:
    the best figures; ``groups``: the best settings grouped by combination with threshold ranges
    (dicts of ``ROW_KEYS`` + ``f1_thresholds``); ``choices``: group text -> the setting to apply
    (the group's middle threshold); ``n_best``: how many grid settings tie for best."""

    table: pd.DataFrame
    heat: pd.DataFrame
    agree: int
    labelled: int
    false_pass: int
    false_fail: int
    n_best: int
    groups: list[dict]
    choices: dict[str, Settings]


def sweep_view_data(features: Features, base: Settings) -> SweepData:
    """Sweep ``features`` (their ``human`` verdicts: the session's labels) with ``deny_tools``
    and ``mean_threshold`` from ``base``, and shape it for the tab."""
    table = sweep(features, base, grid=ADK_GRID)  # ADK's grid until the trajectory card shows every family
    top = best(table)
    groups = threshold_ranges(top)
    choices: dict[str, Settings] = {}
    for g in groups:
        rows = top
        for k in ROW_KEYS:
            rows = rows[rows[k] == g[k]]
        thresholds = np.sort(rows["f1_threshold"].to_numpy())
        middle = rows[rows["f1_threshold"] == thresholds[(len(thresholds) - 1) // 2]].iloc[0]
        choices[best_text(g)] = row_settings(middle, base)
    heat = table[[*ROW_KEYS, "f1_threshold", "agree", "false_pass", "false_fail"]].copy()
    heat.insert(0, "row", [row_label(*r) for r in heat[list(ROW_KEYS)].itertuples(index=False)])
    first = table.iloc[0]
    return SweepData(
        table=table, heat=heat.drop(columns=list(ROW_KEYS)), agree=int(first["agree"]),
        labelled=int(first["labelled"]), false_pass=int(first["false_pass"]),
        false_fail=int(first["false_fail"]), n_best=len(top), groups=groups, choices=choices,
    )


def row_order() -> list[str]:
    """Heatmap rows in grid order (mode, args off/on, combine all/mean, deny off/on, key off/on)."""
    from ...core.evaluation.settings import COMBINE_RULES
    from ...core.scoring.trajectory import TRAJECTORY_MODES

    return [row_label(m, a, c, d, k) for m in TRAJECTORY_MODES for a in (False, True)
            for c in COMBINE_RULES for d in (False, True) for k in (False, True)]


class SweepView:
    """The Settings sweep tab. ``apply(settings)`` is called by the apply button."""

    def __init__(self, apply: Callable[[Settings], None]) -> None:
        self._apply = apply
        self.data: SweepData | None = None
        rows = row_order()
        self.source = ColumnDataSource(data={"row": [], "f1_threshold": [], "agree": [], "false_pass": [], "false_fail": []})
        self.mapper = LinearColorMapper(palette=Viridis256, low=0, high=1)
        fig = figure(
            height=920, sizing_mode="stretch_width", x_range=(-0.005, 1.005), y_range=FactorRange(*reversed(rows)),
            toolbar_location=None, tools="", x_axis_label="Response F1 threshold",
        )
        fig.rect("f1_threshold", "row", width=0.01, height=1, source=self.source,
                 fill_color={"field": "agree", "transform": self.mapper}, line_color=None)
        fig.add_layout(ColorBar(color_mapper=self.mapper, title="agree"), "right")
        fig.add_tools(HoverTool(tooltips=[("setting", "@row"), ("F1 ≥", "@f1_threshold{0.00}"), ("agree", "@agree"),
                                          ("false passes", "@false_pass"), ("false fails", "@false_fail")]))
        fig.yaxis.major_label_text_font_size = "9pt"
        self.figure = fig
        self.heatmap = pn.Column(pn.pane.Bokeh(fig, sizing_mode="stretch_width"), css_classes=["me-sweep-heatmap"],
                                 sizing_mode="stretch_width")
        self.best = LiveHTML("", css_classes=["me-sweep-best"], **styled(sizing_mode="stretch_width"))
        self.choice = pn.widgets.Select(label="Best setting to apply", options=[], css_classes=["me-sweep-choice"], width=620)
        self.apply_button = pn.widgets.Button(label="Apply this setting", color="primary", css_classes=["me-sweep-apply"])
        self.apply_button.on_click(self._on_apply)

    def show(self, features: Features, base: Settings) -> None:
        """Sweep ``features`` and draw the result."""
        d = sweep_view_data(features, base)
        self.data = d
        self.mapper.high = max(d.labelled, 1)
        self.source.data = {c: d.heat[c].to_numpy() for c in ("row", "f1_threshold", "agree", "false_pass", "false_fail")}
        items = "".join(f"<li>{html.escape(best_text(g))}</li>" for g in d.groups)
        self.best.object = (
            f'<div class="me-sweep-headline">Best agreement {d.agree}/{d.labelled} '
            f"(false passes {d.false_pass}, false fails {d.false_fail}), reached by {d.n_best} of "
            f"{len(d.table)} settings:</div><ul>{items}</ul>"
        )
        self.choice.options = list(d.choices)

    def _on_apply(self, _event: object) -> None:
        if self.data is not None and self.choice.value in self.data.choices:
            self._apply(self.data.choices[self.choice.value])

    def panel(self) -> pn.Column:
        """The tab's content."""
        return pn.Column(
            LiveHTML(
                "<h2>Settings sweep</h2><div class=\"me-hint\">Every trajectory mode × compare args × combine rule × "
                "deny-list on/off × key fields on/off × F1 threshold 0–1 (step 0.01), scored against the labelled "
                "runs (this session's labels). Unlabelled runs are not counted.</div>",
                **styled(margin=(0, 10)),
            ),
            self.best,
            pn.Row(self.choice, self.apply_button),
            self.heatmap,
            css_classes=["me-card", "me-sweep"],
            sizing_mode="stretch_width",
        )
