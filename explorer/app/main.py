"""One browser session of the explorer: its state, its views and the wiring between them.

:func:`create_app` is called by the server once per session with the :class:`SharedData` loaded
once per process; everything it builds (inputs, clock, widgets, periodic callback) belongs to that
session alone.

Flow: an input change evaluates the settings once (:func:`explorer.core.evaluation.verdicts.evaluate`),
pauses and rewinds the replay to t = 0 and refreshes every view; a clock change refreshes the
time-dependent views only when the number of revealed runs changes (the time label always).
"""

from __future__ import annotations

import html
import time
from typing import Any, Mapping

import panel as pn

from ..core.scoring.embedding import SimilarityUnavailable
from ..core.evaluation.verdicts import Evaluation, evaluate
from ..core.evaluation.features import load_warnings
from ..core.evaluation.response_features import response_features_for
from ..core.evaluation.replay import DURATION, advance, next_event_time, reveal_times, revealed_count, state_at, trace_events
from ..core.evaluation.settings import Settings
from .labels import SessionLabels
from .lesson import LessonStep
from .shared import SharedData
from .state import INPUT_NAMES, Clock, Inputs
from .tradeoff import sweep
from .url import query_from_settings, settings_from_query
from .views.chart import ChartView
from .views.detail import DetailView
from .views.inputs import inputs_panel
from .views.lesson import LessonView
from .views.metrics import MetricsView
from .views.calibration import CalibrationView
from .views.replay_controls import ReplayControls
from .views.response_inputs import ResponseInputs
from .views.review_queue import ReviewDecisions, ReviewQueueView
from .views.style import styled
from .views.table import TableView
from .views.trace import TraceView

FOOTER = (
    '<div class="me-footer">Trajectory match follows the ADK definitions (EXACT, IN_ORDER, ANY_ORDER). '
    "The person's verdict is treated as ground truth; a person's label can be wrong too. No agent, model or "
    "judge runs here: the runs are scored from the file. A handful of runs cannot calibrate a threshold: "
    "calibrate every threshold against labelled runs from your own agent before using it as a gate.</div>"
)
TICK_MS = 100
"""Period of the replay's periodic callback while playing (ms)."""


class ExplorerSession:
    """A session's state and views. ``query``: the page's URL query (name -> value or list of
    values, str or bytes), applied over the shared defaults; bad values become notices.
    ``labels``: the session's labels of this case set when it already has some (the workspace
    keeps them across case-set switches and failed loads); new ones from the file otherwise."""

    def __init__(self, shared: SharedData, query: Mapping[str, Any] | None = None,
                 labels: SessionLabels | None = None) -> None:
        self.shared = shared
        # the session's own labels (labelling, review decisions) over the shared features
        self.labels = labels if labels is not None else SessionLabels.from_features(shared.features)
        self.features = self.labels.apply_to(shared.features)
        self.response = response_features_for(shared.case_set)  # response-scorer columns, shared, lazy
        self.review = ReviewDecisions.from_labels(self.labels)  # decisions made before a set switch
        settings, self.notices = settings_from_query(query or {}, shared.defaults, shared.tools)
        self.notices += load_warnings(shared.features)  # e.g. runs with an empty reference
        # issue 14: say where the features came from (read from the feature cache, or computed into it)
        self.notices += [f"{n[0].upper()}{n[1:]}." for n in shared.case_set.notes if n.startswith("features ")]
        self.inputs = Inputs(shared.tools, settings, shared.features.day_first)
        self.clock = Clock()
        self.times = reveal_times(self.features.n)
        self.ev: Evaluation = self._evaluate(self.inputs.settings())
        self.selected_id: str | None = None
        self._shown_revealed = -1
        self._callback: Any = None
        self._last_tick = 0.0

        self.controls = ReplayControls(self.clock, self.toggle_play, self.next_event, self.restart)
        self.metrics = MetricsView()
        self.trace = TraceView()
        self.table = TableView(self.features.n)
        self.detail = DetailView()
        self.chart = ChartView(self.features.n)
        self.lesson = LessonView(self.choose_step)
        self.response_inputs = ResponseInputs(self.inputs)
        self.review_view = ReviewQueueView(self.decide)
        self.calibration = CalibrationView(self.response, self.use_bands)
        self.notice = pn.pane.HTML("", css_classes=["me-notice"], visible=False, **styled(sizing_mode="stretch_width"))
        self.show_notices(self.notices)

        self.inputs.param.watch(self._on_inputs, list(INPUT_NAMES))
        self.clock.param.watch(self._on_time, ["time"])
        self.clock.param.watch(self._on_playing, ["playing"])
        self.table.table.param.watch(self._on_select, ["selection"])
        self._labels_watcher = self.labels.param.watch(self._on_labels, ["version"])
        self._refresh_all()

    # --- reactions ---------------------------------------------------------------------------

    def _on_inputs(self, *_events: Any) -> None:
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
        with pn.io.hold():  # one message to the browser for the whole update
            self.clock.param.update(playing=False, time=0.0)
            self._refresh_all()
        self._write_url(settings)

    def _evaluate(self, settings: Settings) -> Evaluation:
        """Evaluate ``settings`` over this session's labelled features, the case set's response
        columns and the person's review decisions (raises SimilarityUnavailable)."""
        return evaluate(self.features, settings, self.response, self.review.decisions)

    def _on_labels(self, *_events: Any) -> None:
        """A label changed (review decision, labelling): re-evaluate and refresh without
        rewinding the replay (the inputs did not change)."""
        self.features = self.labels.apply_to(self.shared.features)
        self.ev = self._evaluate(self.ev.settings)
        with pn.io.hold():
            self._refresh_all()
        if self.calibration.features is not None:  # the Calibration tab has been opened
            self.calibration.show(self.features)

    def decide(self, index: int, acceptable: bool) -> None:
        """The person decides gray-band run ``index`` in the review queue: the judge's decision,
        recorded as the run's label (one re-evaluation)."""
        self.review.record(index, acceptable, self.labels)

    def use_bands(self, pass_above: float, fail_below: float) -> None:
        """Put calibrated bands into the cascade's sliders (one recompute)."""
        self.inputs.param.update(pass_above=pass_above, fail_below=fail_below)

    def _on_time(self, *_events: Any) -> None:
        with pn.io.hold():  # every view changes in the same message
            self._refresh_time()

    def _on_playing(self, *_events: Any) -> None:
        if self.clock.playing:
            self._last_tick = time.monotonic()
            if self._callback is None:
                self._callback = pn.state.add_periodic_callback(self._tick, period=TICK_MS, start=True)
            else:
                self._callback.start()
        else:
            self.stop_timer()
        self.controls.show(self.clock.time, self.clock.playing)

    def _tick(self) -> None:
        now = time.monotonic()
        elapsed, self._last_tick = now - self._last_tick, now
        t, ended = advance(self.clock.time, elapsed, self.clock.speed)
        if ended:
            self.clock.param.update(time=t, playing=False)
        else:
            self.clock.time = t

    def _on_select(self, *_events: Any) -> None:
        sel = self.table.table.selection
        if sel and sel[0] < len(self.table.ids):
            self.selected_id = self.table.ids[sel[0]]
        elif not sel and self.table.ids:
            self.selected_id = None
        self._show_detail()

    # --- commands ----------------------------------------------------------------------------

    def toggle_play(self) -> None:
        """Play from the current time (from 0 when at the end), or pause."""
        if self.clock.playing:
            self.clock.playing = False
            return
        if self.clock.time >= DURATION - 1e-6:
            self.clock.time = 0.0
        self.clock.playing = True

    def next_event(self) -> None:
        """Pause and jump to the next reveal time."""
        self.clock.param.update(playing=False, time=next_event_time(self.times, self.clock.time))

    def restart(self) -> None:
        """Pause at t = 0."""
        self.clock.param.update(playing=False, time=0.0)

    def choose_step(self, step: LessonStep) -> None:
        """Set the inputs to a lesson step's settings (one recompute)."""
        self.inputs.apply(step.settings(self.shared.defaults))

    def close(self) -> None:
        """Stop the timer and stop following the labels (they outlive this session's explorer
        when the workspace switches case sets)."""
        self.stop_timer()
        self.labels.param.unwatch(self._labels_watcher)

    def stop_timer(self) -> None:
        """Stop the periodic callback (pause, end of replay, session destroyed)."""
        if self._callback is not None and self._callback.running:
            self._callback.stop()

    # --- views -------------------------------------------------------------------------------

    def show_notices(self, notices: list[str]) -> None:
        """Show ``notices`` (escaped) in the notice bar, or hide it when empty."""
        if notices:
            items = "".join(f"<li>{html.escape(n)}</li>" for n in notices)
            self.notice.object = f'<div class="me-notice-box"><b>Note</b><ul>{items}</ul></div>'
        self.notice.visible = bool(notices)

    def _refresh_all(self) -> None:
        self.metrics.show_whole(self.ev.summary)
        self.lesson.mark_current(self.ev.settings, self.shared.defaults)
        self.chart.show(sweep(self.features, self.ev.settings.with_(response_scorer="f1")), self.ev.settings.f1_threshold)
        self.response_inputs.show_model(self.response.embedding_identity())
        self.review_view.show(self.features, self.ev, self.review.decisions)
        self._shown_revealed = -1
        self._refresh_time()

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

    def _write_url(self, settings: Settings) -> None:
        loc = pn.state.location
        if loc is not None:
            query = query_from_settings(settings)
            # the reading in effect, always: a link keeps it even when it is the case set's own
            query["day_first"] = "true" if (settings.day_first if settings.day_first is not None else self.features.day_first) else "false"
            loc.update_query(**query)

    # --- layout ------------------------------------------------------------------------------

    def _tabs(self, explorer: pn.viewable.Viewable) -> pn.Tabs:
        """The explorer and the Calibration page as tabs; the calibration is computed when its
        tab is first opened (cosine scores need the embedder)."""
        tabs = pn.Tabs(("Explorer", explorer), ("Calibration", self.calibration.panel()), css_classes=["me-tabs"], sizing_mode="stretch_width")

        def opened(event: Any) -> None:
            if event.new == 1:
                self.calibration.show(self.features)

        tabs.param.watch(opened, ["active"])
        return tabs

    def layout(self) -> pn.viewable.Viewable:
        """The page: header, notice, then the inputs and lesson beside replay, metrics, chart,
        table, detail and trace."""
        cs = self.shared.case_set
        header = pn.pane.HTML(
            '<div class="me-header"><div class="me-title">Metric Trade-off Explorer</div>'
            f'<div class="me-subtitle">{html.escape(cs.name)}: how often does the evaluator agree with the '
            "person, and why?</div></div>",
            **styled(sizing_mode="stretch_width", margin=(0, 0, 8, 0)),
        )
        sidebar = pn.Column(
            inputs_panel(self.inputs),
            self.response_inputs.panel(),
            self.review_view.panel(),
            self.lesson.panel(),
            width=370,
            css_classes=["me-sidebar"],
        )
        main = pn.Column(
            self.controls.panel(),
            # a Row, not a FlexBox: a Bokeh figure inside a FlexBox nested in another column lays out to 0x0
            pn.Row(self.metrics.panel(), self.chart.panel(), sizing_mode="stretch_width", styles={"flex-wrap": "wrap"}),
            self.trace.panel(),
            sizing_mode="stretch_width",
            css_classes=["me-main"],
        )
        return pn.Column(
            pn.Row(header, pn.Column(self.metrics.whole, css_classes=["me-card", "me-whole-card"], width=300)),
            self.notice,
            self._tabs(pn.Column(
                pn.Row(sidebar, main, sizing_mode="stretch_width"), self.table.panel(), self.detail.panel(),
                pn.pane.HTML(FOOTER, **styled(sizing_mode="stretch_width", margin=(4, 12))),
                sizing_mode="stretch_width",
            )),
            sizing_mode="stretch_width",
            css_classes=["me-page"],
        )


def create_app(shared: SharedData) -> pn.viewable.Viewable:
    """Build one session's layout over ``shared``, reading the URL query of the current request
    and stopping the replay timer when the session is destroyed."""
    query = dict(pn.state.session_args) if pn.state.curdoc and pn.state.curdoc.session_context else {}
    session = ExplorerSession(shared, query)
    pn.state.on_session_destroyed(lambda _ctx: session.stop_timer())
    if pn.state.curdoc is not None:
        pn.state.curdoc.title = "Metric Trade-off Explorer"
    return session.layout()
