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
from ..core.io.loaders.detect import FORMAT_DROP_HINT, FORMAT_FLAG_HINT
from ..core.io.loaders.expectations import RUN_FIELD_HINT, Expectations, loads_expectations, looks_like_expectations
from ..core.io.loaders.labels import several_note
from ..core.io.exports import settings_from_data
from ..core.io.reading import parse_json, text_of
from ..core.evaluation.settings import Settings
from ..core.scoring.arg_rules import arg_rules_file_from_data
from ..core.scoring.trajectory_metrics import canonical
from .main import ExplorerSession
from .state import PageState
from .url import split_page_query
from .views.downloads import Downloads
from .views.filters import FilterBar, frame_filter, search_text
from .views.header import PageHeader
from .views.labelling import KeyListener, LabelBar, verdict_for_key
from .views.style import WRAP, LazyTab, LiveHTML, flex_item, styled
from .views.sweep import SweepView
from .views.upload import (
    UploadView, expectations_message, labels_message, labels_waiting_message, loaded_message, no_expectations_note,
    note_sentence, pending_expectations_message, pending_labels_message,
)
from .workspace import (
    Joined, ProcessSets, UploadedLabels, Workspace, labels_from_upload, labels_matching, lacks_expected_calls,
    looks_like_labels_csv, run_examples, settings_file_kind, trace_or_log,
)

SWEEP_TAB = "Settings sweep"
DATA_TAB = "Your data"


def browser_message(exc: LoadError) -> str:
    """``exc`` as the page shows it: the loader's one line, with the command line's remedy for a
    file whose format cannot be told (``give --input-format ...``, a flag the drop zone has no
    place for) put in the browser's words."""
    return str(exc).replace(FORMAT_FLAG_HINT, FORMAT_DROP_HINT)


class Attached:
    """The issue-4 parts bound to one :class:`ExplorerSession`: label bar, filters (as a
    server-side Tabulator filter) and the sweep tab."""

    def __init__(self, session: ExplorerSession) -> None:
        self.session = session
        self.label_bar = LabelBar(self.label_selected)
        self.filters = FilterBar(self._refilter)
        self._sweep: SweepView | None = None  # built when its tab is first opened
        self.key_hint = LiveHTML("", css_classes=["me-key-hint"], visible=False,
                                 **styled(margin=(6, 10), sizing_mode="stretch_width", styles=flex_item(260)))
        self._text: np.ndarray | None = None
        self._sweep_open = False
        self._split: tuple[int, np.ndarray] | None = None  # (labels version, runs where people disagree)
        session.table.table.add_filter(frame_filter(self._mask))
        # the labels outlive this explorer (the workspace keeps them per case set): unwatched in close()
        self._watchers = [
            session.labels.param.watch(self._on_labels, ["version"]),
            session.labels.param.watch(lambda *_e: self._show_people_filter(), ["annotators"]),
        ]
        self._show_people_filter()
        session.table.table.param.watch(lambda _e: self._show_bar(), ["selection"])
        session.on_shared.append(lambda _shared: self._on_labels())  # other argument rules: sweep again
        self._show_bar()

    @property
    def sweep(self) -> SweepView:
        """The Settings sweep tab's view, built on first use (its tab's first opening)."""
        if self._sweep is None:
            self._sweep = SweepView(self.apply_settings)
        return self._sweep

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
            # the side panel is hidden until a row is selected: say it above the table, where the person looks
            shown = len(self.session.table.table.value) > 0
            self.key_hint.object = (
                '<div class="me-key-hint-box" role="alert">Select a run first: click its row in the table, then press '
                "<kbd>a</kbd>, <kbd>u</kbd> or <kbd>c</kbd>.</div>" if shown else
                '<div class="me-key-hint-box" role="alert">No run is shown yet: press Play or Next event, click a row '
                "in the table, then press <kbd>a</kbd>, <kbd>u</kbd> or <kbd>c</kbd>.</div>"
            )
            self.key_hint.visible = True
            return
        self.session.labels.set(i, verdict)
        # keep the run selected (a big set's page of rows is rebuilt and loses its selection)
        table = self.session.table.table
        at = np.flatnonzero(table.value.index.to_numpy() == i)
        if at.size and table.selection != [int(at[0])]:
            table.selection = [int(at[0])]

    def _on_labels(self, *_e: Any) -> None:
        self._show_bar()
        self._show_people_filter()
        if self._sweep_open:
            self.sweep.start(self.session.features, self.session.ev.settings)

    def _show_bar(self) -> None:
        i = self.selected_index()
        if i is not None and self.key_hint.visible:
            self.key_hint.visible = False
        labels = self.session.labels
        self.label_bar.show(None if i is None else str(self.session.features.run_ids[i]), labels.human, labels.disputed,
                            labels.too_few)

    # --- filters -----------------------------------------------------------------------------
    def _mask(self) -> np.ndarray | None:
        if not self.filters.active():
            return None
        if self._text is None and (self.filters.search.value_input or "").strip():
            self._text = search_text(self.session.shared.features)  # once per explorer
        labels = self.session.labels
        if self.filters.people.value and (self._split is None or self._split[0] != labels.version):
            self._split = (labels.version, labels.split())  # once per label change
        split = None if self._split is None else self._split[1]
        return self.filters.mask(self.session.ev, self._text, labels.disputed, split, labels.too_few)

    def _show_people_filter(self) -> None:
        """The Disputed / Too few labels / People disagree filter while several annotators label
        (issue 11), or while runs are disputed or have too few labels."""
        labels = self.session.labels
        self.filters.show_people(labels.several or bool(np.any(labels.disputed)) or bool(np.any(labels.too_few)))

    def _refilter(self) -> None:
        self.session.table.table.param.trigger("value")

    # --- sweep -------------------------------------------------------------------------------
    def apply_settings(self, settings: Settings) -> None:
        """Put a swept setting into the inputs (one recompute)."""
        self.session.inputs.apply(settings)

    def open_sweep(self) -> None:
        """Compute and show the sweep (first opening of its tab, then on every label change)."""
        self._sweep_open = True
        self.sweep.start(self.session.features, self.session.ev.settings)  # says it is computing meanwhile

    def layout(self, header: pn.viewable.Viewable, data_tab: pn.viewable.Viewable) -> pn.Column:
        """The session's page with the label buttons, the filters and label counts, the sweep tab
        and ``data_tab`` (last, so presenter mode can take it out without moving the others)."""
        self.filter_row = self.filters.panel()
        self.label_panel = self.label_bar.panel(self.session.side_picker.select)
        self.data_tab = data_tab
        page = self.session.layout(
            toolbar=(self.filter_row, self.label_bar.unlabelled, self.key_hint),
            label_bar=self.label_panel,
            extra_tabs=((SWEEP_TAB, LazyTab(lambda: self.sweep.panel())), (DATA_TAB, data_tab)),
            header=header,
        )
        self.tabs: pn.Tabs = next(iter(page.select(pn.Tabs)))
        sweep_at = len(self.tabs) - 2

        def opened(event: Any) -> None:
            if event.new == sweep_at:
                self.open_sweep()

        self.tabs.param.watch(opened, ["active"])
        return page

    def close(self) -> None:
        """Stop following the session's labels and close the session (a case-set switch)."""
        for watcher in self._watchers:
            self.session.labels.param.unwatch(watcher)
        if self._sweep is not None:
            self._sweep.stop()
        self.session.close()

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
        self.upload = UploadView(self.received, self._after_drop, order=drop_order)
        self.picker = pn.widgets.Select(label="Case set", options=self.workspace.options(), value="served",
                                        # the card's width, up to 480 px: at 360 px a set's own name was cut
                                        # ("Token overlap and where it fails (seed 000) (bundled, 3")
                                        css_classes=["me-case-picker"], sizing_mode="stretch_width", max_width=480)
        self.picker.param.watch(self._on_pick, ["value"])
        self.keys = KeyListener()
        self.keys.param.watch(self._on_key, ["press"])
        self._downloads: Downloads | None = None  # built with the "Your data" tab
        self.header_band = self.header.panel(self.upload.status)
        self.data_tab = LazyTab(self._data_tab)  # built when the tab is first opened
        self.body = pn.Column(sizing_mode="stretch_width", margin=0)
        self.root = pn.Column(self.body, self.keys, sizing_mode="stretch_width", margin=0,
                              css_classes=self._root_classes())
        self.attached: Attached | None = None
        self.pending_labels: tuple[str, bytes] | None = None
        """A labels CSV that named no run shown when it arrived: it applies to the next run file,
        or, while the runs shown are traces with no example id yet, once an expectations file
        joins them (its labels may name the runs by example id)."""
        self.pending_expectations: tuple[str, Expectations] | None = None
        """An expectations file dropped while the runs shown were not from traces or logs: it
        joins the next trace or log file."""
        self._late_error: str | None = None
        """An error of a file handled with another (expectations waiting for a trace file that
        name none of its runs), shown once that file's success is."""
        self._last_load: tuple[str, str, list[str]] | None = None
        """(set key, message, load report) of the last run file loaded: labels applied to that set
        next are reported with it, so a drop of runs and labels reads the same in either order."""
        session = ExplorerSession(self.workspace.shared(), query, self.workspace.labels_for(), page=self.state)
        # what the loader noticed about the served file; the feature cache's note ("Features read
        # from the cache ...") is one of the session's notices already, and was shown twice
        report = [line for line in full_report(session.shared.case_set) if line not in session.notices]
        if notices or report:
            session.show_notices(session.notices + notices + report)
        self._show(session)
        self.state.param.watch(self._on_present, ["present"])

    # --- the explorer ------------------------------------------------------------------------
    def _show(self, session: ExplorerSession) -> None:
        if self.attached is not None:
            self.attached.close()
        self.attached = Attached(session)
        key = self.workspace.active
        session.on_shared.append(lambda shared: self.workspace.keep(key, shared))  # its rules stay with the set
        self.workspace.keep(key, session.shared)  # rules a link applied as the session opened stay too
        if self._downloads is not None:
            self._downloads.name_files(session.shared.case_set.name)
        self.header.show_set(session.shared.case_set.name)
        page = self.attached.layout(self.header_band, self.data_tab)
        self.attached.present(self.state.present)
        self.body.objects = [page]

    @property
    def downloads(self) -> Downloads:
        """The download buttons, built on first use (the "Your data" tab's first opening), their
        files named after the active case set."""
        if self._downloads is None:
            self._downloads = Downloads(self._current)
            self._downloads.name_files(self.session.shared.case_set.name)
        return self._downloads

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
        settings = carried_settings(self.session.inputs.settings(), self.workspace.shared(key))
        shared = self.workspace.select(key)
        session = ExplorerSession(shared, None, self.workspace.labels_for(key), page=self.state)
        session.inputs.apply(settings)
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
        self._last_load = None
        try:
            self._switch(event.new)
        except LoadError as exc:
            self.upload.show_error(browser_message(exc))
            self.picker.value = self.workspace.active
            return
        self.picker.options = self.workspace.options()  # a bundled set now shows its run count
        self.upload.show_error(None)

    def received(self, name: str, data: bytes) -> None:
        """An uploaded file: a labels CSV applies to the active set (or, naming none of its runs,
        waits for the next run file); a settings JSON or an argument-rules file applies to the
        explorer; an expectations file joins the runs shown when they come from traces or logs
        (else it waits for the next such file); anything else loads as a new case set and becomes
        the active one (with the labels and expectations that were waiting for it). Errors leave
        everything as it was."""
        try:
            kind = file_kind(name, data)
            if kind == "labels":
                self._labels_received(name, data)
            elif kind in ("settings", "rules"):
                self._settings_received(name, data, kind)
            elif kind == "expectations":
                self._expectations_received(name, data)
            else:
                self._runs_received(name, data)
        except LoadError as exc:
            self._late_error = None
            self.upload.show_error(browser_message(exc))
            return
        late, self._late_error = self._late_error, None
        self.upload.show_error(late)

    def _after_drop(self, failed: bool) -> None:
        """A drop with a file that failed ends on the "Your data" tab, where its error is (a file
        of the same drop that loaded had opened the Explorer)."""
        tabs = self.attached.tabs if self.attached is not None else None
        if failed and tabs is not None and len(tabs) and tabs[-1] is self.data_tab and tabs.active != len(tabs) - 1:
            tabs.active = len(tabs) - 1

    def _labels_received(self, name: str, data: bytes) -> None:
        shared = self.session.shared
        ids, matching = labels_matching(data, name, shared.features.run_ids, run_examples(shared))
        if matching == 0:  # for runs not loaded yet (a trace file dropped with it, still on its way)
            self.pending_labels = (name, data)
            message = pending_labels_message(name, len(ids), self.workspace.lacks_example_ids())
            self.upload.show_status(message, waiting=True, about=name)  # nothing applied yet
            return
        self.pending_labels = None
        self._show_with_last_load(applied_message(name, self._apply_labels(name, data)))
        self.attached.tabs.active = 0  # show what the labels changed

    def _show_with_last_load(self, text: str) -> None:
        """Show ``text`` after the line of the run file last loaded when it is the set shown (the
        runs, their labels and their expectations then read as one line, in any order), with the
        set's load report."""
        key = self.workspace.active
        last = self._last_load
        if last is not None and last[0] == key:
            message = last[1] if text in last[1] else f"{last[1]} {text}"
            self._last_load = (key, message, full_report(self.session.shared.case_set))
            self.upload.show_status(message, self._last_load[2])
        else:
            self.upload.show_status(text)

    def _apply_labels(self, name: str, data: bytes) -> UploadedLabels:
        """Apply a labels CSV to the active set, its ids naming runs by run id, else by example id;
        returns how they matched (LoadError when none applies)."""
        labels = self.session.labels
        shared = self.session.shared
        got = labels_from_upload(data, name, shared.features.run_ids, run_examples(shared))
        # without an annotator column: the chosen annotator's labels (issue 11)
        labels.apply_annotated(got.annotated) if got.annotated else labels.apply_single(got.single)
        return got

    def _apply_pending_labels(self, keep_waiting: bool = False) -> str:
        """Apply the labels waiting for runs to the set shown; returns the sentence saying how
        (``""`` when none were waiting). Labels naming none of its runs are dropped, said so, or,
        ``keep_waiting`` and the set is traces with no example id yet, kept for an expectations
        file to join them."""
        if self.pending_labels is None:
            return ""
        name, data = self.pending_labels
        self.pending_labels = None
        try:
            got = self._apply_labels(name, data)
        except LoadError as exc:
            if keep_waiting and self.workspace.lacks_example_ids():
                self.pending_labels = (name, data)
                return labels_waiting_message(name)
            shared = self.session.shared
            if labels_matching(data, name, shared.features.run_ids, run_examples(shared))[1]:
                self._late_error = browser_message(exc)  # example ids of several runs: the error says which
                return f"The labels in {name} were not applied: their ids name several runs each."
            return f"The labels in {name} name none of these runs, so they were not applied."
        return applied_message(name, got)

    def _expectations_received(self, name: str, data: bytes) -> None:
        """Join an expectations file onto the runs shown when they come from traces or logs (the
        explorer rebuilt with the settings and labels kept); else keep it for the next trace or log
        file. LoadError (a bad file, or ids naming none of the runs) changes nothing. A file told
        as expectations by its first record whose later records are runs (``actual_calls``,
        ``answer``) is read as runs: their reader names what the first record lacks."""
        try:
            expectations = loads_expectations(data, name)
        except LoadError as exc:
            if exc.problem.endswith(RUN_FIELD_HINT):
                self._runs_received(name, data)
                return
            raise
        if trace_or_log(self.session.shared.case_set) is None:
            self.pending_expectations = (name, expectations)
            self.upload.show_status(pending_expectations_message(name, len(expectations.by_id)), waiting=True, about=name)
            return
        key = self.workspace.active
        joined = self.workspace.join_expectations(expectations, key)
        self.pending_expectations = None
        self.workspace.keep_joined(key, joined)
        self._switch(key)
        message = joined_message(name, joined)
        labelled = self._apply_pending_labels()  # labels by example id: the traces now have them
        self._show_with_last_load(f"{message} {labelled}" if labelled else message)
        self.attached.tabs.active = 0  # show what the expected calls changed

    def _join_pending(self, key: str) -> str:
        """Join the expectations waiting for a trace or log file onto set ``key`` when it is one;
        returns the sentence saying what matched (``""`` when none were waiting or they keep
        waiting). Expectations naming none of its runs are dropped, said so, and their error kept
        for :attr:`_late_error`."""
        if self.pending_expectations is None or trace_or_log(self.workspace.shared(key).case_set) is None:
            return ""
        name, expectations = self.pending_expectations
        self.pending_expectations = None
        try:
            joined = self.workspace.join_expectations(expectations, key)
        except LoadError as exc:
            self._late_error = browser_message(exc)
            return f"The expectations in {name} were not joined: they name none of these runs."
        self.workspace.keep_joined(key, joined)
        return joined_message(name, joined)

    def _runs_received(self, name: str, data: bytes) -> None:
        key = self.workspace.add_upload(data, name)
        joined = self._join_pending(key)  # before the explorer is built: its features once
        before = self.workspace.active
        try:
            self._switch(key)
        except Exception:
            self.workspace.active = before
            raise
        self.picker.options = self.workspace.options()
        self.picker.param.update(value=key)
        message = loaded_message(name, self.session.features.n)
        if joined:
            message += " " + joined
        labelled = self._apply_pending_labels(keep_waiting=True)  # labels dropped before their runs
        if labelled:
            message += " " + labelled
        report = full_report(self.session.shared.case_set)
        self._last_load = (key, message, report)
        self.upload.show_status(message, report)

    def _settings_received(self, name: str, data: bytes, kind: str) -> None:
        parsed = parse_json(text_of(data, name), name)
        rules = arg_rules_file_from_data(parsed, name)  # a bad rule is named before anything changes
        session = self.session
        if kind == "settings":
            settings = carried_settings(settings_from_data(parsed, name), session.shared)
            session.inputs.apply(settings)
            has_rules = isinstance(parsed, dict) and "arg_rules" in parsed
            if has_rules:
                session.apply_arg_rules(rules, name)
            extra = f" with its argument rules ({len(rules.rules)})" if has_rules else ""
            self.upload.show_status(f"Applied the settings in {name}{extra}.")
        else:
            session.apply_arg_rules(rules, name)
            self.upload.show_status(f"Applied the argument rules in {name} ({len(rules.rules)}).")
        self.attached.tabs.active = 0

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


def load_report(case_set) -> list[str]:
    """What the loader noticed about a case set (``CaseSet.notes``), as plain sentences."""
    name = case_set.source.replace("\\", "/").rsplit("/", 1)[-1] if case_set.source else ""
    out = []
    for note in case_set.notes:
        for prefix in (case_set.source, name):  # notes start with the file's name as the loader was given it
            if prefix and note.startswith(f"{prefix}: "):
                note = note[len(prefix) + 2:]
                break
        sentence = note_sentence(note, "")
        if sentence:
            out.append(sentence)
    return out


def file_kind(name: str, data: bytes) -> str:
    """What an uploaded file is, by its content: ``"labels"`` (a labels CSV), ``"settings"`` /
    ``"rules"`` (a settings JSON or an argument-rules file), ``"expectations"`` or ``"runs"``.
    Raises LoadError when a settings file is malformed."""
    if looks_like_labels_csv(data, name):
        return "labels"
    return settings_file_kind(data) or ("expectations" if looks_like_expectations(data) else "runs")


DROP_ORDER = {"runs": 0, "expectations": 1, "labels": 2, "settings": 3, "rules": 3}
"""The order of the files of one drop: runs first, so that labels and expectations dropped with
them apply to them and not to the set shown before; expectations before labels, which may name
runs by the example ids the join gives; settings and argument rules last, onto the set shown then."""


def drop_order(files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The ``(name, bytes)`` of one drop in :data:`DROP_ORDER` (files of one kind in arrival
    order; a file whose kind cannot be told is taken as runs, and its error shown when it is
    handled). The browser hands a drop's files over as each finishes uploading, so a small labels
    CSV dropped with its traces arrived first and was applied to the set shown (a trial: the
    booking set, whose ids E1..E10 it named), and the traces then loaded unlabelled."""
    def rank(item: tuple[str, bytes]) -> int:
        try:
            return DROP_ORDER[file_kind(*item)]
        except LoadError:
            return DROP_ORDER["runs"]

    return sorted(files, key=rank)


def full_report(case_set) -> list[str]:
    """:func:`load_report` and, for runs from traces or logs with no expected calls yet, the
    sentence saying that every call then counts as extra and that an expectations file fixes it."""
    report = load_report(case_set)
    if lacks_expected_calls(case_set):
        report.append(no_expectations_note(trace_or_log(case_set) or "runs"))
    return report


def applied_message(name: str, got: UploadedLabels) -> str:
    """The load report's line for labels file ``name`` applied (:func:`labels_message`): how its
    ids matched, the ids naming no run (the first few, the first with its row), the example ids of
    several runs."""
    match = got.match
    if match is None:
        return labels_message(name, got.unknown, unknown_ids=got.unknown_ids, first_row=got.first_unknown_row)
    return labels_message(name, got.unknown, match.key_words, several_note(match.several),
                          got.unknown_ids, got.first_unknown_row)


def joined_message(name: str, joined: Joined) -> str:
    """The load report's line for expectations file ``name`` joined (:func:`expectations_message`)."""
    return expectations_message(name, joined.key_words, joined.matched, joined.total, joined.missing, joined.unused)


def carried_settings(settings: Settings, shared) -> Settings:
    """``settings`` made to fit the case set of ``shared``: denied tools it has not seen are
    dropped, and single tool use of a tool it has not seen goes back to its opening trajectory."""
    out = settings.with_(deny_tools=tuple(t for t in settings.deny_tools if t in shared.tools))
    if canonical(out.trajectory) == "single_tool_use" and out.single_tool not in shared.tools:
        out = out.with_(trajectory=shared.defaults.trajectory, single_tool="")
    return out


def create_workspace_app(process: ProcessSets) -> pn.viewable.Viewable:
    """One session's page over the process's shared case sets (called by the server per session)."""
    query = dict(pn.state.session_args) if pn.state.curdoc and pn.state.curdoc.session_context else {}
    page = WorkspacePage(process, query)
    if pn.state.curdoc is not None:
        pn.state.curdoc.title = "Metric Trade-off Explorer"
    return page.layout()
