"""The figures: the summary bar (the whole set under the current settings) and the replay's
secondary line (the runs revealed so far).

The summary bar is the page's answer to its one question, *how often does the evaluator agree
with the person, and why?*: all-runs agreement ``n/N`` as the largest figure on the page, false
passes and false fails with their ids, the 2x2 confusion matrix, precision / recall / Cohen's
kappa and the settings in words. It never depends on the replay time. It sits in one HTML pane
(one model, one update per change) whose parts carry the contract classes of docs/ui-contract.md.

How sure (issue 11): the all-runs figure carries its 95 % Wilson interval (``95 % CI 17–69 %``,
the method in its tooltip, with the labels needed for ±5 points), precision / recall / kappa their
intervals, runs whose annotators tie are counted apart (``(1 disputed)``) and the unlabelled runs'
tooltip gives the evaluator's pass rate on them with the Rogan–Gladen correction. The "Pin as A"
button and the comparison strip go beside and under the bar (:meth:`MetricsView.summary_panel`).
"""

from __future__ import annotations

import html
from typing import Sequence

import numpy as np
import panel as pn

from ...core.evaluation.confidence import SummaryIntervals, summary_intervals
from ...core.evaluation.features import Features
from ...core.evaluation.metrics import Agreement
from ...core.evaluation.prevalence import UnlabelledPassRate, rogan_gladen
from ...core.evaluation.replay import ReplayState
from ...core.evaluation.sample_size import DEFAULT_HALF_WIDTH, labels_needed
from ...core.evaluation.verdicts import OUTCOMES, Evaluation
from ..intervals import BOOTSTRAP_TIP, WILSON_TIP, na_reason, num_ci, pct, pct_ci
from ..words import counted, half_width_words, settings_words
from ...core.plural import LIST_LIMIT
from .style import LiveHTML, styled
from ..highlight import escape_whole

MAX_IDS = LIST_LIMIT
"""Run ids listed under false passes / fails (20, as the CLI lists them: ``plural.listed``); more
are counted (a 1M-run set can have 100,000s; at 30 a 100k-run set's two lists took 14 lines of
the headline card at 1024 px)."""


def _ids(ids: list[str], total: int | None = None) -> str:
    """``"E1, E7"`` (escaped, a hyphenated id kept on one line: :func:`~explorer.app.highlight.escape_whole`),
    ``"none"``, or the first ``MAX_IDS`` and ``"(+N more)"``; one past the limit is named (``"(+1
    more)"`` is no shorter than the id: the CLI's rule, :func:`~explorer.core.plural.listed`).
    ``ids``: the first ``MAX_IDS + 1`` at least when ``total`` (default ``len(ids)``) says there are more."""
    total = len(ids) if total is None else total
    if not total:
        return "none"
    if total <= MAX_IDS + 1:
        return escape_whole(", ".join(ids[:total]))
    return escape_whole(", ".join(ids[:MAX_IDS]) + f" (+{total - MAX_IDS:,} more)")


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}".replace("-", "−")


def outcome_ids(features: Features, ev: Evaluation, outcome: str) -> tuple[list[str], int]:
    """(the first ``MAX_IDS + 1`` run ids with ``outcome`` (all :func:`_ids` shows), how many runs
    have it), without making a list of every id of a big set."""
    where = np.flatnonzero(ev.outcome == OUTCOMES.index(outcome))
    return [str(x) for x in features.run_ids[where[: MAX_IDS + 1]]], int(where.size)


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


def stats_html(s: Agreement, si: SummaryIntervals | None = None) -> str:
    """``Precision 0.00 [0.00, 0.79] · Recall 0.00 [0.00, 0.43] · Cohen's kappa −0.20 [−0.52, 0.00]``
    (n/a when undefined; the 95 % intervals of ``si`` in ``me-ci``, the method in the tooltip;
    ``Cohen's kappa 0.00 (no interval)`` with the reason in the tooltip when its bootstrap has no
    spread, class ``me-no-interval``). An n/a figure says why beside it, as the CLI does
    (``Precision n/a (no labelled run passed)``, class ``me-na-why``; :func:`~explorer.app.intervals.na_reason`)."""
    def value(name: str, x: float | None) -> str:
        if x is not None:
            return f"<b>{_fmt(x)}</b>"
        iv = None if si is None else getattr(si, name)
        if name == "kappa" and iv is None:  # no intervals given: the reason from the counts
            why = "no labelled run" if s.labelled == 0 else "the evaluator and the person give every run the same verdict"
        else:
            why = na_reason(name, iv)
        return f'<b>n/a</b> <small class="me-na-why">({html.escape(why)})</small>'

    def ci(name: str, tip: str) -> str:
        iv = None if si is None else getattr(si, name)
        if iv is not None and iv.value is not None and (iv.low is None or iv.high is None):  # e.g. no spread
            why = html.escape(f"No 95 % interval: {iv.reason or 'too few runs'}.")
            return f' <small class="me-ci me-no-interval" title="{why}">(no interval)</small>'
        text = "" if iv is None else num_ci(iv)
        return f' <small class="me-ci" title="{tip}">{text}</small>' if text else ""

    return (
        f'<div class="me-statline"><span title="Of the runs the evaluator passed, the share the person found acceptable">'
        f"Precision {value('precision', s.precision)}{ci('precision', WILSON_TIP)}</span> "
        f'<span title="Of the runs the person found acceptable, the share the evaluator passed">Recall {value("recall", s.recall)}'
        f"{ci('recall', WILSON_TIP)}</span> "
        f'<span title="Agreement corrected for chance: 1 = perfect, 0 = no better than chance">'
        f"Cohen's kappa {value('kappa', s.kappa)}{ci('kappa', BOOTSTRAP_TIP)}</span></div>"
    )


def interval_html(si: SummaryIntervals, s: Agreement) -> str:
    """The all-runs figure's interval, ``95 % CI 17–69 %`` (class ``me-whole-interval``, under the
    figure), its tooltip naming the method and the labelled runs needed for ±5 points at today's rate."""
    if s.labelled == 0:
        return ""
    need = labels_needed(s, DEFAULT_HALF_WIDTH).labelled
    tip = (f"Agreement over the {counted(s.labelled, 'labelled run')}. {WILSON_TIP} For {half_width_words(DEFAULT_HALF_WIDTH)} about "
           f"{counted(need.needed, 'labelled run')} "
           f"are needed at today's agreement.")
    return f'<div class="me-whole-interval" title="{html.escape(tip)}">{pct_ci(si.agreement)}</div>'



def unlabelled_tip(rate: UnlabelledPassRate | None) -> str:
    """Tooltip of ``(3 unlabelled)``: the evaluator's pass rate on them and the Rogan–Gladen
    corrected share acceptable (or why there is none)."""
    if rate is None:
        return ""
    pr = rate.pass_rate
    head = f"The evaluator passes {pr.count:,} of the {counted(pr.n, 'unlabelled run')} ({pct(pr.value)} %, {pct_ci(pr)})."
    if rate.corrected is None:
        return f"{head} Corrected share acceptable: {rate.note}."
    c = rate.corrected
    tail = f" ({rate.note})" if rate.note else ""
    ci = f"no interval: {c.reason}" if c.low is None else pct_ci(c)
    return (f"{head} Corrected for its true-pass and true-fail rates on the labelled runs (Rogan–Gladen 1978): "
            f"about {pct(c.value)} % of them are acceptable ({ci}){tail}.")


def figure_html(s: Agreement, extra: str = "", disputed: int = 0, unlabelled_title: str = "", too_few: int = 0) -> str:
    """The all-runs figure: ``All runs: 4/10 agree`` with the figure large (class
    ``me-whole-agreement``), ``All runs: no labelled run (3 unlabelled)`` when no run has a
    verdict (never ``0/0``); ``extra`` (HTML) goes right after the figure (the interval, issue 11).
    ``disputed`` runs (no verdict because their annotators tie) and ``too_few`` runs (fewer labels
    than the minimum) are counted apart from the unlabelled ones: ``(2 unlabelled, 1 disputed, 1
    with too few labels)``; ``unlabelled_title`` is the tooltip there."""
    unlabelled = s.unlabelled - disputed - too_few
    parts = []
    if unlabelled:
        parts.append(f'<span title="{html.escape(unlabelled_title)}">{unlabelled:,} unlabelled</span>')
    if disputed:
        parts.append(f'<span class="me-figure-disputed" title="Runs whose annotators tie: left out of agreement and '
                     f'counted here">{disputed:,} disputed</span>')
    if too_few:
        parts.append(f'<span class="me-figure-too-few" title="Runs with fewer labels than the minimum per run: left out '
                     f'of agreement and counted here">{too_few:,} with too few labels</span>')
    unl = f' <span class="me-figure-unlabelled">({", ".join(parts)})</span>' if parts else ""
    if s.labelled:
        tip = f"The evaluator agrees with the person on {s.agree:,} of {counted(s.labelled, 'labelled run')}"
        shown = f'<span class="me-figure">{s.agree:,}/{s.labelled:,}</span> <span class="me-figure-unit">agree</span>'
        note = ""
    else:  # never a 0/0 figure (a trial read it as the page's answer)
        tip = "No run has a verdict from a person, so agreement cannot be measured yet"
        shown = '<span class="me-figure me-figure-none">no labelled run</span>'
        note = '<div class="me-figure-note">No run is labelled yet: label runs to measure agreement.</div>'
    return (
        f'<div class="me-whole-agreement" title="{tip}">'
        f'<span class="me-figure-label">All runs:</span> {shown}{unl}{extra}{note}</div>'
    )


def summary_html(features: Features, ev: Evaluation, disputed: np.ndarray | None = None,
                 too_few: np.ndarray | None = None) -> str:
    """The whole summary bar for evaluation ``ev`` of ``features`` (every run text escaped), with
    95 % intervals; ``disputed`` (ties) and ``too_few`` (fewer labels than the minimum) bool (N,)
    mark runs counted apart (issue 11)."""
    s = ev.summary
    fp, n_fp = outcome_ids(features, ev, "false pass")
    ff, n_ff = outcome_ids(features, ev, "false fail")
    si = summary_intervals(s)  # O(resamples), a few ms whatever the number of runs
    n_disputed = 0 if disputed is None else int(np.count_nonzero(disputed))
    n_few = 0 if too_few is None else int(np.count_nonzero(too_few))
    unl_title = ""
    if s.unlabelled - n_disputed - n_few > 0:
        unlabelled = features.human < 0
        for apart in (disputed, too_few):
            if apart is not None:
                unlabelled = unlabelled & ~apart
        unl_title = unlabelled_tip(rogan_gladen(ev.passed, features.human, unlabelled))
    figure = figure_html(s, "", n_disputed, unl_title, n_few)
    unknown = "none yet (no labelled run)"  # nothing to be wrong about yet: "none" alone read as "all good"
    return (
        '<div class="me-summary-bar">'
        f'<div class="me-summary-figure">{figure}{interval_html(si, s)}</div>'
        '<div class="me-summary-why">'
        f'<div class="me-list me-fp-text me-whole-false-pass" title="Bad runs the evaluator passes: they would ship">'
        f"False passes: {_ids(fp, n_fp) if s.labelled else unknown}</div>"
        f'<div class="me-list me-ff-text me-whole-false-fail" title="Good runs the evaluator fails: noise people learn to ignore">'
        f"False fails: {_ids(ff, n_ff) if s.labelled else unknown}</div>"
        f'<div class="me-settings-words"><b>Settings:</b> {html.escape(settings_words(ev.settings, features.arg_rules))}</div>'
        "</div>"
        f'<div class="me-summary-stats"><div class="me-confusion">{confusion_html(s)}</div>'
        f'<div class="me-stats">{stats_html(s, si)}</div></div>'
        "</div>"
    )


def replay_html(state: ReplayState, t: float) -> str:
    """The replay's running figure, saying what it is: ``Revealed so far: 1/4 agree · 4 of 10
    runs revealed · t = 25.0 s · False passes: none · False fails: E1, E2, E3``. Never a 0/0
    figure (a trial read it as the page's answer): ``Revealed so far: none yet, press Play`` before
    the first reveal, ``Revealed so far: no labelled run`` when the revealed runs have no label;
    the lists then read ``none yet`` and ``none yet (no labelled run revealed)``, not ``none``
    (which read as "all good")."""
    s = state.summary
    # no revealed run labelled: nothing can be wrong yet ("none" alone read as "all good")
    unknown = "none yet" if state.revealed == 0 else "none yet (no labelled run revealed)"
    if state.revealed == 0:
        figure = "Revealed so far: none yet, press Play"
    elif s.labelled == 0:
        figure = "Revealed so far: no labelled run"
    else:
        figure = f"Revealed so far: {s.agree:,}/{s.labelled:,} agree"
    return (
        '<div class="me-replay-line">'
        f'<span class="me-agreement">{figure}</span> · '
        f'<span class="me-revealed">{state.revealed:,} of {counted(state.total, "run")} revealed</span> · '
        f'<span class="me-replay-t">t = {t:.1f} s</span> · '
        f'<span class="me-false-pass">False passes: {_ids(state.false_pass) if s.labelled else unknown}</span> · '
        f'<span class="me-false-fail">False fails: {_ids(state.false_fail) if s.labelled else unknown}</span>'
        "</div>"
    )


class MetricsView:
    """Two panes: ``summary`` (the whole set, sticky bar) and ``replay`` (revealed so far)."""

    def __init__(self) -> None:
        self.summary = LiveHTML("", css_classes=["me-summary-pane"], **styled(sizing_mode="stretch_width", margin=0))
        self.replay = LiveHTML("", css_classes=["me-replay-state"], **styled(sizing_mode="stretch_width", margin=(0, 10)))

    def show_whole(self, features: Features, ev: Evaluation, disputed: np.ndarray | None = None,
                   too_few: np.ndarray | None = None) -> None:
        """The whole set's figures for the current settings (independent of the replay);
        ``disputed`` and ``too_few`` bool (N,) runs counted apart."""
        self.summary.show(summary_html(features, ev, disputed, too_few))

    def show(self, state: ReplayState) -> None:
        """The revealed-so-far line at the inspection time."""
        self.replay.show(replay_html(state, state.t))

    def summary_panel(self, beside: Sequence[pn.viewable.Viewable] = (), below: Sequence[pn.viewable.Viewable] = ()) -> pn.Column:
        """The summary bar: sticky at the top of the page while it scrolls; ``beside`` at its right
        (the "Pin as A" button), ``below`` under it (the comparison strip), both inside the card."""
        top = pn.Row(self.summary, *beside, sizing_mode="stretch_width", margin=0) if beside else self.summary
        return pn.Column(top, *below, css_classes=["me-card", "me-summary"], sizing_mode="stretch_width",
                         styles={"position": "sticky", "top": "0px", "z-index": "40"})
