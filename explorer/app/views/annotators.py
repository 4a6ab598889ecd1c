"""Several annotators in the app (issue 11, item 2): whom the label buttons label as, who the ground
truth is, and how much the people agree with each other and with the evaluator.

* :class:`AnnotatorPicker`: a "Label as" Select (``me-annotator``) bound to
  ``SessionLabels.labeller``; the label buttons and the a / u / c keys label as the annotator chosen.
* :class:`AnnotatorsView`: the "Annotators" card of the How sure tab: the annotators and their
  label counts, a name box and "Add annotator", the ground truth (consensus or one annotator, the
  minimum labels per run) with the disputed runs, the inter-annotator figures with their 95 %
  intervals (percent agreement, Cohen's kappa, Fleiss' kappa, Krippendorff's alpha), the pairwise
  table and the human ceiling.

Inter-annotator agreement depends on the labels only: it is computed when the card is shown and
the labels changed since (``InterCache``), never on a settings change; the human ceiling (the
evaluator's agreement beside the people's) is O(N·A) numpy per settings change while shown.
Annotator names and run ids come from files or the person typing: escaped wherever they reach HTML.
"""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np
import panel as pn

from ...core.evaluation.annotators import CEILING_MARGIN, CEILING_METHOD, HumanCeiling, InterAnnotator, human_ceiling, inter_annotator
from ...core.evaluation.features import Features
from ...core.evaluation.verdicts import Evaluation
from ..intervals import BOOTSTRAP_TIP, MINUS, WILSON_TIP, kappa_text, share_text
from ..labels import CONSENSUS, SessionLabels
from ..words import counted, half_width_words
from .metrics import MAX_IDS, _ids as ids_text
from .style import WRAP, LiveHTML, styled
from ..highlight import escape_whole

CONSENSUS_LABEL = "Consensus (majority of the annotators)"
NEGATIVE = re.compile(r"-(?=\d)")
"""A hyphen before a digit: a negative number in a sentence from the core (written with a true minus here)."""


def _esc(x: object) -> str:
    return html.escape(str(x))


def _ids(ids: np.ndarray) -> str:
    """``"E5, E7"`` (escaped; the first ``MAX_IDS``, then ``(+N more)``) of an object array of ids."""
    return ids_text([str(x) for x in ids[: MAX_IDS + 1]], int(ids.size))


def annotators_html(labels: SessionLabels) -> str:
    """``Annotators: person (10 labels), B (4 labels) · labelling as B``."""
    counts = labels.label_counts()
    names = ", ".join(f"<b>{escape_whole(a)}</b> ({n:,} label{'s' if n != 1 else ''})" for a, n in counts.items())
    return (f'<div class="me-annotator-list">Annotators: {names} · new labels are made as '
            f'<b class="me-labeller">{escape_whole(labels.labeller)}</b></div>')


def ground_truth_html(labels: SessionLabels, run_ids: np.ndarray) -> str:
    """What the evaluator is scored against, the runs with a verdict (when some are the file's single
    verdict of runs no annotator labelled, how many of each: ``me-ground-mix``), the disputed runs
    (ties) and the runs with too few labels, with their ids."""
    g = labels.ground
    if labels.truth == CONSENSUS and len(labels.annotators) > 1:
        source = (f"the consensus (majority) of {len(labels.annotators)} annotators, at least "
                  f"{counted(labels.min_labels, 'label')} per run")
    elif labels.truth == CONSENSUS:
        source = f"the labels of <b>{_esc(labels.annotators[0])}</b>" + (
            f", at least {counted(labels.min_labels, 'label')} per run" if labels.min_labels > 1 else "")
    else:
        source = f"the labels of <b>{_esc(labels.truth)}</b> only"
    with_verdict = int(np.count_nonzero(g.human >= 0))
    single = int(np.count_nonzero(g.from_single))
    where = (f' <span class="me-ground-mix">{int(np.count_nonzero(g.from_annotators)):,} from the annotators\' labels, '
             f"{single:,} the file's single verdict (no annotator labelled {'it' if single == 1 else 'them'}; "
             "the minimum does not apply).</span>") if single else ""
    parts = [f'<div class="me-ground-source">Ground truth: {source}. {with_verdict:,} of {counted(g.human.size, "run")} '
             f'{"has" if with_verdict == 1 else "have"} a verdict.{where}</div>']
    n_disputed = int(np.count_nonzero(g.disputed))
    if n_disputed:
        parts.append(f'<div class="me-disputed-runs"><b>Disputed: {n_disputed:,}</b> (tie: {_ids(run_ids[g.disputed])}), '
                     "left out of agreement and counted apart</div>")
    else:
        parts.append('<div class="me-disputed-runs">Disputed: none</div>')
    n_few = int(np.count_nonzero(g.too_few))
    if n_few:
        parts.append(f'<div class="me-too-few-runs"><b>Too few labels: {n_few:,}</b> (fewer than {labels.min_labels}: '
                     f"{_ids(run_ids[g.too_few])}), left out of agreement and counted apart</div>")
    return "".join(parts)


def inter_html(inter: InterAnnotator | None, labelled_annotators: int) -> str:
    """The inter-annotator figures with their intervals (class ``me-inter-annotator``); a hint
    while fewer than two annotators have labelled runs."""
    if inter is None or labelled_annotators < 2:
        return ('<div class="me-hint">Only one annotator has labels so far. Add an annotator and label runs as them '
                "(the same runs) to see how much the people agree; the ground truth is then their consensus.</div>")
    if inter.runs == 0:
        return ('<div class="me-hint">No run has labels from two annotators yet: label the same runs as another '
                "annotator to compare them.</div>")
    pa = inter.percent_agreement
    method = WILSON_TIP if pa.count is not None else BOOTSTRAP_TIP
    rows = [
        f'<tr><th title="Share of agreeing label pairs per run, averaged over the runs with two or more labels; {_esc(method)}">'
        f"Percent agreement</th><td>{_esc(share_text(pa))}</td></tr>",
    ]
    if inter.cohen_kappa is not None:
        rows.append(f'<tr><th title="Cohen 1960, over the runs both annotators labelled. {_esc(BOOTSTRAP_TIP)}">'
                    f"Cohen's kappa</th><td>{_esc(kappa_text(inter.cohen_kappa))}</td></tr>")
    if inter.fleiss_kappa is not None or len(inter.annotators) >= 3:
        over = f" over {counted(inter.fleiss_runs, 'run')} every annotator labelled" if inter.fleiss_kappa is not None else \
            " (no run that every annotator labelled)"
        rows.append(f'<tr><th title="Fleiss 1971, three or more annotators. {_esc(BOOTSTRAP_TIP)}">Fleiss\' kappa</th>'
                    f"<td>{_esc(kappa_text(inter.fleiss_kappa))}{_esc(over)}</td></tr>")
    rows.append(f'<tr><th title="Krippendorff\'s alpha for nominal data; missing labels allowed. {_esc(BOOTSTRAP_TIP)}">'
                f"Krippendorff's alpha</th><td>{_esc(kappa_text(inter.krippendorff_alpha))}</td></tr>")
    return (f'<div class="me-ia-head">{counted(inter.runs, "run")} labelled by two or more of '
            f'{_esc(", ".join(inter.annotators))}</div><table class="me-ia-table">{"".join(rows)}</table>')


def pairwise_html(inter: InterAnnotator | None) -> str:
    """One row per pair of annotators: runs both labelled, agreeing, percent and Cohen's kappa
    with intervals (class ``me-pairwise``); empty with fewer than two annotators."""
    if inter is None or not inter.pairwise:
        return ""
    head = "<tr><th>Annotators</th><th>Both labelled</th><th>Agree</th><th>Percent agreement</th><th>Cohen's kappa</th></tr>"
    rows = [
        f"<tr><td>{_esc(p.a)} × {_esc(p.b)}</td><td>{p.n:,}</td><td>{p.agree:,}</td>"
        f"<td>{_esc(share_text(p.percent))}</td><td>{_esc(kappa_text(p.kappa))}</td></tr>"
        for p in inter.pairwise
    ]
    return f'<div class="me-ia-sub">Pairwise</div><table class="me-pairwise-table">{head}{"".join(rows)}</table>'


CEILING_TONES = {"better": "better", "as good as": "better", "worse": "worse"}
"""The reading's colour (``me-ceiling-<tone>``): green or red only when the interval supports the
claim; "not enough runs to tell" is neutral (``unclear``)."""


def ceiling_html(ceiling: HumanCeiling | None) -> str:
    """The evaluator beside the people (class ``me-human-ceiling``), the reading, and how it is
    decided (:data:`~explorer.core.evaluation.annotators.CEILING_METHOD`)."""
    if ceiling is None:
        return ""
    per = ", ".join(f"{_esc(name)} {_esc(share_text(iv))}" for name, iv in ceiling.evaluator_vs_annotator.items())
    reading = NEGATIVE.sub(MINUS, ceiling.reading[:1].upper() + ceiling.reading[1:])  # true minus signs, as the figures
    left_out = ""
    if ceiling.single_left_out:  # runs keeping the file's single verdict: no annotator could disagree on them
        left_out = _esc(f" over the runs the annotators' labels decide ({counted(ceiling.single_left_out, 'run')} "
                        "with only the file's single verdict left out)")
    return (
        '<div class="me-ia-sub">Human ceiling</div>'
        f'<div>Evaluator vs the ground truth: <b>{_esc(share_text(ceiling.evaluator_vs_truth))}</b>{left_out} · annotators vs each '
        f"other: <b>{_esc(share_text(ceiling.annotators_vs_each_other))}</b></div>"
        f'<div class="me-sub">Evaluator vs each annotator: {per}</div>'
        f'<div class="me-ceiling-reading me-ceiling-{CEILING_TONES.get(ceiling.verdict, "unclear")}">{_esc(reading)}.</div>'
        f'<div class="me-hint" title="{_esc(CEILING_METHOD)}">"Better", "worse" or "as good as" only when Newcombe\'s 95 % '
        f"interval of the difference supports it: better or worse when it leaves out 0, as good as when it lies within "
        f"{half_width_words(CEILING_MARGIN)} (the two figures taken as independent samples).</div>"
    )


class InterCache:
    """Inter-annotator figures of a :class:`SessionLabels`, recomputed only when its labels
    changed (``version``, and the annotators added) since the last call."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._value: tuple[InterAnnotator | None, int] = (None, 0)
        self.computed = 0
        """How many times the figures were computed (tests check a settings change adds none)."""

    def get(self, labels: SessionLabels) -> tuple[InterAnnotator | None, int]:
        """(figures over the annotators who labelled at least one run, or None with fewer than
        two; how many annotators that is)."""
        key = (id(labels), labels.version, tuple(labels.annotators), id(labels.codes))
        if key != self._key:
            ann = labels.labelled_annotations()
            self._value = (inter_annotator(ann) if len(ann.annotators) >= 2 else None, len(ann.annotators))
            self._key = key
            self.computed += 1
        return self._value


class AnnotatorPicker:
    """A "Label as" Select bound to ``labels.labeller`` (options: the annotators)."""

    def __init__(self, labels: SessionLabels, width: int = 160) -> None:
        self.labels = labels
        self.select = pn.widgets.Select(label="Label as", options=list(labels.annotators), value=labels.labeller,
                                        css_classes=["me-annotator"], width=width, margin=(0, 10, 4, 10),
                                        description="Labels made with the buttons or the keys a / u / c are this annotator's")
        self.select.param.watch(self._picked, ["value"])
        self._watcher = labels.param.watch(lambda *_e: self.show(), ["annotators", "labeller"])

    def _picked(self, event: Any) -> None:
        if event.new in self.labels.annotators and event.new != self.labels.labeller:
            self.labels.labeller = event.new

    def show(self) -> None:
        """Options and value from the labels."""
        self.select.param.update(options=list(self.labels.annotators), value=self.labels.labeller)

    def close(self) -> None:
        """Stop following the labels (they outlive the session's explorer)."""
        self.labels.param.unwatch(self._watcher)


class AnnotatorsView:
    """The Annotators card. ``labels`` is the session's :class:`SessionLabels`; :meth:`show`
    fills the card for the current features and evaluation (call it while the card is shown)."""

    def __init__(self, labels: SessionLabels, side_picker: AnnotatorPicker | None = None) -> None:
        self.labels = labels
        self.inter = InterCache()
        self.picker = AnnotatorPicker(labels, width=180)
        self.side_picker = side_picker if side_picker is not None else AnnotatorPicker(labels, width=160)
        """The same choice beside the label buttons (the selected run's panel; the session's own
        when given, as the card is built only when its tab is opened)."""
        self.name = pn.widgets.TextInput(placeholder="New annotator's name", css_classes=["me-annotator-name"], width=200,
                                         margin=(22, 10, 4, 10))
        self.add = pn.widgets.Button(label="Add annotator", css_classes=["me-annotator-add"], width=130, margin=(22, 4, 4, 4))
        self.add.on_click(lambda _e: self._add())
        self.message = LiveHTML("", css_classes=["me-annotator-message"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.list = LiveHTML("", css_classes=["me-annotators-list"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.truth = pn.widgets.Select(label="Score against", options={CONSENSUS_LABEL: CONSENSUS}, value=CONSENSUS,
                                       css_classes=["me-truth"], width=280, margin=(4, 10))
        self.min_labels = pn.widgets.IntInput(label="Min labels per run", value=1, start=1, end=1, width=130,
                                              css_classes=["me-min-labels"], margin=(4, 10))
        self.truth.param.watch(lambda _e: self._choose(), ["value"])
        self.min_labels.param.watch(lambda *_e: self._choose(), ["value"])
        self.ground = LiveHTML("", css_classes=["me-ground-truth"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.figures = LiveHTML("", css_classes=["me-inter-annotator"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.pairwise = LiveHTML("", css_classes=["me-pairwise"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.ceiling = LiveHTML("", css_classes=["me-human-ceiling"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self._watcher = labels.param.watch(lambda *_e: self._show_people(), ["annotators", "labeller"])
        self._shown: tuple[Features, Evaluation] | None = None

    def _add(self) -> None:
        try:
            name = self.labels.add_annotator(self.name.value_input or self.name.value or "")
        except ValueError as exc:
            self.message.object = f'<div class="me-f1-message">{_esc(exc)}</div>'
            return
        self.message.object = (f'<div class="me-load-ok">Added {_esc(name)}: the label buttons and the keys a / u / c now '
                               "label as them.</div>")
        self.name.param.update(value="", value_input="")

    def _choose(self) -> None:
        try:
            self.labels.choose_truth(self.truth.value, int(self.min_labels.value or 1))
        except ValueError as exc:
            self.message.object = f'<div class="me-f1-message">{_esc(exc)}</div>'

    def _show_people(self) -> None:
        """The annotator list and the ground-truth choices (no figure depends on these alone)."""
        labels = self.labels
        self.list.object = annotators_html(labels)
        options = {CONSENSUS_LABEL: CONSENSUS, **{f"Only {a}": a for a in labels.annotators}}
        with pn.io.hold():
            self.truth.param.update(options=options, value=labels.truth)
            self.min_labels.param.update(end=max(1, len(labels.annotators)), value=labels.min_labels)

    def show(self, features: Features, ev: Evaluation) -> None:
        """Fill the card: the people's figures (recomputed only after a label change) and the
        human ceiling for the evaluation ``ev`` of ``features``."""
        self._shown = (features, ev)
        labels = self.labels
        self._show_people()
        self.ground.object = ground_truth_html(labels, features.run_ids)
        inter, n_labelled = self.inter.get(labels)
        self.figures.object = inter_html(inter, n_labelled)
        self.pairwise.object = pairwise_html(inter)
        ceiling = None
        if inter is not None and inter.runs:
            ceiling = human_ceiling(ev.passed, labels.labelled_annotations(), labels.ground, inter)
        self.ceiling.object = ceiling_html(ceiling)

    def close(self) -> None:
        """Stop following the labels."""
        self.picker.close()
        self.side_picker.close()
        self.labels.param.unwatch(self._watcher)

    def panel(self) -> pn.Column:
        """The card."""
        return pn.Column(
            LiveHTML("<h2>Annotators</h2><div class=\"me-hint\">Several people can label the same runs: choose whom "
                     "you label as here or beside the label buttons (select a run in the Explorer tab, then a / u / c). "
                     "The ground truth is their consensus, or one annotator.</div>",
                     **styled(margin=(0, 10), sizing_mode="stretch_width")),
            self.list,
            pn.Row(self.picker.select, self.name, self.add, styles=WRAP, sizing_mode="stretch_width", margin=0),
            self.message,
            pn.Row(self.truth, self.min_labels, styles=WRAP, sizing_mode="stretch_width", margin=0),
            self.ground,
            self.figures,
            self.pairwise,
            self.ceiling,
            css_classes=["me-card", "me-annotators"],
            sizing_mode="stretch_width",
            styles={"flex": "1 1 520px", "min-width": "0"},
        )


class PersonMarks:
    """How the table and the selected run's panel mark what the annotators said, from a snapshot
    of the labels (made on each label change): a disputed run reads ``disputed`` (its verdicts in
    the tooltip), a run with fewer labels than the minimum ``too few labels``, a run where people disagree but a majority decided gets ``split 2–1``.
    :meth:`of` gives None while one annotator holds every label (nothing to mark)."""

    def __init__(self, labels: SessionLabels) -> None:
        self.names = tuple(labels.annotators)
        self.codes = labels.codes
        self.disputed = labels.disputed
        self.too_few = labels.too_few
        self.min_labels = labels.min_labels
        counts = np.stack([np.count_nonzero(self.codes == 1, axis=1), np.count_nonzero(self.codes == 0, axis=1)], axis=1)
        self.counts = counts
        self.split = (counts[:, 0] > 0) & (counts[:, 1] > 0)

    @classmethod
    def of(cls, labels: SessionLabels) -> "PersonMarks | None":
        """Marks for ``labels``, or None with a single annotator (the table stays as it was)."""
        return cls(labels) if labels.several or np.any(labels.disputed) or np.any(labels.too_few) else None

    def verdicts(self, i: int) -> str:
        """``person: acceptable, B: unacceptable`` (each annotator who labelled run ``i``), escaped."""
        words = {1: "acceptable", 0: "unacceptable"}
        got = [f"{name}: {words[int(c)]}" for name, c in zip(self.names, self.codes[i]) if c >= 0]
        return _esc(", ".join(got) or "no annotator label")

    def cell(self, i: int, word: str) -> str:
        """The Person column of run ``i`` whose ground-truth verdict reads ``word`` (HTML)."""
        acc, unacc = int(self.counts[i, 0]), int(self.counts[i, 1])
        if self.disputed[i]:
            return (f'<span class="me-person-disputed" title="Disputed (tie): {self.verdicts(i)}">disputed</span>'
                    f' <small class="me-tag">{acc}–{unacc}</small>')
        if self.too_few[i]:
            return (f'<span class="me-person-too-few" title="Fewer than {counted(self.min_labels, "label")}: {self.verdicts(i)}">'
                    f'too few labels</span> <small class="me-tag">{acc}–{unacc}</small>')
        if self.split[i]:
            return (f'{_esc(word)} <small class="me-person-split" title="People disagree: {self.verdicts(i)}">'
                    f"split {max(acc, unacc)}–{min(acc, unacc)}</small>")
        return _esc(word)

    def detail(self, i: int) -> tuple[str | None, str]:
        """For the selected run's panel: the Person word (``"disputed"``, ``"too few labels"``, or None: the verdict)
        and the annotators' labels of run ``i`` (HTML, escaped)."""
        state = (" — disputed" if self.disputed[i] else f" — fewer than {counted(self.min_labels, 'label')}" if self.too_few[i]
                 else (" — people disagree" if self.split[i] else ""))
        return ("disputed" if self.disputed[i] else "too few labels" if self.too_few[i] else None,
                f'<div class="me-detail-row me-detail-annotators"><span class="me-k">Annotators</span>'
                f'<span class="me-v">{self.verdicts(i)}{state}</span></div>')
