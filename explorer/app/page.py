"""The page of one browser session with a workspace (issue 4): the header with the page's tools
(presenter mode, reset, copy link), the explorer of the active case set, and a "Your data" tab with
the case-set picker, the upload and the downloads.

The explorer (:class:`explorer.app.main.ExplorerSession`) is built for the active case set with
the session's labels of that set; picking or uploading a set builds a new one (settings carried
over) and swaps it in. A failed load only shows ``me-load-error``: the explorer, its labels and
settings are untouched. This module adds to each explorer the label buttons (in the selected run's
panel), the filters and label counts above its table, a "Settings sweep" tab and "Your data".

Presenter mode (:class:`~explorer.app.state.PageState`) belongs to the page, so it survives a
case-set switch: larger type and high contrast through CSS variables on the page's root, and the
data tools hidden (the "Your data" tab, the filters, the label buttons).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import panel as pn

from ..core.io.errors import LoadError
from ..core.evaluation.settings import Settings
from .main import ExplorerSession
from .state import PageState
from .url import split_page_query
from .views.downloads import Downloads
from .views.filters import FilterBar, frame_filter, search_text
from .views.header import PageHeader
from .views.labelling import KeyListener, LabelBar, verdict_for_key
from .views.style import WRAP, LiveHTML, flex_item, styled
from .views.sweep import SweepView
from .views.upload import UploadView, labels_message, loaded_message
from .workspace import ProcessSets, Workspace, label_codes_from_upload, looks_like_labels_csv

SWEEP_TAB = "Settings sweep"
DATA_TAB = "Your data"


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

    def layout(self, header: pn.viewable.Viewable, data_tab: pn.viewable.Viewable) -> pn.Column:
        """The session's page with the label buttons, the filters and label counts, the sweep tab
        and ``data_tab`` (last, so presenter mode can take it out without moving the others)."""
        self.filter_row = self.filters.panel()
        self.label_panel = self.label_bar.panel()
        self.data_tab = data_tab
        page = self.session.layout(
            toolbar=(self.filter_row, self.label_bar.unlabelled),
            label_bar=self.label_panel,
            extra_tabs=((SWEEP_TAB, self.sweep.panel()), (DATA_TAB, data_tab)),
            header=header,
        )
        self.tabs: pn.Tabs = next(iter(page.select(pn.Tabs)))
        sweep_at = len(self.tabs) - 2

        def opened(event: Any) -> None:
            if event.new == sweep_at:
                self.open_sweep()

        self.tabs.param.watch(opened, ["active"])
        return page

    def present(self, on: bool) -> None:
        """Presenter mode on or off: the data tools (the "Your data" tab, the filters, the label
        buttons) hidden or shown again."""
        self.filter_row.visible = self.label_panel.visible = not on
        has_data_tab = self.tabs[-1] is self.data_tab
        if on and has_data_tab:
            if self.tabs.active == len(self.tabs) - 1:
                self.tabs.active = 0
            self.tabs.pop(-1)
        elif not on and not has_data_tab:
            self.tabs.append((DATA_TAB, self.data_tab))


class WorkspacePage:
    """One browser page: the workspace, the header with its tools, the current explorer and the
    "Your data" tab (picker, upload, downloads), presenter mode."""

    def __init__(self, process: ProcessSets, query: dict | None = None) -> None:
        present, query, notices = split_page_query(query or {})
        self.state = PageState(present=present)
        self.workspace = Workspace(process)
        self.header = PageHeader(self.state, self.reset)
        self.upload = UploadView(self.received)
        self.picker = pn.widgets.Select(label="Case set", options=self.workspace.options(), value="served",
                                        css_classes=["me-case-picker"], width=360)
        self.picker.param.watch(self._on_pick, ["value"])
        self.keys = KeyListener()
        self.keys.param.watch(self._on_key, ["press"])
        self.downloads = Downloads(self._current)
        self.header_band = self.header.panel(self.upload.status)
        self.data_tab = self._data_tab()
        self.body = pn.Column(sizing_mode="stretch_width", margin=0)
        self.root = pn.Column(self.body, self.keys, sizing_mode="stretch_width", margin=0,
                              css_classes=self._root_classes())
        self.attached: Attached | None = None
        session = ExplorerSession(self.workspace.shared(), query, self.workspace.labels_for(), page=self.state)
        if notices:
            session.show_notices(session.notices + notices)
        self._show(session)
        self.state.param.watch(self._on_present, ["present"])

    # --- the explorer ------------------------------------------------------------------------
    def _show(self, session: ExplorerSession) -> None:
        if self.attached is not None:
            self.attached.session.close()
        self.attached = Attached(session)
        self.downloads.name_files(session.shared.case_set.name)
        self.header.show_set(session.shared.case_set.name)
        page = self.attached.layout(self.header_band, self.data_tab)
        self.attached.present(self.state.present)
        self.body.objects = [page]

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
        session = ExplorerSession(shared, None, self.workspace.labels_for(key), page=self.state)
        session.inputs.apply(settings.with_(deny_tools=tuple(t for t in settings.deny_tools if t in shared.tools)))
        self._show(session)

    # --- the page's tools --------------------------------------------------------------------
    def reset(self) -> None:
        """Reset to opening: the opening settings, the replay at t = 0, no run selected."""
        self.session.reset()

    def _root_classes(self) -> list[str]:
        return ["me-root", "me-present"] if self.state.present else ["me-root"]

    def _on_present(self, *_events: Any) -> None:
        with pn.io.hold():
            self.root.css_classes = self._root_classes()
            if self.attached is not None:
                self.attached.present(self.state.present)
        self.session.write_url()

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
                self.upload.show_status(labels_message(name, unknown))
                self.attached.tabs.active = 0  # show what the labels changed
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
                self.upload.show_status(loaded_message(name, self.session.features.n))
        except LoadError as exc:
            self.upload.show_error(str(exc))
            return
        self.upload.show_error(None)

    def _on_key(self, event: Any) -> None:
        known, verdict = verdict_for_key(str(event.new).split(":", 1)[0])
        if known and self.attached is not None:
            self.attached.label_selected(verdict)

    # --- layout ------------------------------------------------------------------------------
    def _data_tab(self) -> pn.Row:
        """"Your data": the case-set picker, the upload and the downloads (hidden in presenter mode)."""
        picker = pn.Column(
            LiveHTML('<h2>Case set</h2><div class="me-hint">The runs shown: the one served, the bundled sets, or '
                         "one you uploaded in this browser tab (nobody else sees it). Your labels of each set are kept "
                         "while you switch.</div>", **styled(margin=(0, 10), sizing_mode="stretch_width")),
            self.picker,
            css_classes=["me-card", "me-workspace"], sizing_mode="stretch_width", styles=flex_item(360),
        )
        upload = pn.Column(self.upload.panel(), css_classes=["me-card", "me-upload-card"], sizing_mode="stretch_width",
                           styles=flex_item(380))
        downloads = pn.Column(
            LiveHTML("<h2>Download</h2>", **styled(margin=(0, 10))),
            self.downloads.panel(),
            css_classes=["me-card", "me-downloads-card"], sizing_mode="stretch_width", styles=flex_item(380),
        )
        return pn.Row(picker, upload, downloads, sizing_mode="stretch_width", styles=WRAP, css_classes=["me-data-tab"])

    def layout(self) -> pn.viewable.Viewable:
        """The page's root (header, explorer and tabs inside the body; the a/u/c key listener)."""
        return self.root


def create_workspace_app(process: ProcessSets) -> pn.viewable.Viewable:
    """One session's page over the process's shared case sets (called by the server per session)."""
    query = dict(pn.state.session_args) if pn.state.curdoc and pn.state.curdoc.session_context else {}
    page = WorkspacePage(process, query)
    if pn.state.curdoc is not None:
        pn.state.curdoc.title = "Metric Trade-off Explorer"
    return page.layout()
