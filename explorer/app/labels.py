"""A session's own human labels: the people's verdicts as changed in this browser session.

The features are shared read-only by every session; labels made in the app (labelling in the
table, decisions in the cascade's review queue, a labels CSV uploaded) live here, per session, and
are applied with :meth:`explorer.core.evaluation.features.Features.with_human` (a copy of one int8
array, never of the table). A failed file load never touches this object, so labels made in the
app are not lost.

Several annotators (issue 11): the labels are kept **per annotator**, an int8 (N, A) table
(``codes``, the core's :class:`~explorer.core.evaluation.annotators.Annotations`), and ``human``
is the ground truth made from it (:func:`~explorer.core.evaluation.annotators.ground_truth`: the
consensus, or one chosen annotator, with a minimum number of labels per run). A case set without
annotator labels starts with one annotator, :data:`DEFAULT_ANNOTATOR`, holding the file's
verdicts, so with one annotator ``human`` is exactly that annotator's column. A case set whose runs
carry annotators' labels starts with those annotators; its runs that no annotator labelled keep the
file's single verdict (``fallback``) until someone labels them in the app.
"""

from __future__ import annotations

import threading
import weakref
from typing import Literal, Mapping, Sequence

import numpy as np
import param

from ..core.evaluation.annotators import Annotations, GroundTruth, annotations_of, ground_truth
from ..core.evaluation.features import HUMAN_CODES, Features
from .shared import SharedData

Label = Literal["acceptable", "unacceptable"] | None

DEFAULT_ANNOTATOR = "person"
"""The annotator whose labels a case set without annotator labels holds (its ``human_verdict``s)."""
CONSENSUS = "consensus"
"""``SessionLabels.truth`` for the majority of the annotators' labels."""
MAX_NAME = 40
"""Longest annotator name accepted in the app (characters)."""


def file_note(verdict: str, file_verdict: str | None, note: str) -> str:
    """A run file's ``note`` as it reads beside the ``verdict`` shown for the run now
    (``"acceptable"``, ``"unacceptable"``, ``"unlabelled"``, ``"disputed"``, …), the file having
    given ``file_verdict`` (None: no verdict). The note itself when the verdict is the file's;
    else it is the earlier verdict's reason, never the new one's: ``"Note from the file (with
    verdict unacceptable): …"`` (``(with no verdict)`` when the file gave none). ``""`` without a
    note. Used by the selected run's panel and the labels download alike."""
    if not note:
        return ""
    if verdict == file_verdict:
        return note
    return f"Note from the file (with {'verdict ' + file_verdict if file_verdict else 'no verdict'}): {note}"


def clean_annotator_name(name: str, known: Sequence[str]) -> str:
    """``name`` with surrounding spaces removed. Raises ValueError (a sentence for the page) for an
    empty name, one longer than :data:`MAX_NAME`, :data:`CONSENSUS`, or one already in ``known``."""
    name = " ".join(str(name).split())
    if not name:
        raise ValueError("Type a name for the new annotator.")
    if len(name) > MAX_NAME:
        raise ValueError(f"An annotator's name has at most {MAX_NAME} characters.")
    if name.casefold() == CONSENSUS:
        raise ValueError(f"“{CONSENSUS}” names the majority verdict; choose another name.")
    if name in known:
        raise ValueError(f"There is already an annotator named “{name}”.")
    return name


_ANNOTATIONS: "weakref.WeakKeyDictionary[SharedData, Annotations]" = weakref.WeakKeyDictionary()
_ANNOTATIONS_LOCK = threading.Lock()


def file_annotations(shared: SharedData) -> Annotations:
    """The annotators' labels the loaded case set carries (``Run.labels``, a labels CSV with an
    annotator column applied by ``serve --labels``), read once per loaded set and shared read-only
    by every session (one pass over the runs)."""
    with _ANNOTATIONS_LOCK:
        got = _ANNOTATIONS.get(shared)
        if got is None:
            got = annotations_of(shared.case_set)
            got.codes.flags.writeable = False
            _ANNOTATIONS[shared] = got
        return got


class SessionLabels(param.Parameterized):
    """The people's verdicts per run for one session.

    ``human``: int8 (N,), the ground truth the evaluator is scored against: 1 acceptable,
    0 unacceptable, -1 no verdict (unlabelled or disputed); ``notes``: run index (str) -> note typed
    in this session; ``version`` increases on every change of the labels or the ground truth, so
    views can ``param.depends`` on it.

    Several annotators: ``annotators`` the names (file order: sorted, then added in the app);
    ``codes`` int8 (N, A) each annotator's verdicts (-1 no label); ``fallback`` int8 (N,) the file's
    single verdict of runs no annotator labelled (-1 elsewhere; all -1 when the annotators hold
    every label); ``labeller`` the annotator the label buttons and keys label as; ``truth``
    :data:`CONSENSUS` or an annotator's name; ``min_labels`` (>= 1) below which a labelled run has
    too few labels; ``disputed`` bool (N,) runs whose labels tie, ``too_few`` bool (N,) runs with
    fewer labels than the minimum (both without a verdict, counted apart), and ``ground`` the
    :class:`GroundTruth` behind ``human``.
    """

    human = param.Array(default=np.zeros(0, dtype=np.int8), doc="int8 (N,) ground-truth verdict codes")
    notes = param.Dict(default={}, doc="run index -> note made in this session")
    version = param.Integer(default=0, doc="bumped on every change")
    annotators = param.List(default=[DEFAULT_ANNOTATOR], item_type=str, doc="annotator names")
    codes = param.Array(default=np.zeros((0, 1), dtype=np.int8), doc="int8 (N, A) verdicts per annotator")
    fallback = param.Array(default=np.zeros(0, dtype=np.int8), doc="int8 (N,) file verdicts of runs no annotator labelled")
    annotator_notes = param.Dict(default={}, doc="(run index, annotator) -> note")
    labeller = param.String(default=DEFAULT_ANNOTATOR, doc="the annotator new labels are made as")
    truth = param.String(default=CONSENSUS, doc="consensus, or the annotator whose verdicts are the ground truth")
    min_labels = param.Integer(default=1, bounds=(1, None), doc="labels a run needs, else it has too few labels")
    disputed = param.Array(default=np.zeros(0, dtype=bool), doc="bool (N,) runs whose labels tie")
    too_few = param.Array(default=np.zeros(0, dtype=bool), doc="bool (N,) runs with fewer labels than min_labels")

    def __init__(self, **params) -> None:
        super().__init__(**params)
        n = int(self.human.size)
        if self.codes.shape[0] != n:  # built from ``human`` alone: one annotator holds it
            self.codes = self.human.astype(np.int8).reshape(n, 1).copy()
            self.annotators = [DEFAULT_ANNOTATOR]
        if self.fallback.shape != (n,):
            self.fallback = np.full(n, -1, dtype=np.int8)
        if self.labeller not in self.annotators:
            self.labeller = self.annotators[0]
        self.run_ids: np.ndarray = np.empty(0, dtype=object)
        """The runs' ids when made by :meth:`from_features` (for :meth:`annotations`)."""
        self.ground: GroundTruth
        self._derive()

    # --- building ------------------------------------------------------------------------------

    @classmethod
    def from_features(cls, features: Features, annotations: Annotations | None = None) -> "SessionLabels":
        """Start from the labels in the loaded file: ``annotations`` (the runs' annotator labels,
        :func:`~explorer.core.evaluation.annotators.annotations_of`) when some run has them, else one
        annotator (:data:`DEFAULT_ANNOTATOR`) holding ``features.human``."""
        if annotations is None or not annotations.has_labels:
            out = cls(human=features.human.copy())
            out.run_ids = features.run_ids
            return out
        codes = annotations.codes.astype(np.int8).copy()
        nobody = np.count_nonzero(codes >= 0, axis=1) == 0
        fallback = np.where(nobody, features.human, -1).astype(np.int8)
        notes: dict[tuple[int, str], str] = {}
        if annotations.notes:
            position = {str(rid): i for i, rid in enumerate(annotations.run_ids)}
            notes = {(position[rid], a): note for (rid, a), note in annotations.notes.items() if rid in position}
        out = cls(human=features.human.copy(), codes=codes, annotators=list(annotations.annotators),
                  fallback=fallback, annotator_notes=notes, labeller=annotations.annotators[0])
        out.run_ids = features.run_ids
        return out

    @classmethod
    def from_shared(cls, shared: SharedData) -> "SessionLabels":
        """:meth:`from_features` of a loaded set with the annotators' labels its runs carry."""
        return cls.from_features(shared.features, file_annotations(shared))

    # --- the ground truth ----------------------------------------------------------------------

    def annotations(self) -> Annotations:
        """The annotators' labels as the core's :class:`Annotations` (``run_ids`` those of the
        features it was made from, when known; notes left out)."""
        return Annotations(self.run_ids, tuple(self.annotators), self.codes, {})

    def labelled_annotations(self) -> Annotations:
        """:meth:`annotations` with only the annotators who gave at least one label (an annotator
        just added, with no label yet, would leave Fleiss' kappa without a run every annotator
        labelled)."""
        keep = np.flatnonzero(np.any(self.codes >= 0, axis=0))
        return Annotations(self.run_ids, tuple(self.annotators[j] for j in keep), self.codes[:, keep], {})

    def _derive(self) -> None:
        """Recompute ``ground``, ``human``, ``disputed`` and ``too_few`` from the table and the choices."""
        who = None if self.truth == CONSENSUS or self.truth not in self.annotators else self.truth
        fallback = self.fallback if np.any(self.fallback >= 0) else None
        ground = ground_truth(self.annotations(), annotator=who, min_labels=self.min_labels, fallback=fallback)
        self.ground = ground
        self.param.update(human=ground.human, disputed=ground.disputed, too_few=ground.too_few)

    def choose_truth(self, truth: str | None = None, min_labels: int | None = None) -> None:
        """Score against ``truth`` (:data:`CONSENSUS` or an annotator's name) with at least
        ``min_labels`` labels per run (None keeps the current choice). Raises ValueError for an
        unknown annotator or ``min_labels < 1``."""
        truth = self.truth if truth is None else truth
        min_labels = self.min_labels if min_labels is None else int(min_labels)
        if truth != CONSENSUS and truth not in self.annotators:
            raise ValueError(f"no annotator named {truth!r} (annotators: {', '.join(self.annotators)})")
        if min_labels < 1:
            raise ValueError(f"min_labels must be at least 1, got {min_labels}")
        if (truth, min_labels) == (self.truth, self.min_labels):
            return
        self.param.update(truth=truth, min_labels=min_labels)
        self._changed()

    def _changed(self) -> None:
        self._derive()
        self.version += 1

    # --- labelling -----------------------------------------------------------------------------

    def set(self, index: int, verdict: Label, note: str | None = None, annotator: str | None = None) -> None:
        """Label run ``index`` (0-based) ``acceptable`` / ``unacceptable``, or clear it with None,
        as ``annotator`` (default: ``labeller``). A label made here replaces the file's single
        verdict of the run (``fallback``). Raises IndexError for a run out of range, ValueError for
        another verdict or an unknown annotator."""
        if verdict not in HUMAN_CODES:
            raise ValueError(f"verdict must be 'acceptable', 'unacceptable' or None, got {verdict!r}")
        if not 0 <= index < self.human.size:
            raise IndexError(f"run index {index} out of range 0..{self.human.size - 1}")
        who = self.labeller if annotator is None else annotator
        if who not in self.annotators:
            raise ValueError(f"no annotator named {who!r} (annotators: {', '.join(self.annotators)})")
        codes = self.codes.copy()  # new arrays, so watchers of ``codes`` / ``human`` fire too
        codes[index, self.annotators.index(who)] = HUMAN_CODES[verdict]
        fallback = self.fallback
        if fallback[index] >= 0:
            fallback = fallback.copy()
            fallback[index] = -1
        if note is not None:
            self.notes = {**self.notes, str(index): note}
            self.annotator_notes = {**self.annotator_notes, (index, who): note}
        self.param.update(codes=codes, fallback=fallback)
        self._changed()

    def add_annotator(self, name: str) -> str:
        """Add an annotator with no labels yet and make them the ``labeller``; returns the cleaned
        name. Raises ValueError (see :func:`clean_annotator_name`). The ground truth does not
        change (a run gets no label), so ``version`` stays."""
        name = clean_annotator_name(name, self.annotators)
        codes = np.concatenate([self.codes, np.full((self.human.size, 1), -1, dtype=np.int8)], axis=1)
        self.param.update(codes=codes, annotators=[*self.annotators, name], labeller=name)
        return name

    def apply_single(self, labels: Mapping[int, tuple[Label, str]]) -> None:
        """A labels CSV without an annotator column: run index -> (verdict or None, note), recorded
        as the ``labeller``'s labels (an empty verdict clears theirs); one change."""
        if not labels:
            return
        j = self.annotators.index(self.labeller)
        codes, fallback = self.codes.copy(), self.fallback.copy()
        notes, ann_notes = dict(self.notes), dict(self.annotator_notes)
        for i, (verdict, note) in labels.items():
            codes[i, j] = HUMAN_CODES[verdict]
            fallback[i] = -1
            if note:
                notes[str(i)] = note
                ann_notes[(i, self.labeller)] = note
        self.param.update(codes=codes, fallback=fallback, notes=notes, annotator_notes=ann_notes)
        self._changed()

    def apply_annotated(self, labels: Mapping[int, Sequence[tuple[str, Label, str]]]) -> None:
        """A labels CSV with an annotator column: run index -> its labels ``(annotator, verdict,
        note)``. As ``score --labels``: each listed run's labels become the file's (the others'
        cleared, the file's single verdict dropped); unknown annotators are added; runs not listed
        keep theirs. One change."""
        if not labels:
            return
        names = list(self.annotators)
        for labs in labels.values():
            for who, _v, _n in labs:
                if who not in names:
                    names.append(who)
        codes = np.full((self.human.size, len(names)), -1, dtype=np.int8)
        codes[:, : self.codes.shape[1]] = self.codes
        fallback = self.fallback.copy()
        ann_notes = {k: v for k, v in self.annotator_notes.items() if k[0] not in labels}
        for i, labs in labels.items():
            codes[i, :] = -1
            fallback[i] = -1
            for who, verdict, note in labs:
                codes[i, names.index(who)] = HUMAN_CODES[verdict]
                if note:
                    ann_notes[(i, who)] = note
        self.param.update(codes=codes, annotators=names, fallback=fallback, annotator_notes=ann_notes)
        self._changed()

    # --- reading -------------------------------------------------------------------------------

    def apply_to(self, features: Features) -> Features:
        """``features`` with this session's ground truth (shares every other array)."""
        return features.with_human(self.human)

    @property
    def several(self) -> bool:
        """True when labels are kept under annotators' names worth writing down: more than one
        annotator, or annotators that came from the file."""
        return len(self.annotators) > 1 or self.annotators != [DEFAULT_ANNOTATOR]

    def column(self, annotator: str | None = None) -> np.ndarray:
        """int8 (N,) verdicts of ``annotator`` (default ``labeller``); a view, do not write."""
        return self.codes[:, self.annotators.index(annotator or self.labeller)]

    def label_counts(self) -> dict[str, int]:
        """Labels each annotator gave, by name."""
        return {a: int(np.count_nonzero(self.codes[:, j] >= 0)) for j, a in enumerate(self.annotators)}

    def split(self) -> np.ndarray:
        """bool (N,): runs where the annotators disagree (at least one acceptable and one
        unacceptable label), whatever the consensus made of it."""
        return np.any(self.codes == 1, axis=1) & np.any(self.codes == 0, axis=1)

    def counts(self) -> dict[str, int]:
        """``{"acceptable": a, "unacceptable": u, "unlabelled": n}`` of the ground truth
        (``unlabelled`` counts disputed and too-few-labels runs too; :attr:`disputed` and
        :attr:`too_few` tell them apart)."""
        return {
            "acceptable": int(np.count_nonzero(self.human == 1)),
            "unacceptable": int(np.count_nonzero(self.human == 0)),
            "unlabelled": int(np.count_nonzero(self.human < 0)),
        }
