"""CLI options for traces and logs (issue 13): how OTLP traces and Inspect logs become runs, and the
expectations joined onto them. Shared by every command that reads runs (``score``, ``serve``, ...)."""

from __future__ import annotations

import argparse
import sys

from ..core.io.errors import LoadError
from ..core.io.loaders.expectations import SNIFF_BYTES, apply_expectations, load_expectations, looks_like_expectations, missing_note
from ..core.io.featurestore import is_features_path
from ..core.io.loaders.detect import FORMAT_WORDS, file_format
from ..core.io.loaders.labels import looks_like_labels_csv
from ..core.io.loaders.options import RUN_UNITS, ReadOptions
from ..core.io.model import CaseSet
from ..core.plural import counted, noun
from .text_args import name_arg, path_arg


def add_trace_options(p: argparse.ArgumentParser) -> None:
    """``--expectations``, ``--run-unit``, ``--join-key``, ``--verdict-attribute``, ``--verdict-score``."""
    g = p.add_argument_group("traces and logs (OTLP traces, Inspect logs; see docs/formats.md)")
    g.add_argument("--expectations", metavar="PATH", type=path_arg,
                   help="expected calls and references by example id: JSONL {id, expected_calls, reference(s)} or a case set")
    g.add_argument("--run-unit", choices=RUN_UNITS, default=None,
                   help="OTLP: one run per trace (default) or per outermost agent span")
    g.add_argument("--join-key", metavar="ATTR", type=name_arg,
                   help="OTLP: span attribute naming the dataset example (expectations join on it as well as the run id)")
    g.add_argument("--verdict-attribute", metavar="ATTR", type=name_arg,
                   help="OTLP: span or span-event attribute holding the person's verdict (acceptable/unacceptable)")
    g.add_argument("--verdict-score", metavar="NAME", type=name_arg,
                   help="Inspect: the score holding the person's verdict (C/1/true acceptable, I/N/0/false unacceptable)")


def read_options_from_args(args: argparse.Namespace) -> ReadOptions:
    """The :class:`ReadOptions` the flags give (defaults when a command has none of them)."""
    return ReadOptions(
        run_unit=getattr(args, "run_unit", None) or "trace",
        join_key=getattr(args, "join_key", None),
        verdict_attribute=getattr(args, "verdict_attribute", None),
        verdict_score=getattr(args, "verdict_score", None),
    )


FORMAT_OPTIONS = {
    "run_unit": ("--run-unit", "otlp", "each record of other formats is one run"),
    "join_key": ("--join-key", "otlp", "an Inspect sample's id is its example id already; other formats join expectations by run id"),
    "verdict_attribute": ("--verdict-attribute", "otlp", "for an Inspect log give --verdict-score NAME; for other formats the "
                                                         "person's verdict is human_verdict in the runs or a --labels CSV"),
    "verdict_score": ("--verdict-score", "inspect", "for OTLP traces give --verdict-attribute ATTR; for other formats the "
                                                    "person's verdict is human_verdict in the runs or a --labels CSV"),
}
"""Each trace option (its ``dest``) -> (flag, the one input format it applies to, what to do
instead). Given with no input of that format it would change nothing, without a word (a trial
gave --verdict-score with OTLP traces): :func:`check_format_options` makes it an error."""


def check_format_options(args: argparse.Namespace, paths: list[str], what: str = "--cases") -> None:
    """CliError when a trace option given in ``args`` applies to none of the run files ``paths``
    (the files ``what`` names; their format ``--input-format`` or detected, see
    :func:`~explorer.core.io.loaders.detect.file_format`), naming the option, the file(s), what
    each file is and what to give instead: ``--verdict-score applies to an Inspect log only:
    traces.jsonl is OTLP traces (for OTLP traces give --verdict-attribute ATTR; ...)``. A features
    dataset's runs were read when it was written: a trace option (or ``--input-format``) with it
    is a CliError saying to give it to ``featurize``. A file whose format cannot be told is left
    to the loader's error. Files are read only when such an option was given."""
    from .common import CliError  # common imports this module
    given = [(dest, *FORMAT_OPTIONS[dest]) for dest in FORMAT_OPTIONS if getattr(args, dest, None) is not None]
    input_format = getattr(args, "input_format", "auto") or "auto"
    stored = [p for p in paths if is_features_path(p)]
    if stored:
        flags = [flag for _, flag, _, _ in given] + (["--input-format"] if input_format != "auto" else [])
        if flags:
            raise CliError(f"{', '.join(flags)}: {stored[0]} is a features dataset, whose runs were read when it was written: "
                           f"give {noun(len(flags), 'that option', 'those options')} to metric-explorer featurize, which reads the run files")
        return
    if not given:
        return
    formats = {p: file_format(p, input_format) for p in paths}
    if any(f is None for f in formats.values()):
        return  # the loader names the file it cannot read
    for dest, flag, applies, instead in given:
        if applies in formats.values():
            continue
        kinds = "; ".join(f"{p} is {FORMAT_WORDS[f]}" for p, f in formats.items())
        raise CliError(f"{flag} applies to {FORMAT_WORDS[applies]} only, and no {what} file is one: {kinds} "
                       f"({instead})")


KIND_FLAGS = {"labels": "--labels", "expectations": "--expectations"}
"""A file kind told by its content (:func:`file_kind`) -> the flag that reads it."""


def file_kind(path: str) -> str | None:
    """``"labels"`` for a labels CSV (``run_id,human_verdict,...``), ``"expectations"`` for an
    expectations file (ids with expected calls or references and no answer), judged by the first
    MB as the page's drop zone judges them; None for anything else or a file that cannot be read."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return None
    if looks_like_labels_csv(head, str(path)):
        return "labels"
    return "expectations" if looks_like_expectations(head) else None


def with_kind_hint(exc: LoadError, flag: str) -> LoadError:
    """``exc`` (raised reading a file given with ``flag``) with the flag its file belongs to when
    it is of another kind: ``"labels.csv: row 1 (header): missing column "id" (...); this is a
    labels CSV: give it with --labels"``; ``exc`` itself otherwise."""
    kind = file_kind(exc.file) if exc.file else None
    if kind is None or KIND_FLAGS[kind] == flag:
        return exc
    return LoadError(exc.file, exc.location, f"{exc.problem}; this is {'a labels CSV' if kind == 'labels' else 'an expectations file'}: "
                                             f"give it with {KIND_FLAGS[kind]}")


def warn(text: str) -> None:
    """One line on stderr, ``metric-explorer: <text>``."""
    print(f"metric-explorer: {text}", file=sys.stderr)


def apply_expectations_from_args(case_set: CaseSet, args: argparse.Namespace) -> CaseSet:
    """``case_set`` with ``--expectations`` joined (unchanged without it). Expectation ids that
    name no run and runs without an expectation are reported on stderr; a file none of whose ids
    names a run is a LoadError."""
    path = getattr(args, "expectations", None)
    if not path:
        return case_set
    try:
        expectations = load_expectations(path)
    except LoadError as exc:
        raise with_kind_hint(exc, "--expectations") from None
    joined, unused, missing = apply_expectations(case_set, expectations)
    if len(unused) == len(expectations.by_id):
        first = next(iter(expectations.by_id))
        key = getattr(args, "join_key", None)
        remedy = (f"the join key {key} names none of them either" if key else "for traces give --join-key ATTR")
        if len(unused) == 1:
            raise LoadError(path, expectations.place(first), f"its one expectation id, {first}, names no loaded run or its "
                                                              f"example_id; {remedy}")
        at = expectations.places.get(first)
        raise LoadError(path, "", f"none of the {len(unused):,} expectation ids names a loaded run or its example_id "
                                  f"(first: {first}{f', {at}' if at else ''}); {remedy}")
    if unused:
        shown = ", ".join(unused[:10]) + (f" (+{len(unused) - 10} more)" if len(unused) > 10 else "")
        warn(f"warning: {path}: {counted(len(unused), 'expectation id')} {noun(len(unused), 'names', 'name')} no "
             f"loaded run: {shown}")
    if missing:
        warn(f"warning: {missing_note(missing, len(case_set.runs))}")
    return joined


TRACE_MARKS = {"otel_trace_id": "traces", "inspect_epoch": "an Inspect log"}
"""A key of ``Run.extra`` that only the OTLP or the Inspect loader sets, and where such runs come from."""


def expectations_hint(case_set: CaseSet, args: argparse.Namespace) -> str | None:
    """One plain line when runs read from traces or an Inspect log make calls but expect none and
    no ``--expectations`` was given (neither format records the calls a run should make: each
    call then counts as an extra call, so an exact trajectory fails each such run), saying how
    to give them; None otherwise."""
    if getattr(args, "expectations", None) or not isinstance(case_set.runs, (tuple, list)):
        return None  # a features dataset's or the feature cache's runs are read lazily: not scanned
    kinds: dict[str, int] = {}
    for run in case_set.runs:
        kind = next((what for mark, what in TRACE_MARKS.items() if mark in run.extra), None)
        calls = any(inv.actual_calls for inv in run.invocations)
        if kind is not None and calls and not any(inv.expected_calls for inv in run.invocations):
            kinds[kind] = kinds.get(kind, 0) + 1
    if not kinds:
        return None
    what = " and ".join(f"{n:,} run{'s' if n != 1 else ''} from {kind}" for kind, n in kinds.items())
    return (f"hint: {what} make calls but expect none: every call counts as an extra call, so an exact trajectory fails each such run; "
            "give them with --expectations FILE (JSONL of {id, expected_calls, references} by run id, "
            "or by example id with --join-key ATTR for traces; see docs/formats.md)")


def print_expectations_hint(case_set: CaseSet, args: argparse.Namespace) -> None:
    """:func:`expectations_hint` on stderr, when there is one."""
    hint = expectations_hint(case_set, args)
    if hint is not None:
        warn(hint)


def print_notes(case_set: CaseSet) -> None:
    """The loader's notes (e.g. traces without tool spans), one line each on stderr."""
    for note in case_set.notes:
        warn(f"note: {note}")
