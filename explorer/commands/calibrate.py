"""``metric-explorer calibrate``: precision / recall at each threshold on labelled pairs, and the
pass-above / fail-below bands for a target precision (seed 000)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from ..core.evaluation.calibration import choose_bands, seed_reading, threshold_table
from ..core.scoring.cascade import CascadeSettings, field_failure, structured_equal
from ..core.scoring.embedding import BACKENDS, SimilarityUnavailable, make_embedder, require_similarity
from ..core.scoring.normalise import exact_at, is_empty_answer
from ..core.scoring.passmark import show_threshold
from ..core.io.pairs import Pair, PairSet, load_pairs, pairs_from_case_set
from ..core.scoring.response_scorers import SCORER_NAMES, make_scorer
from ..core.evaluation.sample_size import DEFAULT_HALF_WIDTH, class_need, have_and_needed
from ..core.io.exports import dumps_csv_frame
from ..core.numbers import decimal_number
from ..core.plural import counted, half_width_words, noun
from .common import (
    LIST_OPTION, CliError, add_date_reading_options, cases_heading, add_run_reading_options, half_width_arg, load_cases_from_args, print_json,
    name_arg, path_arg, reading_flags_given, whole_arg,
)
from .option_needs import check_needs
from .terminal import table_text
from ..core.visible import visible

HELP = "precision and recall at each threshold on labelled pairs, and the bands for a target precision"
BUNDLED_PAIRS = Path(__file__).resolve().parents[2] / "cases" / "labelled_pairs.json"
"""The bundled 20 labelled pairs (seed 000), used when neither --cases nor --pairs is given."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``calibrate`` and its options."""
    p = sub.add_parser("calibrate", help=HELP, description=HELP)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--cases", metavar="PATH", type=path_arg, **LIST_OPTION,
                     help="run file(s) whose labelled runs are the pairs, read as score reads them (the options below, "
                          "e.g. --labels, --expectations): repeat the flag or list several after it; paths are never split at commas")
    src.add_argument("--pairs", metavar="PATH", type=path_arg, help="pairs file (metric-explorer/pairs@1; default: the bundled 20 pairs)")
    add_run_reading_options(p)
    p.add_argument(
        "--scorer",
        choices=("stored", *SCORER_NAMES),
        default=None,
        help="score to calibrate: the pairs' stored_score (default for --pairs), f1 (default for --cases), rouge1, exact or cosine",
    )
    p.add_argument("--backend", choices=BACKENDS, default=None, help="embedding backend for --scorer cosine (default onnx-int8)")
    p.add_argument("--rung", type=whole_arg, choices=(1, 2, 3, 4), default=None, help="normalisation rung for exact and --after-rules (default 3)")
    p.add_argument("--locale", type=name_arg, default=None, help="locale for numbers on rung 4 and the amount rule (default: the file's, else en)")
    add_date_reading_options(p)
    p.add_argument(
        "--after-rules",
        action="store_true",
        help="calibrate only the pairs the cascade's exact stage and field rules leave undecided",
    )
    p.add_argument("--target-precision", type=_target, default=0.8, metavar="P", help="precision wanted in the pass band, 0 < P <= 1 (default 0.8)")
    p.add_argument("--half-width", type=half_width_arg, default=DEFAULT_HALF_WIDTH, metavar="H",
                   help="target 95 %% interval half-width for 'labels needed', 0.0001 <= H < 0.5, e.g. 0.05 = ±5 points (default 0.05)")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format (default table)")
    p.set_defaults(func=run)


def _target(text: str) -> float:
    try:
        value = decimal_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if math.isnan(value) or not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


def _pair_set(args: argparse.Namespace) -> tuple[PairSet, tuple | None]:
    """The pairs, and for ``--cases`` every run's (reference lists, answers) per invocation and
    the ids of runs with a turn the agent never ran. The runs are read as ``score`` reads them
    (:func:`~.common.load_cases_from_args`: input format, expectations, labels, trace options);
    those options without ``--cases`` are a CliError (a pairs file holds its own verdicts)."""
    if args.cases:
        cs = load_cases_from_args(args)
        ids, refs, answers, labels = pairs_from_case_set(cs)
        if not ids:
            raise CliError(f"{cs.source}: no labelled runs to calibrate on")
        # a multi-turn run becomes one pair per invocation sharing the run's label; scores are
        # averaged back per run below
        pairs = tuple(Pair(i, tuple(r[0]), a[0], bool(lab)) for i, r, a, lab in zip(ids, refs, answers, labels))
        never_ran = {r.id for r in cs.runs if any(inv.no_output for inv in r.invocations)}
        return PairSet(cs.name, cs.description, pairs, "", "en", cs.day_first, cs.source), (refs, answers, never_ran)
    given = reading_flags_given(args)
    if given:
        # the flags as typed (--no-cache, not the --cache-dir it stands for); they say how run files are read
        raise CliError(f"{', '.join(given)} {noun(len(given), 'applies', 'apply')} to run files: give the runs with "
                       "--cases (a pairs file holds its own verdicts)")
    return load_pairs(args.pairs or BUNDLED_PAIRS), None


def _scores(ps: PairSet, turns: tuple | None, keep: np.ndarray, scorer_name: str, args: argparse.Namespace, locale: str, day_first: bool,
            rung: int = 3):
    """float64 scores of the kept pairs and a description of the scorer (with the embedding
    identity when one was used)."""
    if scorer_name == "stored":
        try:
            return ps.stored_scores()[keep], ps.score_name or "stored score", None
        except ValueError as exc:
            raise CliError(str(exc)) from None
    embedder = None
    if scorer_name == "cosine":
        try:
            require_similarity(args.backend or "onnx-int8")
        except SimilarityUnavailable as exc:
            raise CliError(str(exc)) from None
        embedder = make_embedder(args.backend or "onnx-int8")
    scorer = make_scorer(scorer_name, rung=rung, locale=locale, day_first=day_first, embedder=embedder)
    idx = np.flatnonzero(keep)
    try:
        if turns is None:
            scores = scorer.score_many([ps.pairs[i].candidate for i in idx], [ps.pairs[i].references for i in idx])
        else:
            refs, answers = turns[0], turns[1]
            flat_c = [a for i in idx for a in answers[i]]
            flat_r = [r for i in idx for r in refs[i]]
            flat = scorer.score_many(flat_c, flat_r)
            sizes = [len(answers[i]) for i in idx]
            bounds = np.cumsum([0, *sizes])
            scores = np.array([flat[bounds[k] : bounds[k + 1]].mean() for k in range(len(idx))])
    except SimilarityUnavailable as exc:
        raise CliError(str(exc)) from None
    identity = embedder.identity().to_dict() if embedder is not None else None
    return scores, scorer.describe(), identity


def calibrate_report(args: argparse.Namespace) -> dict:
    """The JSON report: source, scorer (and embedding model), counts, table, bands, reading."""
    rung = args.rung or 3
    scorer_name = args.scorer or ("f1" if args.cases else "stored")
    check_needs(args, scorer=scorer_name, after_rules=args.after_rules, rung=rung)  # an option this scorer does not read
    ps, turns = _pair_set(args)
    blank = [p.id for p in ps.pairs if any(is_empty_answer(r) for r in p.references)]
    if turns is not None:  # --cases: every turn's references
        blank = [p.id for p, refs in zip(ps.pairs, turns[0]) if any(is_empty_answer(r) for turn in refs for r in turn)]
    locale = args.locale or ps.locale
    day_first = ps.day_first if args.day_first is None else args.day_first
    labels = ps.labels()
    keep = np.ones(len(ps.pairs), dtype=bool)
    decided: list[dict] = []
    # as in score: a run with a turn the agent never ran, or an empty answer, fails whatever the
    # threshold, so it is decided before any threshold and not calibrated
    for i, p in enumerate(ps.pairs):
        answers = turns[1][i] if turns is not None else [p.candidate]
        stage = "missing turn" if turns is not None and p.id in turns[2] else "empty answer" if any(is_empty_answer(a) for a in answers) else None
        if stage is not None:
            keep[i] = False
            decided.append({"id": p.id, "stage": stage, "verdict": "fail", "human_verdict": _hv(p.acceptable)})
    if not keep.any():
        raise CliError("every pair has an empty answer or a turn the agent never ran: nothing left to calibrate")
    if args.after_rules:
        try:
            settings = CascadeSettings(rung=rung, locale=locale, day_first=day_first)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        for i, p in enumerate(ps.pairs):
            if not keep[i]:
                continue
            # a run from --cases is checked turn by turn: exact when every turn is, failed by the
            # first turn a rule fails
            turn_pairs = list(zip(turns[1][i], turns[0][i])) if turns is not None else [(p.candidate, p.references)]
            if all(
                exact_at(c, r, settings.rung, locale=locale, day_first=day_first) or structured_equal(c, r) for c, r in turn_pairs
            ):
                keep[i] = False
                decided.append({"id": p.id, "stage": "normalized-exact", "verdict": "pass", "human_verdict": _hv(p.acceptable)})
                continue
            failure = next((f for c, r in turn_pairs if (f := field_failure(c, r, (), settings)) is not None), None)
            if failure is not None:
                keep[i] = False
                decided.append({"id": p.id, "stage": failure[0], "verdict": "fail", "human_verdict": _hv(p.acceptable), "reason": failure[1]})
        if not keep.any():
            raise CliError("every pair was decided by the exact stage or the field rules: nothing left to calibrate")
    elif args.locale:
        try:
            CascadeSettings(locale=locale)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    scores, description, identity = _scores(ps, turns, keep, scorer_name, args, locale, day_first, rung)
    lab = labels[keep]
    table = threshold_table(scores, lab)
    bands = choose_bands(scores, lab, args.target_precision)
    reading = seed_reading(scores, lab, args.target_precision) if lab.any() else None
    return {
        "source": ps.source,
        "name": ps.name,
        "scorer": {"name": scorer_name, "description": description, "embedding": identity},
        "target_precision": args.target_precision,
        "pairs": int(keep.sum()),
        "acceptable": int(lab.sum()),
        "unacceptable": int((~lab).sum()),
        "decided_before_similarity": decided,
        "table": table.to_dict(orient="records"),
        "bands": bands.to_dict(),
        "reading": reading,
        "labels_needed": _labels_needed(bands.to_dict(), int(lab.sum()), int((~lab).sum()), args.half_width),
        "scores": {ps.pairs[i].id: float(s) for i, s in zip(np.flatnonzero(keep), scores)},
        "warnings": [f"{counted(len(blank), 'pair')} {'has' if len(blank) == 1 else 'have'} an empty reference (nothing left after normalisation; no answer can match it): {', '.join(blank[:5])}"] if blank else [],
    }


def _labels_needed(bands: dict, acceptable: int, unacceptable: int, half_width: float) -> dict:
    """Labelled pairs needed per class for ±``half_width`` (95 %, Wilson) on the share of
    acceptable pairs in the pass band and of unacceptable pairs in the fail band, beside the
    count there is (see :mod:`explorer.core.evaluation.sample_size`)."""
    c = bands["counts"]
    return {
        "half_width": half_width,
        "acceptable": class_need(c["pass"]["acceptable"], acceptable, half_width).to_dict()
        | {"rate_of": "acceptable pairs in the pass band"},
        "unacceptable": class_need(c["fail"]["unacceptable"], unacceptable, half_width).to_dict()
        | {"rate_of": "unacceptable pairs in the fail band"},
        "method": "smallest n with Wilson half-width <= target, at the observed rate and at 0.5",
    }


def _hv(acceptable: bool) -> str:
    return "acceptable" if acceptable else "unacceptable"


def _f(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def threshold_column(values) -> list[str]:
    """Thresholds with one number of decimals for the column: each in full
    (:func:`~explorer.core.scoring.passmark.show_threshold`, so a threshold read back reproduces
    its row) padded with zeros to the most decimals any has (``0.8``, ``0.55`` -> ``"0.80"``,
    ``"0.55"``; ``1`` -> ``"1.00"``): the trial read ``0.8`` and ``0.9`` beside ``0.55``."""
    full = [show_threshold(v) for v in values]
    decimals = max((len(t.split(".")[1]) if "." in t else 0 for t in full), default=0)
    return [f"{float(t):.{decimals}f}" for t in full]


def run(args: argparse.Namespace) -> int:
    """Print the report in the chosen format; 0 on success."""
    report = calibrate_report(args)
    for line in report["warnings"]:
        print(f"metric-explorer: warning: {report['source']}: {line}", file=sys.stderr)
    if args.format == "json":
        print_json(report)
        return 0
    import pandas as pd

    table = pd.DataFrame(report["table"])
    if args.format == "csv":
        sys.stdout.write(dumps_csv_frame(table))
        return 0
    sc = report["scorer"]
    print(f"pairs: {cases_heading(report['name'], report['source'])}")
    print(f"score: {sc['description']}")
    if sc["embedding"]:
        e = sc["embedding"]
        print(f"embedding model: {e['model']}  backend: {e['backend']}  weights sha256: {e['weights_sha256']}")
    if report["decided_before_similarity"]:
        d = report["decided_before_similarity"]
        print(f"decided before similarity (not calibrated): {len(d)}: " + ", ".join(f"{visible(x['id'])} {x['stage']}" for x in d))
    print(f"{counted(report['pairs'], 'pair')}: {report['acceptable']} acceptable, {report['unacceptable']} unacceptable")
    print()
    shown = table.copy()
    shown["threshold"] = threshold_column(shown["threshold"])  # in full: a threshold read back reproduces its row
    for col in ("precision", "recall", "f_measure"):
        shown[col] = shown[col].map(_f)
    print(table_text(shown))
    print()
    b = report["bands"]
    c = b["counts"]
    print(f"bands for target precision {report['target_precision']:.2f}:")
    # thresholds in full (score --f1-threshold / --pass-above / --fail-below reproduce the bands)
    pa = "none reaches the target" if b["pass_above"] is None else f">= {show_threshold(b['pass_above'])}"
    fb = "none reaches the target" if b["fail_below"] is None else f"< {show_threshold(b['fail_below'])}"
    def counts(band: str) -> str:
        return f"{c[band]['acceptable']:>3} acceptable {c[band]['unacceptable']:>3} unacceptable"

    print(f"  pass  {pa:<24} {counts('pass')}   precision {_f(b['pass_precision'])}")
    print(f"  gray  {'in between, for review':<24} {counts('gray')}   (by a person or an LLM evaluator)")
    print(f"  fail  {fb:<24} {counts('fail')}   share unacceptable {_f(b['fail_purity'])}")
    need = report["labels_needed"]
    a, u = need["acceptable"], need["unacceptable"]
    print()
    print(f"labels for {half_width_words(need['half_width'])} (95 %): acceptable pairs {have_and_needed(a['have'], a['needed'])}, "
          f"unacceptable {have_and_needed(u['have'], u['needed'])} (at today's band shares; {a['needed_worst_case']:,} per class "
          "in the worst case)")
    r = report["reading"]
    if r:
        print()
        print(
            f"accepting every good answer also accepts {r['bad_accepted_when_all_good_pass']} of {report['unacceptable']} bad; "
            f"precision above {report['target_precision']:.2f} rejects {r['good_rejected_for_precision']} of {report['acceptable']} good"
        )
    return 0
