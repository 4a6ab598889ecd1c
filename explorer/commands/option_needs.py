"""Options that another option (or the input) must make meaningful: one table, one check.

An option read only under some other choice changed nothing, without a word, when given
without it (``score --locale de`` under the default F1 scorer, ``--pass-above`` without the
cascade, ``calibrate --backend`` without the cosine scorer, ``--no-cache`` with a features
dataset, ...). Each such rule is a row of :data:`NEEDS`: the option, what it needs, and why it is
read only then, with what to give instead. :func:`check_needs` checks the rows of a command
whose facts are known at the point it is called (the effective settings before the runs are
read, the run files, whether runs carry annotators' labels) and raises a CliError naming the
option, the option it depends on and what to do, ``--pass-above needs --response-scorer cascade:
...``: exit 2, as an argparse error.

Which option reads what is the core's: :func:`explorer.core.evaluation.verdicts.evaluate` (the
mean rule reads neither threshold; ``trajectory none`` no trajectory setting), the response
scorers (:mod:`explorer.core.scoring.response_scorers`: ``locale`` and ``day_first`` matter on
rung 4 only, :func:`~explorer.core.scoring.normalise.normalise`; the cascade's field rules read
both at every rung), :func:`~explorer.core.evaluation.annotators.ground_truth` (``min_labels``
counts for the consensus only), the feature cache (``commands.common.load_cases``: a features
dataset is opened as it is) and featurize's plan (``featurize.plan``: only a flat JSONL file is
cut into partitions).

Options that are never an error when "ignored", because what they ask for is what happens
anyway, are listed in docs/formats.md ("Options that need another option").
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Callable

from ..core.scoring.trajectory_metrics import canonical

SCORE, CALIBRATE, COMPARE, SWEEP, SERVE, FEATURIZE = "score", "calibrate", "compare", "sweep", "serve", "featurize"
READING = (SCORE, SWEEP, CALIBRATE, COMPARE, SERVE)
"""The commands that read run files with ``--cases`` (:func:`~.common.add_run_reading_options`)."""


@dataclass(frozen=True)
class Need:
    """One rule: the option whose namespace attribute is ``dest`` is read only when ``holds``.

    * ``commands``: the commands whose option this is (``--rung`` is score's and calibrate's,
      read under different conditions);
    * ``needs``: what it needs, in the words of the message (``--response-scorer cascade``);
    * ``facts``: the names of the facts ``holds`` reads (keyword arguments of
      :func:`check_needs`); a rule is checked only where all of them are given;
    * ``holds(args, facts) -> bool``: True when the option is read;
    * ``why``: why it is read only then and what to give instead, a ``str.format`` template
      over :func:`_words` (``{scorer}``, ``{trajectory}``, ``{flag}``, ...).
    """

    commands: tuple[str, ...]
    dest: str
    needs: str
    facts: tuple[str, ...]
    holds: Callable[[argparse.Namespace, dict[str, Any]], bool]
    why: str


def _scorer(f: dict) -> str:
    return f["settings"].response_scorer


def _reads_dates(f: dict) -> bool:
    """Settings that read numeric dates: key fields, the cascade's field rules, exact on rung 4."""
    st = f["settings"]
    return st.key_fields or st.response_scorer == "cascade" or (st.response_scorer == "exact" and st.rung == 4)


def _reads_locale(f: dict) -> bool:
    st = f["settings"]
    return st.response_scorer == "cascade" or (st.response_scorer == "exact" and st.rung == 4)


def _compares_args(f: dict) -> bool:
    return canonical(f["settings"].trajectory) not in ("none", "single_tool_use")


def _calibrate_reads(f: dict, rung4: bool) -> bool:
    """calibrate: ``--after-rules`` (exact stage and field rules) or the exact scorer (on rung 4
    only when ``rung4``: locale and date reading matter there only)."""
    return f["after_rules"] or (f["scorer"] == "exact" and (not rung4 or f["rung"] == 4))


_ANY_SETTINGS = ("settings",)
_MEAN_WHY = ("the mean rule passes a run when its mean score reaches the mean threshold ({mean}) and reads no "
             "threshold of its own for each check (give --combine all, or leave {flag} out; the mean threshold is a "
             "--settings file's mean_threshold)")

NEEDS: tuple[Need, ...] = (
    # score: the response scorer's knobs (response_options)
    Need((SCORE,), "rung", "--response-scorer exact or cascade", _ANY_SETTINGS,
         lambda a, f: _scorer(f) in ("exact", "cascade"),
         "the response scorer is {scorer}, which reads no normalisation rung (give --response-scorer exact or cascade, "
         "or leave --rung out)"),
    Need((SCORE,), "locale", "--response-scorer cascade, or exact with --rung 4", _ANY_SETTINGS,
         lambda a, f: _reads_locale(f),
         "numbers are read by locale on rung 4 and in the cascade's amount rule only, and the response scorer is "
         "{scorer} (give one of those, or leave --locale out)"),
    Need((SCORE,), "pass_above", "--response-scorer cascade", _ANY_SETTINGS,
         lambda a, f: _scorer(f) == "cascade",
         "the cosine bands are the cascade's, and the response scorer is {scorer} (give --response-scorer cascade, "
         "or leave {flag} out)"),
    Need((SCORE,), "fail_below", "--response-scorer cascade", _ANY_SETTINGS,
         lambda a, f: _scorer(f) == "cascade",
         "the cosine bands are the cascade's, and the response scorer is {scorer} (give --response-scorer cascade, "
         "or leave {flag} out)"),
    Need((SCORE,), "embedding_backend", "--response-scorer cosine or cascade", _ANY_SETTINGS,
         lambda a, f: _scorer(f) in ("cosine", "cascade"),
         "the response scorer is {scorer}, which embeds no text (give --response-scorer cosine or cascade, or leave "
         "--embedding-backend out)"),
    # score: the thresholds, under the combine rule and scorer that read them (verdicts.evaluate)
    Need((SCORE,), "f1_threshold", "--combine all", _ANY_SETTINGS, lambda a, f: f["settings"].combine == "all", _MEAN_WHY),
    Need((SCORE,), "f1_threshold", "a response scorer other than the cascade", _ANY_SETTINGS,
         lambda a, f: _scorer(f) != "cascade",
         "the cascade passes a run on its cosine bands (give --pass-above / --fail-below instead, or another "
         "--response-scorer)"),
    Need((SCORE,), "trajectory_threshold", "--combine all", _ANY_SETTINGS, lambda a, f: f["settings"].combine == "all",
         _MEAN_WHY),
    Need((SCORE,), "trajectory_threshold", "a trajectory check", _ANY_SETTINGS,
         lambda a, f: f["settings"].trajectory != "none",
         "the trajectory is none, so no trajectory score is compared with it (give --trajectory FAMILY, or leave "
         "--trajectory-threshold out)"),
    # score: the trajectory family's knobs
    Need((SCORE,), "single_tool", "--trajectory single_tool_use", _ANY_SETTINGS,
         lambda a, f: canonical(f["settings"].trajectory) == "single_tool_use",
         "the trajectory is {trajectory}, which looks for no single tool (give --trajectory single_tool_use, or leave "
         "--single-tool out)"),
    Need((SCORE,), "args", "a trajectory that compares calls", _ANY_SETTINGS, lambda a, f: _compares_args(f),
         "the trajectory is {trajectory}, which compares no call arguments (give another --trajectory, or leave {flag} out)"),
    Need((SCORE,), "ignore_args", "a trajectory that compares calls", _ANY_SETTINGS, lambda a, f: _compares_args(f),
         "the trajectory is {trajectory}, which compares no call arguments (give another --trajectory, or leave {flag} out)"),
    Need((SCORE,), "day_first", "--key-fields, --response-scorer cascade, or --response-scorer exact with --rung 4",
         _ANY_SETTINGS, lambda a, f: _reads_dates(f),
         "only those read numeric dates, and here key fields are off and the response scorer is {scorer} (give one of "
         "them, or leave {flag} out)"),
    # score: the table output's length (score.run)
    Need((SCORE,), "rows", "--format table", (), lambda a, f: a.format == "table",
         "--format {format} writes every run; --rows chooses the runs the table format shows (leave --rows out, or "
         "give --format table)"),
    # score, compare: the ground truth (annotator_options, annotators.ground_truth)
    Need((SCORE, COMPARE), "min_labels", "the consensus", (), lambda a, f: getattr(a, "annotator", None) is None,
         "--annotator {annotator} scores against that annotator's verdicts alone, however many labels a run has "
         "(leave --annotator out to score against the consensus, or leave --min-labels out)"),
    Need((SCORE, COMPARE), "min_labels", "runs with several annotators' labels", ("annotated",),
         lambda a, f: f["annotated"],
         "no run has any, each has its one human_verdict (give a labels CSV with an annotator column, or leave "
         "--min-labels out)"),
    # every command reading --cases: the feature cache (common.load_cases)
    Need(READING, "cache_dir", "run files in --cases", ("features_dataset",), lambda a, f: f["features_dataset"] is None,
         "{features_dataset} is a features dataset, opened as it is and never cached (leave {flag} out)"),
    # calibrate: the scorer's knobs (calibrate._scores, --after-rules)
    Need((CALIBRATE,), "backend", "--scorer cosine", ("scorer",), lambda a, f: f["scorer"] == "cosine",
         "the score calibrated is {scorer}, which embeds no text (give --scorer cosine, or leave --backend out)"),
    Need((CALIBRATE,), "rung", "--scorer exact or --after-rules", ("scorer", "after_rules"),
         lambda a, f: _calibrate_reads(f, rung4=False),
         "the score calibrated is {scorer}, which reads no normalisation rung, and the cascade's rules are not run "
         "(give --scorer exact or --after-rules, or leave --rung out)"),
    Need((CALIBRATE,), "locale", "--after-rules, or --scorer exact with --rung 4", ("scorer", "after_rules", "rung"),
         lambda a, f: _calibrate_reads(f, rung4=True),
         "numbers are read by locale on rung 4 and in the amount rule only, and the score calibrated is {scorer_at} "
         "without the rules (give one of those, or leave --locale out)"),
    Need((CALIBRATE,), "day_first", "--after-rules, or --scorer exact with --rung 4", ("scorer", "after_rules", "rung"),
         lambda a, f: _calibrate_reads(f, rung4=True),
         "numeric dates are read on rung 4 and in the date rule only, and the score calibrated is {scorer_at} "
         "without the rules (give one of those, or leave {flag} out)"),
    # featurize: the engine and cluster options (core.io.dask_engine.dask_runner, featurize.run)
    Need((FEATURIZE,), "scheduler", "--engine dask", (), lambda a, f: a.engine == "dask",
         "the local engine runs worker processes on this machine (give --engine dask, or leave --scheduler out)"),
    Need((FEATURIZE,), "memory_limit", "--engine dask", (), lambda a, f: a.engine == "dask",
         "the limit is set on the workers of the LocalCluster featurize starts with --engine dask; the local "
         "engine's processes have none (give --engine dask, or leave --memory-limit out)"),
    Need((FEATURIZE,), "memory_limit", "a LocalCluster (--engine dask without --scheduler)", (),
         lambda a, f: a.scheduler is None,
         "the cluster at --scheduler {scheduler} has its own workers (leave --memory-limit out)"),
    Need((FEATURIZE,), "workers", "the local engine or a LocalCluster (no --scheduler)", (), lambda a, f: a.scheduler is None,
         "the cluster at --scheduler {scheduler} has its own workers (leave --workers out)"),
    # featurize: partitions (featurize.plan)
    Need((FEATURIZE,), "partition_mb", "a flat JSONL INPUT", ("inputs", "flat_jsonl"), lambda a, f: f["flat_jsonl"],
         "{inputs} (a file of any other format is read whole, as one partition; leave --partition-mb out)"),
)
"""Every rule, in the order they are checked (the first that fails is the error)."""


def flag_of(args: argparse.Namespace, dest: str) -> str:
    """The flag that set ``dest`` as typed: ``--month-first`` for ``day_first`` False,
    ``--no-cache`` when that was the flag for ``cache_dir``; else ``--`` + dest with dashes."""
    if dest == "day_first":
        return "--day-first" if getattr(args, dest) else "--month-first"
    if dest == "cache_dir":
        from .common import CACHE_FLAG

        return getattr(args, CACHE_FLAG, "--cache-dir")
    return f"--{dest.replace('_', '-')}"


def _words(args: argparse.Namespace, dest: str, facts: dict[str, Any]) -> dict[str, Any]:
    """The fields a rule's ``why`` may name, from ``args`` and the facts given."""
    words: dict[str, Any] = {"flag": flag_of(args, dest), "annotator": getattr(args, "annotator", None),
                             "scheduler": getattr(args, "scheduler", None), "format": getattr(args, "format", None)}
    st = facts.get("settings")
    if st is not None:
        from ..core.scoring.passmark import show_threshold
        from .response_options import scorer_name

        words |= {"scorer": scorer_name(st), "trajectory": st.trajectory, "mean": show_threshold(st.mean_threshold)}
    if "scorer" in facts:
        scorer = {"stored": "the stored score"}.get(facts["scorer"], facts["scorer"])
        words |= {"scorer": scorer, "scorer_at": f"exact at rung {facts.get('rung')}" if scorer == "exact" else scorer}
    for key in ("features_dataset", "inputs"):
        if key in facts:
            words[key] = facts[key]
    return words


def given(args: argparse.Namespace, dest: str) -> bool:
    """True when the option of ``dest`` was given: its value is not None (every option of
    :data:`NEEDS` defaults to None, so a value typed equal to the default counts, as for the
    trace options)."""
    return getattr(args, dest, None) is not None


def check_needs(args: argparse.Namespace, command: str | None = None, **facts: Any) -> None:
    """CliError for the first rule of :data:`NEEDS` of ``command`` (default ``args.command``;
    every command's rules when neither is known) whose option is given in ``args`` and whose
    facts are all among ``facts`` but does not hold: ``"<flag> needs <needs>: <why>"``. Facts:
    ``settings`` (score's effective :class:`~explorer.core.evaluation.settings.Settings`, the
    ``--settings`` file's with the flags on top), ``annotated`` (bool: some run has annotators'
    labels), ``features_dataset`` (the ``--cases`` features dataset's path, or None), calibrate's
    ``scorer`` / ``after_rules`` / ``rung``, featurize's ``inputs`` (words naming what each
    INPUT is) with ``flat_jsonl`` (bool: some INPUT is flat JSONL). A rule whose facts are not
    given is left to a later call."""
    from .common import CliError  # common imports this module

    command = command or getattr(args, "command", None)
    for need in NEEDS:
        if command is not None and command not in need.commands:
            continue
        if not given(args, need.dest) or any(name not in facts for name in need.facts):
            continue
        if need.holds(args, facts):
            continue
        why = need.why.format(**_words(args, need.dest, facts))
        raise CliError(f"{flag_of(args, need.dest)} needs {need.needs}: {why}")
