"""Options that apply to one input format only, given with inputs of another, exit 2 naming the
option, the file and what it is, instead of changing nothing without a word (a trial gave
``--verdict-score`` with OTLP traces and ``--run-unit`` with a case set: both were ignored).

Which format each option applies to is the loaders' (explorer/core/io/loaders/options.py):
``--run-unit``, ``--join-key`` and ``--verdict-attribute`` are read by the OTLP loader only,
``--verdict-score`` by the Inspect loader only; featurize's ``--day-first`` / ``--month-first``
and ``--id-pattern`` by flat JSONL partitions only (featurize._file_partition keeps every other
file's own reading)."""

from __future__ import annotations

import json

import pytest

from explorer.cli import main
from explorer.commands.common import BUNDLED_CASES
from explorer.core.io.casefile import load_case_set
from explorer.core.io.loaders.detect import file_format
from explorer.core.io.loaders.flat import dumps_csv, dumps_jsonl
from producers import booking_as_otlp

BOOKING = load_case_set(BUNDLED_CASES)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("option_formats")
    booking_as_otlp(BOOKING, d / "traces.jsonl", example_key="eval.example_id")
    (d / "runs.jsonl").write_text(dumps_jsonl(BOOKING))
    (d / "runs.csv").write_text(dumps_csv(BOOKING))
    return d


def error_of(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    return err.strip()


def test_verdict_score_with_otlp_traces_is_an_error_naming_the_file(files, capsys):
    traces = files / "traces.jsonl"
    err = error_of(capsys, ["score", "--cases", str(traces), "--verdict-score", "human"])
    assert err == (f"metric-explorer: error: --verdict-score applies to an Inspect log only, and no --cases file is one: "
                   f"{traces} is OTLP traces (for OTLP traces give --verdict-attribute ATTR; for other formats the "
                   "person's verdict is human_verdict in the runs or a --labels CSV)")


@pytest.mark.parametrize("unit", ["agent-span", "trace"])
def test_run_unit_with_a_case_set_is_an_error_even_at_its_default_value(capsys, unit):
    err = error_of(capsys, ["score", "--cases", "cases/booking_agent.json", "--run-unit", unit])
    assert err == ("metric-explorer: error: --run-unit applies to OTLP traces only, and no --cases file is one: "
                   "cases/booking_agent.json is a metric-explorer case set (each record of other formats is one run)")


def test_without_cases_the_bundled_set_is_named(capsys):
    err = error_of(capsys, ["score", "--join-key", "eval.example_id"])
    assert f"--join-key applies to OTLP traces only, and no --cases file is one: {BUNDLED_CASES} is a metric-explorer case set" in err


def test_every_file_is_named_with_what_it_is(files, capsys):
    jsonl, csv = files / "runs.jsonl", files / "runs.csv"
    err = error_of(capsys, ["score", "--cases", str(jsonl), str(csv), "--verdict-attribute", "human.verdict"])
    assert f": {jsonl} is flat JSONL runs; {csv} is flat CSV runs (for an Inspect log give --verdict-score NAME;" in err


def test_an_option_that_applies_to_one_of_the_files_is_no_error(files, capsys):
    # the traces' ids are trace ids, distinct from the case set's E1..E10: 20 runs
    code = main(["score", "--format", "json", "--cases", str(files / "traces.jsonl"), "cases/booking_agent.json",
                 "--join-key", "eval.example_id"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert len(json.loads(captured.out)["runs"]) == 20


def test_sweep_and_calibrate_check_the_same(files, capsys):
    traces = files / "traces.jsonl"
    assert "--verdict-score applies to an Inspect log only" in error_of(
        capsys, ["sweep", "--cases", str(traces), "--verdict-score", "human", "--grid", "adk"])
    assert "--run-unit applies to OTLP traces only" in error_of(
        capsys, ["calibrate", "--cases", str(files / "runs.csv"), "--run-unit", "agent-span"])


def test_a_trace_option_with_a_features_dataset_says_to_give_it_to_featurize(files, tmp_path, capsys):
    out = tmp_path / "runs.features.parquet"
    assert main(["featurize", str(files / "traces.jsonl"), "--out", str(out), "--join-key", "eval.example_id", "--workers", "1"]) == 0
    capsys.readouterr()
    err = error_of(capsys, ["score", "--cases", str(out), "--join-key", "eval.example_id", "--input-format", "otlp"])
    assert err == (f"metric-explorer: error: --join-key, --input-format: {out} is a features dataset, whose runs were read "
                   "when it was written: give those options to metric-explorer featurize, which reads the run files")


def test_featurize_checks_trace_options_against_its_inputs(files, tmp_path, capsys):
    err = error_of(capsys, ["featurize", str(files / "runs.jsonl"), "--out", str(tmp_path / "f"), "--run-unit", "agent-span"])
    assert err.startswith("metric-explorer: error: --run-unit applies to OTLP traces only, and no INPUT file is one: ")
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("flags, named", [(["--month-first"], "--month-first applies"),
                                          (["--day-first", "--id-pattern", "X-[0-9]+"], "--day-first, --id-pattern apply")])
def test_featurize_date_reading_and_id_pattern_with_no_flat_jsonl_input(files, tmp_path, capsys, flags, named):
    csv = files / "runs.csv"
    err = error_of(capsys, ["featurize", "cases/booking_agent.json", str(csv), "--out", str(tmp_path / "f"), *flags])
    assert err == (f"metric-explorer: error: {named} to flat JSONL files only, and no INPUT is one: cases/booking_agent.json "
                   f"is a metric-explorer case set; {csv} is flat CSV runs (other formats keep their own date reading and "
                   "booking-id pattern)")


def test_featurize_month_first_with_a_flat_jsonl_input_is_read(files, tmp_path, capsys):
    out = tmp_path / "f"
    assert main(["featurize", str(files / "runs.jsonl"), "--out", str(out), "--month-first", "--workers", "1"]) == 0
    capsys.readouterr()
    assert json.loads((out / "_features.json").read_text())["settings"]["day_first"] is False


@pytest.mark.parametrize("argv, err", [
    (["--memory-limit", "2GB"], "--memory-limit needs --engine dask: the limit is set on the workers of the LocalCluster "
                                "featurize starts with --engine dask; the local engine's processes have none (give --engine "
                                "dask, or leave --memory-limit out)"),
    (["--scheduler", "tcp://127.0.0.1:5499"], "--scheduler needs --engine dask: the local engine runs worker processes on this "
                                              "machine (give --engine dask, or leave --scheduler out)"),
    (["--engine", "dask", "--scheduler", "tcp://127.0.0.1:5499", "--memory-limit", "2GB"],
     "--memory-limit needs a LocalCluster (--engine dask without --scheduler): the cluster at --scheduler "
     "tcp://127.0.0.1:5499 has its own workers (leave --memory-limit out)"),
    (["--engine", "dask", "--scheduler", "tcp://127.0.0.1:5499", "--workers", "3"],
     "--workers needs the local engine or a LocalCluster (no --scheduler): the cluster at --scheduler tcp://127.0.0.1:5499 "
     "has its own workers (leave --workers out)"),
])
def test_featurize_cluster_options_that_would_be_ignored(files, tmp_path, capsys, argv, err):
    assert error_of(capsys, ["featurize", str(files / "runs.jsonl"), "--out", str(tmp_path / "f"), *argv]) == f"metric-explorer: error: {err}"


def test_file_format_tells_each_format_as_the_loader_does(files, tmp_path):
    assert file_format(files / "traces.jsonl") == "otlp"
    assert file_format(files / "runs.jsonl") == "jsonl"
    assert file_format(files / "runs.csv") == "csv"
    assert file_format(BUNDLED_CASES) == "cases"
    assert file_format(files / "runs.csv", "jsonl") == "jsonl"  # --input-format given: as given
    assert file_format(tmp_path / "missing.json") is None
