"""``metric-explorer sweep``: agreement with people for every setting of the grid, best first.

The grid and its order are :func:`explorer.core.evaluation.sweep.sweep`'s: 4 trajectory modes × compare args ×
combine rule × deny-list on/off × key fields on/off × 101 F1 thresholds = 6,464 settings. The tools
the deny-list denies when on come from ``--deny`` (else from ``--settings``); the mean threshold from
``--settings``. Runs come from ``--cases`` (repeatable), ``--input-format`` and ``--labels`` as for
``score``; a big flat JSONL file loads in parallel with a progress bar.
"""

from __future__ import annotations

import argparse
import sys

from ..core.evaluation.features import build_features
from ..core.evaluation.sweep import best, sweep, threshold_ranges
from ..core.evaluation.sweep_intervals import sweep_reading, with_intervals
from ..core.io.exports import dumps_csv_frame
from ..core.scoring.passmark import show_threshold
from .common import (
    DENY_SYNTAX, LIST_OPTION, add_date_reading_options, add_run_input_options, base_settings_from_args, load_cases_from_args,
    positive_int, print_json, tool_list, warn_on_load,
)

HELP = ("score every setting (trajectory x args x combine x deny-list x key fields x F1 threshold) and list the best, "
        "with each agreement's 95 % interval and how many settings the runs cannot tell apart")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``sweep`` and its options."""
    p = sub.add_parser("sweep", help=HELP, description=HELP)
    add_run_input_options(p)
    p.add_argument("--deny", metavar="TOOL", default=None, **LIST_OPTION,
                   help=f"tools the deny-list denies when it is on (default: those of --settings, else none); {DENY_SYNTAX}")
    add_date_reading_options(p)
    p.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format (default table)")
    p.add_argument(
        "--top", type=positive_int, default=None, metavar="N",
        help="list only the N best settings (default: table 20, json and csv every setting)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the sweep in the chosen format; 0 on success."""
    case_set = load_cases_from_args(args)
    base = base_settings_from_args(args)
    if args.deny:
        base = base.with_(deny_tools=tool_list(args.deny))
    if args.day_first is not None:
        base = base.with_(day_first=args.day_first)
    features = build_features(case_set)
    warn_on_load(features, case_set.source or case_set.name)
    table = with_intervals(sweep(features, base))
    reading = sweep_reading(table)
    top = best(table)
    shown = table if args.top is None and args.format != "table" else table.head(args.top or 20)
    if args.format == "json":
        first = table.iloc[0]
        print_json(
            {
                "cases": case_set.source,
                "deny_tools": list(base.deny_tools),
                "mean_threshold": base.mean_threshold,
                "n_settings": len(table),
                "labelled": int(first["labelled"]),
                "best": {
                    "agree": int(first["agree"]),
                    "false_pass": int(first["false_pass"]),
                    "false_fail": int(first["false_fail"]),
                    "n_settings": len(top),
                },
                "reading": reading.to_dict(),
                "settings": shown.drop(columns=["true_pass", "true_fail"]).to_dict(orient="records"),
            }
        )
        return 0
    if args.format == "csv":
        sys.stdout.write(dumps_csv_frame(shown))
        return 0
    first = table.iloc[0]
    print(f"cases: {case_set.name} ({case_set.source})")
    print(
        f"{len(table)} settings scored; deny-list: {', '.join(base.deny_tools) or '(no tools given, --deny)'}; "
        f"mean threshold {show_threshold(base.mean_threshold)}"
    )
    print(
        f"best: agreement {first['agree']}/{first['labelled']}, {first['false_pass']} false passes, "
        f"{first['false_fail']} false fails, reached by {len(top)} settings:"
    )
    for group in threshold_ranges(top):
        print(
            f"  trajectory {group['trajectory']}{'' if group['compare_args'] else ' (ignore args)'}, "
            f"combine {group['combine']}, deny-list {'on' if group['deny_check'] else 'off'}, "
            f"key fields {'on' if group['key_fields'] else 'off'}, F1 threshold {group['f1_thresholds']}"
        )
    print(f"best agreement {reading.best.text()} (Wilson); {reading.n_within} of {reading.n_settings} settings "
          "have an agreement within that interval")
    if reading.warning:
        print(f"warning: {reading.warning}")
    print()
    out = shown.drop(columns=["true_pass", "true_fail", "agreement"]).copy()
    out["f1_threshold"] = out["f1_threshold"].map(lambda v: f"{v:.2f}")
    out["agreement_low"] = out["agreement_low"].map(lambda v: f"{100 * v:.0f} %")
    out["agreement_high"] = out["agreement_high"].map(lambda v: f"{100 * v:.0f} %")
    out = out.rename(columns={"agreement_low": "95% CI low", "agreement_high": "high"})
    print(out.to_string(index=False))
    return 0
