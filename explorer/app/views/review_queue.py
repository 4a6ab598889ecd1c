"""The cascade's review queue (seed 000: the default judge is the person): runs whose cosine lies
between fail-below and pass-above wait here; the person decides each acceptable or unacceptable.

A decision is the judge's verdict for that run (``ReviewDecisions.decisions``, passed to
:func:`explorer.core.evaluation.verdicts.evaluate`) and is recorded as the run's label in the session's
:class:`explorer.app.labels.SessionLabels`, so the agreement is recomputed with it. Every text from
the runs is escaped before it reaches HTML.
"""

from __future__ import annotations

import html
from typing import Callable

import numpy as np
import panel as pn

from ...core.evaluation.verdicts import Evaluation, response_score_text
from ...core.evaluation.features import Features
from ..labels import SessionLabels
from .style import LiveHTML, styled
from ..highlight import escape_whole

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
    refs = "".join(f"<li>{escape_whole(r)}</li>" for r in inv.references)
    more = f' <small>(+{len(run.invocations) - 1} more turns)</small>' if len(run.invocations) > 1 else ""
    rc = ev.response
    # the cascade's own words: "cosine 0.84 in [0.80, 0.85)", or why a score above the pass band
    # still waits (a text longer than the model's window)
    band = rc.cascade.reason(rc.cascade_features, i, s.pass_above, s.fail_below) if rc is not None and rc.cascade is not None else ""
    return (
        f'<div class="me-review-run"><b>{escape_whole(run.id)}</b> {escape_whole(run.title)} · '
        f"{_esc(band.removesuffix(': waiting for review'))}</div>"
        f'<div class="me-review-answer">Answer: {escape_whole(inv.answer)}{more}</div>'
        f'<div class="me-review-refs">Reference: <ul>{refs}</ul></div>'
    )


class ReviewQueueView:
    """The review-queue card, one run at a time: the current run (the first waiting, or the one
    ``Skip`` moved to) with *Acceptable* / *Unacceptable* / *Skip*, the list of waiting runs, the
    decisions made and the agreement. ``decide(index, acceptable)`` is the session's command.

    The card's models are made once; updates only change their text (no components are created
    while the page is live).
    """

    def __init__(self, decide: Callable[[int, bool], None]) -> None:
        self.decide = decide
        self.ids: list[str] = []
        self.current: int | None = None  # run index under review
        self._queue: list[int] = []
        self.header = LiveHTML("", css_classes=["me-review-status"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.item = LiveHTML("", css_classes=["me-review-item"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.accept = pn.widgets.Button(label="Acceptable", color="success", css_classes=["me-review-accept"], width=110)
        self.reject = pn.widgets.Button(label="Unacceptable", color="danger", css_classes=["me-review-reject"], width=110)
        self.skip = pn.widgets.Button(label="Skip", css_classes=["me-review-skip"], width=70)
        self.accept.on_click(lambda _e: self._decide_current(True))
        self.reject.on_click(lambda _e: self._decide_current(False))
        self.skip.on_click(lambda _e: self._skip())
        self.waiting = LiveHTML("", css_classes=["me-review-list"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.decided = LiveHTML("", css_classes=["me-review-decided"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.agreement = LiveHTML("", css_classes=["me-review-agreement"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self._last: tuple[Features, Evaluation, np.ndarray] | None = None

    def _decide_current(self, acceptable: bool) -> None:
        if self.current is not None:
            self.decide(self.current, acceptable)

    def _skip(self) -> None:
        """Move to the next waiting run (wrapping round)."""
        if self.current is None or len(self._queue) < 2 or self._last is None:
            return
        k = self._queue.index(self.current) if self.current in self._queue else -1
        self.current = self._queue[(k + 1) % len(self._queue)]
        self._show_current(*self._last[:2])

    def _show_current(self, features: Features, ev: Evaluation) -> None:
        if self.current is None:
            self.item.show('<div class="me-review-none">Nothing to review.</div>')
        else:
            self.item.show(item_html(features, ev, self.current))
        rows = []
        for i in self._queue:
            mark = ' class="me-review-current"' if i == self.current else ""
            text = f"{_esc(features.run_ids[i])} · cosine {response_score_text(float(ev.response_score[i]), ev.settings)}"
            rows.append(f"<li{mark}><b>{text}</b></li>" if mark else f"<li>{text}</li>")
        self.waiting.show(f'<ul class="me-review-ids">{"".join(rows)}</ul>' if rows else "")

    def show(self, features: Features, ev: Evaluation, decisions: np.ndarray) -> None:
        """Show the runs waiting for review under ``ev`` (whole set), the current one, the
        decisions made and the agreement."""
        self._last = (features, ev, decisions)
        summary = ev.summary
        self.agreement.show(
            f'<div class="me-review-agree">Agreement with the person: {summary.agree:,}/{summary.labelled:,}</div>'
            if summary.labelled else '<div class="me-review-agree">Agreement with the person: no labelled run yet</div>'
        )
        cascade = ev.settings.response_scorer == "cascade"
        waiting = np.flatnonzero(ev.needs_review) if cascade else np.zeros(0, dtype=np.int64)
        self._queue = [int(i) for i in waiting[:MAX_SHOWN]]
        self.ids = [str(features.run_ids[i]) for i in self._queue]
        if self.current not in self._queue:
            self.current = self._queue[0] if self._queue else None
        if not cascade:
            self.header.show('<div class="me-hint">The review queue fills when the response scorer is the cascade.</div>')
        else:
            word = "run waits" if waiting.size == 1 else "runs wait"
            emb = ev.response.embedding if ev.response is not None else None
            model = f' <div class="me-hint">· cosine by {html.escape(emb.label())}</div>' if emb is not None else ""
            shown = f" (the first {MAX_SHOWN} listed)" if waiting.size > MAX_SHOWN else ""
            self.header.show(f'<div class="me-review-count">{waiting.size} {word} for review{shown}</div>{model}')
        self._show_current(features, ev)
        done = np.flatnonzero(decisions >= 0)
        if done.size:
            parts = ", ".join(
                f"{_esc(features.run_ids[i])} {'acceptable' if decisions[i] == 1 else 'unacceptable'}" for i in done[-MAX_SHOWN:]
            )
            if done.size > MAX_SHOWN:
                parts = f"{done.size:,} runs; the last {MAX_SHOWN}: {parts}"
            self.decided.show(f'<div class="me-review-done">Decided: {parts}</div>')
        else:
            self.decided.show('<div class="me-review-done">Decided: none</div>')

    def panel(self) -> pn.Column:
        """The card."""
        return pn.Column(
            LiveHTML("<h2>Review queue</h2>", **styled(margin=(0, 10))),
            self.header,
            self.item,
            pn.Row(self.accept, self.reject, self.skip),
            self.waiting,
            self.decided,
            self.agreement,
            css_classes=["me-card", "me-review-queue"],
            sizing_mode="stretch_width",
        )
