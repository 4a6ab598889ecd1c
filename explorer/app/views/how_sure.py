"""The "How sure" tab (issue 11): every summary figure of the current settings with its 95 %
interval and method, what the evaluator's pass rate means on the unlabelled runs (Rogan–Gladen),
how many labels are enough for ±5 points, and beside it the Annotators card
(:mod:`explorer.app.views.annotators`).

The summary bar stays on screen above every tab, so the figures read here sit under the ones they
explain. Everything here is computed when the tab is shown (and on each change while it is open):
the intervals in a few ms whatever N, the correction and the labels needed in O(N) numpy.
"""

from __future__ import annotations

import html

import panel as pn

from ...core.evaluation.confidence import METHODS, SummaryIntervals, summary_intervals
from ...core.evaluation.features import Features
from ...core.evaluation.prevalence import UnlabelledPassRate, rogan_gladen
from ...core.evaluation.sample_size import DEFAULT_HALF_WIDTH, LabelsNeeded, labels_needed
from ...core.evaluation.verdicts import Evaluation
from ..intervals import kappa_text, na_reason, pct, pct_ci, signed
from ..labels import SessionLabels
from ..words import half_width_words, noun
from .annotators import AnnotatorsView
from .style import WRAP, LiveHTML, styled

FIGURE_NAMES = {
    "agreement": ("Agreement", "labelled runs where the evaluator's verdict is the person's"),
    "precision": ("Precision", "of the runs the evaluator passed, the share acceptable"),
    "recall": ("Recall (true-pass rate)", "of the acceptable runs, the share passed"),
    "false_pass_rate": ("False-pass rate", "of the unacceptable runs, the share passed"),
    "false_fail_rate": ("False-fail rate", "of the acceptable runs, the share failed"),
    "kappa": ("Cohen's kappa", "agreement corrected for chance"),
}
"""Figure of :class:`SummaryIntervals` -> (name, what it is)."""


def figures_html(si: SummaryIntervals) -> str:
    """A table: figure, value, 95 % interval, out of how many, method (class ``me-how-sure-table``);
    a figure with no interval reads ``no interval`` there and why under the table (``me-no-interval``)."""
    rows, why = [], []
    for key in SummaryIntervals.FIGURES:
        iv = getattr(si, key)
        name, what = FIGURE_NAMES[key]
        if key == "kappa":
            value = f"n/a ({html.escape(na_reason(key, iv))})" if iv.value is None else signed(iv.value)
            ci = kappa_text(iv).split(" · ", 1)[-1] if iv.value is not None else "—"
            if iv.value is not None and iv.low is None:  # the reason under the table (the cells do not wrap)
                ci = "no interval"
                why.append(f'<div class="me-hint me-no-interval">{name} has no interval: {html.escape(iv.reason or "too few runs")}.</div>')
            method = "bootstrap"
        else:
            value = f"n/a ({html.escape(na_reason(key, iv))})" if iv.value is None else f"{iv.count:,}/{iv.n:,} ({pct(iv.value)} %)"
            ci = pct_ci(iv) if iv.value is not None else "—"
            method = "Wilson"
        rows.append(f'<tr class="me-fig-{key.replace("_", "-")}"><th title="{html.escape(what)}">{name}</th><td>{value}</td>'
                    f"<td>{html.escape(ci)}</td><td>{iv.n:,}</td><td>{method}</td></tr>")
    return (
        '<table class="me-how-sure-table"><tr><th>Figure</th><th>Value</th><th>95 % interval</th><th>Out of</th>'
        f'<th>Method</th></tr>{"".join(rows)}</table>{"".join(why)}'
        f'<div class="me-hint">Proportions: {html.escape(METHODS["proportions"])}. Kappa: {html.escape(METHODS["kappa"])}. '
        "The same figures as <code>metric-explorer score --format json</code>.</div>"
    )


def unlabelled_html(rate: UnlabelledPassRate | None) -> str:
    """The evaluator on the unlabelled runs: its pass rate and the Rogan–Gladen corrected share
    acceptable with its interval, or why the correction is undefined (class ``me-unlabelled-rate``)."""
    if rate is None:
        return '<div>Every run has a verdict (or is disputed, or has too few labels): no unlabelled run to estimate.</div>'
    pr = rate.pass_rate
    head = (f"<div>The evaluator passes <b>{pr.count:,} of {pr.n:,}</b> unlabelled {noun(pr.n, 'run')} ({pct(pr.value)} %, "
            f"{pct_ci(pr)}).</div>")
    if rate.corrected is None:
        return head + f"<div>Corrected share acceptable: <b>undefined</b>: {html.escape(rate.note)}.</div>"
    c = rate.corrected
    se = "n/a" if rate.sensitivity is None else f"{rate.sensitivity:.2f}"
    sp = "n/a" if rate.specificity is None else f"{rate.specificity:.2f}"
    note = f" {html.escape(rate.note[:1].upper() + rate.note[1:])}." if rate.note else ""
    if c.low is None:  # a delta-method variance of 0: no spread, not an interval
        ci = f'Rogan &amp; Gladen 1978; <span class="me-no-interval">no interval: {html.escape(c.reason)}</span>'
    else:
        ci = f"{pct_ci(c)}; Rogan &amp; Gladen 1978, delta-method interval"
    return head + (
        f"<div>If the evaluator behaves on them as on the labelled runs (true-pass rate {se}, true-fail rate {sp}), about "
        f"<b>{pct(c.value)} %</b> of them are acceptable ({ci}).{note}</div>"
    )


def labels_needed_html(need: LabelsNeeded) -> str:
    """Labelled runs needed per class for ±5 points beside the count there is (class
    ``me-labels-needed``)."""
    rows = []
    for name, what, c in (("Agreement", "labelled runs", need.labelled), ("Recall", "acceptable runs", need.acceptable),
                          ("True-fail rate", "unacceptable runs", need.unacceptable)):
        rows.append(f"<tr><th>{name}</th><td>{what}</td><td>{c.have:,}</td><td>{c.needed:,}</td>"
                    f"<td>{c.needed_worst_case:,}</td><td>{c.more:,}</td></tr>")
    return (
        f'<table class="me-labels-needed-table"><tr><th>For {half_width_words(need.half_width)}</th><th>counts</th><th>have</th>'
        f'<th>needed now</th><th>worst case</th><th>still to label</th></tr>{"".join(rows)}</table>'
        '<div class="me-hint">Needed now: at today\'s rate; worst case: at 50 %. Wilson score half-width at 95 %.</div>'
    )


class HowSureView:
    """The How sure tab: the figures card (this module) and the Annotators card
    (``side_picker``: the session's "Label as" choice beside the label buttons, shared)."""

    def __init__(self, labels: SessionLabels, side_picker=None) -> None:
        self.annotators = AnnotatorsView(labels, side_picker=side_picker)
        self.labels = labels
        self.figures = LiveHTML("", css_classes=["me-how-sure-figures"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.unlabelled = LiveHTML("", css_classes=["me-unlabelled-rate"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.needed = LiveHTML("", css_classes=["me-labels-needed"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.open = False
        """Whether the tab has been opened (then it follows every change)."""

    def show(self, features: Features, ev: Evaluation) -> None:
        """Fill both cards for the evaluation ``ev`` of ``features`` (the session's labels)."""
        self.open = True
        s = ev.summary
        self.figures.object = figures_html(summary_intervals(s))
        unlabelled = (features.human < 0) & ~self.labels.disputed & ~self.labels.too_few  # counted apart
        self.unlabelled.object = unlabelled_html(rogan_gladen(ev.passed, features.human, unlabelled))
        self.needed.object = labels_needed_html(labels_needed(s, DEFAULT_HALF_WIDTH))
        self.annotators.show(features, ev)

    def close(self) -> None:
        """Stop following the labels."""
        self.annotators.close()

    def panel(self) -> pn.Row:
        """The tab's content: the figures card beside the Annotators card (wrapping when narrow)."""
        figures = pn.Column(
            LiveHTML("<h2>How sure are the figures?</h2><div class=\"me-hint\">The summary above, each figure with its "
                     "95 % interval: with few labelled runs the runs cannot tell close settings apart.</div>",
                     **styled(margin=(0, 10), sizing_mode="stretch_width")),
            self.figures,
            LiveHTML("<h3>Unlabelled runs</h3>", **styled(margin=(0, 10))),
            self.unlabelled,
            LiveHTML("<h3>How many labels are enough</h3>", **styled(margin=(0, 10))),
            self.needed,
            css_classes=["me-card", "me-how-sure"],
            sizing_mode="stretch_width",
            styles={"flex": "1 1 520px", "min-width": "0"},
        )
        return pn.Row(figures, self.annotators.panel(), sizing_mode="stretch_width", styles=WRAP,
                      css_classes=["me-how-sure-tab"])

