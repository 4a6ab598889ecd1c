"""Which case sets a session can look at, and each one's labels: the workspace (issue 4).

* :class:`ProcessSets` (one per server process): the set served with ``serve --cases`` and the
  bundled run case sets (``cases/*.json`` whose format is ``metric-explorer/cases@1``), each
  loaded and its features built **once per process** (on first use) and shared read-only.
* :class:`Workspace` (one per browser session): those shared sets plus what was uploaded in
  this session (never seen by another session), the active set, and one
  :class:`~explorer.app.labels.SessionLabels` per set, kept while the session lives, so switching
  sets or a failed load never loses a label.

A load either fully succeeds (a new entry is added) or raises LoadError having changed nothing.

Runs read from OTLP traces or Inspect logs have no expected calls; an expectations file joins them
(:meth:`Workspace.join_expectations`) with the core's join, ``apply_expectations``, as
``score --expectations`` does. The drop zone has no ``--join-key``: for an uploaded trace file the
join tries the run ids (the CLI's default) and the span attributes whose values name expectation
ids (the trace file read again with that attribute as the join key), and keeps the one that
matches the most runs.
No Panel here: the views live in :mod:`explorer.app.page` and :mod:`explorer.app.views`.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Literal, Sequence

import numpy as np

from ..core.io.errors import LoadError
from ..core.evaluation.features import build_features
from ..core.io.loaders.detect import loads_runs
from ..core.io.loaders.expectations import Expectations, apply_expectations
from ..core.io.loaders.labels import (  # noqa: F401  (looks_like_labels_csv: the page tells uploads by it)
    LabelMatch, example_ids, label_file_from_text, looks_like_labels_csv, match_label_ids, several_note,
)
from ..core.io.loaders.options import ReadOptions
from ..core.io.loaders.otlp import attributes_naming
from ..core.io.model import EXAMPLE_ID, CaseSet
from ..core.io.reading import decode_text
from ..core.evaluation.settings import Settings
from .labels import SessionLabels
from .shared import DEFAULT_DENIED_TOOL, SharedData

CASES_DIR = Path(__file__).resolve().parents[2] / "cases"
"""The bundled case sets (``cases/*.json``)."""
RUN_SET_FORMAT = "metric-explorer/cases@1"

Origin = Literal["served", "bundled", "upload"]


def shared_from_case_set(case_set: CaseSet, defaults: Settings | None = None, day_first: bool | None = None) -> SharedData:
    """Features built once for ``case_set`` (``build_features``), the deny-list choices and the
    default inputs (``defaults``, else seed 002's opening settings with ``delete_booking`` chosen
    when the data has it), with the date reading ``day_first`` when given (``serve
    --day-first/--month-first``). Raises LoadError ``"<source>: runs: no runs"`` for a set with 0 runs."""
    if len(case_set.runs) == 0:
        raise LoadError(case_set.source or case_set.name, "runs", "the file holds 0 runs")
    features = build_features(case_set)
    tools = tuple(features.tool_names)
    if defaults is None:
        deny = (DEFAULT_DENIED_TOOL,) if DEFAULT_DENIED_TOOL in tools else ()
        defaults = Settings(deny_tools=deny)
    if day_first is not None:
        defaults = defaults.with_(day_first=day_first)
    return SharedData(case_set, features, tools, defaults)


def bundled_run_sets(folder: Path = CASES_DIR) -> list[Path]:
    """The ``*.json`` files in ``folder`` that are run case sets (``"format":
    "metric-explorer/cases@1"`` in their first 4 kB), sorted by name; other formats (the
    labelled pairs) are left out."""
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            head = path.read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            continue
        if f'"{RUN_SET_FORMAT}"' in head:
            found.append(path)
    return found


@dataclass(frozen=True, eq=False)
class SetEntry:
    """One case set a session can pick: ``key`` (unique in the workspace), ``label`` (shown in
    the picker), ``origin`` and its loaded ``shared`` data (None for a bundled set not loaded
    yet; :meth:`ProcessSets.get` loads it)."""

    key: str
    label: str
    origin: Origin
    shared: SharedData | None = None


def entry_label(name: str, origin: Origin, n_runs: int | None, file: str | None = None) -> str:
    """Picker text: ``"Booking agent (bundled, 10 runs)"``, ``"runs.csv (uploaded, 1000 runs)"``;
    with ``file`` (to tell two sets of one name apart) ``"Booking agent (booking_b.json, bundled)"``."""
    word = {"served": "served", "bundled": "bundled", "upload": "uploaded"}[origin]
    runs = "" if n_runs is None else f", {n_runs} run{'s' if n_runs != 1 else ''}"
    where = f"{file}, " if file else ""
    return f"{name} ({where}{word}{runs})"


def set_name(path: Path) -> str:
    """The case set's own ``name`` (the top-level ``"name"`` of a ``metric-explorer/cases@1``
    file, whitespace stripped), read without building the set; the file's stem when the file
    cannot be read or parsed, or its name is missing, not text or blank (loading it later names
    the fault)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return path.stem
    name = data.get("name") if isinstance(data, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() else path.stem


class ProcessSets:
    """The case sets every session shares: the served set (already loaded) and the bundled run
    sets, each loaded once per process on first use (thread-safe). ``loader(path)`` builds the
    :class:`SharedData` of a bundled file (default: the file read with ``loads_runs``)."""

    def __init__(self, served: SharedData, served_path: str | None = None,
                 bundled: list[Path] | None = None,
                 loader: Callable[[Path], SharedData] | None = None) -> None:
        self.served = served
        self._loader = loader or (lambda p: shared_from_case_set(loads_runs(p.read_bytes(), str(p))))
        self._lock = threading.Lock()
        self._loaded: dict[str, SharedData] = {}
        served_resolved = str(Path(served_path).resolve()) if served_path else None
        self._bundled = [p for p in (bundled if bundled is not None else bundled_run_sets())
                         if str(p.resolve()) != served_resolved]
        self.loads = 0
        """How many bundled files were loaded so far (each at most once)."""
        self._names: dict[str, str] | None = None  # file name -> the set's own name, read on first use

    def entries(self) -> list[SetEntry]:
        """The served set first, then the bundled sets by file name, each named by its own
        ``name`` (:func:`set_name`, read once per process), with the file's name added when two
        entries have the same name; keys stay ``bundled:<file name>``."""
        served_name = self.served.case_set.name
        out = [SetEntry("served", entry_label(served_name, "served", self.served.features.n), "served", self.served)]
        if self._names is None:
            self._names = {p.name: set_name(p) for p in self._bundled}
        counts = Counter([served_name, *self._names.values()])
        for p in self._bundled:
            loaded = self._loaded.get(p.name)
            n = loaded.features.n if loaded else None
            name = self._names[p.name]
            label = entry_label(name, "bundled", n, p.name if counts[name] > 1 else None)
            out.append(SetEntry(f"bundled:{p.name}", label, "bundled", loaded))
        return out

    def get(self, key: str) -> SharedData:
        """The shared data of entry ``key`` (a bundled set is loaded on first use, once per
        process). KeyError for an unknown key; LoadError when the bundled file is bad."""
        if key == "served":
            return self.served
        name = key.removeprefix("bundled:")
        path = next((p for p in self._bundled if p.name == name), None)
        if path is None or not key.startswith("bundled:"):
            raise KeyError(key)
        with self._lock:
            if name not in self._loaded:
                self._loaded[name] = self._loader(path)
                self.loads += 1
            return self._loaded[name]


SETTINGS_FORMATS = ("metric-explorer/settings@1", "metric-explorer/arg-rules@1")
"""Format tags of the files an upload applies to the explorer instead of loading as runs."""


def settings_file_kind(data: bytes) -> str | None:
    """``"settings"`` for a settings JSON (``metric-explorer/settings@1``), ``"rules"`` for an
    argument-rules file (``metric-explorer/arg-rules@1``), None otherwise: the tag is looked for
    in the file's first 4 kB (a JSON object starting with ``{``). An ADK ``test_config.json`` (a
    small object with ``criteria`` and no ``format``) is a settings file too."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"{"):
        return None
    for kind, tag in zip(("settings", "rules"), SETTINGS_FORMATS):
        if f'"{tag}"'.encode() in head:
            return kind
    for kind, tag in zip(("settings", "rules"), SETTINGS_FORMATS):  # another version: its error names the format
        if f'"{tag.rsplit("@", 1)[0]}@'.encode() in head:
            return kind
    if b'"criteria"' in head and len(data) <= 65536:  # an ADK test_config.json: a small object of criteria
        try:
            parsed = json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError):  # not one: the run readers name the fault
            return None
        if isinstance(parsed, dict) and "criteria" in parsed and "format" not in parsed:
            return "settings"
    return None


Examples = Callable[[], Sequence[str | None]] | Sequence[str | None]
"""Each run's example id (None for none), or a function giving them (called only when needed)."""


def labels_matching(data: bytes, name: str, run_ids: np.ndarray, examples: Examples = ()) -> tuple[list[str], int]:
    """The run ids of a labels CSV upload (with or without an ``annotator`` column) and how many
    of them name one of ``run_ids`` or are the example id (``examples``, one per run) of one or
    more runs (:func:`~explorer.core.io.loaders.labels.match_label_ids`). Raises LoadError for a
    bad labels file (naming the row and column)."""
    ids = list(label_file_from_text(decode_text(data, name), name).labels)
    match = match_label_ids(ids, [str(r) for r in run_ids], examples)
    return ids, len(match.run_of) + len(match.several)


def load_upload(data: bytes, name: str, input_format: str = "auto") -> SharedData:
    """Runs uploaded as file ``name`` with content ``data``: read with ``loads_runs`` (format
    detected under ``auto``), features built once. Raises LoadError (empty, binary, over the size
    limit, not JSON/CSV, schema, missing field, wrong type, 0 runs) naming the file, the location
    and the field; nothing else is touched."""
    case_set = loads_runs(data, name, input_format)
    return shared_from_case_set(case_set)


@dataclass(frozen=True)
class UploadedLabels:
    """A labels CSV upload matched to the runs: ``single`` run index -> (verdict or None, note)
    for a file without an annotator column, else ``annotated`` run index -> its labels
    ``(annotator, verdict, note)``; ``unknown`` the number of run ids naming no run; ``match`` how
    its ids named runs (by run id or example id; example ids of several runs, not applied);
    ``unknown_ids`` the ids naming no run in file order and ``first_unknown_row`` the CSV row
    (header = row 1) of the first, None when there is none."""

    single: dict[int, tuple[str | None, str]]
    annotated: dict[int, list[tuple[str, str, str]]]
    unknown: int
    match: LabelMatch | None = None
    unknown_ids: tuple[str, ...] = ()
    first_unknown_row: int | None = None


def labels_from_upload(data: bytes, name: str, run_ids: np.ndarray, examples: Examples = ()) -> UploadedLabels:
    """Read a labels CSV upload, with or without an ``annotator`` column (issue 11), against runs
    ``run_ids`` whose example ids are ``examples`` (one per run; a label id that is no run id names
    the one run of that example id, :func:`~explorer.core.io.loaders.labels.match_label_ids`).
    Raises LoadError for a bad labels file, and when none of its labels applies to a run (naming
    the example ids of several runs, when that is why)."""
    got = label_file_from_text(decode_text(data, name), name)
    position = {str(rid): i for i, rid in enumerate(run_ids)}
    ids = list(got.labels)
    match = match_label_ids(ids, list(position), examples)
    if ids and not match.run_of:
        several = several_note(match.several)
        one = len(ids) == 1
        if several:
            which = "its one run id names no single run" if one else f"none of the {len(ids):,} run ids names exactly one run"
            problem = f"{which} of this case set: {several}"
        else:
            problem = (f"its one run id names no run of this case set ({json.dumps(ids[0])})" if one else
                       f"none of the {len(ids):,} run ids names a run of this case set (first: {json.dumps(ids[0])})")
        raise LoadError(name, "row 2, column run_id", problem)
    at = {lid: position[rid] for lid, rid in match.run_of.items()}
    unknown = tuple(match.unknown)
    first_row = got.rows.get(unknown[0]) if unknown else None
    if got.annotated is None:
        single = {at[lid]: (lab.verdict, lab.note) for lid, lab in got.labels.items() if lid in at}
        return UploadedLabels(single, {}, len(unknown), match, unknown, first_row)
    annotated = {at[lid]: [(lab.annotator, lab.verdict, lab.note) for lab in labs]
                 for lid, labs in got.annotated.items() if lid in at}
    return UploadedLabels({}, annotated, len(unknown), match, unknown, first_row)


def run_examples(shared: SharedData) -> Callable[[], list[str | None]]:
    """A function giving the example id of each run of ``shared`` (read when called: a big set
    rebuilds its runs)."""
    return lambda: example_ids(shared.case_set.runs)


TRACE_KEY = "otel_trace_id"
"""``Run.extra`` key the OTLP loader sets: the runs come from traces."""
LOG_KEY = "inspect_epoch"
"""``Run.extra`` key the Inspect loader sets: the runs come from an evaluation log."""


def trace_or_log(case_set: CaseSet) -> str | None:
    """``"traces"`` for runs read from OTLP traces, ``"logs"`` for runs read from an Inspect log,
    None otherwise (judged by the first run's ``extra``)."""
    if not case_set.runs:
        return None
    extra = case_set.runs[0].extra
    return "traces" if TRACE_KEY in extra else "logs" if LOG_KEY in extra else None


def lacks_expected_calls(case_set: CaseSet) -> bool:
    """True for runs from traces or logs none of which has an expected call (no expectations
    joined yet: every call then counts as an extra call)."""
    return trace_or_log(case_set) is not None and not any(
        inv.expected_calls for run in case_set.runs for inv in run.invocations)


@dataclass(frozen=True)
class Joined:
    """An expectations file joined onto a set: ``shared`` the set with it joined (not kept yet:
    :meth:`Workspace.keep`), ``key_words`` how runs were matched (``"trace id"``, ``"sample id"``,
    ``"span attribute eval.example_id"``), ``matched`` of ``total`` runs got an expectation,
    ``missing`` the ids of the runs that got none, ``unused`` the expectation ids that named no run
    (both in file order)."""

    shared: SharedData
    key_words: str
    matched: int
    total: int
    missing: list[str]
    unused: list[str]


def _key_words(case_set: CaseSet, expectations: Expectations, join_key: str | None) -> str:
    """How ``apply_expectations`` matched ``case_set``'s runs (run id first, then ``example_id``)."""
    kind = trace_or_log(case_set)
    by_run = by_example = False
    for run in case_set.runs:
        if run.id in expectations.by_id:
            by_run = True
        elif run.extra.get(EXAMPLE_ID) in expectations.by_id:
            by_example = True
    if kind == "logs":
        return "sample id"
    run_words = "trace id" if kind == "traces" else "run id"
    example_words = f"span attribute {join_key}" if join_key else "example id"
    return " and ".join(w for w, used in ((run_words, by_run), (example_words, by_example)) if used) or run_words


class Workspace:
    """One session's case sets: the process's shared sets plus this session's uploads, the
    active set's key, and the session's labels per set (created on first use from the file's
    labels, then kept).

    Loads that fail raise and leave every attribute as it was."""

    def __init__(self, process: ProcessSets) -> None:
        self.process = process
        self.uploads: dict[str, SetEntry] = {}
        self.labels: dict[str, SessionLabels] = {}
        self.own: dict[str, SharedData] = {}
        """This session's own versions of the shared sets (the same runs under other argument
        rules, :meth:`keep`); other sessions keep the process's."""
        self.active = "served"
        self.trace_files: dict[str, tuple[str, bytes]] = {}
        """(name, bytes) of each uploaded OTLP trace file: read again with a join key when an
        expectations file names its runs by a span attribute."""
        self.unjoined: dict[str, SharedData] = {}
        """Each set as loaded, before an expectations file was joined (a later file replaces the
        earlier one's expected calls: it is joined onto this)."""

    def entries(self) -> list[SetEntry]:
        """Shared entries, then this session's uploads in upload order."""
        return [*self.process.entries(), *self.uploads.values()]

    def options(self) -> dict[str, str]:
        """Picker options: label -> key (labels are unique: an upload's label carries a number
        when its name repeats)."""
        return {e.label: e.key for e in self.entries()}

    def shared(self, key: str | None = None) -> SharedData:
        """Shared data of ``key`` (default the active set). KeyError / LoadError as :meth:`ProcessSets.get`."""
        key = key or self.active
        if key in self.uploads:
            shared = self.uploads[key].shared
            assert shared is not None
            return shared
        if key in self.own:
            return self.own[key]
        return self.process.get(key)

    def keep(self, key: str, shared: SharedData) -> None:
        """Use ``shared`` (set ``key``'s runs with features made in this session, e.g. under other
        argument rules) for set ``key`` from now on in this session."""
        if key in self.uploads:
            self.uploads[key] = replace(self.uploads[key], shared=shared)
        else:
            self.own[key] = shared

    def labels_for(self, key: str | None = None) -> SessionLabels:
        """The session's labels of set ``key`` (default active), made from the file's labels on first use."""
        key = key or self.active
        if key not in self.labels:
            self.labels[key] = SessionLabels.from_shared(self.shared(key))
        return self.labels[key]

    def add_upload(self, data: bytes, name: str, input_format: str = "auto") -> str:
        """Load an uploaded run file into a new entry and return its key (does not activate it).
        LoadError leaves the workspace unchanged."""
        shared = load_upload(data, name, input_format)
        n = len(self.uploads) + 1
        key = f"upload:{n}"
        label = entry_label(name, "upload", shared.features.n)
        if label in self.options():
            label = entry_label(f"{name} #{n}", "upload", shared.features.n)
        self.uploads[key] = SetEntry(key, label, "upload", shared)
        if trace_or_log(shared.case_set) == "traces":
            self.trace_files[key] = (name, data)
        return key

    def join_expectations(self, expectations: Expectations, key: str | None = None) -> Joined:
        """Set ``key`` (default the active one) as loaded with ``expectations`` joined
        (``apply_expectations``: by run id, else by ``example_id``); for an uploaded trace file
        also read again with each span attribute naming expectation ids as the join key
        (``ReadOptions.join_key``, the CLI's ``--join-key``), the reading that matches the most
        runs kept (ties: the run ids). Changes nothing (:meth:`keep` the result). Raises LoadError
        naming the expectations file when no reading matches a run, or (the core's) when an
        expectation's invocations do not fit its run."""
        key = key or self.active
        base = self.unjoined.get(key) or self.shared(key)
        readings: list[tuple[CaseSet, str | None]] = [(base.case_set, None)]
        if key in self.trace_files:
            name, data = self.trace_files[key]
            for attr in attributes_naming(data, name, expectations.by_id):
                readings.append((loads_runs(data, name, options=ReadOptions(join_key=attr)), attr))
        best = None
        for case_set, attr in readings:
            joined, unused, missing = apply_expectations(case_set, expectations)
            matched = len(case_set.runs) - len(missing)
            if best is None or matched > best[0]:
                best = (matched, case_set, attr, joined, unused, missing)
        matched, case_set, attr, joined, unused, missing = best  # type: ignore[misc]
        if matched == 0:
            first = next(iter(expectations.by_id))
            where = "by trace id or any span attribute" if key in self.trace_files else "by run id or example id"
            at = expectations.places.get(first)
            if len(expectations.by_id) == 1:
                raise LoadError(expectations.source, expectations.place(first),
                                f"its one expectation id, {json.dumps(first)}, names no run shown here ({where})")
            raise LoadError(expectations.source, "", f"none of the {len(expectations.by_id):,} expectation ids names a run shown "
                                                     f"here ({where}; first: {json.dumps(first)}{f', {at}' if at else ''})")
        features = build_features(joined, arg_rules=self.shared(key).features.arg_rules)  # the rules in use
        shared = replace(base, case_set=joined, features=features, tools=tuple(features.tool_names))
        return Joined(shared, _key_words(case_set, expectations, attr), matched, len(case_set.runs), missing, unused)

    def lacks_example_ids(self, key: str | None = None) -> bool:
        """True for set ``key`` (default active) when it is an uploaded trace file read without a
        join key (none of its runs has an example id yet): an expectations file joined by a span
        attribute reads it again with one (:meth:`join_expectations`), so labels keyed by example id
        can wait for that."""
        key = key or self.active
        if key not in self.trace_files:
            return False
        runs = self.shared(key).case_set.runs
        return not any(EXAMPLE_ID in run.extra for run in runs)

    def keep_joined(self, key: str, joined: Joined) -> None:
        """Use ``joined`` for set ``key`` from now on, the set as loaded kept for a later join."""
        self.unjoined.setdefault(key, self.shared(key))
        self.keep(key, joined.shared)

    def select(self, key: str) -> SharedData:
        """Make ``key`` the active set and return its data (KeyError / LoadError leave the
        active set as it was)."""
        shared = self.shared(key)
        self.active = key
        return shared
