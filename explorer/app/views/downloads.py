"""Downloads: the session's labels CSV, the scored table as CSV and as Parquet, the settings JSON
(with the argument rules the trajectory scores were computed under) and an ADK
``test_config.json`` (each made when clicked, from the current case set, labels, rules and settings)."""

from __future__ import annotations

import io
import re
from typing import Callable

import numpy as np
import panel as pn

from ...core.evaluation.verdicts import Evaluation
from ...core.io.exports import dumps_adk_test_config, dumps_scored_table, dumps_scored_table_parquet, dumps_settings
from ...core.evaluation.features import Features
from ...core.io.loaders.labels import Label, dumps_annotated_labels, dumps_labels
from ...core.io.model import AnnotatorLabel
from ..labels import DEFAULT_ANNOTATOR, SessionLabels, file_note
from .style import LiveHTML


def session_labels_csv(features: Features, labels: SessionLabels) -> str:
    """Labels CSV of the session's labels. One annotator: ``run_id,human_verdict,note`` of every
    labelled run, with the note typed in this session, else the file's note as the selected run's
    panel shows it (:func:`~explorer.app.labels.file_note`: marked as the earlier verdict's when
    the verdict was changed here); unlabelled runs left out. Several annotators (issue 11):
    :func:`annotated_labels_csv`."""
    if labels.several:
        return annotated_labels_csv(features, labels)
    names = {1: "acceptable", 0: "unacceptable"}
    out: dict[str, Label] = {}
    for i in np.flatnonzero(labels.human >= 0):  # labelled runs only
        i = int(i)
        note = labels.notes.get(str(i))
        if note is None:
            note = _file_note(features, i, names[int(labels.human[i])])
        out[str(features.run_ids[i])] = Label(names[int(labels.human[i])], note)
    return dumps_labels(out)


def _file_note(features: Features, i: int, verdict: str) -> str:
    """Run ``i``'s file note beside ``verdict`` (:func:`~explorer.app.labels.file_note`)."""
    run = features.runs[i]
    return file_note(verdict, getattr(run, "human_verdict", None), getattr(run, "human_note", "") or "")


FILE_VERDICT = "file"
"""Annotator name written for a run that only has the file's single verdict (no annotator label)."""


def annotated_labels_csv(features: Features, labels: SessionLabels) -> str:
    """``run_id,annotator,human_verdict,note``: one row per label each annotator gave (read back
    by the upload and by ``score --labels``), in run order then annotator order, with each
    annotator's note (:data:`DEFAULT_ANNOTATOR`'s, the file's verdicts: the file's note). A run whose only label is the file's single verdict (no annotator) is
    written under the annotator :data:`FILE_VERDICT`."""
    words = {1: "acceptable", 0: "unacceptable"}
    out: dict[str, list[AnnotatorLabel]] = {}
    names = labels.annotators
    for i in np.flatnonzero(np.any(labels.codes >= 0, axis=1) | (labels.fallback >= 0)):
        i = int(i)
        row = []
        for j in np.flatnonzero(labels.codes[i] >= 0):
            who = names[int(j)]
            note = labels.annotator_notes.get((i, who))
            if note is None and who == DEFAULT_ANNOTATOR:  # the file's verdicts: the file's note
                note = _file_note(features, i, words[int(labels.codes[i, j])])
            row.append(AnnotatorLabel(who, words[int(labels.codes[i, j])], note or ""))
        if labels.fallback[i] >= 0:
            note = labels.notes.get(str(i)) or _file_note(features, i, words[int(labels.fallback[i])])
            row.append(AnnotatorLabel(FILE_VERDICT, words[int(labels.fallback[i])], note))
        out[str(features.run_ids[i])] = row
    return dumps_annotated_labels(out)


def file_stem(name: str) -> str:
    """A safe file-name stem from a case-set name (letters, digits, ``-`` and ``_``; at most 40)."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40]
    return stem or "cases"


class Downloads:
    """The download buttons. ``current()`` returns (features, evaluation, labels, set name)
    of the session's active case set when clicked."""

    def __init__(self, current: Callable[[], tuple[Features, Evaluation, SessionLabels, str]]) -> None:
        self._current = current

        def button(label: str, css: str, make: Callable[[], str | bytes], filename: str) -> pn.widgets.FileDownload:
            def callback() -> io.BytesIO:
                made = make()
                return io.BytesIO(made if isinstance(made, bytes) else made.encode("utf-8"))
            return pn.widgets.FileDownload(callback=callback, filename=filename, label=label, css_classes=[css],
                                           color="light", embed=False, width=170)

        self.labels = button("Labels CSV", "me-download-labels", self._labels, "labels.csv")
        self.table = button("Scored table CSV", "me-download-table", self._table, "scored_table.csv")
        self.parquet = button("Scored table Parquet", "me-download-table-parquet", self._parquet, "scored_table.parquet")
        self.settings = button("Settings JSON", "me-download-settings", self._settings, "settings.json")
        self.adk = button("ADK test_config.json", "me-download-adk", self._adk, "test_config.json")

    def _labels(self) -> str:
        features, _ev, labels, _name = self._current()
        return session_labels_csv(features, labels)

    def _table(self) -> str:
        features, ev, _labels, _name = self._current()
        return dumps_scored_table(features, ev)

    def _parquet(self) -> bytes:
        features, ev, _labels, _name = self._current()
        return dumps_scored_table_parquet(features, ev)

    def _settings(self) -> str:
        features, ev, _labels, _name = self._current()
        return dumps_settings(ev.settings, features.arg_rules)

    def _adk(self) -> str:
        features, ev, _labels, _name = self._current()
        return dumps_adk_test_config(ev.settings, arg_rules=features.arg_rules)

    def name_files(self, set_name: str) -> None:
        """File names after the active case set: ``<set>-labels.csv``, ``<set>-scored.csv``."""
        stem = file_stem(set_name)
        self.labels.filename = f"{stem}-labels.csv"
        self.table.filename = f"{stem}-scored.csv"
        self.parquet.filename = f"{stem}-scored.parquet"

    def panel(self) -> pn.Column:
        """The downloads row with a note on what the ADK file cannot hold."""
        return pn.Column(
            pn.FlexBox(self.labels, self.table, self.parquet, self.settings, self.adk, flex_wrap="wrap", sizing_mode="stretch_width"),
            LiveHTML(
                '<div class="me-hint">Settings JSON is read back by <code>metric-explorer score --settings</code> and '
                "<code>serve --settings</code>, with the argument rules in use; drop it on Upload to apply it again. The "
                "ADK file holds the criteria ADK has (tool_trajectory_avg_score with match_type, ignore_args and its "
                "threshold, response_match_score); what ADK cannot express (other trajectory families, argument modes "
                "and rules, deny-list, key fields, mean combine) is listed in its <code>_metric_explorer_notes</code>.</div>",
                margin=(0, 10),
                sizing_mode="stretch_width",
            ),
            css_classes=["me-downloads"],
            sizing_mode="stretch_width",
        )
