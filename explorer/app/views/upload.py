"""Upload a run file (drag and drop or browse), and what became of it, in plain sentences.

A file whose header is a labels CSV (``run_id,human_verdict,...``) applies labels to the active
case set (or, when none of its run ids names a run shown, to the next run file uploaded: a trace
file and its labels dropped together arrive in either order); an expectations file (JSONL of
``id``, ``expected_calls``, ``reference``) joins the runs of a trace or log file, shown or next; a
settings JSON or an argument-rules file applies to the explorer; any other file is read as runs (format detected), and what the
loader noticed (``CaseSet.notes``: traces with no tool spans or no answer, expectations that
matched nothing) is listed under the outcome in plain sentences. The page decides what to do with
a file; this view hands over ``(name, bytes)`` once per uploaded file and shows the outcome.

The drop zone (FilePond) marks a file "Upload complete" in green as soon as its bytes have
arrived, before the file is read, so a file that then fails to load would stay listed as a
success. The drop zone therefore lists a file only while its bytes are on their way (progress);
once they have arrived it disappears from the zone, and the outcome is shown only by our own lines:
``me-load-status`` on success, ``me-load-error`` on failure.

**Several files dropped together** are handled together, once the drop has settled (no file has
arrived for :data:`SETTLE_MS` and none is half-way through its chunks): loading a run file rebuilds
the page, and a rebuild while the browser was still sending the drop's other files lost them
without a word (a newcomer trial: runs then their labels, the labels never applied). Their
outcomes are shown together too: each failed file's error in the error box and what the others
did in the success line (before, the last file's success hid an earlier file's error).
"""

from __future__ import annotations

import html
import re
from typing import Callable, Sequence

import panel as pn

from .style import LiveHTML, styled
from ..highlight import escape_whole

SETTLE_MS = 600
"""A drop is handled once no file of it has arrived for this long (ms) and none is half-way through
its chunks: the browser sends a drop's files one after another, a few milliseconds apart."""

HIDE_ARRIVED = """
.filepond--item[data-filepond-item-state='processing-complete'] { display: none; }
.filepond--assistant { display: none; }
"""
"""Drop-zone stylesheet: a file whose bytes have arrived leaves the list (no green "complete"), and
FilePond's screen-reader announcements ("Upload complete" for a file that may then fail to load)
are left out; our own outcome lines are announced instead (``role="status"`` / ``role="alert"``)."""
FORMATS_HINT = (
    "Drop a run file here or click to browse: an ADK eval result (.evalset_result.json), JSONL, CSV or Parquet "
    "(one run per line or row), chat messages, OpenTelemetry traces (OTLP JSON), an Inspect AI log, or a case set "
    "(docs/formats.md). A labels CSV (run_id, human_verdict, note) applies its verdicts to the runs shown, or to a "
    "run file dropped with it. An expectations file (JSONL: id, expected_calls, reference) gives traces and logs "
    "their expected calls and references. A settings JSON (the Settings JSON download) or an argument-rules file sets the scorer."
)


def loaded_message(name: str, n_runs: int) -> str:
    """``"Loaded 1,000 runs from runs.jsonl. They are scored with the settings you had; press Play
    to list them."`` (one run: ``"Loaded 1 run from good.jsonl. It is scored ..."``). The summary
    counts them at once; the table lists the runs the replay has revealed, from t = 0 (a trial read
    the earlier "They are shown now" over an empty table)."""
    if n_runs == 1:
        return f"Loaded 1 run from {name}. It is scored with the settings you had; press Play to list it."
    return f"Loaded {n_runs:,} runs from {name}. They are scored with the settings you had; press Play to list them."


JSON_PATH_START = re.compile(r"[A-Za-z_]\w*\[\d+\]")
"""A note starting with a JSON path such as ``eval_case_results[2]`` (not capitalised)."""


def note_sentence(note: str, name: str) -> str:
    """A loader's note as a sentence: the file name it starts with left out, a capital first
    letter and a full stop (``"t.json: 1 of 2 traces have no tool spans: read as runs with no calls"``
    -> ``"1 of 2 traces have no tool spans: read as runs with no calls."``). A note that starts with
    a JSON path keeps it as spelled (``"eval_case_results[2]: no eval_id; run id case-3."``)."""
    text = note[len(name) + 2:] if name and note.startswith(f"{name}: ") else note
    text = text.strip()
    if not text:
        return ""
    if not JSON_PATH_START.match(text):
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def pending_labels_message(name: str, n_labels: int, until_joined: bool = False) -> str:
    """What a labels CSV that names no run shown does: it waits for the next run file, or,
    ``until_joined`` (traces read without a join key: no example id yet), also for an expectations
    file to join them (its labels then match by example id)."""
    if until_joined:
        which = f"The one run id in {name} names no trace" if n_labels == 1 else f"None of the {n_labels:,} run ids in {name} names a trace"
        return (f"{which} shown here: its labels will apply by example id once an expectations file joins these traces "
                "(drop it now), or to the next run file you upload.")
    which = f"The one run id in {name} names no run" if n_labels == 1 else f"None of the {n_labels:,} run ids in {name} names a run"
    return (f"{which} shown here: its labels will apply to the next run file "
            "you upload (drop the runs now, or drop both together).")


def labels_waiting_message(name: str) -> str:
    """The load report's sentence for labels that name none of the traces just loaded, kept until
    an expectations file joins them (the traces then have example ids)."""
    return f"The labels in {name} name none of these traces yet: they will apply by example id once an expectations file joins them."


def pending_expectations_message(name: str, n_ids: int) -> str:
    """What an expectations file does while the runs shown are not from traces or logs: it waits
    for the next trace or log file."""
    which = "The one expectation" if n_ids == 1 else f"The {n_ids:,} expectations"
    return (f"{which} in {name} will join the next trace or log file you upload (drop the traces now, "
            "or drop both together).")


ID_SHOWN = 40
"""Longest id the load report shows whole (then cut with ``…``): an expectations file's 500-character
id pushed the page 5,422 px wide at 1024x768."""


def _some(ids: list[str], shown: int = 3) -> str:
    """``"a, b, c (+2 more)"``, each id over ``ID_SHOWN`` characters cut; one past ``shown`` is
    named (``"(+1 more)"`` is no shorter: :func:`~explorer.core.plural.listed`'s rule)."""
    if len(ids) == shown + 1:
        shown += 1
    cut = [i if len(i) <= ID_SHOWN else i[: ID_SHOWN - 1] + "…" for i in ids[:shown]]
    return ", ".join(cut) + (f" (+{len(ids) - shown:,} more)" if len(ids) > shown else "")


def expectations_message(name: str, key_words: str, matched: int, total: int,
                         missing: list[str], unused: list[str]) -> str:
    """``"Joined expected.jsonl: expected calls and references for 2 of 3 runs (joined by trace
    id). 1 run has no expectation: 7d1f...."`` plus, when some expectation ids named no run,
    ``"2 expectation ids name no run here: E4, E5."``"""
    runs = "run" if total == 1 else "runs"
    text = f"Joined {name}: expected calls and references for {matched:,} of {total:,} {runs} (joined by {key_words})."
    if missing:
        has = "1 run has" if len(missing) == 1 else f"{len(missing):,} runs have"
        text += f" {has} no expectation: {_some(missing)}."
    if unused:
        ids = "1 expectation id names" if len(unused) == 1 else f"{len(unused):,} expectation ids name"
        text += f" {ids} no run here: {_some(unused)}."
    return text


def no_expectations_note(kind: str) -> str:
    """The load report's sentence for runs from traces or logs (``kind``) with no expected calls."""
    return (f"These {kind} have no expected calls yet, so every call counts as an extra call (an exact "
            "trajectory fails every run that made one): drop an expectations file (JSONL: id, expected_calls, "
            "reference; docs/formats.md) to join them.")


def labels_message(name: str, unknown: int, key_words: str = "run id", several: str = "",
                   unknown_ids: Sequence[str] = (), first_row: int | None = None) -> str:
    """``"Applied the labels in labels.csv."`` (``" (matched by example id)"`` before the full stop
    when ``key_words``, how the ids named runs, is not the run id alone) plus, when some ids
    matched no run, ``"3 run ids in the file match no run here and were skipped: ZZ9 (row 4), ZZ8,
    ZZ7."`` (``unknown_ids`` in file order, the first three shown, each over :data:`ID_SHOWN`
    characters cut; ``first_row`` the CSV row of the first, header = row 1) and, for ids that are
    the example id of several runs, ``several`` (:func:`~explorer.core.io.loaders.labels.several_note`).
    Plain text: the page escapes it (run ids are untrusted)."""
    extra = ""
    if unknown:
        extra = (" 1 run id in the file matches no run here and was skipped" if unknown == 1 else
                 f" {unknown:,} run ids in the file match no run here and were skipped")
        if unknown_ids:
            first = _some(list(unknown_ids[:1])) + (f" (row {first_row:,})" if first_row is not None else "")
            rest = _some(list(unknown_ids[1:]), 2) if len(unknown_ids) > 1 else ""
            extra += f": {first}" + (f", {rest}" if rest else "")
        extra += "."
    if several:
        extra += f" Not applied: {several}."
    by = "" if key_words == "run id" else f" (matched by {key_words})"
    return f"Applied the labels in {name}{by}.{extra}"


class UploadView:
    """The drop zone (``me-upload``), the success line (``me-load-status``) and the error box
    (``me-load-error``). ``received(name, data)`` is called once for each file as it finishes
    uploading; the page then calls :meth:`show_status` or :meth:`show_error`."""

    def __init__(self, received: Callable[[str, bytes], None], after_drop: Callable[[bool], None] | None = None,
                 order: Callable[[list[tuple[str, bytes]]], list[tuple[str, bytes]]] | None = None) -> None:
        self._received = received
        self._after_drop = after_drop
        self._order = order
        """The order a drop's files are handed over in (default: as they arrived)."""
        """Called once a drop's files are handled, with whether any failed (the page shows the
        error box then: a file that loaded may have opened another tab)."""
        self._seen: dict[str, int] = {}
        self._arrived: list[tuple[str, bytes]] = []
        """Files of the drop under way, in arrival order, not handled yet."""
        self._settle = None
        self._batch: tuple[list[str], list[tuple[str, tuple[str, ...], bool, str]]] | None = None
        """While a drop's files are handled: (errors, successes as (text, notes, waiting, about))."""
        self.dropper = pn.widgets.FileDropper(
            multiple=True, css_classes=["me-upload"], layout="compact", width=360, stylesheets=[HIDE_ARRIVED],
        )
        self.dropper.param.watch(self._on_value, ["value"])
        self.error = LiveHTML("", css_classes=["me-load-error"], visible=False, **styled(sizing_mode="stretch_width"))
        self.status = LiveHTML("", css_classes=["me-load-status"], visible=False, **styled(margin=(2, 10), sizing_mode="stretch_width"))

    def _on_value(self, _event: object) -> None:
        for name, content in list(self.dropper.value.items()):
            if self._seen.get(name) == id(content):
                continue
            self._seen[name] = id(content)
            data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
            self._arrived.append((name, data))
        if not self._arrived:
            return
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:  # no page (a test, a notebook): no drop to wait for
            self.handle_arrived()
            return
        if self._settle is not None:
            try:
                doc.remove_timeout_callback(self._settle)
            except ValueError:
                pass
        self._settle = doc.add_timeout_callback(self._settled, SETTLE_MS)
        self.show_receiving([name for name, _ in self._arrived])

    def show_receiving(self, names: list[str]) -> None:
        """"Received <names>; reading it..." while a drop settles, and no earlier drop's error
        beside it (a trial saw the last file's error under the next file's line)."""
        self._status_html(f"Received {', '.join(names)}; reading {'it' if len(names) == 1 else 'them'}...", waiting=True)
        self.error.visible = False

    def _settled(self) -> None:
        self._settle = None
        if self.dropper._file_buffer:  # Panel's chunks of a file still arriving (a big file)
            doc = pn.state.curdoc
            if doc is not None:
                self._settle = doc.add_timeout_callback(self._settled, SETTLE_MS)
                return
        self.handle_arrived()

    def handle_arrived(self) -> None:
        """Hand over the files that have arrived as one drop, in the order the page gives them
        (default: arrival order): their outcomes are shown together when the last is done."""
        arrived, self._arrived = self._arrived, []
        if not arrived:
            return
        if self._order is not None:
            arrived = self._order(arrived)
        self._batch = ([], [])
        try:
            for name, data in arrived:
                self._received(name, data)
        finally:
            errors, successes = self._batch
            self._batch = None
            self._show_drop(errors, successes)
        if self._after_drop is not None:
            self._after_drop(bool(errors))

    def _show_drop(self, errors: list[str], successes: list[tuple[str, tuple[str, ...], bool, str]]) -> None:
        # a success that extends an earlier one (runs, then their labels: "Loaded ... Applied the
        # labels ...") replaces it; labels kept waiting are dropped once a later line applies them
        kept: list[tuple[str, tuple[str, ...], bool, str]] = []
        for entry in successes:
            text = entry[0]
            kept = [k for k in kept if not text.startswith(k[0]) and not (k[2] and k[3] and k[3] in text)]
            kept.append(entry)
        if kept:
            self._status_html(" ".join(k[0] for k in kept), tuple(n for k in kept for n in k[1]), all(k[2] for k in kept))
        if errors:
            self._error_html(errors, others_loaded=bool(kept) and not all(k[2] for k in kept))
        else:
            self.error.visible = False
        if not kept:  # nothing to say but the errors (and no "Received ...; reading it" left behind)
            self.status.visible = False

    def show_error(self, message: str | None) -> None:
        """Show ``message`` (escaped; one line naming file, location and field) and hide the
        success line; None hides the error box. While a drop of several files is handled
        (:meth:`handle_arrived`) the message is kept and shown with the drop's other outcomes."""
        if self._batch is not None:
            if message:
                self._batch[0].append(message)
            return
        if message:
            self._error_html([message], others_loaded=False)
            self.status.visible = False
        else:
            self.error.visible = False

    def show_status(self, text: str, notes: tuple[str, ...] | list[str] = (), waiting: bool = False, about: str = "") -> None:
        """A sentence after a successful load (escaped; ``me-load-ok``, in the colour of success),
        or, ``waiting``, about a file kept until something else arrives (``me-load-waiting``, plain:
        nothing was applied yet; ``about``: that file's name), and ``notes``, the load report
        (escaped sentences, ``me-load-notes``); hides the error box. While a drop of several files
        is handled, kept and shown with the drop's other outcomes."""
        if self._batch is not None:
            if text:
                self._batch[1].append((text, tuple(notes), waiting, about))
            return
        self._status_html(text, notes, waiting)
        if text:
            self.error.visible = False

    def _error_html(self, messages: list[str], others_loaded: bool) -> None:
        if len(messages) == 1:
            head, body = "<b>Could not load this file.</b> ", escape_whole(messages[0])
        else:
            head = f"<b>Could not load {len(messages):,} files.</b>"
            body = "<ul>" + "".join(f"<li>{escape_whole(m)}</li>" for m in messages) + "</ul>"
        hint = ("Nothing changed from this file; the drop's other files were applied (the line at the top says how)."
                if others_loaded and len(messages) == 1 else
                "Nothing changed from these files; the drop's other files were applied (the line at the top says how)."
                if others_loaded else "Nothing changed: the case set, labels and settings are as they were.")
        self.error.object = (f'<div class="me-load-error-box" role="alert">{head}{body}'
                             f'<div class="me-hint">{hint}</div></div>')
        self.error.visible = True

    def _status_html(self, text: str, notes: tuple[str, ...] | list[str] = (), waiting: bool = False) -> None:
        items = "".join(f"<li>{escape_whole(n)}</li>" for n in notes if n)
        report = f'<ul class="me-load-notes">{items}</ul>' if items else ""
        kind = "me-load-waiting" if waiting else "me-load-ok"
        self.status.object = f'<div class="{kind}" role="status">{escape_whole(text)}{report}</div>' if text else ""
        self.status.visible = bool(text)

    def panel(self) -> pn.Column:
        """The upload block: hint, drop zone and the error box (the success line, :attr:`status`,
        is placed by the page where it stays in view: a loaded file is shown at once)."""
        return pn.Column(
            LiveHTML(f'<h2>Upload</h2><div class="me-hint">{html.escape(FORMATS_HINT)}</div>',
                     **styled(margin=(0, 10), sizing_mode="stretch_width")),
            self.dropper,
            self.error,
            sizing_mode="stretch_width",
            margin=0,
        )
