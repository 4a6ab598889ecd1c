"""The cascade's review queue (seed 000: the default judge is the person): runs whose cosine lies
between fail-below and pass-above wait here; the person decides each acceptable or unacceptable.

A decision is the judge's verdict for that run (``ReviewDecisions.decisions``, passed to
:func:`explorer.core.evaluation.evaluate`) and is recorded as the run's label in the session's
:class:`explorer.app.labels.SessionLabels`, so the agreement is recomputed with it. Every text from
the runs is escaped before it reaches HTML.
"""

from __future__ import annotations

import html
from typing import Callable

import numpy as np
import panel as pn

from ...core.evaluation import Evaluation
from ...core.features import Features
from ..labels import SessionLabels
from .style import styled

REVIEW_NOTE = "decided in the review queue"
MAX_SHOWN = 20
"""Queued runs shown at once (a big set can leave thousands in the gray band); decide the first
ones and the next move up."""


class ReviewDecisions:
    """The person's gray-band decisions in one session: ``decisions`` int8 (N,), 1 acceptable,
    0 unacceptable, -1 not decided."""

    def __init__(self, n: int) -> None:
        self.decisions = np.full(n, -1, dtype=np.int8)

    @classmethod
    def from_labels(cls, labels: SessionLabels) -> "ReviewDecisions":
        """The decisions this session already made in the review queue (labels whose note is
        ``REVIEW_NOTE``), so they survive a case-set switch and back."""
        out = cls(int(labels.human.size))
        for key, note in labels.notes.items():
            if note == REVIEW_NOTE and str(key).isdigit() and int(key) < out.decisions.size and labels.human[int(key)] >= 0:
                out.decisions[int(key)] = labels.human[int(key)]
        return out

    def record(self, index: int, acceptable: bool, labels: SessionLabels) -> None:
        """Decide run ``index``: store the judge's decision and record it as the run's label
        (``labels.set``, which notifies the session). Raises IndexError for a run out of range."""
        if not 0 <= index < self.decisions.size:
            raise IndexError(f"run index {index} out of range 0..{self.decisions.size - 1}")
        decisions = self.decisions.copy()
        decisions[index] = int(bool(acceptable))
        self.decisions = decisions
        labels.set(index, "acceptable" if acceptable else "unacceptable", note=REVIEW_NOTE)


def _esc(value: object) -> str:
    return html.escape(str(value))


def item_html(features: Features, ev: Evaluation, i: int) -> str:
    """One queued run: id, title, cosine and band, answer and reference(s) (escaped)."""
    s = ev.settings
    run = features.runs[i]
    inv = run.invocations[0]
    refs = "".join(f"<li>{_esc(r)}</li>" for r in inv.references)
    more = f' <small>(+{len(run.invocations) - 1} more turns)</small>' if len(run.invocations) > 1 else ""
    return (
        f'<div class="me-review-run"><b>{_esc(run.id)}</b> {_esc(run.title)} · cosine '
        f"<b>{ev.response_score[i]:.2f}</b> in [{s.fail_below:.2f}, {s.pass_above:.2f})</div>"
        f'<div class="me-review-answer">Answer: {_esc(inv.answer)}{more}</div>'
        f'<div class="me-review-refs">Reference: <ul>{refs}</ul></div>'
    )


class ReviewQueueView:
    """The review-queue card. ``decide(index, acceptable)`` is the session's command."""

    def __init__(self, decide: Callable[[int, bool], None]) -> None:
        self.decide = decide
        self.ids: list[str] = []
        self._texts: list[pn.pane.HTML] = []
        self.header = pn.pane.HTML("", css_classes=["me-review-status"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.items = pn.Column(css_classes=["me-review-items"], sizing_mode="stretch_width")
        self.decided = pn.pane.HTML("", css_classes=["me-review-decided"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.agreement = pn.pane.HTML("", css_classes=["me-review-agreement"], **styled(margin=(4, 10), sizing_mode="stretch_width"))

    def _buttons(self, i: int) -> pn.Column:
        accept = pn.widgets.Button(name="Acceptable", button_type="success", css_classes=["me-review-accept"], width=120)
        reject = pn.widgets.Button(name="Unacceptable", button_type="danger", css_classes=["me-review-reject"], width=120)
        accept.on_click(lambda _e: self.decide(i, True))
        reject.on_click(lambda _e: self.decide(i, False))
        return pn.Column(accept, reject, width=130)

    def show(self, features: Features, ev: Evaluation, decisions: np.ndarray) -> None:
        """Show the runs waiting for review under ``ev`` (whole set), the decisions made, and
        the agreement. Rebuilds the item rows only when the queue changed."""
        summary = ev.summary
        self.agreement.object = (
            f'<div class="me-review-agree">Agreement with the person: {summary.agree}/{summary.labelled}</div>'
        )
        cascade = ev.settings.response_scorer == "cascade"
        waiting = np.flatnonzero(ev.needs_review)
        queue = [int(i) for i in waiting[:MAX_SHOWN]]
        ids = [str(features.run_ids[i]) for i in queue]
        if not cascade:
            self.header.object = '<div class="me-hint">The review queue fills when the response scorer is the cascade.</div>'
        else:
            word = "run waits" if waiting.size == 1 else "runs wait"
            emb = ev.response.embedding if ev.response is not None else None
            model = f'<div class="me-hint">Cosine by {html.escape(emb.label())}</div>' if emb is not None else ""
            shown = f" (the first {MAX_SHOWN} shown)" if waiting.size > MAX_SHOWN else ""
            self.header.object = f'<div class="me-review-count">{waiting.size} {word} for review{shown}</div>{model}'
        if not cascade:
            queue, ids = [], []
        if ids != self.ids:  # new rows (and buttons) only when the queue changed
            self.ids = ids
            self._texts = [pn.pane.HTML("", **styled(sizing_mode="stretch_width")) for _ in queue]
            self.items.objects = [
                pn.Row(text, self._buttons(i), css_classes=["me-review-item"], sizing_mode="stretch_width")
                for text, i in zip(self._texts, queue)
            ]
        for text, i in zip(self._texts, queue):  # the band in the text moves with the sliders
            text.object = item_html(features, ev, i)
        done = np.flatnonzero(decisions >= 0)
        if done.size:
            parts = ", ".join(
                f"{_esc(features.run_ids[i])} {'acceptable' if decisions[i] == 1 else 'unacceptable'}" for i in done[-MAX_SHOWN:]
            )
            if done.size > MAX_SHOWN:
                parts = f"{done.size} runs; the last {MAX_SHOWN}: {parts}"
            self.decided.object = f'<div class="me-review-done">Decided: {parts}</div>'
        else:
            self.decided.object = '<div class="me-review-done">Decided: none</div>'

    def panel(self) -> pn.Column:
        """The card."""
        return pn.Column(
            pn.pane.HTML("<h2>Review queue</h2>", **styled(margin=(0, 10))),
            self.header,
            self.items,
            self.decided,
            self.agreement,
            css_classes=["me-card", "me-review-queue"],
            sizing_mode="stretch_width",
        )
