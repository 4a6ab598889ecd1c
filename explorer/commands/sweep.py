"""``metric-explorer sweep``: agreement with people for every setting of the grid, best first.

The grid and its order are :func:`explorer.core.evaluation.sweep.sweep`'s: every trajectory family
× argument mode × combine rule × deny-list on/off × key fields on/off × trajectory threshold (for
the partial scores) × 101 F1 thresholds = 159,176 settings (``--grid adk``: ADK's three match
types and none × compare args, 6,464 settings; ``--single-tool TOOL`` adds single tool use). The
tools the deny-list denies when on come from ``--deny`` (else from ``--settings``); with none, or
only tools no run calls, the deny-list is swept off only (on, it would pass every run: each "on"
row would repeat an "off" row), half the settings (``sweep.deny_checks_for``, as the page's
sweep). The mean threshold comes from ``--settings``. Runs come from ``--cases`` (repeatable),
``--input-format``, ``--labels`` and ``--arg-rules`` as for ``score``; a big flat JSONL file loads
in parallel with a progress bar.
"""

from __future__ import annotations

import argparse
import sys

from ..core.evaluation.features import build_features
from ..core.evaluation.sweep import ADK_GRID, FULL_GRID, best, deny_checks_for, distinct_results, sweep, threshold_ranges
from ..core.evaluation.confidence import percent_digits
from ..core.evaluation.sweep_intervals import sweep_reading, with_intervals
from ..core.io.exports import dumps_csv_frame
from ..core.plural import counted, noun
from ..core.scoring.passmark import show_threshold
from .terminal import table_text
from .trace_options import print_expectations_hint
from .common import (
    DENY_SYNTAX, LIST_OPTION, add_date_reading_options, cases_heading, add_run_input_options, base_settings_from_args, load_cases_from_args,
    count_or_all, name_arg, print_json, tool_list, warn_on_load, warn_unused_tools,
)

HELP = ("score every setting (trajectory family x argument mode x combine x deny-list x key fields x trajectory "
        "threshold x F1 threshold) and list the best, with each agreement's 95 % interval and how many settings the "
        "runs cannot tell apart")
GRIDS = {"full": FULL_GRID, "adk": ADK_GRID}
BEST_LINES = 50
"""Lines of settings tied with the best the table output lists without ``--top`` (the bundled
set's best on the full grid is 44 lines; ``--top N`` lists N, ``--top all`` every one)."""


def _top_arg(text: str) -> int:
    """``--top``: a whole number >= 1, or ``all`` (0: every result / setting)."""
    return count_or_all(text, "result")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``sweep`` and its options."""
    # argparse %-formats a subcommand's help in the top-level listing (not its description): "95 %"
    p = sub.add_parser("sweep", help=HELP.replace("%", "%%"), description=HELP)
    add_run_input_options(p)
    p.add_argument("--deny", metavar="TOOL", default=None, **LIST_OPTION,
                   help=f"tools the deny-list denies when it is on (default: those of --settings, else none); {DENY_SYNTAX}")
    add_date_reading_options(p)
    p.add_argument("--grid", choices=tuple(GRIDS), default="full",
                   help="full: every trajectory family and argument mode (default); adk: ADK's match types x compare args")
    p.add_argument("--single-tool", metavar="TOOL", type=name_arg, default=None, help="add single tool use of TOOL to the grid")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format (default table)")
    p.add_argument(
        "--top", type=_top_arg, default=None, metavar="N|all",
        help="table: the N best results, one row per result (settings that tie make one row; default 20; all: every "
             "result), and N lines of the settings tied with the best (default 50); json and csv: the N best settings (default and all: every setting)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the sweep in the chosen format; 0 on success."""
    case_set = load_cases_from_args(args)
    print_expectations_hint(case_set, args)
    base = base_settings_from_args(args)
    if args.deny:
        base = base.with_(deny_tools=tool_list(args.deny))
    if args.day_first is not None:
        base = base.with_(day_first=args.day_first)
    if args.single_tool:
        base = base.with_(single_tool=args.single_tool)
    features = build_features(case_set)
    warn_on_load(features, case_set.source or case_set.name)
    warn_unused_tools(base, features)
    deny_checks = deny_checks_for(base, features)
    table = with_intervals(sweep(features, base, grid=GRIDS[args.grid], deny_checks=deny_checks))
    reading = sweep_reading(table)
    top = best(table)
    every = args.top == 0 or (args.top is None and args.format != "table")  # --top all, or json / csv by default
    shown = table if every else table.head(args.top or 20)
    if args.format == "json":
        first = table.iloc[0]
        print_json(
            {
                "cases": case_set.source,
                "deny_tools": list(base.deny_tools),
                "deny_checks": list(deny_checks),  # [false] alone when no run calls a denied tool
                "mean_threshold": base.mean_threshold,
                "grid": args.grid,
                **({"arg_rules": features.arg_rules.to_data()} if features.arg_rules else {}),
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
    print(f"cases: {cases_heading(case_set.name, case_set.source)}")
    print(f"{counted(len(table), 'setting')} scored; {deny_words(base, deny_checks)}; mean threshold {show_threshold(base.mean_threshold)}")
    if base.response_scorer != "f1":  # the grid's thresholds are F1 thresholds (core sweep._f1_base)
        print(f"answers scored with unigram F1, the grid's threshold; the settings' response scorer ({base.response_scorer}) is not swept")
    if int(first["labelled"]) == 0:
        # every setting ties at 0/0: listing them (1,576 groups on the full grid) ranks nothing
        print(f"warning: {reading.warning}")
        print("give the person's verdicts (--labels labels.csv, or human_verdict in the runs) to rank them")
        return 0
    print(
        f"best: agreement {int(first['agree']):,}/{int(first['labelled']):,}, {counted(int(first['false_pass']), 'false pass')}, "
        f"{counted(int(first['false_fail']), 'false fail')}, reached by {counted(len(top), 'setting')}:"
    )
    groups = threshold_ranges(top)
    cap = len(groups) if args.top == 0 else args.top or BEST_LINES
    for group in groups[:cap]:
        print(f"  {group_text(group)}")
    if len(groups) > cap:  # 2 runs tie 79,546 settings at 2/2: 790 lines before
        print(f"  and {len(groups) - cap:,} more {noun(len(groups) - cap, 'line')} of tied settings "
              f"(--top all lists them; --format csv lists every setting)")
    print(f"best agreement {reading.best.text()} (Wilson); {reading.n_within:,} of {counted(reading.n_settings, 'setting')} "
          f"{'has' if reading.n_within == 1 else 'have'} an agreement within that interval")
    if reading.warning:
        print(f"warning: {reading.warning}")
    print()
    rows = distinct_results(table, None if args.top == 0 else args.top or 20)
    n_results = int(table["rank"].nunique())
    print(f"{len(rows):,} of {counted(n_results, 'distinct result')}, best first; a row is one result (agreement, false passes, "
          "false fails) and the settings that tie on it:")
    print("  settings: how many; trajectory .. f1_threshold: the first of them in grid order, at the F1 thresholds where it "
          "gives the result; +groups: other tied settings beside it (--format csv lists every setting)")
    print(results_text(rows))
    return 0


def results_text(rows) -> str:
    """:func:`~explorer.core.evaluation.sweep.distinct_results` rows as the table output: thresholds to
    two decimals, the interval in percent, other tied groups as ``+N``."""
    out = rows.drop(columns=["compare_args"], errors="ignore").copy()
    out["trajectory_threshold"] = out["trajectory_threshold"].map(lambda v: f"{v:.2f}")
    out["groups"] = out["groups"].map(lambda k: f"+{k - 1}" if k > 1 else "-")
    # each row's interval as percent_range writes it (a decimal when narrower than 2 points: 100k
    # runs read "81 % 81 %" before)
    digits = [percent_digits(lo, hi) for lo, hi in zip(out["agreement_low"], out["agreement_high"])]
    out["agreement_low"] = [f"{100 * v:.{d}f} %" for v, d in zip(out["agreement_low"], digits)]
    out["agreement_high"] = [f"{100 * v:.{d}f} %" for v, d in zip(out["agreement_high"], digits)]
    for col in ("rank", "settings", "agree", "labelled", "false_pass", "false_fail"):  # counts as the lines above write them
        if col in out:
            out[col] = out[col].map(lambda v: f"{int(v):,}")
    out = out.rename(columns={"f1_thresholds": "f1_threshold", "groups": "+groups", "agreement_low": "95 % CI low", "agreement_high": "high"})
    return table_text(out)


def deny_words(base, deny_checks: tuple[bool, ...]) -> str:
    """The settings line's deny-list part: ``deny-list: delete_booking`` or, when the deny-list is
    swept off only (``deny_checks`` ``(False,)``), why: no tool given, or none a run calls."""
    if True in deny_checks:
        return f"deny-list: {', '.join(base.deny_tools)}"
    if not base.deny_tools:
        return "deny-list off only (no tool to deny: give --deny TOOL to sweep the deny-list on as well)"
    return (f"deny-list off only (no run calls {', '.join(base.deny_tools)}: give --deny a tool the runs call "
            "to sweep the deny-list on as well)")


def group_text(group: dict) -> str:
    """One best group in words: ``trajectory any_order, combine all, deny-list on, key fields on,
    F1 threshold 0.00-0.41``; a partial score shows its threshold (``trajectory recall >= 0.70``)
    and an argument mode other than exact is named (``(ignore args)``, ``(args subset)``)."""
    fam, args = group["trajectory"], group.get("args", "exact" if group["compare_args"] else "ignore")
    words = fam
    shows_threshold = fam not in ("none", "exact", "in_order", "any_order", "subset", "unordered") or group.get("trajectory_threshold", 1.0) < 1.0
    if shows_threshold and group["combine"] == "all":  # the mean rule reads no trajectory threshold
        words += f" >= {group['trajectory_threshold']:.2f}"
    if fam not in ("none", "single_tool_use") and args != "exact":
        words += " (ignore args)" if args == "ignore" else f" (args {args})"
    return (
        f"trajectory {words}, combine {group['combine']}, deny-list {'on' if group['deny_check'] else 'off'}, "
        f"key fields {'on' if group['key_fields'] else 'off'}, F1 threshold {group['f1_thresholds']}"
    )
