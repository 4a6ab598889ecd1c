"""The page of one browser session with a workspace (issue 4): upload, case-set picker, downloads
and the label keys above the explorer of the active case set.

The explorer (:class:`explorer.app.main.ExplorerSession`) is built for the active case set with
the session's labels of that set; picking or uploading a set builds a new one (settings carried
over) and swaps it in. A failed load only shows ``me-load-error``: the explorer, its labels and
settings are untouched. This module adds to each explorer the labelling card and filters above
its table and a "Settings sweep" tab.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import panel as pn

from ..core.io.errors import LoadError
from ..core.evaluation.settings import Settings
from .main import ExplorerSession
from .views.downloads import Downloads
from .views.filters import FilterBar, frame_filter, search_text
from .views.labelling import KeyListener, LabelBar, verdict_for_key
from .views.style import styled
from .views.sweep import SweepView
from .views.upload import UploadView
from .workspace import ProcessSets, Workspace, label_codes_from_upload, looks_like_labels_csv

SWEEP_TAB = "Settings sweep"


class Attached:
    """The issue-4 parts bound to one :class:`ExplorerSession`: label bar, filters (as a
    server-side Tabulator filter) and the sweep tab."""

    def __init__(self, session: ExplorerSession) -> None:
        self.session = session
        self.label_bar = LabelBar(self.label_selected)
        self.filters = FilterBar(self._refilter)
        self.sweep = SweepView(self.apply_settings)
        self._text: np.ndarray | None = None
        self._sweep_open = False
        session.table.table.add_filter(frame_filter(self._mask))
        session.labels.param.watch(self._on_labels, ["version"])
        session.table.table.param.watch(lambda _e: self._show_bar(), ["selection"])
        self._show_bar()

    # --- labelling ---------------------------------------------------------------------------
    def selected_index(self) -> int | None:
        """Run index of the selected table row, or None. The display frame's index holds run
        indices (also when a big set's table shows one page of rows)."""
        table = self.session.table.table
        sel = table.selection
        if sel and 0 <= sel[0] < len(table.value):
            return int(table.value.index[sel[0]])
        return None

    def label_selected(self, verdict: str | None) -> None:
        """Label the selected run ``verdict`` (None clears); nothing when no row is selected."""
        i = self.selected_index()
        if i is None:
            self.label_bar.selected.object = '<div class="me-hint">Select a row in the table first.</div>'
            return
        self.session.labels.set(i, verdict)
        # keep the run selected (a big set's page of rows is rebuilt and loses its selection)
        table = self.session.table.table
        at = np.flatnonzero(table.value.index.to_numpy() == i)
        if at.size and table.selection != [int(at[0])]:
            table.selection = [int(at[0])]

    def _on_labels(self, *_e: Any) -> None:
        self._show_bar()
        if self._sweep_open:
            self.sweep.show(self.session.features, self.session.ev.settings)

    def _show_bar(self) -> None:
        i = self.selected_index()
        self.label_bar.show(None if i is None else str(self.session.features.run_ids[i]), self.session.labels.human)

    # --- filters -----------------------------------------------------------------------------
    def _mask(self) -> np.ndarray | None:
        if not self.filters.active():
            return None
        if self._text is None and (self.filters.search.value_input or "").strip():
            self._text = search_text(self.session.shared.features)  # once per explorer
        return self.filters.mask(self.session.ev, self._text)

    def _refilter(self) -> None:
        self.session.table.table.param.trigger("value")

    # --- sweep -------------------------------------------------------------------------------
    def apply_settings(self, settings: Settings) -> None:
        """Put a swept setting into the inputs (one recompute)."""
        self.session.inputs.apply(settings)

    def open_sweep(self) -> None:
        """Compute and show the sweep (first opening of its tab, then on every label change)."""
        self._sweep_open = True
        self.sweep.show(self.session.features, self.session.ev.settings)

    def layout(self) -> pn.viewable.Viewable:
        """The session's layout with the label card and filters above the table and the sweep tab."""
        page = self.session.layout()
        table = self.session.table.table
        for tabs in page.select(pn.Tabs):
            explorer = tabs[0]
            for k, obj in enumerate(explorer.objects):
                if table in getattr(obj, "objects", []):
                    explorer.insert(k, pn.Column(self.label_bar.panel(), self.filters.panel(), sizing_mode="stretch_width"))
                    break
            tabs.append((SWEEP_TAB, self.sweep.panel()))
            at = len(tabs) - 1

            def opened(event: Any, at: int = at) -> None:
                if event.new == at:
                    self.open_sweep()

            tabs.param.watch(opened, ["active"])
            break
        return page


class WorkspacePage:
    """One session: the workspace, the toolbar and the current explorer."""

    def __init__(self, process: ProcessSets, query: dict | None = None) -> None:
        self.workspace = Workspace(process)
        self.upload = UploadView(self.received)
        self.picker = pn.widgets.Select(name="Case set", options=self.workspace.options(), value="served",
                                        css_classes=["me-case-picker"], width=330)
        self.picker.param.watch(self._on_pick, ["value"])
        self.keys = KeyListener()
        self.keys.param.watch(self._on_key, ["press"])
        self.downloads = Downloads(self._current)
        self.body = pn.Column(sizing_mode="stretch_width")
        self.attached: Attached | None = None
        self._show(ExplorerSession(self.workspace.shared(), query, self.workspace.labels_for()))

    # --- the explorer ------------------------------------------------------------------------
    def _show(self, session: ExplorerSession) -> None:
        if self.attached is not None:
            self.attached.session.close()
        self.attached = Attached(session)
        self.downloads.name_files(session.shared.case_set.name)
        self.body.objects = [self.attached.layout()]

    @property
    def session(self) -> ExplorerSession:
        """The explorer of the active case set."""
        assert self.attached is not None
        return self.attached.session

    def _current(self):
        s = self.session
        return s.features, s.ev, s.labels, s.shared.case_set.name

    def _switch(self, key: str) -> None:
        """Show case set ``key`` with this session's labels of it and the current settings."""
        settings = self.session.inputs.settings()
        shared = self.workspace.select(key)
        session = ExplorerSession(shared, None, self.workspace.labels_for(key))
        session.inputs.apply(settings.with_(deny_tools=tuple(t for t in settings.deny_tools if t in shared.tools)))
        self._show(session)

    # --- reactions ---------------------------------------------------------------------------
    def _on_pick(self, event: Any) -> None:
        if event.new == self.workspace.active:
            return
        try:
            self._switch(event.new)
        except LoadError as exc:
            self.upload.show_error(str(exc))
            self.picker.value = self.workspace.active
            return
        self.picker.options = self.workspace.options()  # a bundled set now shows its run count
        self.upload.show_error(None)

    def received(self, name: str, data: bytes) -> None:
        """An uploaded file: a labels CSV applies to the active set; anything else loads as a
        new case set and becomes the active one. Errors leave everything as it was."""
        try:
            if looks_like_labels_csv(data, name):
                labels = self.session.labels
                codes, notes, unknown = label_codes_from_upload(data, name, self.session.shared.features.run_ids, labels.human)
                labels.param.update(human=codes, notes={**labels.notes, **notes}, version=labels.version + 1)
                extra = f"; {unknown} ids name no run here" if unknown else ""
                self.upload.show_status(f"{name}: labels applied{extra}")
            else:
                key = self.workspace.add_upload(data, name)
                before = self.workspace.active
                try:
                    self._switch(key)
                except Exception:
                    self.workspace.active = before
                    raise
                self.picker.options = self.workspace.options()
                self.picker.param.update(value=key)
                self.upload.show_status(f"{name}: {self.session.features.n} runs loaded")
        except LoadError as exc:
            self.upload.show_error(str(exc))
            return
        self.upload.show_error(None)

    def _on_key(self, event: Any) -> None:
        known, verdict = verdict_for_key(str(event.new).split(":", 1)[0])
        if known and self.attached is not None:
            self.attached.label_selected(verdict)

    # --- layout ------------------------------------------------------------------------------
    def layout(self) -> pn.viewable.Viewable:
        """Toolbar (picker, upload, load error, downloads) above the explorer."""
        toolbar = pn.Column(
            pn.Row(
                pn.Column(self.picker, self.upload.status),
                pn.Column(
                    pn.pane.HTML('<div class="me-hint">Drop a run file (ADK eval result, JSONL, CSV, messages, '
                                 "case set) or a labels CSV</div>", **styled(margin=(0, 10))),
                    self.upload.dropper,
                ),
                self.downloads.panel(),
                sizing_mode="stretch_width",
            ),
            self.upload.error,
            self.keys,
            css_classes=["me-card", "me-workspace"],
            sizing_mode="stretch_width",
        )
        return pn.Column(toolbar, self.body, sizing_mode="stretch_width")


def create_workspace_app(process: ProcessSets) -> pn.viewable.Viewable:
    """One session's page over the process's shared case sets (called by the server per session)."""
    query = dict(pn.state.session_args) if pn.state.curdoc and pn.state.curdoc.session_context else {}
    page = WorkspacePage(process, query)
    pn.state.on_session_destroyed(lambda _ctx: page.session.stop_timer())
    if pn.state.curdoc is not None:
        pn.state.curdoc.title = "Metric Trade-off Explorer"
    return page.layout()
