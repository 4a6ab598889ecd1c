"""A run or pair id is untrusted text: every duplicate-id error shows it escaped and cut as
``errors.show`` does (the file loaders' form), so a newline in an id cannot split the one-line
message. Before, the case-set, pairs, features and parallel JSONL paths put the raw id in."""

import json

import pytest

from explorer.core.io import bigload
from explorer.core.io.casefile import loads_case_set
from explorer.core.io.errors import LoadError
from explorer.core.io.pairs import load_pairs

CASES = json.loads(open("cases/booking_agent.json", encoding="utf-8").read())
PAIRS = json.loads(open("cases/labelled_pairs.json", encoding="utf-8").read())


def test_case_set_duplicate_id_is_escaped():
    data = json.loads(json.dumps(CASES))
    data["runs"][0]["id"] = data["runs"][1]["id"] = "E1\nforged: line"
    with pytest.raises(LoadError) as got:
        loads_case_set(json.dumps(data), "c.json")
    assert str(got.value) == 'c.json: runs[1].id: duplicate run id "E1\\nforged: line" (first at runs[0])'


def test_pairs_duplicate_id_is_escaped(tmp_path):
    data = json.loads(json.dumps(PAIRS))
    data["pairs"][0]["id"] = data["pairs"][1]["id"] = "p\tq"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LoadError) as got:
        load_pairs(path)
    assert str(got.value) == f'{path}: pairs[1].id: duplicate pair id "p\\tq" (first at pairs[0])'


def test_parallel_jsonl_duplicate_id_is_escaped(tmp_path, monkeypatch):
    record = {"id": "a\nb", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(LoadError) as got:
        bigload.load_jsonl_features(str(path), workers=1)
    assert str(got.value) == f'{path}: line 2: duplicate run id "a\\nb" (first at line 1)'


def test_line_separators_in_an_id_are_escaped_too():
    """A newcomer's trial: U+2028 in a run id reached the message raw, and ``splitlines`` (and some
    viewers) broke the one-line error there. NEL, U+2028 and U+2029 are escaped as JSON's
    ``ensure_ascii`` writes them."""
    data = json.loads(json.dumps(CASES))
    data["runs"][0]["id"] = data["runs"][1]["id"] = "R\u2028X\u0085Y\u2029Z"
    with pytest.raises(LoadError) as got:
        loads_case_set(json.dumps(data), "c.json")
    assert str(got.value) == 'c.json: runs[1].id: duplicate run id "R\\u2028X\\u0085Y\\u2029Z" (first at runs[0])'
    assert len(str(got.value).splitlines()) == 1


# --- one file given twice: not a duplicate id ------------------------------------------------------

def _runs_file(tmp_path):
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps({"id": "a", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}) + "\n")
    return path


@pytest.mark.parametrize("command", ["score", "sweep", "calibrate", "compare"])
def test_one_file_given_twice_is_named_so(command, tmp_path, capsys, monkeypatch):
    # a trial: `score --cases a.jsonl a.jsonl` read 'duplicate run id "a": also in a.jsonl line 1'
    from explorer.cli import main

    monkeypatch.chdir(tmp_path)
    _runs_file(tmp_path)
    argv = [command, "--cases", "two.jsonl", "two.jsonl"]
    if command == "compare":
        (tmp_path / "s.json").write_text('{"format": "metric-explorer/settings@1", "settings": {}}')
        argv += ["--settings", "s.json", "--settings", "s.json"]
    assert main(argv) == 2
    assert capsys.readouterr().err == "metric-explorer: error: --cases: two.jsonl is given twice: give each file once\n"


def test_another_spelling_or_a_link_of_the_same_file_is_named_with_the_first(tmp_path, capsys, monkeypatch):
    from explorer.cli import main

    monkeypatch.chdir(tmp_path)
    _runs_file(tmp_path)
    (tmp_path / "link.jsonl").symlink_to("two.jsonl")
    for other in ("./two.jsonl", "link.jsonl", str(tmp_path / "two.jsonl")):
        assert main(["score", "--cases", "two.jsonl", other]) == 2
        assert capsys.readouterr().err == f"metric-explorer: error: --cases: {other} is the file two.jsonl given again: give each file once\n"
    assert main(["featurize", "two.jsonl", "*.jsonl", "--out", "f"]) == 2  # the glob matches link.jsonl and two.jsonl
    assert capsys.readouterr().err == "metric-explorer: error: INPUT: link.jsonl is the file two.jsonl given again: give each file once\n"
    assert not (tmp_path / "f").exists()
