"""Table filters: outcome (agree / false pass / false fail / unlabelled), decided by, text search,
and with several annotators: disputed, too few labels, people disagree.

:func:`filter_mask` is the pure part (numpy over the evaluation's code arrays, one pass of
string search over the runs' ids and titles); :class:`FilterBar` holds the widgets and gives
the Tabulator a server-side filter function, so only the matching rows (and with pagination only
one page of them) are sent to the browser.
"""

from __future__ import annotations

import threading
import weakref
from typing import Callable, Sequence

import numpy as np
import pandas as pd
import panel as pn

from .style import WRAP

from ...core.evaluation.verdicts import DECIDED_BY, OUTCOMES, Evaluation
from ...core.evaluation.features import Features
from ...core.evaluation.textcolumn import TextColumn

OUTCOME_LABELS = {"agree": "Agree", "false pass": "False pass", "false fail": "False fail", "unlabelled": "Unlabelled"}
"""Outcome name (``evaluation.OUTCOMES``) -> filter button label."""
PEOPLE_LABELS = {"disputed": "Disputed", "too_few": "Too few labels", "split": "People disagree"}
"""Several annotators (issue 11): filter name -> button label. ``disputed``: no verdict because the
labels tie; ``too_few``: no verdict because the run has fewer labels than the minimum per run
(``GroundTruth.too_few``; the summary bar's ``6 with too few labels``); ``split``: at least one
acceptable and one unacceptable label."""


_SEARCH_TEXT: "weakref.WeakKeyDictionary[Features, np.ndarray]" = weakref.WeakKeyDictionary()
_SEARCH_LOCK = threading.Lock()


def search_text(features: Features) -> np.ndarray:
    """object (N,): ``"<id> <title>"`` of each run, case-folded (what the text search looks in).
    Reads every run once, on the first search of a loaded set; kept per ``features`` object
    (pass the shared, read-only features: every session then shares one array)."""
    with _SEARCH_LOCK:
        got = _SEARCH_TEXT.get(features)
        if got is None:
            column = getattr(features.runs, "column", None)
            if column is not None:  # a features dataset (issue 14): titles from its column, no run rebuilt
                got = _stored_search_text(features, column("title"))
            else:
                titles = [getattr(r, "title", "") or "" for r in features.runs]
                got = np.array([f"{rid} {t}".casefold() for rid, t in zip(features.run_ids, titles)], dtype=object)
                got.flags.writeable = False
            _SEARCH_TEXT[features] = got
        return got


def _stored_search_text(features: Features, titles) -> TextColumn:
    """:func:`search_text` of a features dataset's runs, kept as one Arrow array (a million
    texts as Python strings would take ~100 MB more)."""
    import pyarrow as pa

    chunks = []
    step = 65_536
    ids = features.run_ids
    for start in range(0, features.n, step):
        part = titles.slice(start, step).to_pylist()
        rid = ids[start : start + step]
        chunks.append(pa.array([f"{r} {t or ''}".casefold() for r, t in zip(rid, part)], type=pa.string()))
    return TextColumn(pa.chunked_array(chunks, type=pa.string()))


def filter_mask(ev: Evaluation, outcomes: Sequence[str] = (), decided: Sequence[str] = (),
                search: str = "", text: np.ndarray | None = None, people: Sequence[str] = (),
                disputed: np.ndarray | None = None, split: np.ndarray | None = None,
                too_few: np.ndarray | None = None) -> np.ndarray:
    """bool (N,): runs kept by the filters. Empty ``outcomes`` / ``decided`` keep every run;
    otherwise a run is kept when its outcome (names of ``OUTCOMES``) is in ``outcomes`` and the
    check that decided it (names of ``DECIDED_BY``) is in ``decided``. ``search`` (case
    insensitive, spaces trimmed) must occur in ``text[i]`` (see :func:`search_text`). Raises
    ValueError for an unknown outcome or decided-by name. ``people`` (names of ``PEOPLE_LABELS``)
    keeps the runs in any of the chosen groups: ``disputed`` / ``too_few`` / ``split`` bool (N,)
    (issue 11; a group whose array is not given keeps no run); ValueError for an unknown name."""
    n = ev.outcome.size
    keep = np.ones(n, dtype=bool)
    if outcomes:
        bad = [o for o in outcomes if o not in OUTCOMES]
        if bad:
            raise ValueError(f"unknown outcome {bad[0]!r} (known: {', '.join(OUTCOMES)})")
        codes = np.array([OUTCOMES.index(o) for o in outcomes], dtype=ev.outcome.dtype)
        keep &= np.isin(ev.outcome, codes)
    if decided:
        bad = [d for d in decided if d not in DECIDED_BY]
        if bad:
            raise ValueError(f"unknown decided-by {bad[0]!r} (known: {', '.join(DECIDED_BY)})")
        codes = np.array([DECIDED_BY.index(d) for d in decided], dtype=ev.decided_by.dtype)
        keep &= np.isin(ev.decided_by, codes)
    if people:
        bad = [p for p in people if p not in PEOPLE_LABELS]
        if bad:
            raise ValueError(f"unknown people filter {bad[0]!r} (known: {', '.join(PEOPLE_LABELS)})")
        groups = {"disputed": disputed, "too_few": too_few, "split": split}
        either = np.zeros(n, dtype=bool)
        for p in people:
            if groups[p] is not None:
                either |= np.asarray(groups[p], dtype=bool)
        keep &= either
    needle = search.strip().casefold()  # "STRASSE" finds "Straße" (issue 10, kind 6)
    if needle and text is not None:
        keep &= np.fromiter((needle in t for t in text), dtype=bool, count=n)
    return keep


class FilterBar:
    """The filter widgets (``me-filter-outcome``, ``me-filter-decided``, ``me-search``).
    ``changed()`` is called after any of them changes."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self.outcome = pn.widgets.CheckButtonGroup(
            options={v: k for k, v in OUTCOME_LABELS.items()}, value=[],
            css_classes=["me-filter-outcome"], color="default",
        )
        self.decided = pn.widgets.MultiChoice(
            options=list(DECIDED_BY), value=[], css_classes=["me-filter-decided"], width=210, placeholder="Decided by…",
        )
        self.search = pn.widgets.TextInput(
            placeholder="Search id or title", css_classes=["me-search"], width=170,
        )
        self.people = pn.widgets.CheckButtonGroup(  # shown when several annotators label (issue 11)
            options={v: k for k, v in PEOPLE_LABELS.items()}, value=[], css_classes=["me-filter-people"], color="default",
            visible=False,
        )
        for w in (self.outcome, self.decided, self.people):
            w.param.watch(lambda _e: changed(), ["value"])
        self.search.param.watch(lambda _e: changed(), ["value_input"])

    def mask(self, ev: Evaluation, text: np.ndarray | None, disputed: np.ndarray | None = None,
             split: np.ndarray | None = None, too_few: np.ndarray | None = None) -> np.ndarray:
        """:func:`filter_mask` for the current widget values (``disputed`` / ``split`` /
        ``too_few``: the session's annotator groups, bool (N,))."""
        people = self.people.value if self.people.visible else []
        return filter_mask(ev, self.outcome.value, self.decided.value, self.search.value_input or "", text,
                           people, disputed, split, too_few)

    def active(self) -> bool:
        """Whether any filter is set."""
        people = bool(self.people.value) and self.people.visible
        return bool(self.outcome.value or self.decided.value or (self.search.value_input or "").strip() or people)

    def show_people(self, shown: bool) -> None:
        """Show the Disputed / Too few labels / People disagree filter (several annotators) or hide
        and clear it."""
        if shown != self.people.visible:
            self.people.param.update(visible=shown, **({} if shown else {"value": []}))

    def panel(self) -> pn.Row:
        """The filter row (shown above the table)."""
        return pn.Row(self.outcome, self.people, self.decided, self.search, css_classes=["me-filters"], styles=WRAP, margin=0)


def frame_filter(mask_of: Callable[[], np.ndarray | None]) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A Tabulator filter function: keeps the display rows whose index (the run index) is set in
    ``mask_of()`` (all rows when it returns None)."""

    def apply(df: pd.DataFrame) -> pd.DataFrame:
        mask = mask_of()
        if mask is None or df.empty:
            return df
        idx = df.index.to_numpy()
        return df[mask[idx]]

    return apply
