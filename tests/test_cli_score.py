"""`metric-explorer score`: the acceptance rows through the CLI, JSON shape, bad input exits 2."""

import json
import subprocess
import sys

import pytest

from explorer.cli import main


def run_json(capsys, *argv):
    assert main(["score", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_defaults_are_the_opening_run(capsys):
    out = run_json(capsys)
    assert out["settings"]["trajectory"] == "exact" and out["settings"]["f1_threshold"] == 0.8
    s = out["summary"]
    assert (s["agree"], s["labelled"]) == (4, 10)
    assert s["false_pass"] == ["E5"] and s["false_fail"] == ["E1", "E2", "E3", "E7", "E8"]
    # p_o = 0.4, p_e = 0.5 -> kappa -0.2; TP = 0 -> precision and recall 0
    assert (s["precision"], s["recall"], s["kappa"]) == (0.0, 0.0, -0.2)
    e5 = next(r for r in out["runs"] if r["id"] == "E5")
    assert set(e5) >= {"id", "trajectory_score", "f1", "verdict", "human_verdict", "outcome", "decided_by", "reason"}
    assert (e5["verdict"], e5["outcome"], e5["decided_by"]) == ("pass", "false pass", "all checks")


@pytest.mark.parametrize(
    "argv, agree, fp, ff",
    [
        (["--trajectory", "in_order"], 5, ["E5", "E6"], ["E1", "E3", "E7"]),
        (["--trajectory", "none"], 5, ["E4", "E5", "E6"], ["E1", "E7"]),  # no trajectory: arguments are not read
        (["--combine", "mean"], 5, ["E5"], ["E2", "E3", "E7", "E8"]),
        (["--trajectory", "any_order", "--deny", "delete_booking", "--key-fields"], 8, [], ["E1", "E7"]),
        (["--trajectory", "any_order", "--deny", "delete_booking", "--key-fields", "--f1-threshold", "0.4"], 10, [], []),
    ],
)
def test_rows(capsys, argv, agree, fp, ff):
    s = run_json(capsys, *argv)["summary"]
    assert (s["agree"], s["false_pass"], s["false_fail"]) == (agree, fp, ff)


def test_reasons_in_json(capsys):
    runs = {r["id"]: r for r in run_json(capsys, "--trajectory", "any_order", "--deny", "delete_booking", "--key-fields")["runs"]}
    assert runs["E5"]["reason"] == "date 21 March differs from 12 March"
    assert runs["E6"]["reason"] == "denied tool delete_booking"
    assert runs["E4"]["reason"] == "missing call confirm_booking"
    assert runs["E1"]["reason"] == "F1 0.62 < 0.80"
    runs = {r["id"]: r for r in run_json(capsys)["runs"]}
    assert runs["E2"]["reason"] == "extra call get_weather at position 2"


def test_table_output(capsys):
    assert main(["score"]) == 0
    out = capsys.readouterr().out
    assert "agreement 4/10" in out and "false passes: E5" in out


def test_bad_file_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "cases.json"
    bad.write_text(json.dumps({"format": "metric-explorer/cases@1", "name": "x", "runs": [
        {"id": "a", "invocations": [{"expected_calls": [], "actual_calls": [{"args": {}}], "answer": "", "references": ["r"]}]}
    ]}))
    proc = subprocess.run([sys.executable, "-m", "explorer.cli", "score", "--cases", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f'metric-explorer: error: {bad}: runs[0].invocations[0].actual_calls[0]: missing "name"'
    assert "Traceback" not in proc.stderr


def test_missing_file_exits_2(tmp_path, capsys):
    assert main(["score", "--cases", str(tmp_path / "nope.json")]) == 2
    assert "nope.json: cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["score", "--trajectory", "sideways"], "argument --trajectory: invalid choice: 'sideways' (choose from "),
    (["score", "--f1-threshold", "2"], "argument --f1-threshold: must be between 0 and 1, got 2"),
])
def test_bad_option_exits_2_with_one_line(argv, message, capsys):
    # the trial's finding: the error came after the command's 20-line usage text, which hid it
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"metric-explorer score: error: {message}")
    assert err.endswith(" (see metric-explorer score --help)\n")


def test_json_intervals_at_the_opening_settings(capsys):
    # issue 11 acceptance: agreement 4/10 with the Wilson interval [0.168, 0.687]
    out = run_json(capsys)
    s = out["summary"]
    agreement = s["intervals"]["agreement"]
    assert (agreement["value"], round(agreement["low"], 3), round(agreement["high"], 3), agreement["n"]) == (0.4, 0.168, 0.687, 10)
    for fig in ("precision", "recall", "false_pass_rate", "false_fail_rate", "kappa"):
        assert set(s["intervals"][fig]) == {"value", "low", "high", "n"}
    # today's keys stay as they were
    assert {"agree", "labelled", "unlabelled", "false_pass", "false_fail", "confusion", "precision", "recall", "kappa"} <= set(s)
    assert "disputed" not in s and "annotators" not in out and "unlabelled_runs" not in out


def test_table_shows_the_interval_compactly(capsys):
    assert main(["score"]) == 0
    out = capsys.readouterr().out
    assert "agreement 4/10 · 95 % CI 17–69 %" in out
    assert "false-pass rate 1/5 · 95 % CI 4–62 %" in out


def test_table_shows_adks_own_verdict_beside_ours(tmp_path, capsys):
    # a newcomer trial: an ADK eval result's final_eval_status reached JSON and CSV, not the table
    import copy

    base = json.loads(open("tests/fixtures/adk/minimal.evalset_result.json").read())
    case = base["eval_case_results"][0]  # calls book_flight alone where search_flights comes first: we fail it
    base["eval_case_results"] = []
    for eval_id, status in (("passed_by_adk", 1), ("failed_by_adk", 2), ("no_status", None)):
        c = copy.deepcopy(case)
        c["eval_id"], c["final_eval_status"] = eval_id, status
        base["eval_case_results"].append(c)
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(base))
    assert main(["score", "--cases", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[2]
    assert header.split()[header.split().index("verdict") + 1] == "adk_verdict"
    # the columns are right-aligned under their names (the title, the user's message, has spaces)
    ends = {name: header.index(f" {name} ") + 1 + len(name) for name in ("verdict", "adk_verdict")}
    rows = {line.split()[0]: [line[: ends[c]].split()[-1] for c in ("verdict", "adk_verdict")] for line in lines[3:6]}
    # ours, then ADK's: 1 PASSED, 2 FAILED, none recorded
    assert [rows[i] for i in ("passed_by_adk", "failed_by_adk", "no_status")] == [
        ["fail", "pass"], ["fail", "fail"], ["fail", "-"]]


def test_table_without_adk_results_has_no_adk_column(capsys):
    assert main(["score"]) == 0
    assert "adk_verdict" not in capsys.readouterr().out


def _flat_runs(tmp_path, rows):
    """A flat JSONL file of runs (docs/formats.md): (id, passes at the opening settings, verdict)."""
    ref = "Your flight TP1351 is booked."
    lines = [json.dumps({"id": rid, "expected_calls": "search_flights", "actual_calls": "search_flights",
                         "answer": ref if passes else "Sorry, something else entirely happened here.",
                         "reference": ref, **({"human_verdict": verdict} if verdict else {})})
             for rid, passes, verdict in rows]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_kappa_bootstrap_with_no_spread_prints_no_interval_and_why(tmp_path, capsys):
    # the evaluator passes all 8 runs, the person finds 4 acceptable: p_o = 1/2 = p_e, kappa 0 in
    # every resample (the trial read "kappa 0.00 · 95 % CI 0.00–0.00" as certain)
    path = _flat_runs(tmp_path, [(f"R{i}", True, "acceptable" if i < 4 else "unacceptable") for i in range(8)])
    reason = "every run has the same verdict from the evaluator, so kappa is 0 in every resample"
    out = run_json(capsys, "--cases", path)
    assert out["summary"]["intervals"]["kappa"] == {"value": 0.0, "low": None, "high": None, "n": 8, "reason": reason}
    assert main(["score", "--cases", path]) == 0
    text = capsys.readouterr().out
    assert f"kappa 0.00 · no interval ({reason})" in text and "0.00–0.00" not in text


def test_a_perfect_table_and_a_rogan_gladen_range_with_no_spread(tmp_path, capsys):
    # 4 labelled runs all right (kappa 1 in every resample); 3 unlabelled, all failed: true-pass and
    # true-fail rates 1, pass rate 0 -> corrected 0 with a delta-method variance of 0 ("0–0 %" before)
    path = _flat_runs(tmp_path, [("R0", True, "acceptable"), ("R1", False, "unacceptable"), ("R2", True, "acceptable"),
                                 ("R3", False, "unacceptable"), ("R4", False, None), ("R5", False, None), ("R6", False, None)])
    out = run_json(capsys, "--cases", path)
    assert out["summary"]["intervals"]["kappa"]["reason"] == (
        "the evaluator and the person agree on every run, so kappa is 1 in every resample")
    corrected = out["unlabelled_runs"]["corrected"]
    assert (corrected["value"], corrected["low"], corrected["high"]) == (0.0, None, None)
    assert corrected["reason"].startswith("too few runs to show a spread")
    assert main(["score", "--cases", path]) == 0
    text = capsys.readouterr().out
    assert "kappa 1.00 · no interval (the evaluator and the person agree on every run" in text
    assert "0 % acceptable · no interval (too few runs to show a spread" in text and "0–0 %" not in text


def test_a_kappa_interval_with_a_negative_end_reads_to_not_a_dash(capsys):
    # the trial: "kappa -0.20 · 95 % CI -0.52–0.00" (a hyphen-minus beside an en dash)
    from explorer.core.evaluation.confidence import range_text

    assert range_text(-0.521739, 0.0) == "-0.52 to 0.00" and range_text(-0.6, -0.1) == "-0.60 to -0.10"
    assert range_text(0.1, 1.0) == "0.10–1.00"  # both non-negative: the en dash, as elsewhere
    assert main(["score"]) == 0
    out = capsys.readouterr().out
    # the opening: kappa -0.20, bootstrap limits -0.521739 and 0.0 (README's JSON)
    assert "kappa -0.20 · 95 % CI -0.52 to 0.00" in out and "-0.52–" not in out
