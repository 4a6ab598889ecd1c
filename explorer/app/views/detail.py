"""The selected run: its answer against the reference(s), the person's note, differing words marked."""

from __future__ import annotations

import html

import panel as pn

from ...core.evaluation.verdicts import OUTCOMES, Evaluation, reason
from ...core.evaluation.features import Features
from ...core.scoring.overlap import unigram_f1
from ..highlight import mark_differences
from .style import styled

HINT = '<div class="me-empty">Select a revealed run in the table to see its answer, reference and the person\'s note.</div>'


def detail_html(features: Features, ev: Evaluation, i: int) -> str:
    """HTML for run ``i``: every text from the run escaped, ``<mark>`` on words that differ
    between the answer and its best reference (and each reference against the answer)."""
    run = features.runs[i]
    e = html.escape
    outcome = OUTCOMES[int(ev.outcome[i])]
    verdict = "pass" if ev.passed[i] else "fail"
    parts = [
        f'<div class="me-detail-head"><b>{e(run.id)}</b> {e(run.title)} '
        f'<span class="me-outcome me-outcome-{outcome.replace(" ", "-")}">{e(outcome)}</span></div>',
        f'<div class="me-detail-row"><span class="me-k">User</span><span class="me-v">{e(run.user_input)}</span></div>',
    ]
    for k, inv in enumerate(run.invocations, start=1):
        if len(run.invocations) > 1:
            parts.append(f'<div class="me-inv-head">Invocation {k}</div>')
        best = max(inv.references, key=lambda r: unigram_f1(inv.answer, r), default="")
        parts.append(
            f'<div class="me-detail-row"><span class="me-k">Answer</span>'
            f'<span class="me-v me-text">{mark_differences(inv.answer, best)}</span></div>'
        )
        for j, ref in enumerate(inv.references, start=1):
            label = "Reference" if len(inv.references) == 1 else f"Reference {j}"
            parts.append(
                f'<div class="me-detail-row"><span class="me-k">{label}</span>'
                f'<span class="me-v me-text">{mark_differences(ref, inv.answer)}</span></div>'
            )
    person = run.human_verdict or "unlabelled"
    parts.append(
        f'<div class="me-detail-row"><span class="me-k">Person</span><span class="me-v"><b>{e(person)}</b>'
        f'{": " + e(run.human_note) if run.human_note else ""}</span></div>'
    )
    parts.append(
        f'<div class="me-detail-row"><span class="me-k">Evaluator</span><span class="me-v"><b>{verdict}</b>: '
        f"{e(reason(features, ev, i))}</span></div>"
    )
    return "".join(parts)


class DetailView:
    """The detail card."""

    def __init__(self) -> None:
        self.pane = pn.pane.HTML(HINT, css_classes=["me-detail"], **styled(sizing_mode="stretch_width"))

    def show(self, features: Features, ev: Evaluation, i: int | None) -> None:
        """Show run ``i`` (None: the hint)."""
        self.pane.object = HINT if i is None else detail_html(features, ev, i)

    def panel(self) -> pn.Column:
        """The card."""
        return pn.Column(
            pn.pane.HTML(
                '<h2>Selected run</h2><div class="me-hint">Words that differ between answer and reference are '
                "<mark>marked</mark>.</div>",
                **styled(margin=(0, 10)),
            ),
            self.pane,
            css_classes=["me-card"],
            sizing_mode="stretch_width",
        )
