"""The selected run, in a side panel beside the table that opens on selection: its answer against
the reference(s), the person's note, the evaluator's reason, differing words marked; the label
buttons go underneath (given by the page)."""

from __future__ import annotations

import panel as pn

from typing import Callable

from ...core.evaluation.verdicts import OUTCOMES, Evaluation, reason
from ...core.evaluation.features import Features
from ...core.io.model import EXAMPLE_ID
from ...core.scoring.overlap import unigram_f1
from ..highlight import escape_whole, keep_tokens_whole, mark_differences
from ..labels import file_note
from .style import Deferred, LiveHTML, flex_item, styled
from .table import calls_html

HINT = '<div class="me-empty">Select a revealed run in the table to see its answer, reference and the person\'s note.</div>'


PERSON_WORDS = {1: "acceptable", 0: "unacceptable", -1: "unlabelled"}
"""``Features.human`` code -> the Person row's word."""


def example_row(run) -> list[str]:
    """The Example row (escaped) for a run whose example id (``Run.extra["example_id"]``: an OTLP
    trace's join-key attribute, an Inspect sample id) is not its run id: the id its expectations
    and labels may be keyed by, which neither the trace id nor a joined title shows. ``[]`` otherwise."""
    example = run.extra.get(EXAMPLE_ID)
    if not isinstance(example, str) or not example or example == run.id:
        return []
    return [f'<div class="me-detail-row"><span class="me-k">Example</span><span class="me-v">{escape_whole(example)}</span></div>']


def person_row(verdict: str, file_verdict: str | None, file_text: str, typed: str | None = None) -> str:
    """The Person row (HTML, escaped): ``verdict`` in bold, then its note: ``typed`` (a note made
    in this session with the label), else the file's note when the file gave this verdict; a file
    note of another verdict follows on its own line as that verdict's (``me-file-note``: "Note
    from the file (with verdict unacceptable): …", :func:`~explorer.app.labels.file_note`), so
    it never reads as the reason of a verdict changed here."""
    e = escape_whole
    note = typed if typed else file_note(verdict, file_verdict, file_text)
    own = bool(typed) or note == file_text
    after = (": " + e(note)) if note and own else ""
    earlier = f'<div class="me-hint me-file-note">{e(note)}</div>' if note and not own else ""
    return (f'<div class="me-detail-row"><span class="me-k">Person</span><span class="me-v"><b>{e(verdict)}</b>'
            f"{after}{earlier}</span></div>")


def detail_html(features: Features, ev: Evaluation, i: int, people: str = "", person: str | None = None,
                note: str | None = None) -> str:
    """HTML for run ``i``: every text from the run escaped, ``<mark>`` on words that differ
    between the answer and its best reference (and each reference against the answer), the
    expected and actual calls with the actual calls' marks (:func:`~explorer.app.views.table.calls_html`). The
    person's verdict is the session's (``features.human``: labels made in the app count), or
    ``person`` when given (``"disputed"``); ``people`` (HTML) lists the annotators' labels under it
    (issue 11); ``note``: one typed in this session with the label (:func:`person_row`)."""
    run = features.runs[i]
    e = escape_whole
    outcome = OUTCOMES[int(ev.outcome[i])]
    verdict = "pass" if ev.passed[i] else "fail"
    parts = [
        f'<div class="me-detail-head"><b>{e(run.id)}</b> {e(run.title)} '
        f'<span class="me-outcome me-outcome-{outcome.replace(" ", "-")}">{e(outcome)}</span></div>',
        *example_row(run),
        f'<div class="me-detail-row"><span class="me-k">User</span><span class="me-v">{e(run.user_input)}</span></div>',
    ]
    for k, inv in enumerate(run.invocations, start=1):
        if len(run.invocations) > 1:
            parts.append(f'<div class="me-inv-head">Invocation {k}</div>')
        best = max(inv.references, key=lambda r: unigram_f1(inv.answer, r), default="")
        parts.append(
            f'<div class="me-detail-row"><span class="me-k">Answer</span>'
            f'<span class="me-v me-text">{keep_tokens_whole(mark_differences(inv.answer, best))}</span></div>'
        )
        for j, ref in enumerate(inv.references, start=1):
            label = "Reference" if len(inv.references) == 1 else f"Reference {j}"
            parts.append(
                f'<div class="me-detail-row"><span class="me-k">{label}</span>'
                f'<span class="me-v me-text">{keep_tokens_whole(mark_differences(ref, inv.answer))}</span></div>'
            )
    # the calls with their marks (extra, missing, out of order, denied, args differ), as the
    # table's last columns show them: there they are off to the right at 1024 px (a trial)
    expected, actual = calls_html(features, ev, i, keep_whole=True)
    parts.append(f'<div class="me-detail-row me-detail-calls"><span class="me-k">Expected calls</span>'
                 f'<span class="me-v">{expected}</span></div>')
    parts.append(f'<div class="me-detail-row me-detail-calls"><span class="me-k">Actual calls</span>'
                 f'<span class="me-v">{actual}</span></div>')
    person = person or PERSON_WORDS[int(features.human[i])]
    parts.append(person_row(person, run.human_verdict, run.human_note, note))
    parts.append(people)
    parts.append(
        f'<div class="me-detail-row"><span class="me-k">Evaluator</span><span class="me-v"><b>{verdict}</b>: '
        f"{e(reason(features, ev, i))}</span></div>"
    )
    return "".join(parts)


class DetailView:
    """The side panel: hidden until a run is selected; ``on_close`` is the session's "unselect"."""

    def __init__(self, on_close: Callable[[], None] | None = None) -> None:
        self.pane = LiveHTML(HINT, css_classes=["me-detail"], **styled(sizing_mode="stretch_width"))
        self.close = pn.widgets.Button(label="✕ Close", css_classes=["me-detail-close"], width=80, margin=(0, 6),
                                       stylesheets=[":host .bk-btn { padding: 2px 6px; font-size: 12.5px; }"])
        if on_close is not None:
            self.close.on_click(lambda _e: on_close())
        self.card: pn.Column | None = None
        self.people: Callable[[int], tuple[str | None, str]] | None = None
        """Set by the session when several annotators label: run index -> (the Person word when
        it is not the verdict, e.g. ``"disputed"``; their labels as HTML)."""
        self.notes: Callable[[int], str | None] | None = None
        """Set by the session: run index -> the note made in this session with its label, or None."""

    def show(self, features: Features, ev: Evaluation, i: int | None) -> None:
        """Show run ``i`` and open the panel (None: the hint, panel closed)."""
        person, people = (None, "") if i is None or self.people is None else self.people(i)
        note = None if i is None or self.notes is None else self.notes(i)
        self.pane.object = HINT if i is None else detail_html(features, ev, i, people, person, note)
        if self.card is not None and self.card.visible != (i is not None):
            self.card.visible = i is not None

    def panel(self, *below: pn.viewable.Viewable) -> pn.Column:
        """The side panel (``below``: e.g. the label buttons), hidden until a run is selected."""
        self.card = Deferred(  # its models join the page when a run is first selected
            pn.Row(
                LiveHTML(
                    '<h2>Selected run</h2><div class="me-hint">Words that differ between answer and reference are '
                    "<mark>marked</mark>.</div>",
                    **styled(margin=(0, 10), sizing_mode="stretch_width"),
                ),
                self.close,
                sizing_mode="stretch_width",
            ),
            self.pane,
            *below,
            css_classes=["me-card", "me-detail-panel"],
            sizing_mode="stretch_width",
            styles=flex_item(340, max_width=460),
            visible=False,
        )
        return self.card
