"""``metric-explorer compare``: two settings on the same runs -- the runs whose verdict flipped, the
change in agreement with a paired interval, and McNemar's exact test on the flips (issue 11).

Setting A is the first ``--settings`` file, B the second; runs, labels and the ground truth
(``--annotator`` / ``--consensus`` / ``--min-labels``) as for ``score``. The statistics are
:func:`explorer.core.evaluation.compare.compare_verdicts`'s.
"""

from __future__ import annotations

import argparse

from ..core.evaluation.compare import compare_verdicts
from ..core.evaluation.features import build_features
from ..core.evaluation.verdicts import evaluate
from ..core.io.exports import load_settings
from ..core.plural import listed, noun
from ..core.evaluation.confidence import percent_range
from .annotator_options import add_annotator_options, truth_from_args, verdicts_text
from .trace_options import print_expectations_hint
from .common import LIST_OPTION, path_arg, NONE_YET, CliError, add_run_input_options, load_cases_from_args, print_json, warn_unused_tools
from .response_options import response_features

HELP = "compare two settings on the same runs: flipped runs, change in agreement, McNemar's exact test"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``compare`` and its options."""
    p = sub.add_parser("compare", help=HELP, description=HELP)
    add_run_input_options(p, settings=False)
    p.add_argument("--settings", metavar="PATH", type=path_arg, required=True, **LIST_OPTION,
                   help="settings JSON (metric-explorer/settings@1), two of them: setting A, then setting B "
                        "(--settings a.json b.json = --settings a.json --settings b.json)")
    add_annotator_options(p)
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format (default table)")
    p.set_defaults(func=run)


def compare_report(args: argparse.Namespace) -> dict:
    """The JSON report: cases, both settings, the ground truth used and the comparison
    (:meth:`~explorer.core.evaluation.compare.Comparison.to_dict`). CliError unless exactly two
    ``--settings`` are given."""
    if len(args.settings) != 2:
        raise CliError(f"--settings must be given exactly twice (A, then B), got {len(args.settings)}")
    settings_a, settings_b = (load_settings(path) for path in args.settings)
    case_set = load_cases_from_args(args)
    print_expectations_hint(case_set, args)
    truth = truth_from_args(args, case_set, build_features(case_set))
    features = truth.features
    for settings in (settings_a, settings_b):
        warn_unused_tools(settings, features)
    ev_a = evaluate(features, settings_a, response_features(None, case_set, settings_a))
    ev_b = evaluate(features, settings_b, response_features(None, case_set, settings_b))
    result = compare_verdicts(features.run_ids, ev_a.passed, ev_b.passed, features.human)
    return {
        "cases": case_set.source,
        "settings_a": {"file": args.settings[0], **settings_a.to_dict()},
        "settings_b": {"file": args.settings[1], **settings_b.to_dict()},
        "ground_truth": "the person's verdicts" if truth.truth is None else truth.truth.source,
        **({k: truth.truth.to_dict(features.run_ids)[k] for k in ("disputed", "too_few_labels", "from_annotators", "from_single_verdict")} if truth.truth is not None else {}),
        "comparison": result.to_dict(),
    }


def _pct(d: dict) -> str:
    if d["value"] is None:
        return "n/a"
    return f"{100 * d['value']:.0f} % (95 % CI {percent_range(d['low'], d['high'])} %)"


def _agreement(d: dict) -> str:
    """``"4/10 · 40 % (95 % CI 17–69 %)"``; ``"n/a (no labelled run)"`` when no run has a verdict
    (never ``0/0``)."""
    if not d["n"] or d["value"] is None:
        return "n/a (no labelled run)"
    return f"{round(d['value'] * d['n']):,}/{d['n']:,} · {_pct(d)}"


def run(args: argparse.Namespace) -> int:
    """Print the comparison in the chosen format; 0 on success."""
    report = compare_report(args)
    if args.format == "json":
        print_json(report)
        return 0
    c = report["comparison"]
    a, b = c["agreement_a"], c["agreement_b"]
    gt = {"source": report["ground_truth"], "labelled": c["labelled"], "from_annotators": report.get("from_annotators", 0),
          "from_single_verdict": report.get("from_single_verdict", 0)}
    print(f"cases: {report['cases']}; ground truth: {report['ground_truth']}; {verdicts_text(gt)}")
    print(f"A: {report['settings_a']['file']}  agreement {_agreement(a)}")
    print(f"B: {report['settings_b']['file']}  agreement {_agreement(b)}")
    ch = c["change"]
    if ch["value"] is not None:
        points = noun(round(100 * ch["value"]), "point")
        print(f"change B - A: {100 * ch['value']:+.0f} {points} (paired 95 % CI {100 * ch['low']:+.0f} to {100 * ch['high']:+.0f})")
    none = "none" if c["labelled"] else NONE_YET
    print(f"fixed (wrong under A, right under B): {listed(c['fixed']) or none}")
    print(f"broken (right under A, wrong under B): {listed(c['broken']) or none}")
    if c["changed_unlabelled"]:
        print(f"verdict changed, no ground truth: {listed(c['changed_unlabelled'])}")
    print(f"McNemar's exact test: {c['reading']}")
    return 0
