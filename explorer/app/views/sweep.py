"""The Settings sweep tab: the agreement of every setting of the full grid, read honestly, the
best settings with a button to apply one, and a heatmap of a slice of the grid.

The grid is :data:`explorer.core.evaluation.sweep.FULL_GRID` (issue 12: every trajectory family ×
argument mode × combine × deny-list × key fields × the trajectory threshold of a partial score ×
101 F1 thresholds = 159,176 settings), counted over the session's labelled runs. The reading
(:func:`explorer.core.evaluation.sweep_intervals.sweep_reading`, issue 11) gives the best
agreement's 95 % interval, how many settings tie with it or fall within that interval, and says
plainly when the runs cannot tell them apart. The heatmap shows one slice at a time
(:func:`explorer.core.evaluation.sweep.heatmap_frame`): combine, deny-list, key fields and the
trajectory threshold of the partial scores fixed by the filters above it, one row per family and
argument mode, one column per F1 threshold. With no tool to deny (none chosen under "Denied
tools", or a set whose runs call no tool) the deny-list is swept off only, half the settings, and
the tab says why in one line (:func:`deny_note`), as ``metric-explorer sweep`` without ``--deny``
(:func:`~explorer.core.evaluation.sweep.deny_checks_for`).

:func:`sweep_view_data` and :func:`heat_rows` are the pure parts; :class:`SweepView` draws them.
In a session the sweep is computed in a background thread (:meth:`SweepView.start`): until its
table is drawn the tab shows ``Computing the sweep over 159,176 settings on 300 labelled runs…``
(``me-sweep-status``) and Panel's loading indicator over the old results, so an opened tab is
never blank (a trial saw ~30 s of an empty tab on an uploaded ADK set of a few hundred runs).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import panel as pn
from bokeh.models import BasicTicker, ColorBar, ColumnDataSource, FactorRange, HoverTool, LinearColorMapper, NumeralTickFormatter
from bokeh.palettes import Viridis256
from bokeh.plotting import figure

from ...core.evaluation.features import Features
from ...core.evaluation.settings import Settings
from ...core.evaluation.sweep import (
    DENY_CHECKS, FULL_GRID, TRAJECTORY_THRESHOLDS, best, deny_checks_for, heatmap_frame, n_settings, row_settings,
    sweep, threshold_ranges,
)
from ...core.evaluation.sweep_intervals import SweepReading, sweep_reading, with_intervals
from ...core.scoring.trajectory_metrics import DEFINITIONS, PARTIAL_SCORES
from ..loading import LatestJob
from ..words import counted, noun
from .chart import RUN_COUNT_FORMAT
from .style import WRAP, LiveHTML, flex_item, styled

SHOWN_GROUPS = 8
"""Best-setting groups listed in the headline (all of them are in the apply list)."""
HEAT_COLUMNS = ("agree", "false_pass", "false_fail")
ROW_HEIGHT = 17
"""Heatmap row height (px)."""


def computing_text(features: Features, base: Settings) -> str:
    """The line shown while the sweep is computed: ``"Computing the sweep over 159,176 settings
    on 10 labelled runs…"`` (the grid's size, :func:`~explorer.core.evaluation.sweep.n_settings`,
    with ``base``'s single tool and the deny-list values worth sweeping: 79,588 with no tool to
    deny; ``1 labelled run``, ``no labelled run``)."""
    n = int(np.count_nonzero(features.human >= 0))
    runs = "no labelled run" if n == 0 else f"{n:,} labelled run" + ("" if n == 1 else "s")
    size = n_settings(single_tool=base.single_tool, deny_checks=deny_checks_for(base, features))
    return f"Computing the sweep over {size:,} settings on {runs}…"


def deny_note(features: Features, base: Settings) -> str:
    """Why the deny-list is swept off only, in one line, or ``""`` when it is swept on as well
    (:func:`~explorer.core.evaluation.sweep.deny_checks_for`): ``"Deny-list off only (no tool to
    deny: choose one under Denied tools on the Explorer tab to sweep the deny-list on as well)."``,
    or, when no run calls a tool, ``"Deny-list off only (no tool to deny: no run calls a tool)."``.
    The chooser offers only the tools runs call, so a chosen tool is always one to deny."""
    if True in deny_checks_for(base, features):
        return ""
    if not features.tool_names:
        return "Deny-list off only (no tool to deny: no run calls a tool)."
    return ("Deny-list off only (no tool to deny: choose one under Denied tools on the Explorer tab to sweep the "
            "deny-list on as well).")


def _is_partial(family: str) -> bool:
    return family != "none" and DEFINITIONS[family].kind == "partial"


def _label(family: str) -> str:
    return "not scored" if family == "none" else DEFINITIONS[family].label


def row_label(trajectory: str, args: str, trajectory_threshold: float = 1.0, threshold_read: bool = True) -> str:
    """Heatmap row name: ``"ANY_ORDER · exact"``, ``"recall ≥ 0.70 · ignore"`` (a partial score's
    threshold, when it is read: combine all), ``"not scored"``."""
    if trajectory == "none":
        return "not scored"
    name = _label(trajectory)
    if _is_partial(trajectory) and threshold_read:
        name += f" ≥ {trajectory_threshold:.2f}"
    return f"{name} · {args}"


def best_text(group: dict) -> str:
    """One best-settings group in words: ``"trajectory ANY_ORDER, arguments exact, combine all,
    deny-list on, key fields on, F1 threshold 0.00-0.41"`` (a partial score names its threshold:
    ``"trajectory recall ≥ 0.70, ..."``; not scored reads no arguments)."""
    fam = group["trajectory"]
    if fam == "none":
        traj = "trajectory not scored"
    else:
        thr = f" ≥ {group['trajectory_threshold']:.2f}" if _is_partial(fam) and group["combine"] == "all" else ""
        traj = f"trajectory {_label(fam)}{thr}, arguments {group['args']}"
    return (
        f"{traj}, combine {group['combine']}, deny-list {'on' if group['deny_check'] else 'off'}, "
        f"key fields {'on' if group['key_fields'] else 'off'}, F1 threshold {group['f1_thresholds']}"
    )


@dataclass(frozen=True)
class SweepData:
    """What the sweep tab shows.

    ``table``: the full sweep table (:func:`~explorer.core.evaluation.sweep.sweep`'s columns and
    the interval columns, best first); ``reading``: the best agreement's interval, ties and the
    warning; ``agree`` / ``labelled`` / ``false_pass`` / ``false_fail``: the best figures;
    ``groups``: the best settings grouped with their F1 threshold ranges; ``choices``: group text
    -> the setting to apply (the group's middle F1 threshold); ``n_best``: settings tied for best;
    ``deny_checks``: the deny-list values swept (``(False,)`` with no tool to deny) and
    ``deny_note``: why, in one line (:func:`deny_note`; ``""`` when both are swept)."""

    table: pd.DataFrame
    reading: SweepReading
    agree: int
    labelled: int
    false_pass: int
    false_fail: int
    n_best: int
    groups: list[dict]
    choices: dict[str, Settings]
    deny_checks: tuple[bool, ...] = DENY_CHECKS
    deny_note: str = ""

    @property
    def heat(self) -> pd.DataFrame:
        """The heatmap rows of the best setting's slice (:func:`heat_rows`)."""
        return heat_rows(self.table, **self.best_slice())

    def best_slice(self) -> dict:
        """The filters that show the best setting: its combine, deny-list, key fields and
        trajectory threshold."""
        first = self.table.iloc[0]
        return {"combine": str(first["combine"]), "deny_check": bool(first["deny_check"]),
                "key_fields": bool(first["key_fields"]), "trajectory_threshold": float(first["trajectory_threshold"])}


def sweep_view_data(features: Features, base: Settings) -> SweepData:
    """Sweep ``features`` (their ``human`` verdicts: the session's labels) over the full grid with
    ``deny_tools``, ``mean_threshold`` and ``single_tool`` from ``base`` (the deny-list off only
    when no run calls a denied tool), read it and shape it for the tab."""
    deny_checks = deny_checks_for(base, features)
    table = with_intervals(sweep(features, base, grid=FULL_GRID, deny_checks=deny_checks))
    first = table.iloc[0]
    # no labelled run: every setting ties at 0/0, nothing is best (grouping all 159,176 took ~30 s)
    top = best(table) if int(first["labelled"]) else table.iloc[:0]
    groups = threshold_ranges(top) if len(top) else []
    keys = ["trajectory", "args", "combine", "deny_check", "key_fields", "trajectory_threshold"]
    # each group's rows from one groupby: filtering the tied rows once per group took ~8 s with one
    # labelled run (103,080 tied settings in 1,572 groups)
    rows_of = {values: rows for values, rows in top.groupby(keys, sort=False)} if len(top) else {}
    choices: dict[str, Settings] = {}
    for g in groups:
        rows = rows_of[tuple(g[k] for k in keys)]
        thresholds = np.sort(rows["f1_threshold"].to_numpy())
        middle = rows[rows["f1_threshold"] == thresholds[(len(thresholds) - 1) // 2]].iloc[0]
        choices[best_text(g)] = row_settings(middle, base)
    return SweepData(
        table=table, reading=sweep_reading(table), agree=int(first["agree"]), labelled=int(first["labelled"]),
        false_pass=int(first["false_pass"]), false_fail=int(first["false_fail"]), n_best=len(top),
        groups=groups, choices=choices, deny_checks=deny_checks, deny_note=deny_note(features, base),
    )


def heat_rows(table: pd.DataFrame, combine: str, deny_check: bool, key_fields: bool,
              trajectory_threshold: float) -> pd.DataFrame:
    """The heatmap's cells for one slice of a sweep ``table``: ``combine``, ``deny_check`` and
    ``key_fields`` fixed, the partial scores at ``trajectory_threshold`` (the 1/0 families and
    ``none`` have only 1.0; under ``mean`` nothing reads it). One row per (family, argument mode)
    in grid order (:func:`~explorer.core.evaluation.sweep.heatmap_frame`), columns ``row``
    (:func:`row_label`), ``f1_threshold`` and ``HEAT_COLUMNS``."""
    partial = table["trajectory"].isin(PARTIAL_SCORES).to_numpy(dtype=bool)
    tt = trajectory_threshold if combine == "all" else 1.0
    keep = ~partial | np.isclose(table["trajectory_threshold"].to_numpy(dtype=np.float64), tt)
    sliced = table[keep]
    fixed = {"combine": combine, "deny_check": deny_check, "key_fields": key_fields}
    grids = {value: heatmap_frame(sliced, value, **fixed) for value in HEAT_COLUMNS}
    long = {value: grid.stack().rename(value) for value, grid in grids.items()}
    out = pd.concat(long.values(), axis=1).reset_index()
    out.insert(0, "row", [row_label(f, a, t, combine == "all")
                          for f, a, t in out[["trajectory", "args", "trajectory_threshold"]].itertuples(index=False)])
    return out[["row", "f1_threshold", *HEAT_COLUMNS]]


def _percent(x: float) -> str:
    return f"{100 * x:.0f} %"


def headline_html(d: SweepData) -> str:
    """The best agreement, its interval, why the deny-list is swept off only (when it is), the ties
    and the warning, and the first groups (escaped)."""
    r = d.reading
    deny = f'<div class="me-hint me-sweep-deny-off">{html.escape(d.deny_note)}</div>' if d.deny_note else ""
    if d.labelled == 0:
        return (
            f'<div class="me-sweep-warning" role="note">{html.escape(r.warning[0].upper() + r.warning[1:])}.</div>'
            '<div class="me-hint">Label runs first: select a run in the Explorer tab and press a or u, or drop a '
            f"labels CSV on Your data.</div>{deny}"
        )
    items = "".join(f"<li>{html.escape(best_text(g))}</li>" for g in d.groups[:SHOWN_GROUPS])
    more = len(d.groups) - SHOWN_GROUPS
    if more > 0:
        items += f'<li class="me-hint">and {more:,} more {noun(more, "group")} of settings, in the list below</li>'
    warning = (f'<div class="me-sweep-warning" role="note">{html.escape(r.warning[0].upper() + r.warning[1:])}.</div>'
               if r.warning else "")
    return (
        f'<div class="me-sweep-headline">Best agreement {d.agree:,}/{d.labelled:,} '
        f"(false passes {d.false_pass}, false fails {d.false_fail}), reached by {d.n_best:,} of "
        f"{counted(len(d.table), 'setting')} · {html.escape(r.best.percent_text())}</div>{deny}{warning}<ul>{items}</ul>"
    )


class SweepView:
    """The Settings sweep tab. ``apply(settings)`` is called by the apply button."""

    def __init__(self, apply: Callable[[Settings], None]) -> None:
        self._apply = apply
        self.data: SweepData | None = None
        self.source = ColumnDataSource(data={"row": [], "f1_threshold": [], **{c: [] for c in HEAT_COLUMNS}})
        self.mapper = LinearColorMapper(palette=Viridis256, low=0, high=1)
        fig = figure(
            height=200, sizing_mode="stretch_width", x_range=(-0.005, 1.005), y_range=FactorRange(),
            toolbar_location=None, tools="", x_axis_label="Response F1 threshold",
        )
        fig.rect("f1_threshold", "row", width=0.01, height=1, source=self.source,
                 fill_color={"field": "agree", "transform": self.mapper}, line_color=None)
        # runs agreeing: whole numbers only on the bar (a small set's showed 0.5, 1.5)
        fig.add_layout(ColorBar(color_mapper=self.mapper, title="agree", ticker=BasicTicker(min_interval=1),
                                formatter=NumeralTickFormatter(format=RUN_COUNT_FORMAT)), "right")
        fig.add_tools(HoverTool(tooltips=[("setting", "@row"), ("F1 ≥", "@f1_threshold{0.00}"), ("agree", "@agree"),
                                          ("false passes", "@false_pass"), ("false fails", "@false_fail")]))
        fig.yaxis.major_label_text_font_size = "9pt"
        self.figure = fig
        self.heatmap = pn.Column(pn.pane.Bokeh(fig, sizing_mode="stretch_width"), css_classes=["me-sweep-heatmap"],
                                 sizing_mode="stretch_width")
        self.best = LiveHTML("", css_classes=["me-sweep-best"], **styled(sizing_mode="stretch_width"))
        # as wide as the row allows, up to the longest setting's words (~880 px): a trial found them
        # cut at a fixed 620 px at 1024x768, with room beside the button; wraps under 460 px
        self.choice = pn.widgets.Select(label="Best setting to apply", options=[], css_classes=["me-sweep-choice"],
                                        sizing_mode="stretch_width", styles=flex_item(460, max_width=880))
        self.apply_button = pn.widgets.Button(label="Apply this setting", color="primary", css_classes=["me-sweep-apply"])
        self.apply_button.on_click(self._on_apply)
        # the heatmap's slice
        self.combine = pn.widgets.Select(label="Combine", options=["all", "mean"], css_classes=["me-sweep-combine"], width=110)
        self.deny = pn.widgets.Select(label="Deny-list", options={"off": False, "on": True}, css_classes=["me-sweep-deny"], width=110)
        self.key = pn.widgets.Select(label="Key fields", options={"off": False, "on": True}, css_classes=["me-sweep-key"], width=110)
        self.threshold = pn.widgets.Select(
            label="Partial scores at trajectory threshold", options={f"{t:.2f}": float(t) for t in TRAJECTORY_THRESHOLDS},
            css_classes=["me-sweep-trajectory-threshold"], width=250,
        )
        self.slice_note = LiveHTML("", css_classes=["me-sweep-slice"], **styled(sizing_mode="stretch_width", margin=(0, 10)))
        for w in (self.combine, self.deny, self.key, self.threshold):
            w.param.watch(lambda _e: self._draw(), ["value"])
        self._setting_slice = False
        self.status = LiveHTML("", css_classes=["me-sweep-status"], visible=False,
                               **styled(sizing_mode="stretch_width", margin=(0, 10)))
        self.results: pn.Column | None = None
        """The best settings and the heatmap (built by :meth:`panel`), dimmed by Panel's loading
        indicator while a sweep is computed."""
        self.jobs: LatestJob[SweepData] = LatestJob("the sweep")
        """The sweeps computing in the background, one at a time, the latest drawn."""

    def start(self, features: Features, base: Settings, background: bool | None = None) -> None:
        """Compute the sweep of ``features`` and show it, saying meanwhile that it is computing
        (:func:`computing_text`, Panel's loading indicator on the results): in a background thread
        when ``background`` (default: in a session; :class:`~explorer.app.loading.LatestJob`:
        one sweep at a time, only the latest asked for drawn), else at once."""
        self._busy(computing_text(features, base))
        if background is None:
            background = pn.state.curdoc is not None
        if not background:  # no session (tests, scripts): at once
            self.jobs.stop()
            self.show(features, base)
            return
        self.jobs.submit(lambda _progress: sweep_view_data(features, base), self._computed)

    def _computed(self, data: SweepData | None, error: str | None) -> None:
        if data is not None:
            self.draw_data(data)
        else:
            self._done(f"The sweep could not be computed: {error}")

    @property
    def job(self):
        """The sweep computing, or computed and not drawn yet (None when idle)."""
        return self.jobs.job

    def poll(self) -> None:
        """Draw the sweep when it has finished, or start the one asked for meanwhile (what the
        session's periodic callback calls)."""
        self.jobs.poll()

    def stop(self) -> None:
        """Stop following a running sweep (its result is dropped)."""
        self.jobs.stop()

    def _busy(self, text: str) -> None:
        self.status.object = f'<div class="me-hint me-sweep-computing" role="status">{html.escape(text)}</div>'
        self.status.visible = True
        if self.results is not None:
            self.results.loading = True

    def _done(self, error: str = "") -> None:
        self.status.object = f'<div class="me-input-error" role="alert">{html.escape(error)}</div>' if error else ""
        self.status.visible = bool(error)
        if self.results is not None:
            self.results.loading = False

    def show(self, features: Features, base: Settings) -> None:
        """Sweep ``features``, read it and draw the best setting's slice (at once, in this thread)."""
        self.draw_data(sweep_view_data(features, base))

    def draw_data(self, d: SweepData) -> None:
        """Draw a computed sweep ``d``: the best settings and the best setting's slice."""
        self._done()
        self.data = d
        self.mapper.high = max(d.labelled, 1)
        self.best.object = headline_html(d)
        self.choice.options = list(d.choices)
        self.apply_button.disabled = not d.choices  # no labelled run: nothing to apply
        self._setting_slice = True
        try:
            # with the deny-list swept off only, "on" would show an empty slice
            self.deny.options = {"off": False, "on": True} if True in d.deny_checks else {"off": False}
            self.deny.disabled = len(d.deny_checks) == 1
            s = d.best_slice()
            self.combine.value, self.deny.value, self.key.value = s["combine"], s["deny_check"], s["key_fields"]
            self.threshold.value = min(TRAJECTORY_THRESHOLDS, key=lambda t: abs(t - s["trajectory_threshold"]))
        finally:
            self._setting_slice = False
        self._draw()

    def _draw(self) -> None:
        """Draw the slice the filters choose."""
        if self.data is None or self._setting_slice:
            return
        heat = heat_rows(self.data.table, self.combine.value, bool(self.deny.value), bool(self.key.value),
                         float(self.threshold.value))
        rows = list(dict.fromkeys(heat["row"]))
        self.figure.y_range.factors = list(reversed(rows))
        self.figure.height = 60 + ROW_HEIGHT * len(rows)
        self.source.data = {c: heat[c].to_numpy() for c in ("row", "f1_threshold", *HEAT_COLUMNS)}
        self.threshold.disabled = self.combine.value == "mean"
        shown = len(heat)
        self.slice_note.object = (
            f'<div class="me-hint">{len(rows)} rows × 101 F1 thresholds = {shown:,} of the {len(self.data.table):,} '
            "settings: each family under each argument mode, with the combine rule, deny-list and key fields above"
            + (" (under “mean” no threshold is read)" if self.combine.value == "mean" else
               ", the partial scores at the trajectory threshold above") + ".</div>"
        )

    def _on_apply(self, _event: object) -> None:
        if self.data is not None and self.choice.value in self.data.choices:
            self._apply(self.data.choices[self.choice.value])

    def panel(self) -> pn.Column:
        """The tab's content."""
        self.results = pn.Column(
            self.best,
            pn.Row(self.choice, self.apply_button, styles=WRAP, sizing_mode="stretch_width"),
            LiveHTML("<h2>Heatmap of one slice</h2>", **styled(margin=(6, 10, 0, 10))),
            pn.Row(self.combine, self.deny, self.key, self.threshold, styles=WRAP, sizing_mode="stretch_width"),
            self.slice_note,
            self.heatmap,
            sizing_mode="stretch_width", margin=0, loading=self.job is not None,
        )
        return pn.Column(
            LiveHTML(
                "<h2>Settings sweep</h2><div class=\"me-hint\">Every trajectory family × argument mode × combine rule × "
                "deny-list on/off × key fields on/off × trajectory threshold of a partial score (0–1, step 0.05) × F1 "
                "threshold 0–1 (step 0.01), scored against the labelled runs (this session's labels). Unlabelled runs "
                "are not counted.</div>",
                **styled(margin=(0, 10), sizing_mode="stretch_width"),
            ),
            self.status,
            self.results,
            css_classes=["me-card", "me-sweep"],
            sizing_mode="stretch_width",
        )
