"""Human labels CSV: ``run_id,human_verdict,note`` -- read, write, apply to runs or features.

Several annotators (issue 11): with an ``annotator`` column the file holds several rows per run,
one per annotator (``run_id,annotator,human_verdict,note``); read it with
:func:`load_label_file` / :func:`label_file_from_text`. Each run's verdict is then the majority of
its annotators' (None on a tie) and the labels themselves go to ``Run.labels``; an empty verdict
means that annotator gave none. An annotator listed twice for one run is an error.

Format (header row required; ``note`` optional)::

    run_id,human_verdict,note
    E1,acceptable,"exact path, right answer"
    E4,unacceptable,booked without confirming
    E7,,                      <- empty verdict: the run is unlabelled (a cleared label)

``human_verdict`` is ``acceptable``, ``unacceptable`` or empty (case and spaces ignored). A run id
listed twice is an error. Cells that could run as spreadsheet formulas are written with a leading
``'`` and read back without it (:mod:`explorer.core.io.csv_cells`). Applying labels replaces the verdict and note of every listed run
(an empty verdict clears it) and leaves other runs as they were; ids not in the runs are
returned so the caller can report them.

Which run a ``run_id`` names (:func:`match_label_ids`, for the CLI's ``--labels`` and the page's
drop zone alike): the run with that id, else the one run whose example id
(``Run.extra["example_id"]``: an OTLP trace's ``--join-key`` attribute, an Inspect sample id) it
is, as expectations join (:func:`~explorer.core.io.loaders.expectations.apply_expectations`). An
example id of several runs (an Inspect sample's epochs ``E4#1``, ``E4#2``) is not guessed: the
label is not applied and :func:`several_note` says to key it by run id. Found by a newcomer
trial: labels keyed E1..E10 for traces read with ``--join-key eval.example_id`` named no run.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from ..csv_cells import neutralise, restore
from ..errors import LoadError
from ...evaluation.features import HUMAN_CODES, Features
from ..model import EXAMPLE_ID, AnnotatorLabel, CaseSet, Run, majority_verdict
from ..reading import csv_problem, csv_rows, read_bytes, separator_hint, text_of
from ._common import Problem, parse_verdict, show

LABEL_COLUMNS = ("run_id", "human_verdict", "note")
ANNOTATED_LABEL_COLUMNS = ("run_id", "annotator", "human_verdict", "note")


@dataclass(frozen=True)
class Label:
    """A person's verdict on one run: ``verdict`` ``"acceptable"``/``"unacceptable"``/None
    (cleared) and a free-text ``note``."""

    verdict: str | None
    note: str = ""


def _label_rows(text: str, name: str):
    """(header has an annotator column, rows) of a labels CSV: each row
    ``(row number, run id, annotator or None, verdict or None, note)``, blank rows skipped. Raises
    LoadError for a missing column, a ragged row, an empty run id or annotator, a bad verdict."""
    reader = csv_rows(text)
    try:
        header = [h.strip().lstrip("\ufeff") for h in next(reader)]
    except StopIteration:
        raise LoadError(name, "", "file is empty") from None
    except csv.Error as exc:
        raise LoadError(name, "row 1", csv_problem(exc)) from None
    for col in ("run_id", "human_verdict"):
        if col not in header:
            raise LoadError(name, "row 1 (header)", f'missing column "{col}" (a labels CSV has run_id,human_verdict,note)'
                            + separator_hint(header))
    dupes = sorted({h for h in header if h and header.count(h) > 1})
    if dupes:  # header.index would read the first and ignore the other
        raise LoadError(name, "row 1 (header)", f'column "{show(dupes[0])}" appears twice')
    unknown = [h for h in header if h and h not in ANNOTATED_LABEL_COLUMNS]
    if unknown:  # a misspelt "annotater" read several annotators' labels as single verdicts
        raise LoadError(name, "row 1 (header)", f'unknown column "{show(unknown[0])}" (a labels CSV has run_id, human_verdict, '
                        "and optionally note and annotator)")
    i_id, i_verdict = header.index("run_id"), header.index("human_verdict")
    i_note = header.index("note") if "note" in header else None
    i_who = header.index("annotator") if "annotator" in header else None
    rows = []
    row_no = 1
    try:
        for cells in reader:
            row_no += 1
            if not any(c.strip() for c in cells):
                continue
            if len(cells) <= max(i_id, i_verdict):  # "E1" alone cleared E1's label
                raise LoadError(name, f"row {row_no}", f"has {len(cells)} {'cell' if len(cells) == 1 else 'cells'}, the header has "
                                f"{len(header)}: no human_verdict cell (an empty one, as in E7,, clears a label)")
            if len(cells) < len(header):  # the note (or annotator) left off the end
                cells = cells + [""] * (len(header) - len(cells))
            elif len(cells) > len(header):
                raise LoadError(name, f"row {row_no}", f"has {len(cells)} cells, the header has {len(header)}")
            cells = [restore(c) for c in cells]
            run_id = cells[i_id].strip()
            if not run_id:
                raise LoadError(name, f"row {row_no}, column run_id", "empty run id")
            who = None
            if i_who is not None:
                who = cells[i_who].strip()
                if not who:
                    raise LoadError(name, f"row {row_no}, column annotator", "empty annotator name")
            try:
                verdict = parse_verdict(cells[i_verdict], "human_verdict")
            except Problem as p:
                raise LoadError(name, f"row {row_no}, column human_verdict", p.message) from None
            rows.append((row_no, run_id, who, verdict, cells[i_note] if i_note is not None else ""))
    except csv.Error as exc:  # raised while reading the row after row_no
        raise LoadError(name, f"row {row_no + 1}", csv_problem(exc)) from None
    if not rows:
        raise LoadError(name, "", "no labels (the file has a header but no rows)")
    return i_who is not None, rows


def labels_from_text(text: str, name: str) -> dict[str, Label]:
    """``{run_id: Label}`` from labels CSV text, in file order. Raises LoadError
    ``"<name>: row N, column human_verdict: <problem>"`` (header = row 1), a missing column,
    an empty run id, a duplicate run id or a file with no label rows. An ``annotator`` column is
    ignored while each run has one row; a second row for a run is then several annotators' labels,
    which this reader refuses (read them with :func:`label_file_from_text`)."""
    annotated, rows = _label_rows(text, name)
    labels: dict[str, Label] = {}
    first_row: dict[str, int] = {}
    for row_no, run_id, _, verdict, note in rows:
        if run_id in first_row and annotated:
            raise LoadError(name, f"row {row_no}, column annotator",
                            f'run "{show(run_id)}" has labels from several annotators; this reader takes one label per run '
                            "(metric-explorer score --labels reads them)")
        if run_id in first_row:
            raise LoadError(name, f"row {row_no}, column run_id", f'duplicate run id "{show(run_id)}" (first at row {first_row[run_id]})')
        first_row[run_id] = row_no
        labels[run_id] = Label(verdict, note)
    return labels


@dataclass(frozen=True)
class LabelFile:
    """A labels CSV as read: ``labels`` one :class:`Label` per run (for a file with an annotator
    column, the annotators' majority, None on a tie, with an empty note); ``annotated`` per run the
    annotators' labels in file order (None for a file without an annotator column); ``rows`` the
    row of each run id's first label (header = row 1; empty when not read from a file), for an
    error naming a run id."""

    labels: dict[str, Label]
    annotated: dict[str, tuple[AnnotatorLabel, ...]] | None = None
    rows: Mapping[str, int] = field(default_factory=dict)

    def place(self, run_id: str) -> str:
        """``"row 3, column run_id"``: where ``run_id`` is first labelled (``""`` when unknown)."""
        row = self.rows.get(run_id)
        return "" if row is None else f"row {row}, column run_id"

    @property
    def annotators(self) -> tuple[str, ...]:
        """Annotator names, sorted (empty for a single-label file)."""
        return tuple(sorted({lab.annotator for labs in (self.annotated or {}).values() for lab in labs}))


def label_file_from_text(text: str, name: str) -> LabelFile:
    """A labels CSV with or without an ``annotator`` column (see the module doc). Raises
    LoadError as :func:`labels_from_text`; with an annotator column, a (run id, annotator) pair
    listed twice is the duplicate."""
    annotated, rows = _label_rows(text, name)
    first_rows: dict[str, int] = {}
    for row in rows:
        first_rows.setdefault(row[1], row[0])
    if not annotated:
        return LabelFile(labels_from_text(text, name), rows=first_rows)
    by_run: dict[str, list[AnnotatorLabel]] = {}
    first_row: dict[tuple[str, str], int] = {}
    for row_no, run_id, who, verdict, note in rows:
        key = (run_id, who)
        if key in first_row:
            raise LoadError(name, f"row {row_no}, column annotator",
                            f'annotator "{show(who)}" labels run "{show(run_id)}" twice (first at row {first_row[key]})')
        first_row[key] = row_no  # type: ignore[index]
        got = by_run.setdefault(run_id, [])
        if verdict is not None:  # an empty verdict: this annotator gave none
            got.append(AnnotatorLabel(who, verdict, note))  # type: ignore[arg-type]
    per_run = {rid: tuple(labs) for rid, labs in by_run.items()}
    return LabelFile({rid: Label(majority_verdict(labs)) for rid, labs in per_run.items()}, per_run, first_rows)


def looks_like_labels_csv(data: bytes, name: str) -> bool:
    """True when the file's first line is a labels CSV header, so an upload applies labels instead
    of loading runs: it has a ``run_id`` column and ``human_verdict``, or no ``id`` column (a runs
    CSV names its runs in ``id``; ``run_id,verdict`` is a labels file with a wrong column, and its
    error should say what a labels CSV holds, not what a runs CSV misses)."""
    head = data[:2048].split(b"\n", 1)[0].decode("utf-8-sig", errors="replace")
    cols = [c.strip().strip('"') for c in head.split(",")]
    return "run_id" in cols and ("human_verdict" in cols or "id" not in cols)


def load_label_file(path: str) -> LabelFile:
    """Read a labels CSV with or without an annotator column. Raises LoadError."""
    return label_file_from_text(text_of(read_bytes(path), str(path)), str(path))


def loads_labels(data: bytes | str, name: str) -> dict[str, Label]:
    """Labels from CSV bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return labels_from_text(text, name)


def load_labels(path: str) -> dict[str, Label]:
    """Read a labels CSV file. Raises LoadError."""
    return loads_labels(read_bytes(path), str(path))


def unknown_ids(labels: Mapping[str, Label], run_ids: Iterable[str]) -> list[str]:
    """Label ids that name no run, in label order."""
    known = set(run_ids)
    return [rid for rid in labels if rid not in known]


class LabelledRuns(Sequence[Run]):
    """A read-only view of ``base`` runs with ``labels`` applied as each run is read, for a big
    case set whose runs are rebuilt on access (:class:`~explorer.core.io.runstore.RunStore`). Its
    ``features`` are the base's with the person's verdicts replaced, so
    :func:`~explorer.core.evaluation.features.build_features` returns them without recomputing."""

    def __init__(self, base: Sequence[Run], labels: Mapping[str, Label], features: Features,
                 annotated: Mapping[str, tuple[AnnotatorLabel, ...]] | None = None):
        self._base = base
        self._labels = dict(labels)
        self.annotated = dict(annotated or {})
        """Per run id, the annotators' labels applied (empty without an annotator column)."""
        self.features = features.with_human(human_codes(features, labels))

    def __len__(self) -> int:
        return len(self._base)

    def _labelled(self, run: Run) -> Run:
        lab = self._labels.get(run.id)
        if lab is None:
            return run
        return replace(run, human_verdict=lab.verdict, human_note=lab.note, labels=self.annotated.get(run.id, ()))

    def __getitem__(self, i):  # type: ignore[override]
        got = self._base[i]
        if isinstance(i, slice):
            return tuple(self._labelled(r) for r in got)
        return self._labelled(got)


@dataclass(frozen=True)
class LabelMatch:
    """Which run each id of a labels file names (:func:`match_label_ids`): ``run_of`` label id ->
    run id, in label order; ``by_example`` the label ids matched by example id; ``unknown`` the ids
    naming no run (in label order); ``several`` label id -> the ids of the runs whose example id it
    is, for an example id of more than one run (not applied)."""

    run_of: dict[str, str]
    by_example: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    several: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def unapplied(self) -> list[str]:
        """The label ids whose labels apply to no run: ``unknown`` then ``several``."""
        return [*self.unknown, *self.several]

    @property
    def key_words(self) -> str:
        """How the ids matched: ``"run id"``, ``"example id"`` or ``"run id and example id"``."""
        by_run = len(self.run_of) > len(self.by_example)
        return "run id and example id" if by_run and self.by_example else "example id" if self.by_example else "run id"

    def keyed_by_run(self, labels: Mapping[str, object]) -> dict:
        """``labels`` (by label id) re-keyed by the run id each names; ids naming no run left out."""
        return {self.run_of[lid]: lab for lid, lab in labels.items() if lid in self.run_of}


def example_ids(runs: Sequence[Run]) -> list[str | None]:
    """Each run's example id (``Run.extra["example_id"]``, None when it has none), in run order;
    ``[]`` for runs read lazily (a :class:`~explorer.core.io.runstore.RunStore`: the big flat files
    it holds carry no example id, and reading them would rebuild every run)."""
    if not isinstance(runs, (tuple, list)):
        return []
    out = []
    for run in runs:
        value = run.extra.get(EXAMPLE_ID)
        out.append(value if isinstance(value, str) and value else None)
    return out


def match_label_ids(label_ids: Iterable[str], run_ids: Sequence[str],
                    examples: Callable[[], Sequence[str | None]] | Sequence[str | None] = ()) -> LabelMatch:
    """Match a labels file's ids to runs ``run_ids``: an id that is a run's id names that run;
    else one that is the example id (``examples``, one per run, or a function giving them, called
    only when some id is no run id: a big set rebuilds its runs to read them) of exactly one run
    names it. An example id of several runs is in ``several``, not guessed. A run named by its id
    and also by its example id takes the label of its id (the other id is in ``unknown``)."""
    ids = list(label_ids)
    known = set(map(str, run_ids))
    if all(lid in known for lid in ids):
        return LabelMatch({lid: lid for lid in ids})
    runs_of: dict[str, list[str]] = {}
    for rid, eid in zip(run_ids, examples() if callable(examples) else examples):
        if eid is not None:
            runs_of.setdefault(eid, []).append(str(rid))
    named = {lid for lid in ids if lid in known}
    run_of: dict[str, str] = {}
    by_example: list[str] = []
    unknown: list[str] = []
    several: dict[str, tuple[str, ...]] = {}
    for lid in ids:
        runs = runs_of.get(lid, [])
        if lid in known:
            run_of[lid] = lid
        elif len(runs) == 1 and runs[0] not in named:
            run_of[lid] = runs[0]
            by_example.append(lid)
        elif len(runs) > 1:
            several[lid] = tuple(runs)
        else:
            unknown.append(lid)
    return LabelMatch(run_of, tuple(by_example), tuple(unknown), several)


def several_note(several: Mapping[str, Sequence[str]], shown: int = 3) -> str:
    """``"E4 names 2 runs (epochs E4#1, E4#2): key their labels by run id"`` for label ids that are
    the example id of several runs (an Inspect log's ``<id>#<epoch>`` runs are called epochs);
    ``""`` for none. At most ``shown`` ids are spelt out."""
    if not several:
        return ""
    parts = []
    for lid, rids in list(several.items())[:shown]:
        epochs = all(r.startswith(f"{lid}#") for r in rids)
        listed = ", ".join(rids[:3]) + (f" (+{len(rids) - 3} more)" if len(rids) > 3 else "")
        parts.append(f"{lid} names {len(rids)} runs ({'epochs ' if epochs else ''}{listed})")
    more = f" (+{len(several) - shown} more)" if len(several) > shown else ""
    return ", ".join(parts) + more + ": key their labels by run id"


def apply_matched_labels(case_set: CaseSet, labels: Mapping[str, Label],
                         annotated: Mapping[str, tuple[AnnotatorLabel, ...]] | None = None) -> tuple[CaseSet, LabelMatch]:
    """``case_set`` with each labelled run's ``human_verdict`` and ``human_note`` replaced, the
    label ids matched to runs by :func:`match_label_ids` (run id, else example id), and the match
    (the caller reports ``unknown`` and ``several``). Runs not listed keep theirs. A listed run's
    ``labels`` (several annotators) become ``annotated[label id]`` (empty when not given: a single
    label replaces the annotators'). A big set whose runs carry precomputed ``features`` gets a
    :class:`LabelledRuns` view (no run is rebuilt: matched by run id only, see :func:`example_ids`);
    others a new tuple."""
    ready = getattr(case_set.runs, "features", None)
    run_ids = [str(r) for r in ready.run_ids] if ready is not None else [r.id for r in case_set.runs]
    match = match_label_ids(labels, run_ids, lambda: example_ids(case_set.runs))
    by_run: dict[str, Label] = match.keyed_by_run(labels)
    annotated_by_run: dict[str, tuple[AnnotatorLabel, ...]] = match.keyed_by_run(annotated or {})
    if ready is not None:
        view = LabelledRuns(case_set.runs, by_run, ready, annotated_by_run)
        return replace(case_set, runs=view), match  # type: ignore[arg-type]
    runs = tuple(
        replace(r, human_verdict=by_run[r.id].verdict, human_note=by_run[r.id].note, labels=annotated_by_run.get(r.id, ()))
        if r.id in by_run else r
        for r in case_set.runs
    )
    return replace(case_set, runs=runs), match


def apply_labels(case_set: CaseSet, labels: Mapping[str, Label],
                 annotated: Mapping[str, tuple[AnnotatorLabel, ...]] | None = None) -> tuple[CaseSet, list[str]]:
    """:func:`apply_matched_labels` with, instead of the match, the label ids whose labels apply
    to no run (naming no run, or the example id of several). For a :class:`LabelFile` ``f``:
    ``apply_labels(cs, f.labels, f.annotated)``."""
    labelled, match = apply_matched_labels(case_set, labels, annotated)
    return labelled, match.unapplied


def human_codes(features: Features, labels: Mapping[str, Label]) -> np.ndarray:
    """int8 (N,) person's verdicts for ``features`` after ``labels`` (1 acceptable,
    0 unacceptable, -1 unlabelled); runs not listed keep ``features.human``. Use with
    ``features.with_human``."""
    codes = {rid: HUMAN_CODES[lab.verdict] for rid, lab in labels.items()}
    out = features.human.copy()
    for i, rid in enumerate(features.run_ids):  # a dict lookup per run, at load time only
        code = codes.get(rid)
        if code is not None:
            out[i] = code
    return out


def labels_from_runs(case_set: CaseSet, include_unlabelled: bool = False) -> dict[str, Label]:
    """The labels the runs carry (labelled runs, plus unlabelled ones when asked)."""
    return {
        r.id: Label(r.human_verdict, r.human_note)
        for r in case_set.runs
        if include_unlabelled or r.human_verdict is not None
    }


def labels_from_codes(run_ids: Sequence[str], human: np.ndarray, notes: Mapping[str, str] | None = None,
                      include_unlabelled: bool = False) -> dict[str, Label]:
    """Labels from an int8 verdict array (as the app holds them) and optional notes by id."""
    names = {1: "acceptable", 0: "unacceptable", -1: None}
    notes = notes or {}
    return {
        rid: Label(names[int(code)], notes.get(rid, ""))
        for rid, code in zip(run_ids, human)
        if include_unlabelled or int(code) >= 0
    }


def dumps_annotated_labels(annotated: Mapping[str, Sequence[AnnotatorLabel]]) -> str:
    """Labels CSV text with header ``run_id,annotator,human_verdict,note``, one row per label;
    text that could run as a spreadsheet formula gets a leading ``'`` (read back without it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ANNOTATED_LABEL_COLUMNS)
    for rid, labs in annotated.items():
        for lab in labs:
            writer.writerow([neutralise(rid), neutralise(lab.annotator), lab.verdict, neutralise(lab.note)])
    return out.getvalue()


def dumps_labels(labels: Mapping[str, Label]) -> str:
    """Labels CSV text with header ``run_id,human_verdict,note`` (an unlabelled run has an
    empty verdict); run ids and notes that could run as spreadsheet formulas get a leading
    ``'`` (:func:`labels_from_text` removes it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LABEL_COLUMNS)
    for rid, lab in labels.items():
        writer.writerow([neutralise(rid), lab.verdict or "", neutralise(lab.note)])
    return out.getvalue()
