"""Options and helpers shared by the subcommands: loading runs, settings flags, output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from ..core.io.casefile import load_case_set
from ..core.io.exports import load_settings
from ..core.io.bigload import looks_like_flat_jsonl
from ..core.io.loaders import INPUT_FORMATS, load_many
from ..core.io.loaders.labels import apply_labels, load_label_file
from ..core.io.errors import LoadError
from ..core.io.model import CaseSet
from ..core.evaluation.settings import Settings
from ..core.scoring.trajectory import TRAJECTORY_MODES
from .trace_options import add_trace_options, apply_expectations_from_args, print_notes, read_options_from_args

BUNDLED_CASES = Path(__file__).resolve().parents[2] / "cases" / "booking_agent.json"
"""The bundled booking-agent case set (seed 002), used when ``--cases`` is not given."""


class CliError(Exception):
    """A problem the user must fix; printed as one line, exit status 2."""


def add_cases_option(p: argparse.ArgumentParser) -> None:
    """``--cases PATH`` (default: the bundled booking-agent set)."""
    p.add_argument("--cases", metavar="PATH", help="case-set file (default: the bundled booking-agent set)")


def add_run_input_options(p: argparse.ArgumentParser, settings: bool = True) -> None:
    """``--cases PATH`` (repeatable: runs of several files joined), ``--input-format``,
    ``--labels PATH`` and (unless ``settings`` is False) ``--settings PATH`` (read with
    :func:`load_cases_from_args` and :func:`base_settings_from_args`)."""
    p.add_argument("--cases", metavar="PATH", action="append",
                   help="run file (repeatable; default: the bundled booking-agent set); see docs/formats.md")
    p.add_argument("--input-format", choices=INPUT_FORMATS, default="auto",
                   help="format of the --cases files (default auto: detected from each file)")
    p.add_argument("--labels", metavar="PATH",
                   help="labels CSV run_id,[annotator,]human_verdict,note applied over the runs' own verdicts")
    if settings:
        p.add_argument("--settings", metavar="PATH", help="settings JSON (metric-explorer/settings@1); flags given override it")
    add_trace_options(p)


def add_settings_options(p: argparse.ArgumentParser) -> None:
    """The scorer settings flags; defaults are seed 002's opening run."""
    g = p.add_argument_group("scorer settings (defaults: seed 002's opening run)")
    g.add_argument("--trajectory", choices=TRAJECTORY_MODES, default=None, help="trajectory match (default exact)")
    g.add_argument("--ignore-args", action="store_true", default=None, help="compare tool names only (ADK ignore_args)")
    g.add_argument("--f1-threshold", type=_unit_float, default=None, metavar="X", help="F1 needed to pass, 0..1 (default 0.8)")
    g.add_argument("--combine", choices=("all", "mean"), default=None, help="every check must pass, or mean >= 0.75 (default all)")
    g.add_argument("--deny", nargs="+", metavar="TOOL", default=None, help="fail runs that call any of these tools")
    g.add_argument("--key-fields", action="store_true", default=None, help="exact check on dates and booking ids")


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
    return _checked(text, float, "a number", lambda v: 0.0 <= v <= 1.0, "between 0 and 1")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _checked(text, int, "an integer", lambda v: v >= 1, "at least 1")


def half_width_arg(text: str) -> float:
    """argparse type: an interval half-width in (0, 0.5)."""
    return _checked(text, float, "a number", lambda v: 0.0 < v < 0.5, "in (0, 0.5)")


def settings_from_args(args: argparse.Namespace, base: Settings | None = None) -> Settings:
    """``base`` (default: ``Settings()``) with the flags the user gave applied on top."""
    s = base or Settings()
    changes: dict[str, Any] = {}
    if args.trajectory is not None:
        changes["trajectory"] = args.trajectory
    if args.ignore_args:
        changes["compare_args"] = False
    if args.f1_threshold is not None:
        changes["f1_threshold"] = args.f1_threshold
    if args.combine is not None:
        changes["combine"] = args.combine
    if args.deny:
        changes["deny_check"] = True
        changes["deny_tools"] = tuple(args.deny)
    if args.key_fields:
        changes["key_fields"] = True
    return s.with_(**changes) if changes else s


def load_cases(path: str | list[str] | None, input_format: str = "auto", progress=None, options=None) -> CaseSet:
    """The runs at ``path`` (one path or a list, joined; bundled set when None or empty), each
    file in ``input_format`` (``auto`` detects) read with ``options`` (traces and logs, see
    :mod:`.trace_options`); LoadError propagates. ``progress(done, total)`` (bytes) is called
    while a big JSONL file loads."""
    if not path:
        return load_case_set(BUNDLED_CASES)
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    if len(paths) == 1 and looks_like_flat_jsonl(paths[0], input_format):
        from .progress import load_big_jsonl  # big JSONL: parallel load + features, progress bar

        return load_big_jsonl(paths[0], progress)
    return load_many(paths, input_format, options)


def load_cases_from_args(args: argparse.Namespace, progress=None) -> CaseSet:
    """Runs from ``--cases``/``--input-format`` (and the trace options), with ``--expectations``
    then ``--labels`` applied. Label ids that name no run are reported on stderr; a labels file
    none of whose ids name a run is an error. The loader's notes go to stderr.
    ``progress``: as for :func:`load_cases`."""
    case_set = load_cases(args.cases, getattr(args, "input_format", "auto"), progress, read_options_from_args(args))
    print_notes(case_set)
    case_set = apply_expectations_from_args(case_set, args)
    labels_path = getattr(args, "labels", None)
    if labels_path:
        label_file = load_label_file(labels_path)
        labels = label_file.labels
        case_set, unknown = apply_labels(case_set, labels, label_file.annotated)
        if unknown and len(unknown) == len(labels):
            raise LoadError(labels_path, "", f"none of the {len(labels)} run ids names a loaded run (first: {unknown[0]})")
        if unknown:
            shown = ", ".join(unknown[:10]) + (f" (+{len(unknown) - 10} more)" if len(unknown) > 10 else "")
            print(f"metric-explorer: warning: {labels_path}: {len(unknown)} run ids name no loaded run: {shown}", file=sys.stderr)
    return case_set


def base_settings_from_args(args: argparse.Namespace) -> Settings:
    """Settings from ``--settings PATH`` (defaults when absent); the settings flags go on top
    with :func:`settings_from_args`. LoadError for a bad file."""
    path = getattr(args, "settings", None)
    return load_settings(path) if path else Settings()


def clean_json(value: Any) -> Any:
    """NaN -> None, numpy scalars -> Python, recursively, so ``json.dumps`` writes valid JSON."""
    if isinstance(value, dict):
        return {k: clean_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_json(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def print_json(data: Any) -> None:
    """Pretty JSON to stdout."""
    sys.stdout.write(json.dumps(clean_json(data), indent=2, ensure_ascii=False) + "\n")


__all__ = ["CliError", "LoadError"]
