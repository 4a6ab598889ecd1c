"""`metric-explorer score` over run exports: --cases (repeatable), --input-format, --labels,
--settings; the headless round trip of 1,000 runs through JSONL and CSV; bad input exits 2."""

import json
from dataclasses import replace

import pytest

from explorer.cli import main
from explorer.commands.common import BUNDLED_CASES
from explorer.core.io.casefile import load_case_set
from explorer.core.io.exports import dumps_settings
from explorer.core.io.loaders import load_runs
from explorer.core.io.loaders.flat import dumps_csv, dumps_jsonl
from explorer.core.io.loaders.labels import Label, apply_labels, dumps_labels, labels_from_runs, load_labels
from explorer.core.evaluation.settings import Settings

TEN_OF_TEN = Settings(trajectory="any_order", f1_threshold=0.4, deny_check=True, deny_tools=("delete_booking",), key_fields=True)


def generated_runs(copies=100):
    """1,000 unlabelled runs: the ten bundled runs, each copied 100 times under ids E1-000 .. E10-099."""
    cs = load_case_set(BUNDLED_CASES)
    runs = tuple(
        replace(r, id=f"{r.id}-{k:03d}", human_verdict=None, human_note="") for k in range(copies) for r in cs.runs
    )
    return replace(cs, runs=runs), cs


def score_json(capsys, *argv):
    code = main(["score", "--format", "json", *argv])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out), captured.err


@pytest.mark.parametrize("suffix, dump", [(".jsonl", dumps_jsonl), (".csv", dumps_csv)])
def test_round_trip_of_1000_runs_with_10_labels(tmp_path, capsys, suffix, dump):
    generated, bundled = generated_runs()
    export = tmp_path / f"runs{suffix}"
    export.write_text(dump(generated), encoding="utf-8")
    loaded = load_runs(export)
    assert len(loaded.runs) == 1000 and all(r.human_verdict is None for r in loaded.runs)
    assert [r.invocations for r in loaded.runs] == [r.invocations for r in generated.runs]
    # a person labels 10 runs (the first copy of each bundled run, as the person of seed 002 judged them)
    verdicts = {f"{r.id}-000": r.human_verdict for r in bundled.runs}
    labelled, unknown = apply_labels(loaded, {rid: Label(v) for rid, v in verdicts.items()})
    assert unknown == []
    labels_path = tmp_path / "labels.csv"
    labels_path.write_text(dumps_labels(labels_from_runs(labelled)), encoding="utf-8")
    assert len(load_labels(str(labels_path))) == 10
    # reload with the labels file: seed 002's figures over the 10 labelled runs, 990 unlabelled
    out, err = score_json(capsys, "--cases", str(export), "--labels", str(labels_path))
    s = out["summary"]
    assert (s["agree"], s["labelled"], s["unlabelled"]) == (4, 10, 990)
    assert s["false_pass"] == ["E5-000"]
    assert s["false_fail"] == ["E1-000", "E2-000", "E3-000", "E7-000", "E8-000"]
    assert err == ""
    settings_path = tmp_path / "settings.json"
    settings_path.write_text(dumps_settings(TEN_OF_TEN))
    out, _ = score_json(capsys, "--cases", str(export), "--labels", str(labels_path), "--settings", str(settings_path))
    assert (out["summary"]["agree"], out["summary"]["labelled"]) == (10, 10)
    assert out["settings"] == TEN_OF_TEN.to_dict()


def test_flags_override_the_settings_file(tmp_path, capsys):
    path = tmp_path / "settings.json"
    path.write_text(dumps_settings(TEN_OF_TEN))
    out, _ = score_json(capsys, "--settings", str(path), "--f1-threshold", "0.8")
    assert out["settings"]["f1_threshold"] == 0.8 and out["settings"]["trajectory"] == "any_order"
    # seed 002: any_order, deny delete_booking, key fields, F1 0.8 -> 8/10, false fails E1, E7
    assert (out["summary"]["agree"], out["summary"]["false_fail"]) == (8, ["E1", "E7"])


def test_several_cases_files_are_joined(tmp_path, capsys):
    generated, _ = generated_runs(copies=2)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.csv"
    first.write_text(dumps_jsonl(replace(generated, runs=generated.runs[:10])))
    second.write_text(dumps_csv(replace(generated, runs=generated.runs[10:])))
    out, _ = score_json(capsys, "--cases", str(first), "--cases", str(second))
    assert len(out["runs"]) == 20 and out["runs"][10]["id"] == "E1-001"
    assert out["cases"] == f"{first}, {second}"


def test_duplicate_ids_across_files_name_both_files_and_lines(tmp_path, capsys):
    # the 4th run of the first file again as the 1st line of the second: both places named (the
    # message named the files only, and the features path named the lines)
    generated, _ = generated_runs(copies=1)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(dumps_jsonl(generated))
    second.write_text(dumps_jsonl(replace(generated, runs=generated.runs[3:5])))
    assert main(["score", "--cases", str(first), "--cases", str(second)]) == 2
    err = capsys.readouterr().err
    assert err == f'metric-explorer: error: {second}: line 1: duplicate run id "E4-000": also in {first} line 4\n'


def test_duplicate_ids_across_a_case_set_and_a_csv_name_the_json_path_and_row(tmp_path, capsys):
    generated, _ = generated_runs(copies=1)
    first, second = tmp_path / "a.json", tmp_path / "b.csv"
    from explorer.core.io.casefile import dumps_case_set
    from explorer.core.io.loaders.flat import dumps_csv

    first.write_text(dumps_case_set(generated))
    second.write_text(dumps_csv(replace(generated, runs=(generated.runs[8], generated.runs[2]))))
    assert main(["score", "--cases", str(first), str(second)]) == 2
    err = capsys.readouterr().err
    # row 2 is the CSV's first run (row 1: the header); runs[8] is the case set's ninth run
    assert err == f'metric-explorer: error: {second}: row 2: duplicate run id "{generated.runs[8].id}": also in {first} runs[8]\n'


def test_input_format_forces_a_loader(tmp_path, capsys):
    generated, _ = generated_runs(copies=1)
    path = tmp_path / "runs.txt"
    path.write_text(dumps_csv(generated))
    out, _ = score_json(capsys, "--cases", str(path), "--input-format", "csv")
    assert len(out["runs"]) == 10
    assert main(["score", "--cases", str(path), "--input-format", "jsonl"]) == 2
    assert capsys.readouterr().err.startswith(f"metric-explorer: error: {path}: line 1, column 1: invalid JSON")


def test_the_unknown_labels_id_warning_names_the_first_ones_row(tmp_path, capsys):
    # the page says "skipped: ZZ9 (row 3)"; the CLI warned "names no loaded run: ZZ9" (no row)
    x = tmp_path / "x.csv"
    x.write_text("run_id,human_verdict\nE1,acceptable\nZZ9,unacceptable\n")  # header = row 1: ZZ9 on row 3
    _, err = score_json(capsys, "--cases", "cases/booking_agent.json", "--labels", str(x))
    assert err == f"metric-explorer: warning: {x}: 1 run id names no loaded run: ZZ9 (row 3)\n"
    # several unknown ids: the first (in file order) with its row, the rest as before; an annotator
    # file's row is the id's first label (ZZ8 is labelled on rows 3 and 5)
    many = tmp_path / "many.csv"
    many.write_text("run_id,annotator,human_verdict\nE1,ana,acceptable\nZZ8,ana,acceptable\n"
                    "ZZ7,bo,unacceptable\nZZ8,bo,unacceptable\n")
    _, err = score_json(capsys, "--cases", "cases/booking_agent.json", "--labels", str(many))
    assert err == f"metric-explorer: warning: {many}: 2 run ids name no loaded run: ZZ8 (row 3), ZZ7\n"


def test_labels_with_unknown_ids_warn_and_all_unknown_fail(tmp_path, capsys):
    some = tmp_path / "some.csv"
    some.write_text("run_id,human_verdict,note\nE1,unacceptable,\nZ1,acceptable,\n")
    out, err = score_json(capsys, "--labels", str(some))
    assert err == f"metric-explorer: warning: {some}: 1 run id names no loaded run: Z1 (row 3)\n"
    assert next(r for r in out["runs"] if r["id"] == "E1")["human_verdict"] == "unacceptable"
    none = tmp_path / "none.csv"
    none.write_text("run_id,human_verdict,note\nZ1,acceptable,\nZ2,,\n")
    assert main(["score", "--labels", str(none)]) == 2
    assert capsys.readouterr().err == f"metric-explorer: error: {none}: none of the 2 run ids names a loaded run by run id or example id (first: Z1, row 2)\n"


@pytest.mark.parametrize("name, content, expected", [
    ("empty.jsonl", b"", "{path}: file is empty"),
    ("binary.json", b"\x00\x01\x02{", "{path}: binary file (NUL bytes), not JSON or CSV text"),
    ("broken.json", b'{"eval_case_results": [', "{path}: line 1, column 24: invalid JSON: Expecting value"),
    ("zero.csv", b"id,expected_calls,actual_calls,answer,reference\n", "{path}: no runs in the file (0 runs)"),
    ("types.jsonl", b'{"id": "a", "expected_calls": [], "actual_calls": [], "answer": 1, "reference": "r"}\n',
     "{path}: line 1, answer: expected a string, got a number"),
    ("missing.csv", b"id,expected_calls,actual_calls,reference\na,,,r\n",
     '{path}: row 1 (header): missing column "answer"'),
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, name, content, expected):
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["score", "--cases", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("metric-explorer: error: " + expected.format(path=path))
    assert err.count("\n") == 1 and "Traceback" not in err


def test_over_size_limit_exits_2(tmp_path, capsys, monkeypatch):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b" " * 1_500_000)
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", "1000000")
    assert main(["score", "--cases", str(path)]) == 2
    assert capsys.readouterr().err == f"metric-explorer: error: {path}: file is 1.5 MB, over the 1 MB limit\n"


def test_bad_settings_file_exits_2(tmp_path, capsys):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"format": "metric-explorer/settings@1", "settings": {"f1_threshold": 2}}))
    assert main(["score", "--settings", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"metric-explorer: error: {path}: settings.f1_threshold: f1_threshold must be a number in [0, 1], got 2\n"
    )


def test_bad_input_format_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["score", "--input-format", "xml"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("metric-explorer score: error: argument --input-format: invalid choice: 'xml'")


def test_cases_heading_names_the_file_once():
    from explorer.commands.common import cases_heading

    assert cases_heading("Booking agent", "cases/booking_agent.json") == "Booking agent (cases/booking_agent.json)"
    assert cases_heading("runs.jsonl", "exports/runs.jsonl") == "exports/runs.jsonl"
    assert cases_heading("task (run.eval)", "logs/run.eval") == "task (logs/run.eval)"
    assert cases_heading("task (run.eval)", "logs\\run.eval") == "task (logs\\run.eval)"
    assert cases_heading("a.jsonl + b.jsonl", "a.jsonl, b.jsonl") == "a.jsonl + b.jsonl (a.jsonl, b.jsonl)"
    assert cases_heading("served", "") == "served"
    # the trial: "… (a worked calibration example) (cases/labelled_pairs.json)"
    assert cases_heading("Twenty answers (a worked example)", "cases/labelled_pairs.json") == (
        "Twenty answers (a worked example), from cases/labelled_pairs.json")
