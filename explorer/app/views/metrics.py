"""Final metrics at the inspection time: agreement headline, false passes and fails, 2x2
confusion matrix, precision / recall / kappa; and the whole-set agreement for the inputs."""

from __future__ import annotations

import html

import panel as pn

from ...core.evaluation.metrics import Agreement
from ...core.evaluation.replay import ReplayState
from .style import styled


MAX_IDS = 30
"""Run ids listed under false passes / fails; more are counted (a 1M-run set can have 100,000s)."""


def _ids(ids: list[str]) -> str:
    if not ids:
        return "none"
    more = f" (+{len(ids) - MAX_IDS:,} more)" if len(ids) > MAX_IDS else ""
    return html.escape(", ".join(ids[:MAX_IDS]) + more)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}".replace("-", "−")


def confusion_html(s: Agreement) -> str:
    """2x2 table: evaluator pass/fail (rows) against the person's acceptable/unacceptable (columns)."""
    return (
        '<table class="me-matrix">\n'
        "<tr><th></th> <th>Person: acceptable</th> <th>Person: unacceptable</th></tr>\n"
        f'<tr><th>Evaluator: pass</th> <td class="me-ok">{s.true_pass} <small>agree</small></td> '
        f'<td class="me-fp">{s.false_pass} <small>false pass</small></td></tr>\n'
        f'<tr><th>Evaluator: fail</th> <td class="me-ff">{s.false_fail} <small>false fail</small></td> '
        f'<td class="me-ok">{s.true_fail} <small>agree</small></td></tr>\n'
        "</table>"
    )


def stats_html(s: Agreement) -> str:
    """``Precision 0.00 · Recall 0.00 · Cohen's kappa −0.20`` (n/a when undefined)."""
    return (
        f'<div class="me-statline"><span>Precision <b>{_fmt(s.precision)}</b></span> '
        f"<span>Recall <b>{_fmt(s.recall)}</b></span> "
        f"<span>Cohen's kappa <b>{_fmt(s.kappa)}</b></span></div>"
    )


def whole_text(s: Agreement) -> str:
    """``All runs: 4/10 agree`` (plus the unlabelled count when there are some)."""
    extra = f" ({s.unlabelled} unlabelled)" if s.unlabelled else ""
    return f"All runs: {s.agree}/{s.labelled} agree{extra}"


class MetricsView:
    """Panes for the metrics; :meth:`show` fills them from a :class:`ReplayState`."""

    def __init__(self) -> None:
        def pane(css: str, **kw) -> pn.pane.HTML:
            return pn.pane.HTML("", css_classes=[css], **styled(**kw))

        self.agreement = pane("me-agreement", margin=(0, 10))
        self.revealed = pane("me-revealed", margin=(0, 10))
        self.false_pass = pane("me-false-pass", margin=(2, 10))
        self.false_fail = pane("me-false-fail", margin=(2, 10))
        self.confusion = pane("me-confusion", margin=(8, 10))
        self.stats = pane("me-stats", margin=(0, 10))
        self.whole = pane("me-whole-agreement", margin=(4, 10), sizing_mode="stretch_width")

    def show(self, state: ReplayState) -> None:
        """Fill the panes for the state at the inspection time."""
        s = state.summary
        self.agreement.object = f'<div class="me-headline">Agreement {s.agree}/{s.labelled}</div>'
        self.revealed.object = f'<div class="me-sub">{state.revealed} of {state.total} runs revealed</div>'
        self.false_pass.object = f'<div class="me-list me-fp-text">False passes: {_ids(state.false_pass)}</div>'
        self.false_fail.object = f'<div class="me-list me-ff-text">False fails: {_ids(state.false_fail)}</div>'
        self.confusion.object = confusion_html(s)
        self.stats.object = stats_html(s)

    def show_whole(self, summary: Agreement) -> None:
        """The whole set's agreement for the current inputs (independent of the replay)."""
        self.whole.object = f'<div class="me-whole">{html.escape(whole_text(summary))}</div>'

    def panel(self) -> pn.Column:
        """The metrics card."""
        return pn.Column(
            pn.pane.HTML("<h2>Final metrics</h2>", **styled(margin=(0, 10))),
            self.agreement, self.revealed, self.false_pass, self.false_fail, self.confusion, self.stats,
            css_classes=["me-card", "me-metrics"],
            width=340,
        )
