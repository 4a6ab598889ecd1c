"""The parallel JSONL loader gives what the flat loader + build_features give, errors included,
and its compact RunStore reads back the same runs."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.core.io import bigload
from explorer.core.io.bigload import load_jsonl_features
from explorer.core.io.errors import LoadError
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import build_features
from explorer.core.io.loaders.flat import load_jsonl
from explorer.core.evaluation.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import synth  # noqa: E402

FEATURE_ARRAYS = ("run_ids", "trajectory", "f1", "tools_called", "tool_invocations", "key_ok", "key_reason", "human",
                  "n_invocations", "key_ok_other", "key_reason_other", "no_output", "empty_answer", "empty_reference")


@pytest.fixture(scope="module")
def synth_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "runs.jsonl"
    return synth.write_jsonl(path, 400, seed=3)


@pytest.mark.parametrize("workers", [1, 2])
def test_same_runs_and_features_as_flat_loader(synth_file, workers, monkeypatch):
    monkeypatch.setattr(bigload, "PARALLEL_MIN_BYTES", 0)  # use worker processes even for a small file
    monkeypatch.setattr(bigload, "CHUNK_BYTES", 64 * 1024)  # several chunks, several blocks
    plain_cs = load_jsonl(str(synth_file))
    plain = build_features(plain_cs)
    seen = []
    cs = load_jsonl_features(synth_file, workers=workers, progress=lambda d, t: seen.append((d, t)))
    fast = build_features(cs)
    assert fast is cs.runs.features  # computed while loading, not again
    for name in FEATURE_ARRAYS:
        assert np.array_equal(getattr(plain, name), getattr(fast, name)), name
    assert plain.tool_names == fast.tool_names
    assert (cs.name, cs.description, cs.source) == (plain_cs.name, plain_cs.description, plain_cs.source)
    assert len(cs.runs) == 400
    assert list(cs.runs) == list(plain_cs.runs)
    assert cs.runs[-1] == plain_cs.runs[399] and cs.runs[1:4] == plain_cs.runs[1:4]
    assert seen and seen[-1][0] == seen[-1][1] == synth_file.stat().st_size
    s = Settings(trajectory="any_order", deny_check=True, deny_tools=("delete_booking",), key_fields=True, f1_threshold=0.5)
    assert evaluate(fast, s).summary == evaluate(plain, s).summary


def test_argument_rules_reach_the_workers(synth_file, monkeypatch):
    """Issue 12: rules given to the parallel loader give the features the ordinary loader gives
    under the same rules (and the returned set carries them, so they are not computed again)."""
    from explorer.core.scoring.arg_rules import ArgRule, ArgRules

    monkeypatch.setattr(bigload, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(bigload, "CHUNK_BYTES", 64 * 1024)
    rules = ArgRules((ArgRule("date", "ignore"), ArgRule("booking_id", "text")))
    plain = build_features(load_jsonl(str(synth_file)), arg_rules=rules)
    cs = load_jsonl_features(synth_file, workers=2, arg_rules=rules)
    fast = build_features(cs)
    assert fast is cs.runs.features and fast.arg_rules == rules == cs.arg_rules
    assert np.array_equal(plain.trajectory, fast.trajectory)
    assert not np.array_equal(plain.trajectory, build_features(load_jsonl(str(synth_file))).trajectory)  # the rules matter here
    # other rules asked of the loaded set: the trajectory columns are computed again
    again = build_features(cs, arg_rules=ArgRules())
    assert again is not fast and np.array_equal(again.trajectory, build_features(load_jsonl(str(synth_file))).trajectory)


def _write(tmp_path, lines, raw=False):
    path = tmp_path / "runs.jsonl"
    data = "".join(lines) if raw else "".join(json.dumps(x) + "\n" for x in lines)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


RUN = {"id": "a", "expected_calls": "search>book", "actual_calls": "search>book", "answer": "booked", "reference": "booked"}


def test_blank_lines_crlf_and_bom(tmp_path):
    text = "\ufeff" + json.dumps(RUN) + "\r\n\r\n" + json.dumps(dict(RUN, id="b", human_verdict="acceptable")) + "\r\n"
    path = _write(tmp_path, [text], raw=True)
    cs = load_jsonl_features(path)
    assert [r.id for r in cs.runs] == ["a", "b"]
    assert list(build_features(cs).human) == [-1, 1]


@pytest.mark.parametrize(
    "content, message",
    [
        ([json.dumps(RUN) + "\n", "{not json\n"], "runs.jsonl: line 2, column 2: invalid JSON"),
        ([json.dumps(RUN) + "\n", json.dumps(RUN) + "\n"], 'runs.jsonl: line 2: duplicate run id "a" (first at line 1)'),
        ([json.dumps(dict(RUN, answer=3)) + "\n"], "runs.jsonl: line 1, answer: expected a string, got a number"),
        ([json.dumps(RUN) + "\n", '{"id":"r1","args":' + "[" * 100_000 + "]" * 100_000 + "}\n"],  # a trial's file
         "runs.jsonl: line 2, column 1018: invalid JSON: nested too deeply (over 1,000 levels of [ and {)"),
        (["\n  \n"], "runs.jsonl: file is empty"),
        ([""], "runs.jsonl: file is empty"),
    ],
)
def test_errors_name_file_line_and_field(tmp_path, content, message):
    path = _write(tmp_path, content, raw=True)
    with pytest.raises(LoadError) as err:
        load_jsonl_features(path)
    assert str(err.value).startswith(str(path) + message[len("runs.jsonl"):])
    with pytest.raises(LoadError) as flat_err:
        load_jsonl(str(path))
    assert str(err.value) == str(flat_err.value)  # the flat loader's words


def test_a_line_that_is_not_an_object(tmp_path):
    path = _write(tmp_path, [json.dumps(RUN) + "\n", "[1, 2]\n"], raw=True)
    with pytest.raises(LoadError, match="line 2: expected a JSON object \\(one run per line\\), got a list"):
        load_jsonl_features(path)


def test_size_limit(tmp_path, monkeypatch):
    path = _write(tmp_path, [RUN])
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", "10")
    with pytest.raises(LoadError, match="over the"):
        load_jsonl_features(path)


def test_json_the_fast_parser_refuses_still_loads(tmp_path):
    # NaN and integers over 64 bits are refused by orjson, accepted by the standard library (and so
    # by the flat loader): the same run loads either way.
    line = json.dumps(RUN)[:-1] + ', "adk_score": NaN, "adk_big": 123456789012345678901234567890}\n'
    path = _write(tmp_path, [line], raw=True)
    run = load_jsonl_features(path).runs[0]
    assert run.extra["adk_big"] == 123456789012345678901234567890 and run.extra["adk_score"] != run.extra["adk_score"]


def test_looks_like_flat_jsonl(tmp_path, synth_file):
    from explorer.core.io.bigload import looks_like_flat_jsonl

    assert looks_like_flat_jsonl(synth_file, min_bytes=0)
    assert not looks_like_flat_jsonl(synth_file)  # small: the ordinary loader is quicker
    assert not looks_like_flat_jsonl(synth_file, "csv", min_bytes=0)
    messages = _write(tmp_path, [{"id": "m", "outputs": []}])
    assert not looks_like_flat_jsonl(messages, min_bytes=0)
    assert not looks_like_flat_jsonl(tmp_path / "missing.jsonl", min_bytes=0)


def test_cli_sweep_through_the_big_loader_equals_the_ordinary_one(synth_file, monkeypatch, capsys):
    from explorer.cli import main
    from explorer.core.evaluation.sweep import n_settings

    argv = ["sweep", "--cases", str(synth_file), "--deny", "delete_booking", "--format", "json"]
    assert main(argv) == 0
    ordinary = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(bigload, "PARALLEL_MIN_BYTES", 0)
    assert main(argv) == 0
    big = json.loads(capsys.readouterr().out)
    assert big["settings"] == ordinary["settings"] and len(big["settings"]) == n_settings() == 159_176


def test_build_features_reports_progress():
    from explorer.commands.common import load_cases

    cs = load_cases(None)
    seen = []
    build_features(cs, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10)


def test_runstore_indexing(synth_file):
    cs = load_jsonl_features(synth_file, workers=1)
    runs = cs.runs
    assert runs[-400] == runs[0] and runs[np.int64(5)] == runs[5]
    assert runs[398:] == (runs[398], runs[399]) and runs[::200] == (runs[0], runs[200])
    with pytest.raises(IndexError):
        runs[400]
    with pytest.raises(TypeError):
        runs["R0000001"]
    assert runs.record(3).startswith(b'{"id":"R0000003"')


@pytest.mark.parametrize("workers", [1, 2])
def test_issue_10_columns_in_parallel(tmp_path, workers, monkeypatch):
    """The columns issue 10 added (both date readings, a turn never run, empty answers and
    references) come out of the worker processes as build_features makes them."""
    monkeypatch.setattr(bigload, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(bigload, "CHUNK_BYTES", 256)  # one or two runs per chunk
    lines = [
        '{"id": "us", "expected_calls": "", "actual_calls": "", "answer": "On 04/03/2026.", "reference": "On April 3, 2026."}',
        '{"id": "none", "expected_calls": "a", "actual_calls": "", "answer": " ", "reference": "done"}',
        '{"id": "blank", "expected_calls": "", "actual_calls": "a", "answer": "?", "reference": "!"}',
        '{"id": "fine", "expected_calls": "", "actual_calls": "", "answer": "ok", "reference": "ok"}',
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n")
    plain = build_features(load_jsonl(str(path)))
    fast = build_features(load_jsonl_features(path, workers=workers))
    for name in FEATURE_ARRAYS:
        assert np.array_equal(getattr(plain, name), getattr(fast, name)), name
    assert fast.key_ok.tolist() == [False, True, True, True] and fast.key_ok_other.tolist() == [True, True, True, True]
    assert fast.no_output.tolist() == [False, True, False, False]
    assert fast.empty_answer.tolist() == [False, True, True, False] and fast.empty_reference.tolist() == [False, False, True, False]


ACCOUNTS = ('{"id": "acct", "expected_calls": [{"name": "transfer", "args": {"account": 123456789012345678901}}], '
            '"actual_calls": [{"name": "transfer", "args": {"account": 123456789012345678902}}], '
            '"answer": "ok", "reference": "ok", "human_verdict": "unacceptable"}\n')
"""The input that broke it (bad-input trial): two account numbers past 2**64 that differ in their
last digit. orjson read both as the float 1.2345678901234568e+20, so in a file of 8 MB or more the
arguments compared equal and the run passed EXACT (a false pass) while a small file failed it."""


@pytest.mark.parametrize("workers", [1, 2])
def test_integers_past_64_bits_stay_exact_in_the_big_loader(tmp_path, workers, monkeypatch):
    monkeypatch.setattr(bigload, "PARALLEL_MIN_BYTES", 0)  # the path files of 8 MB and more take
    path = tmp_path / "accounts.jsonl"
    path.write_text(ACCOUNTS)
    cs = load_jsonl_features(path, workers=workers)
    call = cs.runs[0].invocations[0]
    assert call.expected_calls[0].args["account"] == 123456789012345678901
    assert call.actual_calls[0].args["account"] == 123456789012345678902
    ev = evaluate(build_features(cs), Settings(trajectory="exact"))
    # the arguments differ, so EXACT fails; the person said unacceptable: the evaluator agrees
    assert ev.trajectory_pass.tolist() == [False] and ev.summary.agree == 1


def test_integers_past_64_bits_stay_exact_in_the_features_dataset():
    from explorer.core.io.featurestore import run_from_json, run_to_json
    from explorer.core.io.loaders.flat import loads_jsonl

    run = loads_jsonl(ACCOUNTS, "accounts.jsonl").runs[0]  # the flat loader (small files): exact
    back = run_from_json(run_to_json(run))
    assert back.invocations[0].actual_calls[0].args["account"] == 123456789012345678902
