"""``metric-explorer score``: score a case set headless and print the agreement with people."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.evaluation.confidence import RESAMPLES, SEED, percent_range, range_text, summary_intervals
from ..core.evaluation.prevalence import rogan_gladen
from ..core.evaluation.sample_size import DEFAULT_HALF_WIDTH, have_and_needed, labels_needed
from ..core.plural import half_width_words, listed
from ..core.evaluation.verdicts import evaluate, response_score_text, result_table, score_texts
from ..core.evaluation.features import build_features
from ..core.scoring.trajectory_metrics import DEFINITIONS, canonical
from ..core.io.exports import dumps_csv_frame, extra_columns, scored_table_parquet
from .annotator_options import add_annotator_options, annotators_lines, annotators_section, truth_from_args
from .response_options import (
    RESPONSE_COLUMNS, add_response_options, response_features, response_line, response_settings, response_summary, response_words,
    scorer_name, shows_response,
)
from ..core.scoring.passmark import show_threshold
from .option_needs import check_needs
from .terminal import table_text
from .trace_options import print_expectations_hint
from .common import (
    NONE_YET, CliError, add_run_input_options, cases_heading, half_width_arg, no_interval, add_settings_options, base_settings_from_args, clean_json,
    count_or_all, load_cases_from_args, path_arg,
    settings_from_args, warn_on_load, warn_unused_tools,
)

if TYPE_CHECKING:
    from pandas import DataFrame

HELP = "score runs with the given settings and compare with the person's verdicts"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``score`` and its options."""
    p = sub.add_parser("score", help=HELP, description=HELP)
    add_run_input_options(p)
    add_settings_options(p)
    add_response_options(p)
    add_annotator_options(p)
    p.add_argument("--half-width", type=half_width_arg, default=DEFAULT_HALF_WIDTH, metavar="H",
                   help="target 95 %% interval half-width for 'labels needed', 0.0001 <= H < 0.5, e.g. 0.05 = ±5 points (default 0.05)")
    p.add_argument("--format", choices=("table", "json", "csv", "parquet"), default="table",
                   help="output format (default table: id, example_id when runs have example ids other than their "
                        "ids, title, scores, verdicts, outcome, decided_by, reason); csv and parquet are the scored "
                        "table with every column (example_id among the loader's columns at the end)")
    p.add_argument("--out", metavar="PATH", type=path_arg, help="write the output to PATH instead of stdout (needed for parquet on a terminal)")
    p.add_argument("--rows", type=rows_arg, metavar="N|all",
                   help=f"table format: how many runs the table shows, the first N in run order (default {DEFAULT_ROWS}; "
                        "all: every run); the figures under it count every run")
    p.set_defaults(func=run)


DEFAULT_ROWS = 50
"""Runs the table format shows unless ``--rows`` says otherwise: a 100k-run file printed 100,000
lines before its figures (and spent ~0.35 ms a run on their reasons)."""


def rows_arg(text: str) -> int:
    """``--rows``: a whole number >= 1, or ``all`` (0: every run): :func:`~.common.count_or_all`."""
    return count_or_all(text, "row")


def score_report(case_set, settings, response_args=None, rows: int | None = None) -> tuple[dict, DataFrame]:
    """The JSON report: ``{"settings", "summary", "runs"}`` as documented in the README (plus
    ``"response"`` when ``response_args`` or ``settings`` choose a response scorer, see
    response_options). ``summary`` carries ``intervals`` (each figure's ``{value, low, high, n}``)
    and ``labels_needed``; ``unlabelled_runs`` (pass rate and Rogan–Gladen correction) comes when
    some runs have no verdict, ``annotators`` when runs carry several annotators' labels
    (``--annotator`` / ``--consensus`` / ``--min-labels`` in ``response_args`` choose the ground truth).
    ``rows``: the per-run table and ``runs`` hold the first ``rows`` runs only (default every run);
    ``summary`` counts every run either way. Returns ``(report, table)``."""
    settings = response_settings(response_args, settings)
    truth = truth_from_args(response_args, case_set, build_features(case_set))
    features = truth.features
    warn_on_load(features, case_set.source or case_set.name)
    warn_unused_tools(settings, features)
    rf = response_features(response_args, case_set, settings)  # None: today's F1
    ev = evaluate(features, settings, rf)
    shown = None if rows is None or rows >= features.n else np.arange(rows)
    table = result_table(features, ev, shown)
    response = response_summary(settings, features, ev, rf) if shows_response(response_args, settings) else None
    if response is not None and "response_score" not in table:
        table["response_score"] = ev.response_score[: len(table)]
    summary = ev.summary
    disputed = truth.truth.disputed if truth.truth is not None else np.zeros(features.n, dtype=bool)
    too_few = truth.truth.too_few if truth.truth is not None else np.zeros(features.n, dtype=bool)
    section = annotators_section(truth, ev.passed)
    per_run_labels = None
    if truth.annotations is not None:
        a = truth.annotations
        per_run_labels = {str(rid): {name: _VERDICT[int(c)] for name, c in zip(a.annotators, row) if c >= 0}
                          for rid, row in zip(a.run_ids, a.codes)}
    runs = []
    extras = extra_columns(table)  # once: per row it was 4 of the 44 s of a 100k-run csv
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
        item.update({k: row[k] for k in extras})
        item.update({k: row[k] for k in RESPONSE_COLUMNS if k in row})
        if per_run_labels is not None:
            item["labels"] = per_run_labels.get(row["id"], {})
        runs.append(item)
    for item, is_disputed, is_few in zip(runs, disputed, too_few):
        if per_run_labels is not None:
            item["disputed"] = bool(is_disputed)
            item["too_few_labels"] = bool(is_few)
    half_width = getattr(response_args, "half_width", None) or DEFAULT_HALF_WIDTH
    unlabelled_mask = truth.truth.unlabelled if truth.truth is not None else None
    unlabelled = rogan_gladen(ev.passed, features.human, unlabelled_mask)
    rules = features.arg_rules
    return {
        "cases": case_set.source,
        "settings": settings.to_dict(),
        **({"arg_rules": rules.to_data()} if rules else {}),
        "summary": {
            "agree": summary.agree,
            "labelled": summary.labelled,
            "unlabelled": summary.unlabelled - int(np.count_nonzero(disputed)) - int(np.count_nonzero(too_few)),
            **({"disputed": int(np.count_nonzero(disputed)), "too_few_labels": int(np.count_nonzero(too_few))}
               if truth.truth is not None else {}),
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
            "intervals": summary_intervals(summary).to_dict(),
            "labels_needed": labels_needed(summary, half_width).to_dict(),
        },
        **({"unlabelled_runs": unlabelled.to_dict()} if unlabelled is not None else {}),
        **({"annotators": section} if section is not None else {}),
        "runs": runs,
        **({"response": response} if response is not None else {}),
    }, table


def trajectory_words(st) -> str:
    """The trajectory setting in a few words: ``exact``, ``any_order (ignore args)``,
    ``recall >= 0.67 (args subset)``, ``single_tool_use of book_flight >= 1.00``; under the mean
    rule, which reads no trajectory threshold, without one."""
    text = st.trajectory
    if st.trajectory == "single_tool_use":
        text += f" of {st.single_tool}"
    partial = DEFINITIONS[canonical(st.trajectory)].kind == "partial" if st.trajectory != "none" else False
    if st.trajectory != "none" and st.combine == "all" and (st.trajectory_threshold < 1.0 or partial):
        text += f" >= {show_threshold(st.trajectory_threshold)}"
    if st.trajectory not in ("none", "single_tool_use") and st.args != "exact":
        text += " (ignore args)" if st.args == "ignore" else f" (args {st.args})"
    return text


def combine_words(st) -> str:
    """How the checks combine, with the thresholds that rule reads: ``F1 >= 0.8, combine all``
    (:func:`response_words`), or ``combine mean (trajectory and F1 >= 0.75)``: the mean rule
    reads neither the response threshold nor the trajectory one (as the page's settings words)."""
    if st.combine == "all":
        return f"{response_words(st)}, combine all"
    scorer = scorer_name(st)
    what = scorer if st.trajectory == "none" else f"trajectory and {scorer}"
    return f"combine mean ({what} >= {show_threshold(st.mean_threshold)})"


_VERDICT = {1: "acceptable", 0: "unacceptable"}


def _round6(x: float | None) -> float | None:
    """``x`` to 6 decimals (kappa -0.19999999999999996 -> -0.2), None kept."""
    return None if x is None else round(x, 6)


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def _check_not_an_input(args: argparse.Namespace) -> None:
    """CliError when ``--out`` is one of the files read (``--cases``, ``--labels``,
    ``--expectations``, ``--settings``, ``--arg-rules``): writing the report would destroy it (the
    same mistake ``featurize --out`` now refuses)."""
    out = Path(args.out).resolve()
    for name in ("cases", "labels", "expectations", "settings", "arg_rules"):
        given = getattr(args, name, None)
        for p in given if isinstance(given, (list, tuple)) else [given]:
            if isinstance(p, str) and p and Path(p).resolve() == out:
                raise CliError(f"--out {args.out} is the --{name.replace('_', '-')} file it reads: give another path")


def _write(args: argparse.Namespace, data: str | bytes) -> None:
    """``data`` to ``--out`` or stdout (bytes to stdout only when it is not a terminal)."""
    if args.out:
        _check_not_an_input(args)
        try:
            with open(args.out, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as exc:
            raise CliError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    elif isinstance(data, bytes):
        if sys.stdout.isatty():
            raise CliError("--format parquet writes a binary file: give --out PATH (or redirect stdout to a file)")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(data)


def run(args: argparse.Namespace) -> int:
    """Print the report in the chosen format (or write it to ``--out``); 0 on success."""
    settings = response_settings(args, settings_from_args(args, base_settings_from_args(args)))
    check_needs(args, settings=settings)  # an option these settings do not read is an error, before any run is read
    case_set = load_cases_from_args(args)
    print_expectations_hint(case_set, args)
    rows = DEFAULT_ROWS if args.rows is None else args.rows or None  # --rows all (0): every run
    report, table = score_report(case_set, settings, args, rows=rows if args.format == "table" else None)
    if args.format == "json":
        _write(args, json.dumps(clean_json(report), indent=2, ensure_ascii=False) + "\n")
        return 0
    if args.format == "csv":
        _write(args, dumps_csv_frame(table))
        return 0
    if args.format == "parquet":
        _write(args, scored_table_parquet(table))
        return 0
    if args.out:
        raise CliError("--out writes json, csv or parquet, not the table: give --format json, csv or parquet")
    s = report["summary"]
    out = table[["id", "title", "trajectory_score", "f1", "verdict", "human_verdict", "outcome", "decided_by", "reason"]].copy()
    # scores read on the right side of their threshold (recall 2/3 at 0.67: 0.667, not 0.67)
    out["trajectory_score"] = score_texts(out["trajectory_score"], settings.trajectory_threshold)
    out["f1"] = score_texts(out["f1"], settings.f1_threshold)
    adk = adk_verdicts(table)
    if adk is not None:  # ADK's own verdict beside ours
        out.insert(out.columns.get_loc("verdict") + 1, "adk_verdict", adk)
    if "annotators" in report:  # several annotators: their verdicts per run, disputed runs named
        per_run = {r["id"]: r for r in report["runs"]}
        out.insert(6, "labels", [_label_counts(per_run[i]["labels"]) for i in out["id"]])
        out["outcome"] = [("disputed" if per_run[i]["disputed"] else "too few labels" if per_run[i]["too_few_labels"] else o)
                          for i, o in zip(out["id"], out["outcome"])]
    print(f"cases: {cases_heading(case_set.name, case_set.source)}")
    st = settings
    deny = ", ".join(st.deny_tools) if st.deny_check else "off"
    n_rules = len(report.get("arg_rules", []))
    print(
        f"settings: trajectory {trajectory_words(st)}, "
        f"{combine_words(st)}, deny-list {deny}, key fields {'on' if st.key_fields else 'off'}"
        + (f", {n_rules} argument rule{'s' if n_rules != 1 else ''}" if n_rules else "")
    )
    if "response" in report:
        out.insert(4, "response_score", [response_score_text(float(v), settings) for v in table["response_score"]])
        print(response_line(report["response"]))
    examples = example_ids_column(table)
    if examples is not None:  # traces joined by example id: which example each run is, beside its id
        out.insert(1, "example_id", examples)
    print(table_text(out))
    n_runs = len(case_set.runs)
    if len(out) < n_runs:
        print(f"({len(out):,} of {n_runs:,} runs shown, in run order: --rows N or --rows all for more, "
              f"--format csv or json for every run with its reason)")
    print()
    iv = s["intervals"]
    head = f"agreement {s['agree']:,}/{s['labelled']:,} · {percent_ci(iv['agreement'])}" if s["labelled"] else "agreement: no labelled run"
    print(head + apart_text(s))
    none = "none" if s["labelled"] else NONE_YET
    print(f"false passes: {listed(s['false_pass']) or none}")
    print(f"false fails: {listed(s['false_fail']) or none}")
    print(f"precision {_fmt(s['precision'])}  recall {_fmt(s['recall'])}  kappa {_fmt(s['kappa'])}")
    c = s["confusion"]
    print(
        f"95 % intervals: precision {count_ci(c['true_pass'], iv['precision'], 'no labelled run passed')}; "
        f"recall {count_ci(c['true_pass'], iv['recall'], 'no acceptable run')}; "
        f"false-pass rate {count_ci(c['false_pass'], iv['false_pass_rate'], 'no unacceptable run')}; "
        f"false-fail rate {count_ci(c['false_fail'], iv['false_fail_rate'], 'no acceptable run')}; "
        f"kappa {kappa_ci(iv['kappa'])}"
    )
    print(f"  (Wilson score intervals; kappa: percentile bootstrap over runs, {RESAMPLES:,} resamples, seed {SEED})")
    print(needed_line(s["labels_needed"]))
    if "unlabelled_runs" in report:
        print(unlabelled_line(report["unlabelled_runs"]))
    if "annotators" in report:
        print()
        for line in annotators_lines(report["annotators"]):
            print(line)
    return 0


ADK_VERDICT = {"PASSED": "pass", "FAILED": "fail", "NOT_EVALUATED": "not evaluated", "INFORMATIONAL": "informational"}
"""ADK's final eval status (``adk_final_eval_status``, loaders.adk) in the words of our verdict column."""


def adk_verdicts(table):
    """The ``adk_verdict`` column of the table output: ADK's final eval status of each run
    (``pass``, ``fail``, ``not evaluated``, ``informational``; ``-`` where a run has none), or
    None when no run of ``table`` carries one (not an ADK eval result)."""
    if "adk_final_eval_status" not in table or table["adk_final_eval_status"].isna().all():
        return None
    return table["adk_final_eval_status"].map(lambda v: ADK_VERDICT.get(v, "-") if isinstance(v, str) else "-")


def example_ids_column(table):
    """The ``example_id`` column of the table output: each run's example id (``Run.extra
    ["example_id"]``: an OTLP ``--join-key`` attribute's value, an Inspect sample id; ``-`` where a
    run has none), or None when no run of ``table`` has an example id other than its own run id
    (then the column would repeat the id, or say nothing; the page's run panel shows the Example
    row on the same rule, ``views.detail``)."""
    if "example_id" not in table:
        return None
    ids = [v if isinstance(v, str) and v else None for v in table["example_id"]]
    if not any(v is not None and v != rid for v, rid in zip(ids, table["id"])):
        return None
    return ["-" if v is None else v for v in ids]


def apart_text(s: dict) -> str:
    """The runs without a verdict after the agreement, from a report's ``summary``:
    ``" (2 unlabelled, 1 disputed, 1 with too few labels)"`` (each part only when non-zero), ``""``
    when every run has a verdict."""
    parts = [f"{s['unlabelled']:,} unlabelled"] if s["unlabelled"] else []
    if s.get("disputed"):
        parts.append(f"{s['disputed']:,} disputed")
    if s.get("too_few_labels"):
        parts.append(f"{s['too_few_labels']:,} with too few labels")
    return f" ({', '.join(parts)})" if parts else ""


def _label_counts(labels: dict) -> str:
    """``{"ana": "acceptable", "ben": "unacceptable"}`` -> ``"1 acc / 1 unacc"`` (``"-"`` for none)."""
    if not labels:
        return "-"
    acc = sum(1 for v in labels.values() if v == "acceptable")
    return f"{acc} acc / {len(labels) - acc} unacc"


def percent_ci(d: dict) -> str:
    """``{"value", "low", "high", "n"}`` -> ``"95 % CI 17–69 %"`` (``"no interval (<reason>)"`` when
    undefined)."""
    if d["low"] is None or d["high"] is None:
        return no_interval(d)
    return f"95 % CI {percent_range(d['low'], d['high'])} %"


def count_ci(count: int, d: dict, none: str) -> str:
    """``"3/4 · 95 % CI 30–95 %"``: ``count`` of the interval's ``d["n"]`` runs and its interval;
    ``"n/a (<none>)"`` when ``n`` is 0 (never a ``0/0`` figure), e.g. ``"n/a (no acceptable run)"``."""
    if not d["n"]:
        return f"n/a ({none})"
    return f"{count:,}/{d['n']:,} · {percent_ci(d)}"


def kappa_ci(d: dict) -> str:
    """A kappa dict -> ``"-0.20 · 95 % CI -0.52 to 0.00"`` (:func:`~explorer.core.evaluation.confidence.range_text`); ``"1.00 · no interval (<reason>)"``
    when the bootstrap has no spread; ``"n/a (no labelled run)"`` or ``"n/a (the evaluator and the
    person give every run the same verdict)"`` when kappa is undefined (n = 0, p_e = 1)."""
    if d["value"] is None:
        why = "no labelled run" if not d["n"] else d.get("reason", "undefined").removeprefix("kappa is undefined: ")
        return f"n/a ({why})"
    if d["low"] is None:
        return f"{d['value']:.2f} · {no_interval(d)}"
    return f"{d['value']:.2f} · 95 % CI {range_text(d['low'], d['high'])}"


def needed_line(d: dict) -> str:
    """The ``labels_needed`` section as one line."""
    a, u, lab = d["acceptable"], d["unacceptable"], d["labelled"]
    return (f"labels for {half_width_words(d['half_width'])} (95 %): acceptable runs {have_and_needed(a['have'], a['needed'])}, "
            f"unacceptable {have_and_needed(u['have'], u['needed'])}, all labelled {have_and_needed(lab['have'], lab['needed'])} "
            f"(at today's rates; {a['needed_worst_case']:,} per class in the worst case)")


def unlabelled_line(d: dict) -> str:
    """The ``unlabelled_runs`` section as one line."""
    head = f"unlabelled runs: the evaluator passes {d['passed']:,}/{d['runs']:,} · {percent_ci(d['pass_rate'])}"
    if d["corrected"] is None:
        return f"{head}; {d['note']}"
    c = d["corrected"]
    tail = f"; corrected for its measured errors (Rogan–Gladen) {100 * c['value']:.0f} % acceptable · {percent_ci(c)}"
    return head + tail + (f" ({d['note']})" if d["note"] else "")
