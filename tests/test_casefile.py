"""The case-set format: a good file loads, each bad file gives one clear line (file, JSON path, field)."""

import json

import pytest

from explorer.core.io.casefile import dumps_case_set, load_case_set, loads_case_set
from explorer.core.io.errors import LoadError


def good_run(run_id="R1"):
    return {
        "id": run_id,
        "title": "t",
        "user_input": "u",
        "invocations": [
            {
                "expected_calls": [{"name": "search", "args": {"n": 1}}],
                "actual_calls": [{"name": "search", "args": {"n": 1}}],
                "answer": "a",
                "references": ["r1", "r2"],
            }
        ],
        "human_verdict": "acceptable",
    }


def doc(**changes):
    d = {"format": "metric-explorer/cases@1", "name": "n", "description": "d", "runs": [good_run()]}
    d.update(changes)
    return d


def write(tmp_path, data, name="cases.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def load_error(tmp_path, data) -> str:
    p = write(tmp_path, data)
    with pytest.raises(LoadError) as info:
        load_case_set(p)
    msg = str(info.value)
    assert msg.startswith(str(p) + ": ")
    return msg[len(str(p)) + 2 :]


def test_good_file_loads_several_references_and_invocations(tmp_path):
    run = good_run()
    run["invocations"].append(dict(run["invocations"][0], answer="b"))
    cs = load_case_set(write(tmp_path, doc(runs=[run])))
    assert cs.name == "n" and len(cs.runs) == 1
    assert len(cs.runs[0].invocations) == 2
    assert cs.runs[0].invocations[0].references == ("r1", "r2")
    assert cs.runs[0].human_verdict == "acceptable"


def test_round_trip(tmp_path):
    cs = load_case_set(write(tmp_path, doc()))
    again = loads_case_set(dumps_case_set(cs), "again.json")
    assert again.runs == cs.runs


def test_unlabelled_run(tmp_path):
    run = good_run()
    del run["human_verdict"]
    assert load_case_set(write(tmp_path, doc(runs=[run]))).runs[0].human_verdict is None


def test_invalid_json(tmp_path):
    assert load_error(tmp_path, '{"format": ,}') == "line 1, column 12: invalid JSON: Expecting value"


def test_missing_call_name(tmp_path):
    d = doc(runs=[good_run("a"), good_run("b"), good_run("c"), good_run("d")])
    del d["runs"][3]["invocations"][0]["actual_calls"][0]["name"]
    assert load_error(tmp_path, d) == 'runs[3].invocations[0].actual_calls[0]: missing "name"'


def test_wrong_type(tmp_path):
    d = doc()
    d["runs"][0]["invocations"][0]["answer"] = 42
    assert load_error(tmp_path, d) == "runs[0].invocations[0].answer: expected a string, got a number"


def test_bad_verdict(tmp_path):
    d = doc()
    d["runs"][0]["human_verdict"] = "Fine "
    assert load_error(tmp_path, d) == 'runs[0].human_verdict: expected "acceptable", "unacceptable" or null, got "Fine "'
    d["runs"][0]["human_verdict"] = 1
    assert load_error(tmp_path, d) == 'runs[0].human_verdict: expected "acceptable", "unacceptable" or null, got a number'


def test_verdicts_read_as_the_flat_reader_reads_them(tmp_path):
    """Case and surrounding spaces are ignored and "" is unlabelled, as in a JSONL or CSV file
    (``parse_verdict``); before, "Acceptable " was refused with an error that did not show it."""
    runs = [good_run("a"), good_run("b"), good_run("c"), good_run("d")]
    runs[0]["human_verdict"] = "Acceptable "
    runs[1]["human_verdict"] = " UNACCEPTABLE"
    runs[2]["human_verdict"] = "  "
    del runs[3]["human_verdict"]
    runs[3]["labels"] = [{"annotator": "ana", "verdict": "Unacceptable"}, {"annotator": "bo", "verdict": "unacceptable "}]
    cs = load_case_set(write(tmp_path, doc(runs=runs)))
    assert [r.human_verdict for r in cs.runs] == ["acceptable", "unacceptable", None, "unacceptable"]
    assert [lab.verdict for lab in cs.runs[3].labels] == ["unacceptable", "unacceptable"]


def test_label_verdict_is_required(tmp_path):
    d = doc()
    d["runs"][0]["labels"] = [{"annotator": "ana", "verdict": ""}]
    assert load_error(tmp_path, d) == 'runs[0].labels[0].verdict: expected "acceptable", "unacceptable" or null, got ""'


def test_duplicate_run_ids(tmp_path):
    assert load_error(tmp_path, doc(runs=[good_run("E1"), good_run("E1")])) == (
        'runs[1].id: duplicate run id "E1" (first at runs[0])'
    )


def test_empty_runs_list(tmp_path):
    assert load_error(tmp_path, doc(runs=[])) == "runs: no runs (a case set needs at least one run)"


def test_no_invocations_and_no_references(tmp_path):
    d = doc()
    d["runs"][0]["invocations"] = []
    assert load_error(tmp_path, d) == "runs[0].invocations: must not be empty"
    d = doc()
    d["runs"][0]["invocations"][0]["references"] = []
    assert load_error(tmp_path, d) == "runs[0].invocations[0].references: must not be empty"


def test_wrong_format_and_unknown_field(tmp_path):
    assert load_error(tmp_path, doc(format="other")) == 'format: expected "metric-explorer/cases@1"'
    assert load_error(tmp_path, doc(extra=1)) == '(top level): unknown field "extra"'
    assert load_error(tmp_path, [1, 2]).startswith("(top level): expected an object")


def test_empty_and_binary_files(tmp_path):
    assert load_error(tmp_path, "") == "file is empty"
    p = tmp_path / "bin.json"
    p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(LoadError, match="binary file"):
        load_case_set(p)


def test_size_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", "10")
    p = write(tmp_path, doc())
    with pytest.raises(LoadError, match="over the 10 bytes limit"):
        load_case_set(p)


def test_bad_id_pattern(tmp_path):
    msg = load_error(tmp_path, doc(key_fields={"id_pattern": "("}))
    assert msg.startswith("key_fields.id_pattern: invalid regex")
