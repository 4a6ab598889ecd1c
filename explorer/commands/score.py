"""``metric-explorer score``: score a case set headless and print the agreement with people."""

from __future__ import annotations

import argparse
import sys

from ..core.evaluation.verdicts import evaluate, result_table
from ..core.evaluation.features import build_features
from ..core.scoring.trajectory_metrics import DEFINITIONS, canonical
from .response_options import (
    RESPONSE_COLUMNS, add_response_options, response_features, response_line, response_settings, response_summary,
    shows_response,
)
from .common import (
    add_run_input_options, add_settings_options, base_settings_from_args, load_cases_from_args, print_json,
    settings_from_args,
)

HELP = "score runs with the given settings and compare with the person's verdicts"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``score`` and its options."""
    p = sub.add_parser("score", help=HELP, description=HELP)
    add_run_input_options(p)
    add_settings_options(p)
    add_response_options(p)
    p.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format (default table)")
    p.set_defaults(func=run)


def score_report(case_set, settings, response_args=None) -> dict:
    """The JSON report: ``{"settings", "summary", "runs"}`` as documented in the README (plus
    ``"response"`` when ``response_args`` or ``settings`` choose a response scorer, see
    response_options)."""
    settings = response_settings(response_args, settings)
    features = build_features(case_set)
    rf = response_features(response_args, case_set, settings)  # None: today's F1
    ev = evaluate(features, settings, rf)
    table = result_table(features, ev)
    response = response_summary(settings, features, ev, rf) if shows_response(response_args, settings) else None
    if response is not None and "response_score" not in table:
        table["response_score"] = ev.response_score
    summary = ev.summary
    runs = []
    for row in table.to_dict(orient="records"):
        item = {
            "id": row["id"],
            "trajectory_score": row["trajectory_score"],
            "f1": round(float(row["f1"]), 6),
            "verdict": row["verdict"],
            "human_verdict": row["human_verdict"] or None,
            "outcome": row["outcome"],
            "decided_by": row["decided_by"],
            "reason": row["reason"],
        }
        item.update({k: v for k, v in row.items() if k.startswith("adk_")})
        item.update({k: row[k] for k in RESPONSE_COLUMNS if k in row})
        runs.append(item)
    rules = features.arg_rules
    return {
        "cases": case_set.source,
        "settings": settings.to_dict(),
        **({"arg_rules": rules.to_data()} if rules else {}),
        "summary": {
            "agree": summary.agree,
            "labelled": summary.labelled,
            "unlabelled": summary.unlabelled,
            "false_pass": ev.ids_with(features, "false pass"),
            "false_fail": ev.ids_with(features, "false fail"),
            "confusion": {
                "true_pass": summary.true_pass,
                "false_pass": summary.false_pass,
                "false_fail": summary.false_fail,
                "true_fail": summary.true_fail,
            },
            "precision": _round6(summary.precision),
            "recall": _round6(summary.recall),
            "kappa": _round6(summary.kappa),
            **({"embedding": response["embedding"]} if response is not None and response.get("embedding") else {}),
        },
        "runs": runs,
        **({"response": response} if response is not None else {}),
    }, table


def trajectory_words(st) -> str:
    """The trajectory setting in a few words: ``exact``, ``any_order (ignore args)``,
    ``recall >= 0.67 (args subset)``, ``single_tool_use of book_flight >= 1.00``."""
    text = st.trajectory
    if st.trajectory == "single_tool_use":
        text += f" of {st.single_tool}"
    if st.trajectory != "none" and (st.trajectory_threshold < 1.0 or DEFINITIONS[canonical(st.trajectory)].kind == "partial"):
        text += f" >= {st.trajectory_threshold:.2f}"
    if st.trajectory not in ("none", "single_tool_use") and st.args != "exact":
        text += " (ignore args)" if st.args == "ignore" else f" (args {st.args})"
    return text


def _round6(x: float | None) -> float | None:
    """``x`` to 6 decimals (kappa -0.19999999999999996 -> -0.2), None kept."""
    return None if x is None else round(x, 6)


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def run(args: argparse.Namespace) -> int:
    """Print the report in the chosen format; 0 on success."""
    case_set = load_cases_from_args(args)
    settings = settings_from_args(args, base_settings_from_args(args))
    report, table = score_report(case_set, settings, args)
    if args.format == "json":
        print_json(report)
        return 0
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
        return 0
    s = report["summary"]
    out = table[["id", "title", "trajectory_score", "f1", "verdict", "human_verdict", "outcome", "decided_by", "reason"]].copy()
    out["trajectory_score"] = out["trajectory_score"].map(lambda v: "-" if v != v else f"{v:.2f}")
    out["f1"] = out["f1"].map(lambda v: f"{v:.2f}")
    print(f"cases: {case_set.name} ({case_set.source})")
    st = settings
    deny = ", ".join(st.deny_tools) if st.deny_check else "off"
    n_rules = len(report.get("arg_rules", []))
    print(
        f"settings: trajectory {trajectory_words(st)}, "
        f"F1 >= {st.f1_threshold:.2f}, combine {st.combine}, deny-list {deny}, key fields {'on' if st.key_fields else 'off'}"
        + (f", {n_rules} argument rule{'s' if n_rules != 1 else ''}" if n_rules else "")
    )
    if "response" in report:
        out.insert(4, "response_score", table["response_score"].map(lambda v: "-" if v != v else f"{v:.2f}"))
        print(response_line(report["response"]))
    print(out.to_string(index=False))
    print()
    print(f"agreement {s['agree']}/{s['labelled']}" + (f" ({s['unlabelled']} unlabelled)" if s["unlabelled"] else ""))
    print(f"false passes: {', '.join(s['false_pass']) or 'none'}")
    print(f"false fails: {', '.join(s['false_fail']) or 'none'}")
    print(f"precision {_fmt(s['precision'])}  recall {_fmt(s['recall'])}  kappa {_fmt(s['kappa'])}")
    return 0
