"""Several annotators: their labels as a table, the ground truth made from them, how much they agree.

* :class:`Annotations`: every annotator's verdict on every run as int8 (N, A) (1 acceptable,
  0 unacceptable, -1 no label), built once when labels load;
* :func:`ground_truth`: the **consensus** verdict per run (majority of its labels; a tie makes the
  run *disputed*, fewer labels than ``min_labels`` makes it *too few labels*: both left out of the
  agreement figures like an unlabelled run but counted apart, each under its own name), or one
  chosen annotator's verdicts. Its ``human`` array is
  the int8 1/0/-1 contract of ``Features.human`` (``features.with_human(truth.human)``);
* :func:`inter_annotator`: percent agreement, Cohen's kappa (two annotators), Fleiss' kappa (three
  or more), Krippendorff's alpha (nominal), each with a 95 % interval, and the pairwise table;
* :func:`human_ceiling`: the evaluator's agreement with the consensus beside the annotators'
  agreement with each other, and whether the runs can tell them apart (Newcombe's interval of the
  difference, :data:`CEILING_METHOD`).

Sources: Cohen, J. (1960) "A coefficient of agreement for nominal scales"; Fleiss, J. L. (1971)
"Measuring nominal scale agreement among many raters", Psychological Bulletin 76:378-382;
Krippendorff, K. (2011) "Computing Krippendorff's alpha-reliability" (nominal metric). Point
values come from ``statsmodels`` (``cohens_kappa``, ``fleiss_kappa``) and ``krippendorff.alpha``;
intervals are percentile bootstraps over runs (2,000 resamples, seed 0). Every statistic here
depends on a run only through its count of labels per verdict, so resampling runs is drawing how
many runs of each distinct count pattern there are from a multinomial: the ``*_weighted``
functions compute a statistic for a whole batch of such draws as matrix work (the tests check
them against the libraries on the observed data).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Mapping, Sequence

import krippendorff
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa
from statsmodels.stats.proportion import confint_proportions_2indep

from ..io.model import AnnotatorLabel, Run
from .textcolumn import TextColumn
from ..plural import counted, half_width_words, noun
from .confidence import LEVEL, NO_SPREAD, RESAMPLES, SEED, Interval, bootstrap_kappa, wilson

CODES = {"acceptable": 1, "unacceptable": 0}
"""Verdict -> int8 code, as ``Features.human``."""
DISPUTES = ("", "tie", "too few labels")
"""Names of ``GroundTruth.dispute`` codes: 0 a verdict (or nobody labelled), 1 the labels tie
(disputed), 2 fewer labels than the minimum (too few labels, not disputed)."""


@dataclass(frozen=True, eq=False)
class Annotations:
    """Every annotator's verdict on every run.

    ``run_ids`` object (N,) in run order; ``annotators`` the A names, sorted; ``codes`` int8 (N, A):
    1 acceptable, 0 unacceptable, -1 this annotator gave no label; ``notes`` maps (run id,
    annotator) to a non-empty note.
    """

    run_ids: np.ndarray
    annotators: tuple[str, ...]
    codes: np.ndarray
    notes: Mapping[tuple[str, str], str]

    @property
    def n_labels(self) -> np.ndarray:
        """int64 (N,): labels each run has."""
        return np.count_nonzero(self.codes >= 0, axis=1)

    @property
    def counts(self) -> np.ndarray:
        """int64 (N, 2): per run, labels saying unacceptable (column 0) and acceptable (column 1)."""
        return np.stack([np.count_nonzero(self.codes == 0, axis=1), np.count_nonzero(self.codes == 1, axis=1)], axis=1)

    @property
    def has_labels(self) -> bool:
        """True when at least one run has a label."""
        return bool(self.codes.size) and bool(np.any(self.codes >= 0))


def annotations_from_labels(run_ids: Sequence[str], labels_by_run: Mapping[str, Sequence[AnnotatorLabel]]) -> Annotations:
    """The (N, A) table for ``run_ids`` from per-run label lists (ids not in ``run_ids`` are
    ignored; runs not listed have no labels), at load time. Raises
    ValueError when an annotator labels the same run twice (loaders refuse that earlier, naming
    the place).

    ``run_ids`` held as given when it is an array or a
    :class:`~explorer.core.evaluation.textcolumn.TextColumn` (a big set's ids: no Python string
    per run is made), else as an object array. Only the listed runs are visited, found by one
    hash join (``pyarrow.compute.index_in``), in run order (issue 14: at 10M runs a Python pass
    over every id cost 0.7 GB and seconds on the first page)."""
    ids = run_ids if isinstance(run_ids, (np.ndarray, TextColumn)) else np.asarray(list(run_ids), dtype=object)
    names = sorted({lab.annotator for labs in labels_by_run.values() for lab in labs})
    col = {a: j for j, a in enumerate(names)}
    codes = np.full((len(ids), len(names)), -1, dtype=np.int8)
    notes: dict[tuple[str, str], str] = {}
    listed = [rid for rid, labs in labels_by_run.items() if labs]
    if not listed:
        return Annotations(ids, tuple(names), codes, notes)
    haystack = ids.array if isinstance(ids, TextColumn) else pa.array([str(x) for x in ids], type=pa.string())
    where = pc.fill_null(pc.index_in(pa.array([str(x) for x in listed], type=pa.string()), value_set=haystack), -1).to_numpy()
    found = [(int(i), rid) for i, rid in zip(where, listed) if i >= 0]  # -1: not a run of the set
    for i, rid in sorted(found, key=lambda x: x[0]):
        for lab in labels_by_run[rid]:
            j = col[lab.annotator]
            if codes[i, j] >= 0:
                raise ValueError(f"run {rid}: annotator {lab.annotator!r} labels it twice")
            codes[i, j] = CODES[lab.verdict]
            if lab.note:
                notes[(rid, lab.annotator)] = lab.note
    return Annotations(ids, tuple(names), codes, notes)


def annotations_from_runs(runs: Sequence[Run]) -> Annotations:
    """The table of the ``labels`` the runs carry (``Run.labels``, from a case set or JSONL)."""
    return annotations_from_labels([r.id for r in runs], {r.id: r.labels for r in runs if r.labels})


@dataclass(frozen=True, eq=False)
class GroundTruth:
    """The verdicts the evaluator is scored against, made from several annotators' labels.

    ``human`` int8 (N,): 1 acceptable, 0 unacceptable, -1 no verdict (unlabelled, disputed or too
    few labels), the ``Features.human`` contract; ``disputed`` bool (N,) runs whose labels tie;
    ``dispute`` int8 (N,) codes into ``DISPUTES``; ``source`` ``"consensus"`` or ``"annotator
    NAME"``; ``min_labels`` the minimum used. A run with fewer labels than the minimum is not
    disputed (nobody disagrees): :attr:`too_few` marks it. ``single`` bool (N,) or None (none):
    runs no annotator labelled whose verdict is their single ``human_verdict`` (the consensus's
    ``fallback``), so a report can say how many verdicts are the annotators' and how many one
    person's (:attr:`from_single`, :attr:`from_annotators`).
    """

    human: np.ndarray
    disputed: np.ndarray
    dispute: np.ndarray
    source: str
    min_labels: int
    single: np.ndarray | None = None

    @property
    def too_few(self) -> np.ndarray:
        """bool (N,): labelled, but by fewer annotators than ``min_labels`` (no verdict)."""
        return self.dispute == 2

    @property
    def from_single(self) -> np.ndarray:
        """bool (N,): the verdict is the run's single ``human_verdict`` (no annotator labelled it);
        ``min_labels`` does not apply to these."""
        return np.zeros(self.human.shape, dtype=bool) if self.single is None else self.single

    @property
    def from_annotators(self) -> np.ndarray:
        """bool (N,): the verdict comes from annotators' labels (their consensus or the chosen one's)."""
        return (self.human >= 0) & ~self.from_single

    @property
    def apart(self) -> np.ndarray:
        """bool (N,): labelled but without a verdict (disputed or too few labels), counted apart."""
        return self.dispute > 0

    @property
    def unlabelled(self) -> np.ndarray:
        """bool (N,): no verdict, not disputed and no label short of the minimum (nobody labelled the run)."""
        return (self.human < 0) & ~self.apart

    def to_dict(self, run_ids: Sequence[str]) -> dict:
        """``{"source", "min_labels", "labelled", "from_annotators", "from_single_verdict",
        "unlabelled", "disputed": {"n", "ties", "too_few_labels", "ids"}, "too_few_labels": {"n",
        "ids"}}``: ``labelled`` = ``from_annotators`` (verdicts made from annotators' labels) +
        ``from_single_verdict`` (runs no annotator labelled, keeping their single
        ``human_verdict``); ``disputed`` counts and lists the ties only; its ``too_few_labels``
        list is kept for earlier readers (those runs are not disputed: the top-level
        ``too_few_labels`` counts them)."""
        ids = np.asarray(run_ids, dtype=object)
        few = [str(x) for x in ids[self.too_few]]
        return {
            "source": self.source,
            "min_labels": self.min_labels,
            "labelled": int(np.count_nonzero(self.human >= 0)),
            "from_annotators": int(np.count_nonzero(self.from_annotators)),
            "from_single_verdict": int(np.count_nonzero(self.from_single)),
            "unlabelled": int(np.count_nonzero(self.unlabelled)),
            "disputed": {
                "n": int(np.count_nonzero(self.disputed)),
                "ties": [str(x) for x in ids[self.dispute == 1]],
                "too_few_labels": few,
                "ids": [str(x) for x in ids[self.disputed]],
            },
            "too_few_labels": {"n": len(few), "ids": few},
        }


def ground_truth(annotations: Annotations, annotator: str | None = None, min_labels: int = 1,
                 fallback: np.ndarray | None = None) -> GroundTruth:
    """Ground truth from ``annotations``: numpy work over the (N, A) table.

    Consensus (``annotator`` None): a run with more acceptable than unacceptable labels is
    acceptable, the reverse unacceptable; equal non-zero counts are disputed (``"tie"``), and a
    run with at least one but fewer than ``min_labels`` labels has no verdict either
    (``"too few labels"``, :attr:`GroundTruth.too_few`, not disputed).
    A run nobody labelled takes ``fallback[i]`` (int8 (N,), e.g. ``Features.human`` from a single
    ``human_verdict``) when given, else -1; those that get a verdict so are
    :attr:`GroundTruth.from_single` (``min_labels`` counts annotators' labels only and does not
    apply to them: one person's verdict is kept whatever the minimum). With ``annotator``: that annotator's verdicts, -1 where
    they gave none; nothing is disputed.

    Raises ValueError for ``min_labels < 1``, an unknown annotator (naming the known ones) or a
    ``fallback`` of the wrong shape.
    """
    n = annotations.codes.shape[0]
    if min_labels < 1:
        raise ValueError(f"min_labels must be at least 1, got {min_labels}")
    if fallback is not None and np.shape(fallback) != (n,):
        raise ValueError(f"fallback must have shape ({n},), got {np.shape(fallback)}")
    none = np.zeros(n, dtype=np.int8)
    if annotator is not None:
        if annotator not in annotations.annotators:
            known = ", ".join(annotations.annotators) or "none"
            raise ValueError(f"no annotator named {annotator!r} (annotators: {known})")
        human = annotations.codes[:, annotations.annotators.index(annotator)].astype(np.int8)
        return GroundTruth(human, none.astype(bool), none, f"annotator {annotator}", min_labels)
    counts = annotations.counts
    unacc, acc = counts[:, 0], counts[:, 1]
    total = acc + unacc
    human = np.where(acc > unacc, 1, np.where(unacc > acc, 0, -1)).astype(np.int8)
    dispute = np.where((total > 0) & (total < min_labels), 2, np.where((total > 0) & (acc == unacc), 1, 0)).astype(np.int8)
    human[dispute > 0] = -1
    single = None
    if fallback is not None:
        nobody = total == 0
        human[nobody] = np.asarray(fallback, dtype=np.int8)[nobody]
        single = nobody & (human >= 0)
    return GroundTruth(human, dispute == 1, dispute, "consensus", min_labels, single)


# --- statistics over count tables (units × categories), for a batch of bootstrap weights --------


def percent_agreement_weighted(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mean over units of the share of agreeing label pairs, P_u = Σ_c n_uc(n_uc - 1) / (m_u(m_u - 1))
    (Fleiss 1971's P_i, for any number m_u >= 2 of labels per unit). ``table`` (U, C) counts with
    every m_u >= 2; ``weights`` (..., U) how many times each unit counts. Returns (...,) float64."""
    table = np.asarray(table, dtype=np.float64)
    m = table.sum(axis=1)
    p_u = (table * (table - 1)).sum(axis=1) / (m * (m - 1))
    w = np.asarray(weights, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ p_u) / w.sum(axis=-1)


def fleiss_kappa_weighted(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Fleiss' kappa (Fleiss 1971) of a (U, C) table whose units all have the same number m of
    labels, each unit counted ``weights[..., u]`` times: κ = (P̄ - P̄_e) / (1 - P̄_e), P̄ the
    weighted mean of P_u, P̄_e = Σ_c p_c², p_c the weighted share of labels in category c.
    Returns (...,) float64, NaN where P̄_e = 1. Raises ValueError when m differs between units."""
    table = np.asarray(table, dtype=np.float64)
    m = table.sum(axis=1)
    if m.size and np.any(m != m[0]):
        raise ValueError("Fleiss' kappa needs the same number of labels on every unit")
    w = np.asarray(weights, dtype=np.float64)
    n_units = w.sum(axis=-1)
    m0 = m[0] if m.size else 0.0
    p_u = ((table * table).sum(axis=1) - m0) / (m0 * (m0 - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = (w @ p_u) / n_units
        p_c = (w @ table) / (n_units * m0)[..., None]
        p_e = (p_c * p_c).sum(axis=-1)
        kappa = (p_bar - p_e) / (1.0 - p_e)
    return np.where(p_e < 1.0 - 1e-12, kappa, np.nan)


def alpha_nominal_weighted(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha for nominal data (Krippendorff 2011) of a (U, C) table of pairable
    units (each m_u >= 2 labels), each counted ``weights[..., u]`` times:
    α = 1 - (n - 1) (n - Σ_c o_cc) / (n² - Σ_c n_c²), where o_cc = Σ_u n_uc(n_uc - 1)/(m_u - 1) is
    the coincidence matrix's diagonal, n_c its marginals (= pairable values per category) and n
    their sum. Returns (...,) float64, NaN when every value is in one category."""
    table = np.asarray(table, dtype=np.float64)
    m = table.sum(axis=1)
    diag_u = (table * (table - 1)).sum(axis=1) / (m - 1)
    w = np.asarray(weights, dtype=np.float64)
    n_c = w @ table
    n = n_c.sum(axis=-1)
    expected = n * n - (n_c * n_c).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = 1.0 - (n - 1.0) * (n - w @ diag_u) / expected
    return np.where(expected > 0, alpha, np.nan)


def _row_patterns(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a non-negative integer (U, C) table and how many times each occurs
    (``np.unique(table, axis=0, return_counts=True)``, via one integer key per row: ~20× faster)."""
    table = np.asarray(table, dtype=np.int64)
    base = int(table.max()) + 1 if table.size else 1
    key = table @ (base ** np.arange(table.shape[1], dtype=np.int64))
    _, first, mult = np.unique(key, return_index=True, return_counts=True)
    return table[first], mult


def bootstrap_table(table: np.ndarray, statistic: Callable[[np.ndarray, np.ndarray], np.ndarray], value: float | None,
                    resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL, name: str = "the statistic") -> Interval:
    """``value`` (the statistic on the observed units) with a percentile bootstrap interval over
    units: each resample draws the U units with replacement, done as one multinomial draw over the
    distinct rows of ``table`` (equal in distribution), and ``statistic(patterns, weights)`` scores
    every resample at once. None limits, with ``reason`` in words naming the statistic ``name``,
    when ``value`` is None, fewer than half the resamples give a defined statistic, or the two
    percentiles coincide (no spread: not an interval)."""
    table = np.asarray(table)
    n_units = table.shape[0]
    if n_units == 0:
        return Interval(value, None, None, n_units, None, "bootstrap", "no run with two or more labels")
    if value is None:
        return Interval(value, None, None, n_units, None, "bootstrap",
                        f"{name} is undefined: every label gives the same verdict")
    patterns, mult = _row_patterns(table)
    weights = np.random.default_rng(seed).multinomial(n_units, mult / n_units, size=resamples)
    stats = statistic(patterns, weights)
    ok = stats[~np.isnan(stats)]
    if ok.size < max(1, resamples // 2):
        return Interval(value, None, None, n_units, None, "bootstrap",
                        f"too few runs: {name} is undefined in most resamples")
    low, high = np.quantile(ok, [(1 - level) / 2, (1 + level) / 2])
    if high - low <= NO_SPREAD:
        return Interval(value, None, None, n_units, None, "bootstrap", table_no_spread_reason(table, name))
    return Interval(value, float(low), float(high), n_units, None, "bootstrap")


def table_no_spread_reason(table: np.ndarray, name: str) -> str:
    """Why a bootstrap over the (U, C) count table has no spread, in words: every run's labels
    agree (the statistic is 1 in every resample), or else too few runs."""
    table = np.asarray(table)
    if np.all(np.count_nonzero(table, axis=1) <= 1):
        return f"the annotators agree on every run, so {name} is 1 in every resample"
    return f"too few runs: {name} takes the same value in nearly every resample"


# --- inter-annotator agreement -----------------------------------------------------------------


@dataclass(frozen=True)
class PairAgreement:
    """Two annotators over the runs both labelled: ``n`` runs, ``agree`` of them the same verdict,
    ``percent`` (Wilson interval) and ``kappa`` (Cohen 1960, bootstrap interval)."""

    a: str
    b: str
    n: int
    agree: int
    percent: Interval
    kappa: Interval

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {"a": self.a, "b": self.b, "n": self.n, "agree": self.agree,
                "percent_agreement": self.percent.to_dict(), "cohen_kappa": self.kappa.to_dict()}


@dataclass(frozen=True)
class InterAnnotator:
    """How much the annotators agree with each other.

    ``runs`` runs with at least two labels (the only ones that can show agreement);
    ``percent_agreement``: mean share of agreeing label pairs per run (with exactly two labels per
    run: runs agreeing / runs, Wilson interval; otherwise bootstrap); ``cohen_kappa``: with exactly
    two annotators, over the runs both labelled (else None); ``fleiss_kappa``: with three or more,
    over the runs every annotator labelled (``fleiss_runs``; None when there are none);
    ``krippendorff_alpha``: nominal, every run with >= 2 labels (missing labels allowed);
    ``pairwise``: one :class:`PairAgreement` per pair of annotators.
    """

    annotators: tuple[str, ...]
    runs: int
    percent_agreement: Interval
    cohen_kappa: Interval | None
    fleiss_kappa: Interval | None
    fleiss_runs: int
    krippendorff_alpha: Interval | None
    pairwise: tuple[PairAgreement, ...]

    def to_dict(self) -> dict:
        """JSON-ready; each figure ``{"value", "low", "high", "n"}``."""
        d = lambda x: None if x is None else x.to_dict()  # noqa: E731
        return {
            "annotators": list(self.annotators),
            "runs_with_two_or_more_labels": self.runs,
            "percent_agreement": d(self.percent_agreement),
            "cohen_kappa": d(self.cohen_kappa),
            "fleiss_kappa": d(self.fleiss_kappa),
            "krippendorff_alpha": d(self.krippendorff_alpha),
            "pairwise": [p.to_dict() for p in self.pairwise],
            "method": {
                "percent_agreement": "Wilson score (two labels per run) or percentile bootstrap over runs",
                "cohen_kappa": "Cohen 1960; percentile bootstrap over runs",
                "fleiss_kappa": "Fleiss 1971 (statsmodels), over runs every annotator labelled; percentile bootstrap over runs",
                "krippendorff_alpha": "Krippendorff's alpha, nominal (krippendorff package); percentile bootstrap over runs",
            },
        }


def pair_agreement(codes_a: np.ndarray, codes_b: np.ndarray, a: str = "a", b: str = "b", resamples: int = RESAMPLES,
                   seed: int = SEED, level: float = LEVEL) -> PairAgreement:
    """Agreement of two int8 (N,) verdict columns (1/0/-1) over the runs both labelled: percent
    agreement (Wilson) and Cohen's kappa (statsmodels ``cohens_kappa``; bootstrap interval)."""
    both = (codes_a >= 0) & (codes_b >= 0)
    x, y = codes_a[both] == 1, codes_b[both] == 1
    cells = [int(np.count_nonzero(x & y)), int(np.count_nonzero(x & ~y)), int(np.count_nonzero(~x & y)), int(np.count_nonzero(~x & ~y))]
    n = sum(cells)
    agree = cells[0] + cells[3]
    kappa = bootstrap_kappa(*cells, resamples=resamples, seed=seed, level=level, sides=(a, b))
    if kappa.value is not None:  # the library's value (same formula; the tests check)
        value = float(cohens_kappa(np.array([[cells[0], cells[1]], [cells[2], cells[3]]]), return_results=False))
        kappa = Interval(value, kappa.low, kappa.high, n, None, "bootstrap", kappa.reason)
    return PairAgreement(a, b, n, agree, wilson(agree, n, level), kappa)


def _alpha_value(table: np.ndarray) -> float | None:
    """Krippendorff's nominal alpha of a (U, C) count table by the krippendorff package; None
    when every value is in one category (alpha undefined)."""
    if np.count_nonzero(table.sum(axis=0)) < 2:
        return None
    return float(krippendorff.alpha(value_counts=table, level_of_measurement="nominal"))


def inter_annotator(annotations: Annotations, resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL) -> InterAnnotator:
    """Inter-annotator agreement of ``annotations`` (see :class:`InterAnnotator`). Cost: the
    pairwise table is O(A² · N); each bootstrap O(resamples · distinct label patterns)."""
    names = annotations.annotators
    codes = annotations.codes
    counts = annotations.counts
    m = counts.sum(axis=1)
    pairable = counts[m >= 2]
    if pairable.shape[0] and np.all(pairable.sum(axis=1) == 2):
        agree = int(np.count_nonzero(pairable.max(axis=1) == 2))
        percent = wilson(agree, pairable.shape[0], level)
    else:
        value = None if not pairable.shape[0] else float(percent_agreement_weighted(pairable, np.ones(pairable.shape[0])))
        percent = bootstrap_table(pairable, percent_agreement_weighted, value, resamples, seed, level, "percent agreement")
    pairwise = tuple(
        pair_agreement(codes[:, i], codes[:, j], names[i], names[j], resamples, seed, level)
        for i, j in combinations(range(len(names)), 2)
    )
    cohen = pairwise[0].kappa if len(names) == 2 else None
    fleiss = None
    complete = counts[m == len(names)] if len(names) >= 3 else counts[:0]
    if len(names) >= 3 and complete.shape[0]:
        value = float(fleiss_kappa(complete, method="fleiss"))
        fleiss = bootstrap_table(complete, fleiss_kappa_weighted, None if np.isnan(value) else value, resamples, seed, level,
                                 "Fleiss' kappa")
    alpha = None
    if len(names) >= 2 and pairable.shape[0]:
        alpha = bootstrap_table(pairable, alpha_nominal_weighted, _alpha_value(pairable), resamples, seed, level,
                                "Krippendorff's alpha")
    return InterAnnotator(names, int(pairable.shape[0]), percent, cohen, fleiss, int(complete.shape[0]), alpha, pairwise)


# --- the human ceiling -------------------------------------------------------------------------


CEILING_MARGIN = 0.05
"""How close (±5 points, the half-width the labels-needed figures aim at) the evaluator's agreement
must be shown to be to the people's before the human ceiling calls it "as good as" them."""
CEILING_METHOD = ("95 % interval of the difference, Newcombe's hybrid score interval (Newcombe 1998, method 10; "
                  "statsmodels confint_proportions_2indep(method='newcomb')), the two figures taken as independent "
                  "samples; better or worse when it excludes 0, as good as when it lies within ±5 points "
                  "(equivalence by interval inclusion, Schuirmann 1987), else not enough runs to tell")
"""How :func:`human_ceiling` decides, as reports state it."""
CEILING_VERDICTS = ("better", "worse", "as good as", "cannot tell")
"""``HumanCeiling.verdict`` values (``None`` when either figure is undefined)."""


@dataclass(frozen=True)
class HumanCeiling:
    """The evaluator beside the people: ``evaluator_vs_truth`` its agreement with the ground truth
    (consensus) over the runs that have one; ``annotators_vs_each_other`` the annotators' percent
    agreement; ``evaluator_vs_annotator`` its agreement with each annotator over the runs they
    labelled; ``difference`` evaluator minus people with its 95 % interval (``method``
    ``"newcombe"``; None when either figure is undefined); ``verdict`` one of
    :data:`CEILING_VERDICTS` or None; ``reading`` one plain sentence. ``single_left_out``: runs
    whose verdict is the file's single ``human_verdict`` (no annotator labelled them,
    :attr:`GroundTruth.from_single`), left out of ``evaluator_vs_truth``: no annotator can
    disagree on them, so they say nothing of the evaluator beside the people."""

    evaluator_vs_truth: Interval
    annotators_vs_each_other: Interval
    evaluator_vs_annotator: Mapping[str, Interval]
    reading: str
    difference: Interval | None = None
    verdict: str | None = None
    single_left_out: int = 0

    def to_dict(self) -> dict:
        """JSON-ready."""
        return {
            "evaluator_vs_consensus": self.evaluator_vs_truth.to_dict(),
            "annotators_vs_each_other": self.annotators_vs_each_other.to_dict(),
            "evaluator_vs_annotator": {k: v.to_dict() for k, v in self.evaluator_vs_annotator.items()},
            "difference": None if self.difference is None else self.difference.to_dict(),
            "verdict": self.verdict,
            "reading": self.reading,
            "method": CEILING_METHOD,
            "single_verdict_left_out": self.single_left_out,
        }


def ceiling_difference(evaluator: Interval, people: Interval, level: float = LEVEL) -> Interval | None:
    """``evaluator.value - people.value`` with a 95 % interval, None when either value is None.

    Both figures counts (Wilson intervals): Newcombe's hybrid score interval for the difference of
    two independent proportions (Newcombe, R. G. 1998, "Interval estimation for the difference
    between independent proportions: comparison of eleven methods", Statistics in Medicine
    17:873-890, method 10), by statsmodels' ``confint_proportions_2indep(method="newcomb")``.
    The people's figure a bootstrap mean (three or more labels per run): the same construction
    from its bootstrap limits (MOVER, Zou & Donner 2008), d - sqrt((p1 - l1)² + (u2 - p2)²) to
    d + sqrt((u1 - p1)² + (p2 - l2)²). Limits None (reason given) when the people's figure has
    no interval. The two figures come from overlapping runs; the interval treats them as
    independent samples, as the page and report say."""
    if evaluator.value is None or people.value is None:
        return None
    d = evaluator.value - people.value
    if people.low is None or people.high is None:
        return Interval(d, None, None, evaluator.n, None, "newcombe",
                        f"the annotators' agreement has no interval ({people.reason or 'too few runs'})")
    if people.count is not None:
        low, high = confint_proportions_2indep(evaluator.count, evaluator.n, people.count, people.n,
                                               method="newcomb", compare="diff", alpha=1 - level)
    else:
        low = d - float(np.hypot(evaluator.value - evaluator.low, people.high - people.value))
        high = d + float(np.hypot(evaluator.high - evaluator.value, people.value - people.low))
    return Interval(d, max(float(low), -1.0), min(float(high), 1.0), evaluator.n, None, "newcombe")


def ceiling_verdict(diff: Interval | None, margin: float = CEILING_MARGIN) -> str | None:
    """``"better"`` / ``"worse"`` when the interval of the difference excludes 0, ``"as good as"``
    when it lies within ±``margin``, else ``"cannot tell"``; None without a difference."""
    if diff is None:
        return None
    if diff.low is None or diff.high is None:
        return "cannot tell"
    if diff.low > 0:
        return "better"
    if diff.high < 0:
        return "worse"
    if -margin <= diff.low and diff.high <= margin:
        return "as good as"
    return "cannot tell"


def _points(x: float) -> str:
    """``-0.4211`` -> ``"-42"``, ``0.02`` -> ``"+2"``, ``0.001`` -> ``"0"`` (percentage points)."""
    v = round(100 * x)
    return f"{v:+d}" if v else "0"


def ceiling_reading(source: str, evaluator: Interval, people: Interval, diff: Interval | None, verdict: str | None,
                    margin: float = CEILING_MARGIN, single_left_out: int = 0) -> str:
    """The human ceiling in one sentence (lower case, no full stop), claiming "as good as",
    "worse than" or "better than" only when :func:`ceiling_verdict` does. ``single_left_out``
    (>= 0) runs keeping the file's single verdict were left out of ``evaluator``; when there are
    any the sentence says the figure is over the runs the annotators labelled and how many were
    left out."""
    if diff is None or verdict is None:
        return "not enough labels to compare the evaluator with the people"
    over = (f"of the runs the annotators' labels decide ({evaluator.count:,}/{evaluator.n:,}; "
            f"{counted(single_left_out, 'run')} with only the file's single verdict left out)"
            if single_left_out else f"of runs ({evaluator.count:,}/{evaluator.n:,})")
    head = (f"the evaluator agrees with the {source} on {100 * evaluator.value:.0f} % {over}, "
            f"the annotators with each other on {100 * people.value:.0f} %"
            + (f" ({people.count:,}/{people.n:,})" if people.count is not None else f" (of {counted(people.n, 'run')})"))
    if diff.low is None or diff.high is None:
        return f"{head}: not enough runs to tell whether the scorer is as good as the people: {diff.reason}"
    ci = f"difference {_points(diff.value)} {noun(round(100 * diff.value), 'point')}, Newcombe 95 % CI {_points(diff.low)} to {_points(diff.high)}"
    if verdict == "worse":
        return f"{head}: the scorer is worse than the people ({ci}): there is room to improve the scorer"
    if verdict == "better":
        return f"{head}: the scorer agrees more often than the people agree with each other ({ci})"
    if verdict == "as good as":
        return f"{head}: the scorer is as good as the people are ({ci}, within {half_width_words(margin)})"
    return f"{head}: not enough runs to tell whether the scorer is as good as the people ({ci})"


def human_ceiling(passed: np.ndarray, annotations: Annotations, truth: GroundTruth, inter: InterAnnotator,
                  level: float = LEVEL) -> HumanCeiling:
    """The evaluator's agreement (bool (N,) ``passed``) with ``truth`` and with each annotator,
    beside ``inter.percent_agreement``. The reading says the evaluator is better than, worse
    than or as good as the people only when the 95 % interval of the difference supports it
    (:data:`CEILING_METHOD`: :func:`ceiling_difference`, :func:`ceiling_verdict`), and that
    there are not enough runs to tell otherwise. The agreement with ``truth`` counts the runs
    whose verdict the annotators' labels give (:attr:`GroundTruth.from_annotators`): a run keeping
    the file's single ``human_verdict`` has no consensus nobody could disagree with, and is left
    out (``HumanCeiling.single_left_out``)."""
    passed = np.asarray(passed, dtype=bool)
    has = truth.from_annotators
    single = int(np.count_nonzero(truth.from_single))
    vs_truth = wilson(int(np.count_nonzero(passed[has] == (truth.human[has] == 1))), int(np.count_nonzero(has)), level)
    per: dict[str, Interval] = {}
    for j, name in enumerate(annotations.annotators):
        col = annotations.codes[:, j]
        lab = col >= 0
        per[name] = wilson(int(np.count_nonzero(passed[lab] == (col[lab] == 1))), int(np.count_nonzero(lab)), level)
    people = inter.percent_agreement
    diff = ceiling_difference(vs_truth, people, level)
    verdict = ceiling_verdict(diff)
    reading = ceiling_reading(truth.source, vs_truth, people, diff, verdict, single_left_out=single)
    return HumanCeiling(vs_truth, people, per, reading, diff, verdict, single)


def annotations_of(case_set) -> Annotations:
    """The annotators' labels of a loaded case set: from each run's ``labels``, or for a big set
    whose runs are rebuilt on access (runs carrying ``features``) from the labels CSV applied over
    it (``runs.annotated``), without rebuilding a run. Labels written inside a big JSONL file are
    not collected here (their majority is the run's verdict all the same)."""
    runs = case_set.runs
    ready = getattr(runs, "features", None)
    if ready is not None:
        return annotations_from_labels(ready.run_ids, getattr(runs, "annotated", None) or {})
    return annotations_from_runs(runs)
