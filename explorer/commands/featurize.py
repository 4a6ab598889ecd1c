"""``metric-explorer featurize``: compute run files' features once into a features dataset (issue 14).

``metric-explorer featurize INPUT... --out runs.features.parquet`` writes a Parquet dataset (a
folder: ``part-*.parquet`` and ``_features.json``, see :mod:`explorer.core.io.featurestore`) that
``score``, ``sweep`` and ``serve`` read with ``--cases runs.features.parquet`` in a second or two.
An INPUT is a run file, a folder (its files, sorted by name, skipping names that start with ``.``
or ``_``), a glob pattern (``'exports/*.jsonl'``, quoted), or ``@LIST``: a manifest text file of one
path per line (relative to the manifest's folder; blank lines and ``#`` comments skipped).

``--engine local`` (default) runs the partitions (16 MiB byte ranges of each JSONL file, other
formats a file each) in local processes; ``--engine dask`` on ``dask.distributed``: the scheduler
``--scheduler ADDRESS`` (``tcp://host:8786`` or a scheduler-file ``.json``), or a ``LocalCluster`` of
``--workers`` processes it starts. Workers write their parts into ``--out`` directly: with a remote
cluster it must be on storage every worker sees under the same path (docs/performance.md).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time
from dataclasses import asdict
from pathlib import Path

from ..core.io.errors import LoadError
from ..core.io.featurestore import FeatureSettings
from ..core.io.loaders import INPUT_FORMATS
from ..core.scoring.arg_rules import NO_RULES, load_arg_rules
from ..core.scoring.fields import DEFAULT_ID_PATTERN, UnusableIdPattern, check_id_pattern
from .common import CliError, name_arg, path_arg, positive_int, print_json, refuse_files_given_twice
from ..core.io.bigload import looks_like_flat_jsonl
from ..core.io.loaders.detect import FORMAT_WORDS, file_format
from ..core.plural import noun
from .option_needs import check_needs
from .trace_options import add_trace_options, check_format_options, read_options_from_args

HELP = "compute run files' features once into a Parquet features dataset that score, sweep and serve read"


def _regex(text: str) -> str:
    """argparse type: ``text`` when it compiles as a regular expression that does not match the
    empty string (argparse's usage error ``not a regular expression: ...`` otherwise, instead of
    re.error from a worker; ``''`` or ``[A-Z]*`` would find an empty booking id in every answer)."""
    try:
        check_id_pattern(text)
    except UnusableIdPattern as exc:
        raise argparse.ArgumentTypeError(f"{text!r} {exc}") from None
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"not a regular expression: {exc}") from None
    return text


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``featurize`` and its options."""
    p = sub.add_parser("featurize", help=HELP, description=HELP)
    p.add_argument("inputs", nargs="+", metavar="INPUT", type=path_arg,
                   help="run file, folder, glob pattern (quoted) or @LIST (a text file of paths, one a line)")
    p.add_argument("--out", required=True, metavar="PATH", type=path_arg, help="the features dataset folder to write (replaced when it exists)")
    p.add_argument("--input-format", choices=INPUT_FORMATS, default="auto", help="format of the run files (default auto)")
    x = p.add_mutually_exclusive_group()
    x.add_argument("--day-first", dest="day_first", action="store_const", const=True, default=None,
                   help="JSONL files read numeric dates such as 04/03/2026 as 4 March (default)")
    x.add_argument("--month-first", dest="day_first", action="store_const", const=False,
                   help="JSONL files read numeric dates month first (3 April)")
    p.add_argument("--id-pattern", default=None, metavar="REGEX", type=_regex,
                   help=f"regex that finds booking ids in JSONL answers (default {DEFAULT_ID_PATTERN})")
    p.add_argument("--arg-rules", metavar="PATH", type=path_arg, help="argument rules JSON the trajectory scores are computed under "
                   "(replaces other formats' own rules)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="local: worker processes on this machine (default); dask: a Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", type=name_arg, default=None,
                   help="with --engine dask: the scheduler (tcp://host:8786, or a scheduler-file .json); default: "
                        "start a LocalCluster")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="local processes, or the LocalCluster's workers (default: the CPUs, at most 4; 2 for dask)")
    p.add_argument("--memory-limit", type=name_arg, default=None, metavar="SIZE", help="with a LocalCluster: memory per worker, e.g. 2GB")
    p.add_argument("--partition-mb", type=positive_int, default=None, metavar="MB",
                   help="MB of a JSONL file per partition, a multiple of 8 (default: a quarter of the file, at most 16)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="summary format (default text)")
    add_trace_options(p)
    p.set_defaults(func=run)


def expand_inputs(inputs: list[str]) -> list[str]:
    """The run files INPUTs name, in order (see the module docstring). CliError for a glob or
    folder with no file, or for a features dataset or a file in one (:func:`_refuse_dataset`);
    LoadError for an unreadable manifest."""
    out: list[str] = []
    for item in inputs:
        if item.startswith("@"):
            manifest = Path(item[1:])
            try:
                lines = manifest.read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise LoadError(str(manifest), "", f"cannot read: {exc.strerror or exc}") from None
            for line in lines:
                line = line.strip()
                if line and not line.startswith("#"):
                    p = Path(line)
                    out.append(str(p if p.is_absolute() else manifest.parent / p))
        elif any(ch in item for ch in "*?[") and not os.path.exists(item):
            found = sorted(glob.glob(item))
            if not found:
                raise CliError(f"no file matches {item!r}")
            for match in found:  # a folder the glob matches is read as a folder given (a trial's 'runsd?r')
                out += _folder_files(match) if os.path.isdir(match) else [match]
        elif os.path.isdir(item):
            out += _folder_files(item)
        else:
            out.append(item)
    for folder in dict.fromkeys(os.path.dirname(p) or "." for p in out):  # a dataset's own files (a glob or list naming them)
        _refuse_dataset(folder)
    for path in out:
        _refuse_features_file(path)
    refuse_files_given_twice(out, "INPUT")
    return out


def _folder_files(folder: str) -> list[str]:
    """The run files of ``folder`` (not hidden, not ``_``-named), sorted; CliError for a features
    dataset or a folder holding none."""
    _refuse_dataset(folder)
    found = sorted(str(p) for p in Path(folder).iterdir() if p.is_file() and not p.name.startswith((".", "_")))
    if not found:
        raise CliError(f"folder {folder} holds no run file")
    return found


def _refuse_features_file(path: str) -> None:
    """CliError when ``path`` is a features part file outside its dataset (a trial copied
    ``part-00000.parquet`` to ``runs.parquet``): its features are computed already."""
    from ..core.io.featurestore import is_features_path

    if path.lower().endswith(".parquet") and os.path.isfile(path) and is_features_path(path):
        raise CliError(f"{path} is a features file (written by featurize), its features computed already: read it with "
                       f"score, sweep or serve --cases {path}; to compute them again, give the run files it was made from")


def _refuse_dataset(folder: str) -> None:
    """CliError when ``folder`` is a features dataset (``_features.json`` in it): its features are
    computed already, and its part files are not run files (found by a trial: ``featurize
    runs.features`` read ``part-00000.parquet`` as runs and said ``unknown field "human"``)."""
    from ..core.io.featurestore import MANIFEST

    manifest = Path(folder) / MANIFEST
    if not manifest.is_file():
        return
    try:
        import json

        sources = [str(s["path"]) for s in json.loads(manifest.read_text(encoding="utf-8"))["sources"]]
    except (OSError, ValueError, KeyError, TypeError):
        sources = []
    made_from = f" ({', '.join(sources)})" if sources else ""
    raise CliError(f"{folder} is a features dataset, its features computed already: read it with score, sweep or serve "
                   f"--cases {folder}; to compute them again, give the run files it was made from{made_from}")


def check_options(args: argparse.Namespace, paths: list[str]) -> None:
    """CliError for an option that would change nothing, without a word: a trace option no INPUT
    is of the format for (:func:`~.trace_options.check_format_options`); ``--day-first`` /
    ``--month-first`` or ``--id-pattern`` when no INPUT is flat JSONL (every other format keeps
    its file's own date reading and booking-id pattern: ``featurize._file_partition``), naming
    what each INPUT is; and the rules of :data:`~.option_needs.NEEDS` for featurize:
    ``--scheduler`` without ``--engine dask``; ``--memory-limit`` without a LocalCluster
    (``--engine dask`` and no ``--scheduler``: a remote cluster's workers have their own);
    ``--workers`` with ``--scheduler``; ``--partition-mb`` when no INPUT is flat JSONL (any other
    file is one partition). The INPUTs are sniffed only when an option needs it."""
    check_format_options(args, paths, what="INPUT")
    jsonl_only = [flag for flag, given in ((("--day-first" if args.day_first else "--month-first"), args.day_first is not None),
                                           ("--id-pattern", args.id_pattern is not None)) if given]
    facts = {}
    if jsonl_only or args.partition_mb is not None:  # files are sniffed only when an option needs it
        flat = any(looks_like_flat_jsonl(p, args.input_format, min_bytes=0) for p in paths)
        kinds = "; ".join(f"{p} is {FORMAT_WORDS.get(file_format(p, args.input_format) or '', 'not flat JSONL')}" for p in paths)
        if jsonl_only and not flat:
            raise CliError(f"{', '.join(jsonl_only)} {noun(len(jsonl_only), 'applies', 'apply')} to flat JSONL files only, and no "
                           f"INPUT is one: {kinds} (other formats keep their own date reading and booking-id pattern)")
        facts = {"inputs": kinds, "flat_jsonl": flat}
    check_needs(args, **facts)  # the cluster options, --partition-mb


def run(args: argparse.Namespace) -> int:
    """Featurise, then print what was written (runs, parts, time, runs/s per worker)."""
    from ..core.io.featurize import featurize, local_runner
    from .progress import byte_bar

    paths = expand_inputs(args.inputs)
    check_options(args, paths)
    rules = load_arg_rules(args.arg_rules) if args.arg_rules else None
    settings = FeatureSettings(day_first=True if args.day_first is None else args.day_first,
                               id_pattern=args.id_pattern or DEFAULT_ID_PATTERN, arg_rules=rules or NO_RULES,
                               input_format=args.input_format)
    read_options = {k: v for k, v in asdict(read_options_from_args(args)).items() if v is not None}
    if args.partition_mb is not None and args.partition_mb % 8:
        raise CliError(f"--partition-mb must be a multiple of 8, got {args.partition_mb}")
    cluster: dict = {}
    if args.engine == "dask":
        from ..core.io.dask_engine import DaskUnavailable, dask_runner

        workers = args.workers or 2
        try:
            runner = dask_runner(args.scheduler, workers, args.memory_limit, report=cluster.update)
        except DaskUnavailable as exc:
            raise CliError(str(exc)) from None
    else:
        workers = args.workers or min(4, os.cpu_count() or 1)
        runner = local_runner(workers)
    t0 = time.perf_counter()
    with byte_bar(f"featurize {len(paths)} file{'s' if len(paths) != 1 else ''}") as bar:
        manifest = featurize(paths, args.out, settings, rules_given=rules is not None, read_options=read_options, runner=runner,
                             partition_bytes=args.partition_mb * 1024 * 1024 if args.partition_mb else None, progress=bar,
                             extra={"engine": args.engine})
    seconds = time.perf_counter() - t0
    n = manifest["n_runs"]
    n_workers = cluster.get("workers") or workers
    summary = {
        "out": str(args.out), "runs": n, "files": len(paths), "parts": len(manifest["parts"]), "engine": args.engine,
        "scheduler": cluster.get("scheduler"), "workers": n_workers, "seconds": round(seconds, 2),
        "runs_per_second": round(n / seconds, 1) if seconds else None,
        "runs_per_second_per_worker": round(n / seconds / n_workers, 1) if seconds else None,
        "bytes_read": sum(s["size"] for s in manifest["sources"]),
        "bytes_written": sum(p["size"] for p in manifest["parts"]),
    }
    if args.format == "json":
        print_json(summary)
    else:
        where = f" on {cluster['scheduler']}" if cluster.get("scheduler") else ""
        parts = len(manifest["parts"])
        print(f"featurized {n:,} run{'s' if n != 1 else ''} from {len(paths)} file{'s' if len(paths) != 1 else ''} into {args.out} "
              f"({parts} part{'s' if parts != 1 else ''}, {summary['bytes_written'] / 1e6:,.1f} MB) in {seconds:.1f} s "
              f"with {args.engine}{where}, {n_workers} worker{'s' if n_workers != 1 else ''}: "
              f"{summary['runs_per_second']:,.0f} runs/s, {summary['runs_per_second_per_worker']:,.0f} per worker")
        print(f"read it with: metric-explorer score --cases {args.out}   (or sweep / serve)", file=sys.stderr)
    return 0
