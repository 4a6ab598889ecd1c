"""Options and helpers shared by the subcommands: loading runs, settings flags, output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.io.casefile import load_case_set
from ..core.io.exports import load_settings
from ..core.io.bigload import looks_like_flat_jsonl
from ..core.io.featurestore import is_features_path, open_features
from ..core.io.loaders import INPUT_FORMATS, load_many
from ..core.io.loaders.labels import apply_matched_labels, load_label_file, several_note
from ..core.io.errors import LoadError
from ..core.io.model import EXAMPLE_ID, CaseSet
from ..core.evaluation.features import Features, load_warnings
from ..core.evaluation.sample_size import MIN_HALF_WIDTH
from ..core.evaluation.settings import Settings
from ..core.numbers import decimal_number, whole_number
from ..core.plural import counted, noun
from ..core.scoring.arg_match import ARG_MODES
from ..core.scoring.arg_rules import ArgRules, load_arg_rules
from ..core.scoring.trajectory_metrics import TRAJECTORY_CHOICES
from .option_needs import check_needs
from .text_args import name_arg, path_arg
from .trace_options import add_trace_options, apply_expectations_from_args, check_format_options, print_notes, read_options_from_args, with_kind_hint

BUNDLED_CASES = Path(__file__).resolve().parents[2] / "cases" / "booking_agent.json"
"""The bundled booking-agent case set (seed 002), used when ``--cases`` is not given."""


class CliError(Exception):
    """A problem the user must fix; printed as one line, exit status 2."""


LIST_OPTION: dict[str, Any] = {"action": "extend", "nargs": "+"}
"""argparse keywords of every list option: ``--x a --x b`` and ``--x a b`` give the same list
(issue 10, kind 3)."""
CASES_HELP = "run file(s): repeat the flag or list several after it; paths are never split at commas (default: the bundled booking-agent set); see docs/formats.md"
NONE_YET = "none yet (no labelled run)"
"""An empty list of false passes, false fails or flipped runs when no run is labelled: nothing
can be wrong yet, and "none" alone read as "all good" (as the page's summary bar says it)."""
DENY_SYNTAX = "repeat the flag, list several after it, or separate them with commas (--deny a b = --deny a --deny b = --deny a,b)"


def tool_list(values: list[str] | None, option: str = "--deny") -> tuple[str, ...]:
    """The tool names of a list option's ``values``, each value split at commas and stripped,
    in order without repeats. CliError naming ``option`` for an empty name (``a,,b``)."""
    out: list[str] = []
    for value in values or ():
        for name in value.split(","):
            name = name.strip()
            if not name:
                raise CliError(f"{option}: empty tool name in {value!r} (write --deny a b, --deny a --deny b or --deny a,b)")
            if name not in out:
                out.append(name)
    return tuple(out)


def add_cases_option(p: argparse.ArgumentParser) -> None:
    """``--cases PATH`` (default: the bundled booking-agent set)."""
    p.add_argument("--cases", metavar="PATH", type=path_arg, help="case-set file (default: the bundled booking-agent set)")


def add_run_input_options(p: argparse.ArgumentParser, settings: bool = True) -> None:
    """``--cases PATH ...`` (a list option: runs of several files joined), (unless ``settings``
    is False) ``--settings PATH``, ``--arg-rules PATH`` and :func:`add_run_reading_options` (read
    with :func:`load_cases_from_args` and :func:`base_settings_from_args`)."""
    p.add_argument("--cases", metavar="PATH", type=path_arg, help=CASES_HELP, **LIST_OPTION)
    if settings:
        p.add_argument("--settings", metavar="PATH", type=path_arg, help="settings JSON (metric-explorer/settings@1); flags given override it")
    p.add_argument("--arg-rules", metavar="PATH", type=path_arg,
                   help="argument rules JSON (metric-explorer/arg-rules@1, or a settings file's arg_rules); replaces the "
                        "case set's and the settings file's rules")
    add_run_reading_options(p)


def add_run_reading_options(p: argparse.ArgumentParser) -> None:
    """How the ``--cases`` files are read and what is joined onto their runs: ``--input-format``,
    ``--labels PATH ...``, the cache options and the trace options (:mod:`.trace_options`). Every
    command that reads run files has them (``calibrate`` registers its own ``--cases``, beside
    ``--pairs``); :func:`reading_flags_given` names those a user gave."""
    p.add_argument("--input-format", choices=INPUT_FORMATS, default="auto",
                   help="format of the --cases files (default auto: detected from each file)")
    p.add_argument("--labels", metavar="PATH", type=path_arg, **LIST_OPTION,
                   help="labels CSV(s) run_id,[annotator,]human_verdict,note applied over the runs' own verdicts, in the "
                        "order given (a later file wins for a run both list); repeat the flag or list several after it")
    add_cache_options(p)
    add_trace_options(p)


_READING_DEFAULTS = {
    "input_format": "auto", "labels": None, "cache_dir": None, "expectations": None,
    "run_unit": None, "join_key": None, "verdict_attribute": None, "verdict_score": None,
}
"""Each option of :func:`add_run_reading_options` (its ``dest``) and its default."""


def reading_flags_given(args: argparse.Namespace) -> list[str]:
    """The flags of :func:`add_run_reading_options` given with a value other than their default,
    as typed (``["--labels", "--join-key"]``; ``--no-cache``, not ``--cache-dir``, when that was
    the flag), in the order of ``_READING_DEFAULTS``."""
    flags = {"cache_dir": getattr(args, CACHE_FLAG, "--cache-dir")}
    return [flags.get(dest, f"--{dest.replace('_', '-')}") for dest, default in _READING_DEFAULTS.items()
            if getattr(args, dest, default) != default]


CACHE_FLAG = "cache_flag"
"""The namespace attribute :class:`_NoCache` sets to the flag typed, ``"--no-cache"``."""


class _NoCache(argparse.Action):
    """``--no-cache``: ``cache_dir`` ``"off"`` (as ``--cache-dir off``), keeping the flag as typed
    in :data:`CACHE_FLAG` so a message can name it (:func:`reading_flags_given`)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, "off")
        setattr(namespace, CACHE_FLAG, option_string)


def add_cache_options(p: argparse.ArgumentParser) -> None:
    """``--cache-dir WHERE`` and ``--no-cache`` (issue 14: the automatic feature cache)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cache-dir", metavar="WHERE", type=path_arg, default=None,
                   help="where run files' features are cached: user (the user's cache folder, default), beside (a "
                        ".metric-explorer-cache folder next to the file), a folder path, or off "
                        "(default: $METRIC_EXPLORER_CACHE_DIR, else user); see docs/performance.md")
    g.add_argument("--no-cache", dest="cache_dir", action=_NoCache,
                   help="compute features without reading or writing the cache (= --cache-dir off)")


def add_settings_options(p: argparse.ArgumentParser) -> None:
    """The scorer settings flags; the defaults are ``Settings()``'s (the bundled lesson's opening
    run), said in the group's title in plain words."""
    g = p.add_argument_group("scorer settings (defaults: exact trajectory with arguments compared, F1 >= 0.8, every "
                             "check must pass, deny-list and key fields off)")
    g.add_argument("--trajectory", choices=TRAJECTORY_CHOICES, default=None, metavar="FAMILY",
                   help="trajectory metric: exact, in_order, any_order (ADK), subset, superset, unordered, strict "
                        "(agentevals), precision, recall, f1, lcs, single_tool_use (partial credit) or none (default exact)")
    g.add_argument("--args", choices=ARG_MODES, default=None,
                   help="argument mode: exact (ADK ==), ignore (names only), subset (actual keys among the expected), "
                        "superset (every expected key, extras allowed) (default exact)")
    g.add_argument("--ignore-args", action="store_true", default=None, help="compare tool names only (ADK ignore_args; = --args ignore)")
    g.add_argument("--trajectory-threshold", type=_unit_float, default=None, metavar="X",
                   help="trajectory score needed to pass, 0..1 (default 1.0: every invocation matches)")
    g.add_argument("--single-tool", metavar="TOOL", type=name_arg, default=None, help="the tool --trajectory single_tool_use looks for")
    g.add_argument("--f1-threshold", type=_unit_float, default=None, metavar="X", help="F1 needed to pass, 0..1 (default 0.8)")
    g.add_argument("--combine", choices=("all", "mean"), default=None, help="every check must pass, or mean >= 0.75 (default all)")
    g.add_argument("--deny", metavar="TOOL", default=None, help=f"fail runs that call any of these tools; {DENY_SYNTAX}", **LIST_OPTION)
    g.add_argument("--key-fields", action="store_true", default=None, help="exact check on dates and booking ids")
    add_date_reading_options(g)


def add_date_reading_options(g) -> None:
    """``--day-first`` / ``--month-first`` (one of them): how numeric dates such as 04/03/2026
    read, for every check at once (``Settings.day_first``; default: the case set's own)."""
    x = g.add_mutually_exclusive_group()
    x.add_argument("--day-first", dest="day_first", action="store_const", const=True, default=None,
                   help="read 04/03/2026 as 4 March in every check (key fields, cascade field rules, rung 4)")
    x.add_argument("--month-first", dest="day_first", action="store_const", const=False,
                   help="read 04/03/2026 as 3 April in every check (default: the case set's reading, else day-first)")


def _checked(text: str, convert, what: str, ok, expected: str):
    """``convert(text)`` when ``ok`` holds for it; argparse errors ``not <what>: '<text>'`` or
    ``must be <expected>, got <text>`` otherwise."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"must be {expected}, got {text}")
    return value


def _unit_float(text: str) -> float:
    return _checked(text, decimal_number, "a number", lambda v: 0.0 <= v <= 1.0, "between 0 and 1")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1, in ASCII digits (:func:`~explorer.core.numbers.whole_number`)."""
    return _checked(text, whole_number, "an integer", lambda v: v >= 1, "at least 1")


def count_or_all(text: str, what: str = "row") -> int:
    """argparse type of ``--rows`` / ``--top``: a whole number >= 1 in ASCII digits, or ``all``
    (any case) read as 0, every one. ``what``: the noun of the "at least 1" message."""
    if text.strip().lower() == "all":
        return 0
    try:
        n = whole_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number or all, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 {what}, got {n}")
    return n


def whole_arg(text: str) -> int:
    """argparse type: an integer in ASCII digits (``--port``, ``--rung``; ``"３"`` and ``"1_0"``
    are refused: :func:`~explorer.core.numbers.whole_number`)."""
    return _checked(text, whole_number, "an integer", lambda v: True, "")


def number_arg(text: str) -> float:
    """argparse type: a decimal number in ASCII (:func:`~explorer.core.numbers.decimal_number`:
    no ``nan``, ``inf``, ``０.５`` or ``0.8_0``)."""
    return _checked(text, decimal_number, "a number", lambda v: True, "")


def half_width_arg(text: str) -> float:
    """argparse type: an interval half-width in [:data:`~explorer.core.evaluation.sample_size.MIN_HALF_WIDTH`,
    0.5), i.e. ±0.01 to under ±50 points."""
    return _checked(text, decimal_number, "a number", lambda v: MIN_HALF_WIDTH <= v < 0.5,
                    f"at least {MIN_HALF_WIDTH:g} (±0.01 points) and under 0.5")


def settings_from_args(args: argparse.Namespace, base: Settings | None = None) -> Settings:
    """``base`` (default: ``Settings()``) with the flags the user gave applied on top."""
    s = base or Settings()
    changes: dict[str, Any] = {}
    if args.trajectory is not None:
        changes["trajectory"] = args.trajectory
    if args.ignore_args and getattr(args, "args", None) not in (None, "ignore"):
        raise CliError(f"--ignore-args contradicts --args {args.args}")
    if getattr(args, "args", None) is not None:
        changes["args"] = args.args
    elif args.ignore_args:
        changes["args"] = "ignore"
    if getattr(args, "trajectory_threshold", None) is not None:
        changes["trajectory_threshold"] = args.trajectory_threshold
    if getattr(args, "single_tool", None):
        changes["single_tool"] = args.single_tool
    if args.f1_threshold is not None:
        changes["f1_threshold"] = args.f1_threshold
    if args.combine is not None:
        changes["combine"] = args.combine
    if args.deny:
        changes["deny_check"] = True
        changes["deny_tools"] = tool_list(args.deny)
    if args.key_fields:
        changes["key_fields"] = True
    if getattr(args, "day_first", None) is not None:
        changes["day_first"] = args.day_first
    try:
        return s.with_(**changes) if changes else s
    except ValueError as exc:
        raise CliError(str(exc)) from None


def load_cases(
    path: str | list[str] | None, input_format: str = "auto", progress=None, options=None, arg_rules: ArgRules | None = None,
    cache_dir: str | None = None,
) -> CaseSet:
    """The runs at ``path`` (one path or a list, joined; bundled set when None or empty), each
    file in ``input_format`` (``auto`` detects) read with ``options`` (traces and logs, see
    :mod:`.trace_options`); LoadError propagates. ``progress(done, total)`` (bytes) is called
    while a big JSONL file loads. ``arg_rules``, when given, replace the files' own argument
    rules (a big JSONL file's features are computed under them).

    Issue 14: a features dataset (``metric-explorer featurize``'s output) is opened as it is;
    run files of ``METRIC_EXPLORER_CACHE_MIN_BYTES`` (8 MB) or more go through the automatic
    feature cache (``cache_dir``: user / beside / a folder / off, default
    ``$METRIC_EXPLORER_CACHE_DIR`` else user), whose note (read from / computed into the cache)
    ends the case set's ``notes``."""
    if not path:
        case_set = load_case_set(BUNDLED_CASES)
    else:
        paths = [path] if isinstance(path, (str, Path)) else list(path)
        paths = [str(p) for p in paths]
        stored = [p for p in paths if is_features_path(p)]
        if stored:
            if len(paths) > 1:
                folders = {Path(p).parent for p in paths}
                folder = next(iter(folders))
                parts_of_one = len(stored) == len(paths) and len(folders) == 1 and is_features_path(folder) \
                    and all(Path(p).is_file() for p in paths)
                hint = f" (parts of one dataset: give its folder, --cases {folder})" if parts_of_one else ""
                raise LoadError(stored[0], "", f"a features dataset is read alone: give it as the only --cases{hint}")
            case_set = open_features(stored[0])
            return case_set if arg_rules is None else replace(case_set, arg_rules=arg_rules)
        if _cacheable(paths, cache_dir):
            return _load_cached(paths, input_format, progress, options, arg_rules, cache_dir)
        if len(paths) == 1 and looks_like_flat_jsonl(paths[0], input_format):
            from .progress import load_big_jsonl  # big JSONL: parallel load + features, progress bar

            return load_big_jsonl(paths[0], progress, arg_rules)
        case_set = load_many(paths, input_format, options)
    return case_set if arg_rules is None else replace(case_set, arg_rules=arg_rules)


def _cacheable(paths: list[str], cache_dir: str | None) -> bool:
    """True when ``paths`` go through the feature cache: the cache is on, every path is a file
    and together they hold at least ``featurecache.min_bytes()``."""
    from ..core.io import featurecache

    if featurecache.cache_root(paths, cache_dir) is None:
        return False
    try:
        if not all(Path(p).is_file() for p in paths):
            return False
        return sum(Path(p).stat().st_size for p in paths) >= featurecache.min_bytes()
    except OSError:
        return False


def _load_cached(paths: list[str], input_format: str, progress, options, arg_rules: ArgRules | None, cache_dir: str | None) -> CaseSet:
    """:func:`~explorer.core.io.featurecache.open_cached` with a progress bar on stderr; the size
    limit of every file checked first (``METRIC_EXPLORER_MAX_BYTES``)."""
    from dataclasses import asdict

    from ..core.io.featurecache import open_cached
    from ..core.io.featurestore import FeatureSettings
    from ..core.io.reading import check_size
    from ..core.scoring.arg_rules import NO_RULES
    from .progress import byte_bar

    for p in paths:
        check_size(Path(p).stat().st_size, p)
    settings = FeatureSettings(arg_rules=arg_rules or NO_RULES, input_format=input_format)
    read_options = {k: v for k, v in asdict(options).items() if v is not None} if options is not None else {}
    with byte_bar(f"features of {Path(paths[0]).name}", progress) as bar:
        return open_cached(paths, settings, rules_given=arg_rules is not None, read_options=read_options,
                           cache_dir=cache_dir, progress=bar)


def arg_rules_from_args(args: argparse.Namespace) -> ArgRules | None:
    """The argument rules the flags name: ``--arg-rules PATH``, else the ``arg_rules`` of the
    ``--settings`` file when it has some, else None (the case set's own apply). LoadError for a
    bad file."""
    path = getattr(args, "arg_rules", None)
    if path:
        return load_arg_rules(path)
    settings_path = getattr(args, "settings", None)
    if isinstance(settings_path, str):  # compare takes several settings files: their rules are not read
        load_settings(settings_path)  # a file that is no settings file is named as such, not as a rules file
        rules = load_arg_rules(settings_path)
        return rules or None
    return None


def refuse_files_given_twice(paths: list[str], option: str) -> None:
    """CliError when two of ``paths`` name one file or folder (the same text, or another spelling
    of it: ``./a.jsonl``, a symbolic or hard link, compared by device and inode): its runs would
    be read twice, which read as ``duplicate run id "a": also in a.jsonl line 1``. A path that
    does not exist is compared as its absolute path (its loader reports it)."""
    import os

    first_of: dict[object, str] = {}
    for path in paths:
        try:
            st = os.stat(path)
            key: object = (st.st_dev, st.st_ino)
        except (OSError, ValueError):
            key = os.path.abspath(path)
        if key in first_of:
            first = first_of[key]
            same = "is given twice" if first == path else f"is the file {first} given again"
            raise CliError(f"{option}: {path} {same}: give each file once")
        first_of[key] = path


def load_cases_from_args(args: argparse.Namespace, progress=None) -> CaseSet:
    """Runs from ``--cases``/``--input-format`` (and the trace options), with ``--expectations``
    then every ``--labels`` file applied, in order, and the argument rules of ``--arg-rules`` /
    ``--settings`` (:func:`arg_rules_from_args`) replacing the files' own. Label ids that name no
    run are reported on stderr; a labels file none of whose ids name a run is an error. The
    loader's notes go to stderr. ``progress``: as for :func:`load_cases`. A trace option that
    applies to none of the files is a CliError (:func:`~.trace_options.check_format_options`), and so
    is ``--cache-dir`` / ``--no-cache`` with a features dataset (:mod:`.option_needs`)."""
    paths = [args.cases] if isinstance(args.cases, str) else list(args.cases or []) or [str(BUNDLED_CASES)]
    refuse_files_given_twice([str(p) for p in paths], "--cases")
    check_format_options(args, [str(p) for p in paths])
    check_needs(args, features_dataset=next((str(p) for p in paths if is_features_path(str(p))), None))  # the cache options
    try:
        case_set = load_cases(
            args.cases, getattr(args, "input_format", "auto"), progress, read_options_from_args(args), arg_rules_from_args(args),
            getattr(args, "cache_dir", None),
        )
    except LoadError as exc:  # a labels CSV or an expectations file given as runs: say which flag reads it
        raise with_kind_hint(exc, "--cases") from None
    print_notes(case_set)
    case_set = apply_expectations_from_args(case_set, args)
    labels_paths = getattr(args, "labels", None) or []
    for labels_path in [labels_paths] if isinstance(labels_paths, str) else labels_paths:
        case_set = apply_labels_from_file(case_set, labels_path)
    return case_set


def apply_labels_from_file(case_set: CaseSet, labels_path: str) -> CaseSet:
    """``case_set`` with the labels CSV ``labels_path`` applied, its ids naming runs by run id,
    else by example id (:func:`~explorer.core.io.loaders.labels.match_label_ids`). Ids naming no
    run (the first ten, the first with its CSV row, header = row 1: ``names no loaded run: ZZ9
    (row 3)``), and example ids of several runs (not guessed), are warned about on stderr; a file none of
    whose labels applies is a LoadError saying why (for traces read without ``--join-key``, to give
    it)."""
    try:
        label_file = load_label_file(labels_path)
    except LoadError as exc:
        raise with_kind_hint(exc, "--labels") from None
    labels = label_file.labels
    labelled, match = apply_matched_labels(case_set, labels, label_file.annotated)
    several = several_note(match.several)
    if not match.run_of:
        first = match.unknown[0] if match.unknown else next(iter(labels))
        one = len(labels) == 1
        row = label_file.rows.get(first)
        text = (f"its one run id names no loaded run by run id or example id ({first})" if one else
                f"none of the {len(labels):,} run ids names a loaded run by run id or example id "
                f"(first: {first}{f', row {row}' if row else ''})")
        if several:
            which = "its one run id names no single loaded run" if one else f"none of the {len(labels):,} run ids names exactly one loaded run"
            text = f"{which}: {several}"
        elif trace_or_log_without_example_ids(case_set):
            text += "; to match traces by example id give --join-key ATTR"
        raise LoadError(labels_path, label_file.place(first) if one else "", text)
    if match.unknown:
        first_row = label_file.rows.get(match.unknown[0])  # as the page's "skipped: ZZ9 (row 3)"
        shown = ", ".join([match.unknown[0] + (f" (row {first_row:,})" if first_row is not None else ""), *match.unknown[1:10]])
        shown += f" (+{len(match.unknown) - 10} more)" if len(match.unknown) > 10 else ""
        print(f"metric-explorer: warning: {labels_path}: {counted(len(match.unknown), 'run id')} "
              f"{noun(len(match.unknown), 'names', 'name')} no loaded run: {shown}", file=sys.stderr)
    if several:
        print(f"metric-explorer: warning: {labels_path}: labels not applied: {several}", file=sys.stderr)
    return labelled


def trace_or_log_without_example_ids(case_set: CaseSet) -> bool:
    """True for runs read from OTLP traces none of which has an example id (read without
    ``--join-key``); a lazily read set is not scanned (False)."""
    runs = case_set.runs
    return (isinstance(runs, (tuple, list)) and bool(runs) and "otel_trace_id" in runs[0].extra
            and not any(EXAMPLE_ID in r.extra for r in runs))


def cases_heading(name: str, source: str) -> str:
    """A case set's ``name`` and the file it came from (``source``), each once, for a heading: ``Booking agent
    (cases/booking_agent.json)``; a name that is the file's name gives the path alone
    (``exports/runs.jsonl``), and a name that ends in it (an Inspect log's ``task (run.eval)``)
    has it replaced by the path (``task (logs/run.eval)``; it read ``task (run.eval)
    (logs/run.eval)``, a trial finding); a name that ends in its own bracket gets the path after
    a comma (``Twenty answers (a worked example), from cases/labelled_pairs.json``)."""
    if not source:
        return name
    base = source.replace("\\", "/").rsplit("/", 1)[-1]
    if name in (base, source):
        return source
    if base and name.endswith(f" ({base})"):
        return f"{name[: -len(base) - 3]} ({source})"
    if name.endswith(")"):  # "… example) (cases/…)" read as nested brackets
        return f"{name}, from {source}"
    return f"{name} ({source})"


def warn_on_load(features: Features, source: str) -> None:
    """Print the load warnings of :func:`~explorer.core.evaluation.features.load_warnings` (empty
    references) on stderr, one line each, naming ``source``."""
    for line in load_warnings(features):
        print(f"metric-explorer: warning: {source}: {line}", file=sys.stderr)


def warn_unused_tools(settings: Settings, features: Features) -> None:
    """Warn on stderr, one line each, about tools ``settings`` names that no run calls: a denied
    tool (the deny-list check can never fail a run on it) and the single-tool-use tool (every run
    scores 0). A misspelt name would otherwise change nothing, silently."""
    called = set(features.tool_names)
    unused = [tool for tool in settings.deny_tools if tool not in called]
    if unused:
        it = noun(len(unused), "it", "them")
        print(f"metric-explorer: warning: denied {noun(len(unused), 'tool')} {', '.join(unused)}: "
              f"no run calls {it}, so the deny-list check never fails a run on {it}", file=sys.stderr)
    if settings.single_tool and settings.single_tool not in called:
        print(f"metric-explorer: warning: single tool {settings.single_tool}: no run calls it, "
              "so single tool use scores 0 for every run", file=sys.stderr)


def base_settings_from_args(args: argparse.Namespace) -> Settings:
    """Settings from ``--settings PATH`` (defaults when absent); the settings flags go on top
    with :func:`settings_from_args`. LoadError for a bad file."""
    path = getattr(args, "settings", None)
    return load_settings(path) if path else Settings()


def no_interval(d: dict) -> str:
    """``"no interval (<reason>)"`` for an interval dict whose limits are null (``"no interval"``
    when it gives no ``reason``)."""
    return f"no interval ({d['reason']})" if d.get("reason") else "no interval"


def clean_json(value: Any) -> Any:
    """NaN and infinities -> None, numpy scalars -> Python, recursively, so ``json.dumps`` writes
    valid JSON (a run file's ``adk_*`` score may be ``Infinity`` or ``1e400``)."""
    if isinstance(value, dict):
        return {k: clean_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_json(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def print_json(data: Any) -> None:
    """Pretty JSON to stdout."""
    sys.stdout.write(json.dumps(clean_json(data), indent=2, ensure_ascii=False) + "\n")


__all__ = ["CliError", "LoadError"]
