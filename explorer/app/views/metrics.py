"""The figures: the summary bar (the whole set under the current settings) and the replay's
secondary line (the runs revealed so far).

The summary bar is the page's answer to its one question, *how often does the evaluator agree
with the person, and why?*: all-runs agreement ``n/N`` as the largest figure on the page, false
passes and false fails with their ids, the 2x2 confusion matrix, precision / recall / Cohen's
kappa and the settings in words. It never depends on the replay time. It sits in one HTML pane
(one model, one update per change) whose parts carry the contract classes of docs/ui-contract.md.

Later issues plug in here: an interval after the figure (``figure_html``'s ``extra``), an
annotator picker and an A/B comparison beside the bar (:meth:`MetricsView.summary_panel`).
"""

from __future__ import annotations

import html

import numpy as np
import panel as pn

from ...core.evaluation.features import Features
from ...core.evaluation.metrics import Agreement
from ...core.evaluation.replay import ReplayState
from ...core.evaluation.verdicts import OUTCOMES, Evaluation
from ..words import settings_words
from .style import LiveHTML, styled

MAX_IDS = 30
"""Run ids listed under false passes / fails; more are counted (a 1M-run set can have 100,000s)."""


def _ids(ids: list[str], total: int | None = None) -> str:
    """``"E1, E7"`` (escaped), ``"none"``, or the first ``MAX_IDS`` and ``"(+N more)"``."""
    total = len(ids) if total is None else total
    if not total:
        return "none"
    more = f" (+{total - MAX_IDS:,} more)" if total > MAX_IDS else ""
    return html.escape(", ".join(ids[:MAX_IDS]) + more)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}".replace("-", "−")


def outcome_ids(features: Features, ev: Evaluation, outcome: str) -> tuple[list[str], int]:
    """(the first ``MAX_IDS`` run ids with ``outcome``, how many runs have it), without making a
    list of every id of a big set."""
    where = np.flatnonzero(ev.outcome == OUTCOMES.index(outcome))
    return [str(x) for x in features.run_ids[where[:MAX_IDS]]], int(where.size)


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
        f'<div class="me-statline"><span title="Of the runs the evaluator passed, the share the person found acceptable">'
        f"Precision <b>{_fmt(s.precision)}</b></span> "
        f'<span title="Of the runs the person found acceptable, the share the evaluator passed">Recall <b>{_fmt(s.recall)}</b></span> '
        f'<span title="Agreement corrected for chance: 1 = perfect, 0 = no better than chance">'
        f"Cohen's kappa <b>{_fmt(s.kappa)}</b></span></div>"
    )


def figure_html(s: Agreement, extra: str = "") -> str:
    """The all-runs figure: ``All runs: 4/10 agree`` with the figure large (class
    ``me-whole-agreement``); ``extra`` (HTML) goes right after the figure (an interval, issue 11)."""
    unl = f' <span class="me-figure-unlabelled">({s.unlabelled:,} unlabelled)</span>' if s.unlabelled else ""
    note = '<div class="me-figure-note">No run is labelled yet: label runs to measure agreement.</div>' if not s.labelled else ""
    tip = f"The evaluator agrees with the person on {s.agree} of {s.labelled} labelled runs"
    return (
        f'<div class="me-whole-agreement" title="{tip}">'
        '<span class="me-figure-label">All runs:</span> '
        f'<span class="me-figure">{s.agree}/{s.labelled}</span> <span class="me-figure-unit">agree</span>{unl}{extra}'
        f"{note}</div>"
    )


def summary_html(features: Features, ev: Evaluation) -> str:
    """The whole summary bar for evaluation ``ev`` of ``features`` (every run text escaped)."""
    s = ev.summary
    fp, n_fp = outcome_ids(features, ev, "false pass")
    ff, n_ff = outcome_ids(features, ev, "false fail")
    return (
        '<div class="me-summary-bar">'
        f'<div class="me-summary-figure">{figure_html(s)}</div>'
        '<div class="me-summary-why">'
        f'<div class="me-list me-fp-text me-whole-false-pass" title="Bad runs the evaluator passes: they would ship">'
        f"False passes: {_ids(fp, n_fp)}</div>"
        f'<div class="me-list me-ff-text me-whole-false-fail" title="Good runs the evaluator fails: noise people learn to ignore">'
        f"False fails: {_ids(ff, n_ff)}</div>"
        f'<div class="me-settings-words"><b>Settings:</b> {html.escape(settings_words(ev.settings))}</div>'
        "</div>"
        f'<div class="me-summary-stats"><div class="me-confusion">{confusion_html(s)}</div>'
        f'<div class="me-stats">{stats_html(s)}</div></div>'
        "</div>"
    )


def replay_html(state: ReplayState, t: float) -> str:
    """The replay's running figure, saying what it is: ``Revealed so far: 1/4 agree · 4 of 10
    runs revealed · t = 25.0 s · False passes: none · False fails: E1, E2, E3``."""
    s = state.summary
    return (
        '<div class="me-replay-line">'
        f'<span class="me-agreement">Revealed so far: {s.agree}/{s.labelled} agree</span> · '
        f'<span class="me-revealed">{state.revealed:,} of {state.total:,} runs revealed</span> · '
        f'<span class="me-replay-t">t = {t:.1f} s</span> · '
        f'<span class="me-false-pass">False passes: {_ids(state.false_pass)}</span> · '
        f'<span class="me-false-fail">False fails: {_ids(state.false_fail)}</span>'
        "</div>"
    )


class MetricsView:
    """Two panes: ``summary`` (the whole set, sticky bar) and ``replay`` (revealed so far)."""

    def __init__(self) -> None:
        self.summary = LiveHTML("", css_classes=["me-summary-pane"], **styled(sizing_mode="stretch_width", margin=0))
        self.replay = LiveHTML("", css_classes=["me-replay-state"], **styled(sizing_mode="stretch_width", margin=(0, 10)))

    def show_whole(self, features: Features, ev: Evaluation) -> None:
        """The whole set's figures for the current settings (independent of the replay)."""
        self.summary.object = summary_html(features, ev)

    def show(self, state: ReplayState) -> None:
        """The revealed-so-far line at the inspection time."""
        self.replay.object = replay_html(state, state.t)

    def summary_panel(self) -> pn.Column:
        """The summary bar: sticky at the top of the page while it scrolls."""
        return pn.Column(self.summary, css_classes=["me-card", "me-summary"], sizing_mode="stretch_width",
                         styles={"position": "sticky", "top": "0px", "z-index": "40"})
