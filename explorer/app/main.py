"""One browser session of the explorer: its state, its views and the wiring between them.

:func:`create_app` is called by the server once per session with the :class:`SharedData` loaded
once per process; everything it builds (inputs, clock, widgets, periodic callback) belongs to that
session alone.

Flow: an input change evaluates the settings once (:func:`explorer.core.evaluation.verdicts.evaluate`),
pauses and rewinds the replay to t = 0 and refreshes every view; a clock change refreshes the
time-dependent views only when the number of revealed runs changes (the time label always). The
replay's clock runs in the page (:mod:`explorer.app.views.replay_clock`): the server hears the time
when the revealed runs change or the person moves the clock, and has no timer of its own.

The page (:meth:`ExplorerSession.layout`): the lesson stepper, the summary bar (sticky: it stays
on screen while the page scrolls), then tabs; the Explorer tab holds the settings beside the replay
strip, the trade-off chart and the runs (table with the selected run's side panel, event trace),
sized so the whole loop fits one 1440×900 screen.

How sure (issue 11): the summary bar carries the intervals, a "Pin as A" button and, while a setting
is pinned, the comparison of the current settings (B) with it (:mod:`.views.compare`); the "How
sure" tab (:mod:`.views.how_sure`) holds the figures with their intervals and the annotators. Labels
are kept per annotator in :class:`SessionLabels`; a label change re-evaluates A and B.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import panel as pn

from ..core.scoring.embedding import SimilarityUnavailable
from ..core.evaluation.compare import compare_evaluations
from ..core.evaluation.verdicts import Evaluation, evaluate
from ..core.evaluation.features import Features, load_warnings
from ..core.evaluation.response_features import response_features_for
from ..core.evaluation.replay import (
    next_event_time, play_start_time, reveal_timeline, revealed_count, state_at, trace_events,
)
from ..core.evaluation.settings import Settings
from ..core.scoring.arg_rules import ArgRules
from .arg_rules import RulesChange
from .labels import SessionLabels
from .lesson import LessonStep
from .lessons import lesson_for
from .shared import SharedData
from .state import INPUT_NAMES, Clock, Inputs, PageState, is_partial
from .tradeoff import sweep
from .url import page_query, rules_from_query, settings_from_query
from .views.annotators import AnnotatorPicker, PersonMarks
from .views.chart import ChartView
from .views.compare import CompareView, PinnedSettings
from .views.detail import DetailView
from .views.arg_rules import ArgRulesView
from .views.how_sure import HowSureView
from .views.inputs import InputsView, threshold_reason
from .views.lesson import LessonView
from .views.metrics import MetricsView
from .views.calibration import CalibrationView
from .views.replay_controls import ReplayControls
from .views.response_inputs import ResponseInputs
from .views.review_queue import ReviewDecisions, ReviewQueueView
from .views.style import WRAP, Deferred, LazyTab, LiveHTML, styled, write_through
from .views.table import PAGE_SIZE as TABLE_PAGE_SIZE, TableView
from .views.trace import TraceView
from .highlight import escape_whole

FOOTER = (
    '<div class="me-footer">Trajectory match follows the ADK definitions (EXACT, IN_ORDER, ANY_ORDER). '
    "The person's verdict is treated as ground truth, though a person's label can be wrong too. No agent, model or "
    "LLM evaluator runs here: the runs are scored from the file. A handful of runs cannot calibrate a threshold: "
    "calibrate every threshold against labelled runs from your own agent before using it as a gate.</div>"
)
SETTINGS_WIDTH = 330
"""Width of the settings column (px)."""
HOW_SURE_TAB = "How sure"
HOW_SURE_AT = 2
"""Position of the How sure tab (after Explorer and Calibration)."""


class ExplorerSession:
    """A session's state and views. ``query``: the page's URL query (name -> value or list of
    values, str or bytes), applied over the shared defaults; bad values become notices.
    ``labels``: the session's labels of this case set when it already has some (the workspace
    keeps them across case-set switches and failed loads); new ones from the file otherwise.
    ``page``: the page's own state (presenter mode), written into the URL with the settings."""

    def __init__(self, shared: SharedData, query: Mapping[str, Any] | None = None,
                 labels: SessionLabels | None = None, page: PageState | None = None) -> None:
        self.shared = shared
        self.page = page if page is not None else PageState()
        # the session's own labels (labelling, review decisions) over the shared features
        self.labels = labels if labels is not None else SessionLabels.from_shared(shared)
        self.features = self.labels.apply_to(shared.features)
        self.response = response_features_for(shared.case_set)  # response-scorer columns, shared, lazy
        self.review = ReviewDecisions.from_labels(self.labels)  # decisions made before a set switch
        settings, self.notices = settings_from_query(query or {}, shared.defaults, shared.tools)
        link_rules, rule_notices = rules_from_query(query or {})  # the argument rules a shared link holds
        self.notices += rule_notices
        self.notices += load_warnings(shared.features)  # e.g. runs with an empty reference
        # issue 14: say where the features came from (read from the feature cache, or computed into it)
        self.notices += [f"{n[0].upper()}{n[1:]}." for n in shared.case_set.notes if n.startswith("features ")]
        self.inputs = Inputs(shared.tools, settings, shared.features.day_first,
                             one_turn=bool(shared.features.n_invocations.max(initial=1) <= 1))
        self.clock = Clock()
        self.times = reveal_timeline(self.features.n)  # O(30) floats, not one per run
        self.ev: Evaluation = self._evaluate(self.inputs.settings())
        self.selected_id: str | None = None
        self._shown_revealed = -1

        self.controls = ReplayControls(self.clock, self.times)
        self.metrics = MetricsView()
        self.trace = TraceView()
        self.table = TableView(self.features.n, shared.features.longest_run_id)
        self.detail = DetailView(self.unselect)
        self.detail.notes = lambda i: self.labels.notes.get(str(i))
        self.chart = ChartView(self.features.n, self._draw_chart)
        self._chart_partial: bool | None = None  # the family's kind the chart's x-axis was chosen for
        self.lesson = LessonView(self.choose_step, lesson_for(shared.case_set.source))
        self.rules_view = ArgRulesView(shared.features.arg_rules, self.apply_arg_rules)
        self.rules = RulesChange(self.rules_view)
        self.on_shared: list[Callable[[SharedData], None]] = []
        """Called with the new shared data when this session's argument rules change its features
        (the workspace keeps them for the set)."""
        # the settings card follows the inputs from :meth:`_on_inputs`, in the same message as the figures
        self.inputs_view = InputsView(self.inputs, self.rules_view, follow=False)
        self.response_inputs = ResponseInputs(self.inputs, follow=False)
        # the review queue's card is hidden until the cascade is chosen: its view and card are built then
        self._review_view: ReviewQueueView | None = None
        self.review_card = Deferred(build=lambda: [self.review_view.panel()], visible=False,
                                    sizing_mode="stretch_width", margin=0)
        # the Calibration and How sure tabs are built when first opened (issue 9 item 11): see the properties
        self._calibration: CalibrationView | None = None
        self._how_sure: HowSureView | None = None
        self.side_picker = AnnotatorPicker(self.labels, width=160)
        """The "Label as" choice beside the label buttons (the How sure tab's Annotators card shares it)."""
        self.pinned = PinnedSettings()  # issue 11: setting A, compared with the current one (B)
        self.ev_a: Evaluation | None = None
        self.compare = CompareView(self.pin, self.pinned.unpin, self.select_run)
        self.tabs: pn.Tabs | None = None
        self.runs_tabs: pn.Tabs | None = None
        self._mark_people()
        self.notice = LiveHTML("", css_classes=["me-notice"], visible=False, **styled(sizing_mode="stretch_width"))
        self.show_notices(self.notices)

        self.inputs.param.watch(self._on_inputs, list(INPUT_NAMES))
        self.clock.param.watch(self._on_time, ["time"])
        self.clock.param.watch(self._on_playing, ["playing"])
        self.table.table.param.watch(self._on_select, ["selection"])
        self._labels_watcher = self.labels.param.watch(self._on_labels, ["version"])
        self.pinned.param.watch(self._on_pinned, ["settings"])
        self._refresh_all()
        if link_rules is not None and link_rules != shared.features.arg_rules:
            self.apply_arg_rules(link_rules, "the link")

    @property
    def review_view(self) -> ReviewQueueView:
        """The review queue (the cascade's gray band), built on first use."""
        if self._review_view is None:
            self._review_view = ReviewQueueView(self.decide)
        return self._review_view

    @property
    def calibration(self) -> CalibrationView:
        """The Calibration tab's view, built on first use (its tab's first opening)."""
        if self._calibration is None:
            self._calibration = CalibrationView(self.response, self.use_bands)
        return self._calibration

    @property
    def how_sure(self) -> HowSureView:
        """The How sure tab's view, built on first use (its tab's first opening)."""
        if self._how_sure is None:
            self._how_sure = HowSureView(self.labels, side_picker=self.side_picker)
        return self._how_sure

    # --- reactions ---------------------------------------------------------------------------

    def _on_inputs(self, *_events: Any) -> None:
        # one message to the browser for the whole change: the settings card, the figures, the
        # replay's rewind and the URL (each message makes Bokeh walk the document's models; issue 15)
        with pn.io.hold():
            self.inputs_view.follow()
            self.response_inputs.follow()
            try:
                settings = self.inputs.settings()
            except ValueError as exc:  # e.g. a typed threshold outside 0..1 (the widgets bound it)
                self.show_notices([str(exc)])
                return
            try:
                self.ev = self._evaluate(settings)
            except SimilarityUnavailable as exc:  # cosine/cascade without the similarity extra
                self.response_inputs.show_model(None, str(exc))
                self.show_notices([f"Embedding similarity is not installed: {exc}"])
                self.inputs.response_scorer = "f1"
                return
            self.clock.param.update(playing=False, time=0.0)
            self._refresh_all()
            self.write_url()

    def _evaluate(self, settings: Settings) -> Evaluation:
        """Evaluate ``settings`` over this session's labelled features, the case set's response
        columns and the person's review decisions (raises SimilarityUnavailable)."""
        return evaluate(self.features, settings, self.response, self.review.decisions)

    def _on_labels(self, *_events: Any) -> None:
        """A label changed (review decision, labelling, the ground truth chosen): re-evaluate (A
        too, when pinned) and refresh without rewinding the replay (the inputs did not change)."""
        self.features = self.labels.apply_to(self.shared.features)
        self.ev = self._evaluate(self.ev.settings)
        if self.pinned.settings is not None:
            self.ev_a = self._evaluate(self.pinned.settings)
        self._mark_people()
        with pn.io.hold():
            self._refresh_all()
        if self._calibration is not None and self._calibration.features is not None:  # the Calibration tab has been opened
            self._calibration.show(self.features)

    def decide(self, index: int, acceptable: bool) -> None:
        """The person decides gray-band run ``index`` in the review queue: the judge's decision,
        recorded as the run's label (one re-evaluation)."""
        self.review.record(index, acceptable, self.labels)

    def _mark_people(self) -> None:
        """Marks of disputed and split runs for the table and the side panel (several annotators)."""
        marks = PersonMarks.of(self.labels)
        self.table.person_cell = None if marks is None else marks.cell
        self.detail.people = None if marks is None else marks.detail

    def pin(self) -> None:
        """Pin the current settings as A (issue 11): every later change is B, compared with A."""
        self.pinned.pin(self.ev.settings)

    def _on_pinned(self, *_events: Any) -> None:
        settings = self.pinned.settings
        self.ev_a = None if settings is None else (self.ev if settings == self.ev.settings else self._evaluate(settings))
        self._show_compare()

    def _show_compare(self) -> None:
        """The comparison strip of B (the current settings) with the pinned A (hidden unpinned)."""
        if self.ev_a is None or self.pinned.settings is None:
            self.compare.show(None)
            return
        self.compare.show(compare_evaluations(self.features, self.ev_a, self.ev), self.pinned.settings, self.ev.settings)

    def select_run(self, run_id: str) -> None:
        """Select run ``run_id`` in the table and show its detail (a flipped run clicked in the
        comparison): the Explorer tab and its Runs tab open, the replay paused and moved forward to
        the run's reveal when it is not revealed yet (a big set's table turns to its page)."""
        where = np.flatnonzero(self.features.run_ids == run_id)
        if not where.size:
            return
        i = int(where[0])
        with pn.io.hold():
            if self.tabs is not None and self.tabs.active != 0:
                self.tabs.active = 0
            if self.runs_tabs is not None and self.runs_tabs.active != 0:
                self.runs_tabs.active = 0
            reveal = float(self.times[i])
            if self.clock.time < reveal or self.clock.playing:
                self.clock.param.update(playing=False, time=max(self.clock.time, reveal))
            if self.table.windowed:  # a page of rows rebuilt clears the table's selection: turn first
                page = i // TABLE_PAGE_SIZE + 1
                if self.table.page.value != page:
                    self.table.page.value = page
            self.selected_id = str(run_id)
            if self.selected_id in self.table.ids:
                idx = self.table.ids.index(self.selected_id)
                if self.table.table.selection != [idx]:
                    self.table.table.selection = [idx]
            self._show_detail()

    def use_bands(self, pass_above: float, fail_below: float) -> None:
        """Put calibrated bands into the cascade's sliders (one recompute)."""
        self.inputs.param.update(pass_above=pass_above, fail_below=fail_below)

    def _on_time(self, *_events: Any) -> None:
        with pn.io.hold():  # every view changes in the same message
            self._refresh_time()

    def _on_playing(self, *_events: Any) -> None:
        self.controls.show(self.clock.time, self.clock.playing)

    def _on_select(self, *_events: Any) -> None:
        sel = self.table.table.selection
        if sel and sel[0] < len(self.table.ids):
            self.selected_id = self.table.ids[sel[0]]
        elif not sel and self.table.ids:
            self.selected_id = None
        self._show_detail()

    # --- commands ----------------------------------------------------------------------------

    def toggle_play(self) -> None:
        """Play, or pause (what the Play button does in the page, for callers on the server). Play
        starts at the first reveal when nothing is revealed yet (the first runs show at once) and
        from the start again at the end (``replay.play_start_time``); the page's clock then runs."""
        if self.clock.playing:
            self.clock.playing = False
            return
        start = play_start_time(self.times, self.clock.time)
        with pn.io.hold():
            self.clock.param.update(time=start, playing=True)

    def next_event(self) -> None:
        """Pause and jump to the next reveal time."""
        self.clock.param.update(playing=False, time=next_event_time(self.times, self.clock.time))

    def restart(self) -> None:
        """Pause at t = 0."""
        self.clock.param.update(playing=False, time=0.0)

    def reset(self) -> None:
        """Back to the opening: the default settings (one recompute, which rewinds), the replay at
        t = 0 and no run selected."""
        self.unselect()
        with pn.io.hold():
            self.inputs.apply(self.shared.defaults)  # no change, no recompute: the rewind below still holds
            self.restart()

    def unselect(self) -> None:
        """Close the selected run's side panel (no run selected)."""
        self.selected_id = None
        if self.table.table.selection:
            self.table.table.selection = []
        self._show_detail()

    def choose_step(self, step: LessonStep) -> None:
        """Set the inputs to a lesson step's settings (one recompute)."""
        self.inputs.apply(step.settings(self.shared.defaults))

    def apply_arg_rules(self, rules: ArgRules, source: str = "") -> None:
        """Score the trajectories again under argument ``rules`` (issue 12): a loop over the runs,
        like a load, so in the background for a big set; the page keeps working on the old
        scores meanwhile and shows the new ones when they are ready (``RulesChange``)."""
        self.rules.start(self.shared.features, rules, source, self.use_shared_features)

    def use_shared_features(self, features: Features) -> None:
        """Show ``features`` (the same runs under other argument rules) in place of this session's
        shared ones: re-evaluate the current settings with the session's labels, keep the replay
        where it is."""
        self.shared = replace(self.shared, features=features)
        self.features = self.labels.apply_to(features)
        self.ev = self._evaluate(self.ev.settings)
        with pn.io.hold():
            self._refresh_all()
        if self._calibration is not None and self._calibration.features is not None:
            self._calibration.show(self.features)
        self.write_url()  # the link holds the rules in use
        for callback in self.on_shared:
            callback(self.shared)

    def close(self) -> None:
        """Pause the replay and stop following the labels (they outlive this session's explorer
        when the workspace switches case sets)."""
        self.stop_timer()
        self.rules.stop()
        self.labels.param.unwatch(self._labels_watcher)
        if self._calibration is not None:
            self._calibration.stop()  # a running computation's result is dropped
        if self._how_sure is not None:
            self._how_sure.close()  # the side picker too
        else:
            self.side_picker.close()

    def stop_timer(self) -> None:
        """Pause the replay. The clock runs in the page; the server has no timer to stop (kept
        for callers: the session's end, a case-set switch)."""
        if self.clock.playing:
            self.clock.playing = False

    # --- views -------------------------------------------------------------------------------

    def show_notices(self, notices: list[str]) -> None:
        """Show ``notices`` (escaped) in the notice bar, or hide it when empty."""
        if notices:
            items = "".join(f"<li>{escape_whole(n)}</li>" for n in notices)
            self.notice.object = f'<div class="me-notice-box"><b>Note</b><ul>{items}</ul></div>'
        self.notice.visible = bool(notices)

    def _refresh_all(self) -> None:
        settings = self.ev.settings
        self.metrics.show_whole(self.features, self.ev, self.labels.disputed, self.labels.too_few)
        self._show_compare()
        if self.tabs is not None and self.tabs.active == HOW_SURE_AT:  # only while shown
            self.how_sure.show(self.features, self.ev)
        self.lesson.mark_current(settings, self.shared.defaults, self.ev.summary)
        partial = is_partial(settings.trajectory)
        if partial != self._chart_partial:  # a partial score's threshold is the live one: chart it
            self._chart_partial = partial
            self.chart.choose_axis("trajectory_threshold" if partial else "f1_threshold")
        self._draw_chart()
        self.response_inputs.show_model(self.response.embedding_identity())
        cascade = settings.response_scorer == "cascade"
        if self.review_card.visible != cascade:
            self.review_card.visible = cascade
        if cascade:  # the queue's card is hidden otherwise; it is filled again when it shows
            self.review_view.show(self.features, self.ev, self.review.decisions)
        if self._shown_revealed != 0:  # with nothing revealed the replay's views do not depend on the evaluation
            self._shown_revealed = -1
        self._refresh_time()

    def _draw_chart(self) -> None:
        """The trade-off chart over the threshold on its x-axis (F1's, or the trajectory's), the
        other settings as they are, with why that threshold does nothing when it does not. Under
        the mean rule neither is read: the chart moves the mean threshold, counted from the
        session's evaluation (its chosen response scorer and review decisions), so its point at
        the current mean threshold is the summary's agreement."""
        settings = self.ev.settings
        if settings.combine == "mean":
            note = "Trajectory is not scored, so the mean is the response score alone." if settings.trajectory == "none" else ""
            curve = sweep(self.features, settings, varies="mean_threshold", evaluation=self.ev)
            self.chart.show(curve, settings.mean_threshold, "mean_threshold", note=note)
            return
        varies = self.chart.varies
        if varies == "trajectory_threshold":
            unused = self.inputs.threshold_unused()
        else:
            unused = threshold_reason(settings.combine, "f1", settings.mean_threshold)
        curve = sweep(self.features, settings.with_(response_scorer="f1"), varies=varies)
        self.chart.show(curve, getattr(settings, varies), varies, unused)

    def _refresh_time(self) -> None:
        t = self.clock.time
        self.controls.show(t, self.clock.playing)
        k = revealed_count(self.times, t)
        if k == self._shown_revealed:
            return
        self._shown_revealed = k
        self.metrics.show(state_at(self.features, self.ev, self.times, t))
        self.trace.show(trace_events(self.features, self.ev, self.times, t))
        self.table.show(self.features, self.ev, k)
        if self.selected_id in self.table.ids:
            idx = self.table.ids.index(self.selected_id)
            if self.table.table.selection != [idx]:
                self.table.table.selection = [idx]
        elif self.table.table.selection:
            self.table.table.selection = []
        self._show_detail()

    def _show_detail(self) -> None:
        if self.selected_id is not None and self.selected_id in self.table.ids:
            self.detail.show(self.features, self.ev, self.table.ids.index(self.selected_id))
        else:
            self.detail.show(self.features, self.ev, None)

    def write_url(self) -> None:
        """Put the settings (and presenter mode) into the page's URL query, and the argument rules
        in use when there are any or they differ from the case set's own (``arg_rules=[]``: none)."""
        loc = pn.state.location
        if loc is not None:
            settings = self.ev.settings
            # the date reading in effect, always: a link keeps it even when it is the case set's own
            reading = settings.day_first if settings.day_first is not None else self.features.day_first
            rules = self.features.arg_rules
            own = self.shared.case_set.arg_rules or ArgRules()
            shown = rules if rules.rules or rules != own else None
            write_through(loc, search=page_query(settings, self.page.present, bool(reading), shown))

    # --- layout ------------------------------------------------------------------------------

    def _tabs(self, explorer: pn.viewable.Viewable, extra_tabs: Sequence[tuple[str, Any]]) -> pn.Tabs:
        """The explorer, the Calibration page and ``extra_tabs`` as tabs; the calibration is
        computed when its tab is first opened (cosine scores need the embedder)."""
        # dynamic: only the open tab is in the page (the others are built when opened, and a tall
        # tab, the sweep's heatmap, does not make the Explorer tab as tall as itself); a
        # :class:`LazyTab`'s widgets are made on its first opening
        tabs = pn.Tabs(("Explorer", explorer), ("Calibration", LazyTab(lambda: self.calibration.panel())),
                       (HOW_SURE_TAB, LazyTab(lambda: self.how_sure.panel())), *extra_tabs,
                       css_classes=["me-tabs"], sizing_mode="stretch_width", dynamic=True)
        self.tabs = tabs

        def opened(event: Any) -> None:
            if 0 <= event.new < len(tabs) and isinstance(tabs[event.new], LazyTab):
                tabs[event.new].fill()
            if event.new == 1:
                self.calibration.show(self.features)
            elif event.new == HOW_SURE_AT:
                self.how_sure.show(self.features, self.ev)

        tabs.param.watch(opened, ["active"])
        return tabs

    def runs_card(self, toolbar: Sequence[pn.viewable.Viewable] = (), label_bar: pn.viewable.Viewable | None = None) -> pn.Tabs:
        """The runs: the table with the selected run's side panel (``label_bar`` at its foot) and,
        above it, ``toolbar`` (filters, label counts); the event trace in the next tab."""
        runs = pn.Column(
            pn.Row(*toolbar, sizing_mode="stretch_width", css_classes=["me-runs-toolbar"], styles=WRAP),
            pn.Row(self.table.panel(), self.detail.panel(*([label_bar] if label_bar is not None else [])),
                   sizing_mode="stretch_width", styles=WRAP),
            sizing_mode="stretch_width",
        )
        # the trace stays in the page while its tab is closed (the page reads it as the replay plays)
        self.runs_tabs = pn.Tabs(("Runs", runs), ("Event trace", self.trace.panel()), css_classes=["me-card", "me-runs-card"],
                                 sizing_mode="stretch_width")
        return self.runs_tabs

    def explorer_tab(self, toolbar: Sequence[pn.viewable.Viewable] = (), label_bar: pn.viewable.Viewable | None = None) -> pn.Column:
        """The Explorer tab: settings beside the replay strip, the chart and the runs."""
        settings = pn.Column(
            self.inputs_view.panel(self.response_inputs.panel()),
            self.review_card,
            width=SETTINGS_WIDTH,
            css_classes=["me-sidebar"],
            margin=0,
        )
        main = pn.Column(
            self.controls.panel(self.metrics.replay),
            self.chart.panel(),
            self.runs_card(toolbar, label_bar),
            sizing_mode="stretch_width",
            css_classes=["me-main"],
            margin=0,
            styles={"min-width": "0"},
        )
        return pn.Column(
            pn.Row(settings, main, sizing_mode="stretch_width", margin=0),
            LiveHTML(FOOTER, **styled(sizing_mode="stretch_width", margin=(4, 12))),
            sizing_mode="stretch_width",
            margin=0,
        )

    def layout(self, toolbar: Sequence[pn.viewable.Viewable] = (), label_bar: pn.viewable.Viewable | None = None,
               extra_tabs: Sequence[tuple[str, Any]] = (), header: pn.viewable.Viewable | None = None) -> pn.Column:
        """The page of this case set: ``header`` (default: the title), the notice, the lesson
        stepper, the summary bar and the tabs (Explorer, Calibration, then ``extra_tabs``).
        ``toolbar`` and ``label_bar`` go above the table and into the selected run's panel."""
        if header is None:
            from .views.header import title_html
            header = LiveHTML(title_html(self.shared.case_set.name), **styled(sizing_mode="stretch_width", margin=(4, 6)))
        return pn.Column(
            header,
            self.notice,
            self.lesson.panel(),
            self.metrics.summary_panel(beside=(self.compare.pin_button,), below=(self.compare.strip,)),
            self._tabs(self.explorer_tab(toolbar, label_bar), extra_tabs),
            sizing_mode="stretch_width",
            css_classes=["me-page"],
        )


def create_app(shared: SharedData) -> pn.viewable.Viewable:
    """Build one session's layout over ``shared`` (a single case set, no workspace), reading the
    URL query of the current request."""
    query = dict(pn.state.session_args) if pn.state.curdoc and pn.state.curdoc.session_context else {}
    session = ExplorerSession(shared, query)
    if pn.state.curdoc is not None:
        pn.state.curdoc.title = "Metric Trade-off Explorer"
    return session.layout()
