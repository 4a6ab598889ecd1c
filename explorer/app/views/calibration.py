"""The Calibration page (issue 5, seed 000 "Calibrating a threshold on labelled pairs"): for the
current case set's answers with the person's verdicts (this session's labels, review decisions
included), or the bundled ``cases/labelled_pairs.json``: the precision-recall table at every
candidate threshold, precision and recall against the threshold (Bokeh), and the pass-above /
fail-below bands for a target precision with the counts in each band.

Numbers come from :mod:`explorer.core.evaluation.calibration`; scores from the case set's cached
:class:`~explorer.core.evaluation.response_features.ResponseFeatures` or, for the pairs, scored once per
process. Where cosine scores are shown the embedding model, backend and weights hash are named.

Thresholds read with at most 3 decimals (:func:`threshold_text`, as the rest of the page); the
full value is in the tooltip, and "Use these bands in the cascade" sets the exact values, so a
score between the shown and the exact threshold is never decided differently from the bands shown.
A band that cannot be given says why (:func:`missing_band_why`), and so does the disabled button.

In a session the scores, table and bands are computed in a background thread
(:meth:`CalibrationView.refresh`, as the Settings sweep): until they are drawn the tab says
``Computing precision and recall at every threshold on 10 labelled runs (Embedding cosine)…``
(``me-calibration-status``, :func:`computing_text`), the results under it are dimmed by Panel's
loading indicator, the chart draws no band and "Use these bands" is disabled (a trial saw ~3 s of
an empty chart with a stale gray band and a live button). "Stored scores" exist only for the
bundled pairs: with "This case set" chosen the button is disabled (``me-stored-off``) and says so.
"""

from __future__ import annotations

import html
import math
import threading
from pathlib import Path
from typing import Callable

import numpy as np
import panel as pn
import param
from bokeh.models import BoxAnnotation, ColumnDataSource, HoverTool, Legend, LegendItem
from bokeh.plotting import figure

from ...core.evaluation.calibration import Bands, choose_bands, threshold_table
from ...core.evaluation.sample_size import DEFAULT_HALF_WIDTH, class_need
from ...core.scoring.embedding import EmbedderIdentity, SimilarityUnavailable, make_embedder, require_similarity
from ...core.evaluation.features import Features
from ...core.io.pairs import PairSet, load_pairs
from ...core.evaluation.response_features import ResponseFeatures
from ...core.scoring.passmark import quantise, show_threshold
from ...core.scoring.response_scorers import CosineScorer, make_scorer
from ...core.plural import counted, half_width_words
from ..loading import LatestJob
from .response_inputs import model_html
from .style import LiveHTML, styled
from ..highlight import escape_whole

BUNDLED_PAIRS = Path(__file__).resolve().parents[3] / "cases" / "labelled_pairs.json"
"""The 20 labelled pairs bundled with the explorer (12 acceptable, 8 not)."""
SOURCE_OPTIONS = {"This case set": "case", "Bundled labelled pairs": "pairs"}
SCORE_OPTIONS = {"Embedding cosine": "cosine", "Unigram F1": "f1", "ROUGE-1 (ADK)": "rouge1", "Stored scores": "stored"}
"""Score label -> name; ``stored`` only for the pairs (their illustrative stored scores)."""
SCORE_LABELS = {name: label for label, name in SCORE_OPTIONS.items()}
STORED_OFF = (
    ":host(.me-stored-off) .bk-btn-group > .bk-btn:last-child "
    "{ opacity: 0.45; cursor: not-allowed; pointer-events: none; }"
)
"""The "Stored scores" button greyed out and not clickable while the case set is the source."""
STORED_ONLY_PAIRS = "Stored scores exist only for the bundled pairs: choose Bundled labelled pairs to use them."

_PAIR_SCORES: dict[str, np.ndarray] = {}
_PAIRS: list[PairSet] = []
_LOCK = threading.Lock()


def bundled_pairs() -> PairSet:
    """The bundled pairs, loaded once per process (LoadError if the file is damaged)."""
    with _LOCK:
        if not _PAIRS:
            _PAIRS.append(load_pairs(BUNDLED_PAIRS))
        return _PAIRS[0]


def pair_scores(name: str) -> np.ndarray:
    """float64 (20,) scores of the bundled pairs by scorer ``name`` (``stored``, ``f1``,
    ``rouge1``, ``cosine``), computed once per process. Raises SimilarityUnavailable for cosine
    without the similarity extra."""
    ps = bundled_pairs()
    with _LOCK:
        if name not in _PAIR_SCORES:
            if name == "stored":
                scores = ps.stored_scores()
            else:
                if name == "cosine":
                    require_similarity()
                    scorer = CosineScorer(make_embedder())
                else:
                    scorer = make_scorer(name)
                scores = scorer.score_many([p.candidate for p in ps.pairs], [p.references for p in ps.pairs])
            _PAIR_SCORES[name] = np.asarray(scores, dtype=np.float64)
        return _PAIR_SCORES[name]


def _f(x: float | None) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


MAX_ROWS = 120
"""Table rows and chart points shown at most (thinned evenly, the first and last kept)."""


def thin(n: int, limit: int = MAX_ROWS) -> np.ndarray:
    """int64 indices of at most ``limit`` rows of ``n``, evenly spread, first and last kept."""
    if n <= limit:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, limit).round().astype(np.int64))


SHOWN_DECIMALS = 3
"""Most decimals a threshold is shown with on this tab (its full value is in the tooltip)."""


def threshold_text(value: float) -> str:
    """A threshold as the tab shows it: its shortest exact text when that has at most
    ``SHOWN_DECIMALS`` decimals (``0.89`` -> ``"0.89"``, ``1.0`` -> ``"1"``), else rounded to 3
    (``0.113107273375`` -> ``"0.113"``; ``14 / 27`` -> ``"0.519"``)."""
    exact = show_threshold(value)
    decimals = len(exact.split(".")[1]) if "." in exact else 0
    return exact if decimals <= SHOWN_DECIMALS else f"{quantise(value):.{SHOWN_DECIMALS}f}"


def threshold_html(value: float) -> str:
    """:func:`threshold_text` with the full value in a tooltip when it was rounded."""
    shown, exact = threshold_text(value), show_threshold(value)
    if shown == exact:
        return shown
    return f'<span class="me-threshold-exact" title="exactly {exact}">{shown}</span>'


def table_html(table) -> str:
    """The precision-recall table as HTML (numbers only; at most ``MAX_ROWS`` rows, evenly
    thinned, with a note saying so; thresholds as :func:`threshold_html`)."""
    note = f'<div class="me-hint">{MAX_ROWS} of {len(table)} thresholds shown, evenly spread.</div>' if len(table) > MAX_ROWS else ""
    table = table.iloc[thin(len(table))]
    head = "".join(f"<th>{h}</th>" for h in ("threshold", "passed", "TP", "FP", "FN", "TN", "precision", "recall", "F-measure"))
    rows = []
    for r in table.itertuples(index=False):
        rows.append(
            f"<tr><td>{threshold_html(r.threshold)}</td><td>{r.passed}</td><td>{r.tp}</td><td>{r.fp}</td><td>{r.fn}</td>"
            f"<td>{r.tn}</td><td>{_f(r.precision)}</td><td>{_f(r.recall)}</td><td>{_f(r.f_measure)}</td></tr>"
        )
    return f'{note}<table class="me-pr-table"><tr>{head}</tr>{"".join(rows)}</table>'


def computing_text(source: str, score: str, n: int) -> str:
    """The line shown while the tab computes: ``"Computing precision and recall at every threshold
    on 10 labelled runs (Embedding cosine)…"`` (``source`` ``"case"``: ``n`` labelled runs, ``1
    labelled run``, ``no labelled run``; ``"pairs"``: ``on the 20 bundled labelled pairs``;
    ``score``: a name of :data:`SCORE_OPTIONS`)."""
    if source == "pairs":
        what = f"the {n:,} bundled labelled pairs"
    else:
        what = "no labelled run" if n == 0 else f"{n:,} labelled run" + ("" if n == 1 else "s")
    return f"Computing precision and recall at every threshold on {what} ({SCORE_LABELS[score]})…"


def missing_band_why(bands: Bands, scores: np.ndarray, acceptable: np.ndarray, band: str, unit: str = "pair") -> str:
    """Why ``band`` (``"pass"`` or ``"fail"``) of ``bands`` is empty, in a sentence (the rules of
    :func:`~explorer.core.evaluation.calibration.choose_bands`; ``scores`` and ``acceptable`` as
    given to it):

    * pass: no threshold gives precision >= the target (``"no threshold reaches precision 0.95"``);
    * fail, when the pass band starts at the lowest score: every pair passes, so none is left to
      fail; this is what a target at or below the share of acceptable pairs gives (12 of 20 =
      0.60: at the lowest threshold precision is already 0.60);
    * fail otherwise: no threshold (at or below the pass band, when there is one) has at least
      the target's share of unacceptable pairs beneath it.

    ``unit``: what is calibrated, ``"pair"`` (labelled pairs) or ``"run"`` (this case set's runs)."""
    target = f"{bands.target_precision:.2f}"
    if band == "pass":
        return f"no threshold reaches precision {target} on these {counted(len(scores), unit)}"
    if bands.pass_above is not None and not (quantise(scores) < quantise(bands.pass_above)).any():
        good = int(acceptable.sum())
        return (f"the pass band starts at the lowest score ({threshold_text(bands.pass_above)}): every {unit} passes, so none is "
                f"left to fail. Precision is already {good / len(scores):.2f} ({good} of {counted(len(scores), unit)} acceptable) "
                f"at the lowest threshold, which meets a target of {target}; raise the target above it for a fail band")
    where = "no threshold" if bands.pass_above is None else "no threshold at or below the pass band"
    return f"{where} has at least {target} of the {unit}s beneath it unacceptable"


def bands_html(bands: Bands, scores: np.ndarray, acceptable: np.ndarray, unit: str = "pair") -> str:
    """Pass / gray / fail bands with their counts (acceptable, not); an empty band says why
    (:func:`missing_band_why`). ``scores`` and ``acceptable``: what the bands were chosen from;
    ``unit``: ``"pair"`` or ``"run"``, what they are."""
    c = bands.counts

    def line(css: str, name: str, where: str, key: str, extra: str = "") -> str:
        return (
            f'<div class="{css}"><b>{name}</b> {where}: {c[key]["acceptable"]} acceptable, '
            f'{c[key]["unacceptable"]} unacceptable{extra}</div>'
        )

    def none(css: str, name: str, key: str) -> str:
        return f'<div class="{css}"><b>{name}</b> none: {html.escape(missing_band_why(bands, scores, acceptable, key, unit))}.</div>'

    pass_line = (none("me-band-pass", "Pass", "pass") if bands.pass_above is None else
                 line("me-band-pass", "Pass", f"score ≥ {threshold_html(bands.pass_above)}", "pass",
                      f" (precision {_f(bands.pass_precision)})"))
    fail_line = (none("me-band-fail", "Fail", "fail") if bands.fail_below is None else
                 line("me-band-fail", "Fail", f"score &lt; {threshold_html(bands.fail_below)}", "fail",
                      f" (share unacceptable {_f(bands.fail_purity)})"))
    return (
        f'<div class="me-bands-title">Bands for target precision {bands.target_precision:.2f}</div>'
        + pass_line
        + line("me-band-gray", "Gray", "in between, for review (by a person or an LLM evaluator)", "gray")
        + fail_line
    )


def labels_needed_html(bands: Bands, acceptable: int, unacceptable: int, half_width: float = DEFAULT_HALF_WIDTH,
                       unit: str = "pair") -> str:
    """How many labelled pairs (``unit`` ``"pair"``) or runs (``"run"``) are enough (issue 11, as
    ``metric-explorer calibrate``): per class, those needed for a 95 % Wilson interval of
    ±``half_width`` on the share of acceptable ones in the pass band and of unacceptable ones in
    the fail band, beside the count there is. A trial saw "acceptable pairs" on this case set's runs."""
    c = bands.counts
    acc = class_need(c["pass"]["acceptable"], acceptable, half_width)
    unacc = class_need(c["fail"]["unacceptable"], unacceptable, half_width)
    return (
        f'<div class="me-calibration-need">Labels for {half_width_words(half_width)} (95 %): acceptable {unit}s '
        f"<b>{acc.have:,}</b> ({acc.needed:,} needed), unacceptable <b>{unacc.have:,}</b> ({unacc.needed:,} needed) "
        f"(at today's band shares; {acc.needed_worst_case:,} per class in the worst case).</div>"
    )


class CalibrationState(param.Parameterized):
    """The page's own inputs."""

    source = param.Selector(objects=SOURCE_OPTIONS, default="case")
    score = param.Selector(objects=SCORE_OPTIONS, default="cosine")
    target_precision = param.Number(default=0.8, bounds=(0.05, 1.0), step=0.05)


class CalibrationView:
    """The Calibration tab. ``use_bands(pass_above, fail_below)`` is the session's command that
    puts the chosen bands into the cascade's sliders."""

    def __init__(self, response: ResponseFeatures, use_bands: Callable[[float, float], None]) -> None:
        self.response = response
        self.use_bands = use_bands
        self.state = CalibrationState()
        self.features: Features | None = None
        self.bands: Bands | None = None
        self.source = ColumnDataSource(data={"threshold": [], "precision": [], "recall": []})
        fig = figure(
            height=300, sizing_mode="stretch_width", x_range=(0, 1), y_range=(-0.02, 1.05), toolbar_location=None,
            tools="", x_axis_label="threshold (pass when score ≥ threshold)", y_axis_label="share",
        )
        items = []
        for key, colour, dash in (("precision", "#0f766e", "solid"), ("recall", "#c77c02", "dashed")):
            r = fig.step("threshold", key, source=self.source, line_width=2.5, color=colour, mode="after", line_dash=dash)
            fig.scatter("threshold", key, source=self.source, size=5, color=colour)
            items.append(LegendItem(label=key, renderers=[r]))
        # no band until one is computed (a trial saw a stale 0.6-0.85 band over an empty chart)
        self.gray = BoxAnnotation(left=0.6, right=0.85, fill_color="#94a3b8", fill_alpha=0.18, visible=False)
        fig.add_layout(self.gray)
        fig.add_layout(Legend(items=items, orientation="horizontal", location="top_left"), "above")
        fig.add_tools(HoverTool(tooltips=[("threshold", "@threshold{0.000}"), ("precision", "@precision{0.000}"), ("recall", "@recall{0.000}")], mode="vline"))
        fig.outline_line_color = None
        fig.grid.grid_line_color = "#e5e7eb"
        self.figure = fig
        self.chart = pn.Column(pn.pane.Bokeh(fig, sizing_mode="stretch_width"), css_classes=["me-calibration-chart"], sizing_mode="stretch_width")
        p = self.state.param
        self.source_choice = pn.widgets.RadioButtonGroup.from_param(
            p.source, label="Pairs", css_classes=["me-calibration-source"], color="primary", variant="outline",
        )
        self.score_choice = pn.widgets.RadioButtonGroup.from_param(
            p.score, label="Score", css_classes=["me-calibration-score"], color="primary", variant="outline",
            stylesheets=[STORED_OFF],
        )
        self.stored_note = LiveHTML(f'<div class="me-hint">{html.escape(STORED_ONLY_PAIRS)}</div>',
                                    css_classes=["me-calibration-stored-note"], visible=False,
                                    **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.target = pn.widgets.FloatSlider.from_param(
            p.target_precision, label="Target precision", start=0.05, end=1.0, step=0.05, format="0.00",
            css_classes=["me-target-precision"], width=320,
        )
        self.use = pn.widgets.Button(label="Use these bands in the cascade", css_classes=["me-calibration-use"], color="primary",
                                     disabled=True)
        self.use.on_click(self._use)
        self.use_reason = LiveHTML("", css_classes=["me-calibration-use-reason"], visible=False,
                                   **styled(margin=(12, 6), sizing_mode="stretch_width"))
        self.info = LiveHTML("", css_classes=["me-calibration-info"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.model = LiveHTML("", css_classes=["me-embedding-model"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.bands_pane = LiveHTML("", css_classes=["me-calibration-bands"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.needed = LiveHTML("", css_classes=["me-calibration-labels-needed"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.table = LiveHTML("", css_classes=["me-calibration-table"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.status = LiveHTML("", css_classes=["me-calibration-status"], visible=False,
                               **styled(sizing_mode="stretch_width", margin=(0, 10)))
        self.results = pn.Column(
            self.info, self.model, self.bands_pane, self.needed,
            pn.Row(self.use, self.use_reason, sizing_mode="stretch_width", margin=0),
            self.chart, self.table, sizing_mode="stretch_width", margin=0,
        )
        """Everything computed, dimmed by Panel's loading indicator while it is computed."""
        self.jobs: LatestJob[dict] = LatestJob("the calibration")
        """The calibrations computing in the background, one at a time, the latest drawn."""
        self._stored_state()
        self.state.param.watch(lambda *_: self.refresh(), ["source", "score", "target_precision"])

    def _use(self, _event=None) -> None:
        b = self.bands
        if b is None or b.pass_above is None:
            return
        pass_above = min(max(b.pass_above, 0.0), 1.0)
        fail_below = min(max(b.fail_below if b.fail_below is not None else 0.0, 0.0), pass_above)
        # exactly as calibrated: rounding to the sliders' 0.01 could move a band past a score
        self.use_bands(pass_above, fail_below)

    def show(self, features: Features) -> None:
        """Recompute for the session's labelled ``features`` (called when labels change)."""
        self.features = features
        self.refresh()

    def _inputs(self, source: str, score: str) -> tuple[np.ndarray, np.ndarray, str, EmbedderIdentity | None]:
        """(scores, acceptable, description, embedding identity) for ``source`` and ``score``.
        Raises ValueError for stored scores of the case set, SimilarityUnavailable for cosine
        without the similarity extra."""
        if source == "pairs":
            ps = bundled_pairs()
            scores = pair_scores(score)
            identity = make_embedder().identity() if score == "cosine" else None
            # the name may hold brackets of its own: quoted after a comma, never in brackets
            what = f"{len(ps.pairs)} bundled labelled pairs, “{escape_whole(ps.name)}”"
            return scores, ps.labels(), what, identity
        if score == "stored":
            raise ValueError("stored scores exist only for the bundled pairs")
        assert self.features is not None
        human = self.features.human
        # an empty answer (or a turn never run) fails at any threshold: not calibrated (as calibrate)
        labelled = (human >= 0) & self.features.has_answer
        column = {"cosine": self.response.cosine, "rouge1": self.response.rouge1}.get(score)
        scores = self.features.f1 if column is None else column()
        identity = self.response.embedding_identity() if score == "cosine" else None
        left_out = int(((human >= 0) & self.features.empty_answer).sum())
        what = f"{counted(int(labelled.sum()), 'labelled run')} of this case set (this session's labels)" + (
            f"; {left_out} with an empty answer left out (they fail at any threshold)" if left_out else "")
        return scores[labelled], human[labelled] == 1, what, identity

    def compute(self, source: str, score: str, target: float) -> dict:
        """What the tab draws for ``source``, ``score`` and ``target`` precision: ``{"why": str}``
        when it cannot be computed (stored scores of the case set, no similarity extra), else
        ``scores``, ``acceptable``, ``what``, ``identity``, ``table`` and ``bands``."""
        try:
            scores, acceptable, what, identity = self._inputs(source, score)
            table = threshold_table(scores, acceptable)
            bands = choose_bands(scores, acceptable, target)
        except SimilarityUnavailable as exc:
            return {"why": f"Embedding similarity unavailable: {exc}"}
        except ValueError as exc:
            return {"why": str(exc)}
        return {"scores": scores, "acceptable": acceptable, "what": what, "identity": identity, "table": table,
                "bands": bands, "score": score, "unit": "pair" if source == "pairs" else "run"}

    def _stored_state(self) -> bool:
        """Grey out "Stored scores" while the case set is the source; True when the chosen score
        was stored and has been put back to the default (which refreshes by itself)."""
        off = self.state.source == "case"
        classes = [c for c in self.score_choice.css_classes if c != "me-stored-off"]
        self.score_choice.css_classes = classes + (["me-stored-off"] if off else [])
        self.stored_note.visible = off
        if off and self.state.score == "stored":
            self.state.score = CalibrationState.param.score.default
            return True
        return False

    def refresh(self, background: bool | None = None) -> None:
        """Compute the table, chart and bands for the current choices and draw them, saying
        meanwhile that it is computing (:func:`computing_text`, Panel's loading indicator on the
        results, no band drawn, "Use these bands" disabled): in a background thread when
        ``background`` (default: in a session; :class:`~explorer.app.loading.LatestJob`: one at
        a time, only the latest asked for drawn), else at once."""
        if self.features is None:
            return
        if self._stored_state():
            return
        s = self.state
        source, score, target = s.source, s.score, s.target_precision
        n = len(bundled_pairs().pairs) if source == "pairs" else int(((self.features.human >= 0) & self.features.has_answer).sum())
        self._busy(computing_text(source, score, n))
        if background is None:
            background = pn.state.curdoc is not None
        if not background:
            self.jobs.stop()
            self.draw(self.compute(source, score, target))
            return
        self.jobs.submit(lambda _progress: self.compute(source, score, target), self._computed)

    def _computed(self, result: dict | None, error: str | None) -> None:
        if result is not None:
            self.draw(result)
        else:
            self._empty(f"The calibration could not be computed: {error}")

    @property
    def job(self):
        """The calibration computing, or computed and not drawn yet (None when idle)."""
        return self.jobs.job

    def poll(self) -> None:
        """Draw the calibration when it has finished, or start the one asked for meanwhile (what
        the session's periodic callback calls)."""
        self.jobs.poll()

    def stop(self) -> None:
        """Stop following a running computation (its result is dropped)."""
        self.jobs.stop()

    def _busy(self, text: str) -> None:
        self.status.object = f'<div class="me-hint me-calibration-computing" role="status">{html.escape(text)}</div>'
        self.status.visible = True
        self.results.loading = True
        self.gray.visible = False
        self.bands = None
        self.use.disabled = True
        self.use_reason.visible = False

    def _done(self) -> None:
        self.status.object = ""
        self.status.visible = False
        self.results.loading = False

    def draw(self, d: dict) -> None:
        """Draw a computed result ``d`` (:meth:`compute`)."""
        self._done()
        if "why" in d:
            self._empty(d["why"])
            return
        scores, acceptable, bands, table, identity = d["scores"], d["acceptable"], d["bands"], d["table"], d["identity"]
        self.bands = bands
        self.info.object = (
            f'<div class="me-calibration-what">{d["what"]}: {int(acceptable.sum())} acceptable, '
            f"{int((~acceptable).sum())} unacceptable; score {html.escape(d['score'])}</div>"
        )
        self.model.object = model_html(identity) if identity is not None else ""
        self.model.visible = identity is not None
        unit = d.get("unit", "pair")
        self.bands_pane.object = bands_html(bands, scores, acceptable, unit)
        self.needed.object = labels_needed_html(bands, int(acceptable.sum()), int((~acceptable).sum()), unit=unit)
        self.table.object = table_html(table)
        shown = table.iloc[thin(len(table), 2000)]  # the chart stays light on a big set
        self.source.data = {
            "threshold": shown["threshold"].to_numpy(),
            "precision": np.nan_to_num(shown["precision"].to_numpy(), nan=0.0),
            "recall": shown["recall"].to_numpy(),
        }
        lo = bands.fail_below if bands.fail_below is not None else float(table["threshold"].min())
        hi = bands.pass_above if bands.pass_above is not None else float(table["threshold"].max())
        self.gray.left, self.gray.right = lo, hi
        self.gray.visible = True
        self.figure.x_range.start = min(0.0, float(scores.min()))
        self._use_state(None if bands.pass_above is not None else
                        f"Nothing to use: {missing_band_why(bands, scores, acceptable, 'pass', unit)}. Lower the target precision.")

    def _empty(self, why: str) -> None:
        self._done()
        self.bands = None
        self.info.object = f'<div class="me-calibration-what">{html.escape(why[0].upper() + why[1:])}.</div>'
        self.model.visible = False
        self.bands_pane.object = ""
        self.needed.object = ""
        self.table.object = ""
        self.source.data = {"threshold": [], "precision": [], "recall": []}
        self.gray.visible = False
        self._use_state(f"Nothing to use: {why.rstrip('.')}.")

    def _use_state(self, why_not: str | None) -> None:
        """Enable "Use these bands in the cascade", or disable it with ``why_not`` beside it."""
        self.use.disabled = why_not is not None
        self.use_reason.object = f'<div class="me-hint">{html.escape(why_not)}</div>' if why_not else ""
        self.use_reason.visible = why_not is not None

    def panel(self) -> pn.Column:
        """The page."""
        return pn.Column(
            LiveHTML(
                "<h2>Calibration</h2><div class=\"me-hint\">A pair passes at a threshold when its score is at least the "
                "threshold. Pass-above: the lowest threshold whose precision reaches the target; fail-below: the highest "
                "threshold below which at least that share is unacceptable; in between, a person or an LLM evaluator "
                "decides (the cascade's review queue).</div>",
                **styled(margin=(0, 10), sizing_mode="stretch_width"),
            ),
            pn.Row(self.source_choice, self.score_choice),
            self.stored_note,
            self.target,
            self.status,
            self.results,
            css_classes=["me-card", "me-calibration"],
            sizing_mode="stretch_width",
        )
