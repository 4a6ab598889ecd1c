"""Per-case-set response columns for the chosen response scorer, computed once and cached.

:class:`~explorer.core.evaluation.features.Features` holds unigram F1 (cheap, always there). The other
response scorers (:mod:`explorer.core.scoring.response_scorers`) are columns of this module's
:class:`ResponseFeatures`, computed on first use for one case set and kept:

* ``rouge1``: float64 (N,), ADK's ROUGE-1 F, mean over a run's invocations, and
  :meth:`~ResponseFeatures.rouge1_blind`: bool (N,) a turn scored 0 only because its text is not
  Latin script (ADK's tokenizer keeps ``a-z0-9``), said in the run's reason;
* ``exact`` at rung r: float64 (N,) of 1.0 / 0.0, one column per rung and date reading asked for;
* ``cosine``: float64 (N,), best embedding cosine over the references, mean over invocations,
  and :meth:`~ResponseFeatures.cosine_windowed`: bool (N,) a text was longer than the model's
  window (embedded in windows and pooled; the reason says so); needs the ``similarity`` extra
  (embedder loaded on first use; :class:`SimilarityUnavailable` says how to install it);
* ``cascade`` at rung r: :class:`~explorer.core.scoring.cascade.CascadeFeatures` (stages 1-2 and the
  cosine score), one per rung and date reading asked for.

Score columns are quantised (:func:`explorer.core.scoring.passmark.quantise`) when made, so a
check is ``column >= threshold`` with the threshold as :class:`Settings` stores it.

:meth:`ResponseFeatures.check` turns a column and :class:`~explorer.core.evaluation.settings.Settings` into the
response check :func:`explorer.core.evaluation.verdicts.evaluate` uses in place of ``F1 >= threshold``;
moving the cascade's bands or the threshold is numpy work on the cached columns.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..scoring.cascade import CascadeFeatures, CascadeResult, CascadeSettings, apply_bands_decided, cascade_features
from ..scoring.embedding import Embedder, EmbedderIdentity, SimilarityUnavailable, make_embedder, require_similarity
from ..io.model import CaseSet
from ..scoring.passmark import quantise
from ..scoring.response_scorers import CosineScorer, make_scorer, rouge1_blind, run_scores
from .response_columns import column_identity, cosine_column, rouge1_column
from .settings import Settings

NEEDS_EMBEDDER = ("cosine", "cascade")
PARALLEL_MIN_RUNS = 20_000
"""From this many runs, :meth:`ResponseFeatures.rouge1` and :meth:`ResponseFeatures.cosine` run in worker processes."""
"""Scorers that need the embedding model (the ``similarity`` extra)."""


@dataclass(frozen=True, eq=False)
class ResponseCheck:
    """The response check for one setting over N runs.

    * ``name``: the scorer (``Settings.response_scorer``);
    * ``score``: float64 (N,) the scorer's score (cascade: the cosine, NaN where an earlier
      stage decided);
    * ``value``: float64 (N,) what ``combine="mean"`` averages with the trajectory score (the
      score; for the cascade 1.0 where it passes, else 0.0);
    * ``passed``: bool (N,) the check passes (plain scorers: ``score >= f1_threshold``; cascade:
      the cascade passes; a run waiting for review does not pass);
    * ``cascade`` / ``cascade_features``: the cascade's verdicts and inputs (None otherwise);
    * ``embedding``: the model that made cosine scores (None when none was used);
    * ``note``: bool (N,) or None: where the score needs a word in the reason (``rouge1``: 0
      because the text is not Latin script; ``cosine``: a text longer than the model's window).
    """

    name: str
    score: np.ndarray
    value: np.ndarray
    passed: np.ndarray
    cascade: CascadeResult | None = None
    cascade_features: CascadeFeatures | None = None
    embedding: EmbedderIdentity | None = None
    note: np.ndarray | None = None


class ResponseFeatures:
    """Cached response columns for one ``case_set`` (see the module docstring).

    ``locale`` / ``day_first`` feed rung 4 and the cascade's field rules (``day_first`` None:
    the case set's own setting; a :class:`Settings` with its own ``day_first`` overrides it in
    :meth:`check`); ``backend`` is the embedding backend (``onnx-int8`` or
    ``exact``), or pass an ``embedder``. Columns are computed lazily, once, under a lock (app
    sessions share one instance). Raises :class:`SimilarityUnavailable` from ``cosine`` /
    ``cascade`` when the similarity extra is missing, ValueError for an unknown locale.
    """

    def __init__(
        self,
        case_set: CaseSet,
        *,
        locale: str = "en",
        day_first: bool | None = None,
        backend: str = "onnx-int8",
        embedder: Embedder | None = None,
    ) -> None:
        self.case_set = case_set
        self.locale = locale
        self.day_first = case_set.day_first if day_first is None else bool(day_first)
        self.backend = backend
        self._embedder = embedder
        self._columns: dict[tuple, object] = {}
        self._given_identity: EmbedderIdentity | None = None
        self._lock = threading.RLock()
        CascadeSettings(locale=locale)  # validates the locale now, not on first use

    @property
    def n(self) -> int:
        """Number of runs N."""
        return len(self.case_set.runs)

    def available(self, name: str) -> bool:
        """True when scorer ``name`` can be computed here (cosine/cascade need the extra)."""
        if name not in NEEDS_EMBEDDER or self._embedder is not None or (name, 0) in self._columns:
            return True
        try:
            require_similarity(self.backend)
        except SimilarityUnavailable:
            return False
        return True

    def embedder(self) -> Embedder:
        """The embedder (made on first call). Raises SimilarityUnavailable with the install hint."""
        with self._lock:
            if self._embedder is None:
                require_similarity(self.backend)
                self._embedder = make_embedder(self.backend)
            return self._embedder

    def embedding_identity(self) -> EmbedderIdentity | None:
        """Model name, backend and weights hash of the embedder, once one has been made (or of the
        one that made a cosine column given to :meth:`put_column`)."""
        if self._embedder is not None:
            return self._embedder.identity()
        return self._given_identity

    def _cached(self, key: tuple, make):
        with self._lock:
            if key not in self._columns:
                self._columns[key] = self._stored(key, make)
            return self._columns[key]

    def _stored(self, key: tuple, make):
        """``make()``, or the column kept beside a features dataset (issue 14: the runs are
        :class:`~explorer.core.io.featurestore.StoredRuns`), keyed by ``key`` and what makes the
        values: :func:`~explorer.core.evaluation.response_columns.column_identity` (the scorer,
        for ROUGE-1 the rouge-score and nltk versions, for cosine the embedding model's identity),
        the product version and the locale."""
        store = getattr(self.case_set.runs, "response_columns", None)
        if store is None or key[0] == "cascade":
            return make()
        from ... import __version__

        cosine = key[0].startswith("cosine")
        identity: dict = {**column_identity("cosine" if cosine else key[0], self.embedder().identity() if cosine else None),
                          "scorer": key[0], "version": __version__, "locale": self.locale}
        got = store.load(key, identity)
        if got is not None:
            got.flags.writeable = False
            return got
        column = make()
        store.save(key, identity, column)
        return column

    def _reading(self, day_first: bool | None) -> bool:
        return self.day_first if day_first is None else bool(day_first)

    def rouge1(self) -> np.ndarray:
        """float64 (N,) ROUGE-1 F (ADK ``response_match_score``), mean over invocations; computed in
        worker processes for ``PARALLEL_MIN_RUNS`` runs or more
        (:func:`~explorer.core.evaluation.response_columns.rouge1_column`, same values)."""

        def make() -> np.ndarray:
            if self.n >= PARALLEL_MIN_RUNS:
                return rouge1_column(self.case_set.runs)
            return quantise(run_scores(make_scorer("rouge1"), self.case_set.runs))

        return self._cached(("rouge1", 0), make)

    def put_column(self, name: str, column: np.ndarray, windowed: np.ndarray | None = None,
                   identity: EmbedderIdentity | None = None) -> None:
        """Keep a column computed elsewhere (a feature file, :mod:`~explorer.core.evaluation.response_columns`)
        so it is not computed again: ``rouge1``, or ``cosine`` with its ``windowed`` flags and the
        ``identity`` of the embedder that made it, which must be this instance's backend's (the
        embedder is then not loaded until a text must be embedded). ``column``: float64 (N,) as
        :meth:`rouge1` / :meth:`cosine` return it. Raises ValueError for another name, a wrong
        length, or a cosine column from another model."""
        column = np.asarray(column, dtype=np.float64)
        if column.shape != (self.n,):
            raise ValueError(f"column must have shape ({self.n},), got {column.shape}")
        with self._lock:
            if name == "rouge1":
                self._columns[("rouge1", 0)] = column
                return
            if name != "cosine":
                raise ValueError(f"only rouge1 and cosine columns can be given, not {name!r}")
            if identity is None or windowed is None:
                raise ValueError("a cosine column needs its windowed flags and the identity of its embedder")
            if identity.backend != self.backend:
                raise ValueError(f"cosine column made by {identity.label()}, not by the {self.backend} backend")
            self._columns[("cosine", 0)] = column
            self._columns[("cosine_windowed", 0)] = np.asarray(windowed, dtype=bool)
            self._given_identity = identity

    def rouge1_blind(self) -> np.ndarray:
        """bool (N,): a turn of the run has ROUGE-1 0.0 only because its text is not Latin script
        (:func:`explorer.core.scoring.response_scorers.rouge1_blind` against every reference)."""

        def make() -> np.ndarray:
            return np.array(
                [
                    any(
                        all(rouge1_blind(inv.answer, r) for r in inv.references)
                        for inv in run.invocations
                    )
                    for run in self.case_set.runs
                ],
                dtype=bool,
            )

        return self._cached(("rouge1_blind", 0), make)

    def exact(self, rung: int, day_first: bool | None = None) -> np.ndarray:
        """float64 (N,): 1.0 where every invocation's answer equals a reference at ``rung``
        (mean over invocations, so a run of two with one match scores 0.5), dates read
        ``day_first`` (None: this instance's reading)."""
        reading = self._reading(day_first)
        scorer = make_scorer("exact", rung=rung, locale=self.locale, day_first=reading)
        return self._cached(("exact", rung, reading), lambda: quantise(run_scores(scorer, self.case_set.runs)))

    def cosine(self) -> np.ndarray:
        """float64 (N,) embedding cosine; from ``PARALLEL_MIN_RUNS`` runs on (int8 backend, no
        embedder given) computed by :func:`~explorer.core.evaluation.response_columns.cosine_column`
        in worker processes, with the same values. Raises SimilarityUnavailable."""

        def make() -> np.ndarray:
            if self.n >= PARALLEL_MIN_RUNS and self._embedder is None and self.backend == "onnx-int8":
                require_similarity(self.backend)
                column, windowed, identity = cosine_column(self.case_set.runs)
                self._columns[("cosine_windowed", 0)] = windowed
                self._given_identity = identity
                return column
            return quantise(run_scores(CosineScorer(self.embedder()), self.case_set.runs))

        return self._cached(("cosine", 0), make)

    def cosine_windowed(self) -> np.ndarray:
        """bool (N,): an answer or reference of the run is longer than the embedding model's
        window (embedded in windows and pooled). Raises SimilarityUnavailable."""
        if self.n >= PARALLEL_MIN_RUNS and self._embedder is None and self.backend == "onnx-int8":
            self.cosine()  # the parallel path gives the flags with the column

        def make() -> np.ndarray:
            scorer = CosineScorer(self.embedder())
            runs = self.case_set.runs
            flat = scorer.beyond_window([inv.answer for r in runs for inv in r.invocations], [inv.references for r in runs for inv in r.invocations])
            sizes = [len(r.invocations) for r in runs]
            bounds = np.cumsum([0, *sizes])
            return np.array([flat[bounds[k] : bounds[k + 1]].any() for k in range(len(runs))], dtype=bool)

        return self._cached(("cosine_windowed", 0), make)

    def cascade(self, rung: int, day_first: bool | None = None) -> CascadeFeatures:
        """The cascade's stages 1-2 and cosine scores at ``rung``, dates read ``day_first``
        (None: this instance's reading). Raises SimilarityUnavailable."""
        cs = self.case_set
        reading = self._reading(day_first)

        def make() -> CascadeFeatures:
            settings = CascadeSettings(rung=rung, locale=self.locale, day_first=reading, id_pattern=cs.id_pattern)
            return cascade_features(cs, CosineScorer(self.embedder()), settings)

        return self._cached(("cascade", rung, reading), make)

    def column(self, settings: Settings) -> np.ndarray:
        """The plain score column ``settings.response_scorer`` picks (not ``f1``/``cascade``)."""
        name = settings.response_scorer
        if name == "rouge1":
            return self.rouge1()
        if name == "exact":
            return self.exact(settings.rung, settings.day_first)
        if name == "cosine":
            return self.cosine()
        raise ValueError(f"no plain score column for response scorer {name!r}")

    def check(self, settings: Settings, decisions: np.ndarray | None = None) -> ResponseCheck:
        """The response check for ``settings`` (response scorer other than ``f1``).

        ``decisions``: int8 (N,) the person's review decisions for the cascade's gray band (1
        acceptable, 0 unacceptable, -1 undecided); ignored by plain scorers. Numpy work once the
        column is cached. Raises SimilarityUnavailable (cosine/cascade without the extra) and
        ValueError for ``f1``.
        """
        name = settings.response_scorer
        if name == "cascade":
            cf = self.cascade(settings.rung, settings.day_first)
            res = apply_bands_decided(cf, settings.pass_above, settings.fail_below, decisions)
            passed = res.passed == 1
            return ResponseCheck(name, cf.score, passed.astype(np.float64), passed, res, cf, self.embedding_identity())
        score = self.column(settings)
        identity = self.embedding_identity() if name == "cosine" else None
        note = self.rouge1_blind() if name == "rouge1" else self.cosine_windowed() if name == "cosine" else None
        return ResponseCheck(name, score, score, score >= settings.f1_threshold, embedding=identity, note=note)


_SHARED: dict[int, tuple[CaseSet, ResponseFeatures]] = {}
_SHARED_LOCK = threading.Lock()
_SHARED_MAX = 8


def response_features_for(case_set: CaseSet) -> ResponseFeatures:
    """The process-wide :class:`ResponseFeatures` of ``case_set`` (default locale and
    backend), so every session over the same loaded case set embeds it once. Keeps the last
    ``_SHARED_MAX`` case sets."""
    with _SHARED_LOCK:
        hit = _SHARED.get(id(case_set))
        if hit is not None and hit[0] is case_set:
            return hit[1]
        if len(_SHARED) >= _SHARED_MAX:
            _SHARED.pop(next(iter(_SHARED)))
        rf = ResponseFeatures(case_set)
        _SHARED[id(case_set)] = (case_set, rf)
        return rf
