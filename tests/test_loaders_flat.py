"""The flat JSONL / CSV run format: reading, writing back, and a clear error for each bad input."""

import json

import pytest

from explorer.core.io.errors import LoadError
from explorer.core.io.loaders import load_runs
from explorer.core.io.loaders.flat import dumps_csv, dumps_jsonl, loads_csv, loads_jsonl
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall

S = ToolCall("search_flights", {"destination": "LIS", "date": "2026-03-12"})
B = ToolCall("book_flight", {"flight": "TP1351"})


def jsonl(*records):
    return "".join(json.dumps(r) + "\n" for r in records)


def test_jsonl_records(tmp_path):
    text = jsonl(
        {"id": "r1", "title": "Lisbon", "user_input": "Book Lisbon",
         "expected_calls": [{"name": "search_flights", "args": {"date": "2026-03-12", "destination": "LIS"}},
                            {"name": "book_flight", "args": {"flight": "TP1351"}}],
         "actual_calls": "search_flights > book_flight", "answer": "Booked.", "reference": "Booked TP1351.",
         "human_verdict": "Acceptable ", "human_note": "fine"},
        {"id": 2, "expected_calls": [], "actual_calls": "", "answer": "", "references": ["a", "b"]},
        {"id": "r3", "invocations": [
            {"expected_calls": "search_flights", "actual_calls": [{"name": "search_flights"}], "answer": "x", "reference": "x"},
            {"expected_calls": "book_flight", "actual_calls": [], "answer": "y", "references": ["y"]}],
         "human_verdict": None, "adk_final_eval_status": "PASSED"},
    )
    path = tmp_path / "runs.jsonl"
    path.write_text("\n" + text + "\n\n")
    cs = load_runs(path)
    r1, r2, r3 = cs.runs
    assert (r1.id, r1.title, r1.user_input, r1.human_verdict, r1.human_note) == ("r1", "Lisbon", "Book Lisbon", "acceptable", "fine")
    assert r1.invocations[0].expected_calls == (S, B)
    assert r1.invocations[0].actual_calls == (ToolCall("search_flights", {}), ToolCall("book_flight", {}))
    assert r1.invocations[0].references == ("Booked TP1351.",)
    assert r2.id == "2" and r2.invocations[0].actual_calls == () and r2.invocations[0].references == ("a", "b")
    assert len(r3.invocations) == 2 and r3.invocations[1].expected_calls == (ToolCall("book_flight", {}),)
    assert r3.human_verdict is None and r3.extra == {"adk_final_eval_status": "PASSED"}


def test_csv_rows(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text(
        "id,title,expected_calls,actual_calls,answer,reference,human_verdict,human_note,adk_response_match_score\n"
        'r1,Lisbon,search_flights>book_flight,"[{""name"": ""search_flights"", ""args"": {""destination"": ""LIS"", '
        '""date"": ""2026-03-12""}}, {""name"": ""book_flight"", ""args"": {""flight"": ""TP1351""}}]",'
        '"Booked, and\nconfirmed.",Booked TP1351.,unacceptable,"said ""maybe""",0.5\n'
        "\n"
        "r2,,,,,,,,\n",
        encoding="utf-8",
    )
    cs = load_runs(path)
    r1, r2 = cs.runs
    assert r1.invocations[0].expected_calls == (ToolCall("search_flights", {}), ToolCall("book_flight", {}))
    assert r1.invocations[0].actual_calls == (S, B)
    assert r1.invocations[0].answer == "Booked, and\nconfirmed."
    assert (r1.human_verdict, r1.human_note, r1.extra["adk_response_match_score"]) == ("unacceptable", 'said "maybe"', 0.5)
    assert r2.invocations[0] == Invocation((), (), "", ("",)) and r2.human_verdict is None
    assert r2.extra["adk_response_match_score"] is None


def sample_case_set():
    runs = (
        Run("a", "T a", "u a", (Invocation((S, B), (S,), "ans, with comma", ("ref 1", "ref 2")),), "acceptable", "n\"q"),
        Run("b", "", "", (Invocation((), (B, S), "", ("",)),), None, "", {"adk_final_eval_status": "FAILED", "adk_response_match_score": 0.25}),
        Run("c", "T c", "u c", (Invocation((S,), (S,), "x", ("x",)),), "unacceptable"),
    )
    return CaseSet("sample", "", runs)


@pytest.mark.parametrize("dump, load", [(dumps_jsonl, loads_jsonl), (dumps_csv, loads_csv)])
def test_write_then_read_gives_the_same_runs(dump, load):
    cs = sample_case_set()
    back = load(dump(cs), "x")
    assert [(r.id, r.title, r.user_input, r.invocations, r.human_verdict, r.human_note) for r in back.runs] == \
           [(r.id, r.title, r.user_input, r.invocations, r.human_verdict, r.human_note) for r in cs.runs]
    assert dict(back.runs[1].extra) == {"adk_final_eval_status": "FAILED", "adk_response_match_score": 0.25}


def test_jsonl_keeps_several_invocations_and_csv_refuses_them():
    inv = Invocation((S,), (S,), "x", ("x",))
    cs = CaseSet("m", "", (Run("m1", "", "", (inv, inv)),))
    assert loads_jsonl(dumps_jsonl(cs), "x").runs[0].invocations == (inv, inv)
    with pytest.raises(ValueError, match="m1 has 2 invocations"):
        dumps_csv(cs)


GOOD = {"id": "r1", "expected_calls": [], "actual_calls": [], "answer": "a", "reference": "a"}


@pytest.mark.parametrize("lines, location, problem", [
    ([GOOD, "{not json"], "line 2, column 2", "invalid JSON: Expecting property name enclosed in double quotes"),
    ([GOOD, [1, 2]], "line 2", "expected a JSON object (one run per line), got a list"),
    ([{k: v for k, v in GOOD.items() if k != "answer"}], "line 1", 'missing "answer"'),
    ([{k: v for k, v in GOOD.items() if k != "id"}], "line 1", 'missing "id"'),
    ([{**GOOD, "id": ["x"]}], "line 1, id", "expected a string or a whole number, got a list"),
    ([{**GOOD, "answer": 3}], "line 1, answer", "expected a string, got a number"),
    ([{**GOOD, "actual_calls": [{"name": "a"}, {"args": {}}]}], "line 1, actual_calls[1]", 'missing "name"'),
    ([{**GOOD, "actual_calls": [{"name": "a", "args": [1]}]}], "line 1, actual_calls[0].args", "expected an object, got a list"),
    ([{**GOOD, "expected_calls": "a>>b"}], "line 1, expected_calls", 'empty tool name at position 2 in "a>>b"'),
    # names joined by commas, or one call object not in a list: before, read as one tool named
    # "search, book" / '{"name": "search"}' (a newcomer's trial saw a cell that was no call list read as a name)
    ([{**GOOD, "actual_calls": "search, book"}], "line 1, actual_calls", '"search, book" is not a tool name (\',\' in it): write names as a>b>c'),
    ([{**GOOD, "actual_calls": '{"name": "search"}'}], "line 1, actual_calls", '"{\\"name\\": \\"search\\"}" is not a tool name (\'{\' in it)'),
    # names joined by another arrow: before, "search->book" was read as tools "search-" and "book"
    ([{**GOOD, "actual_calls": "search->book"}], "line 1, actual_calls", '"search->book" joins tool names with "->": write names as a>b>c'),
    ([{**GOOD, "expected_calls": "search => book"}], "line 1, expected_calls", '"search => book" joins tool names with "=>"'),
    ([{**GOOD, "expected_calls": "search\u2192book"}], "line 1, expected_calls", '"search\u2192book" joins tool names with "\u2192"'),
    # a newcomer's trial: look-alike arrows were read as tools "search\u2014" or "search =", others as one name
    ([{**GOOD, "actual_calls": "search\u2014>book"}], "line 1, actual_calls", '"search\u2014>book" joins tool names with "\u2014>"'),
    ([{**GOOD, "actual_calls": "search~>book"}], "line 1, actual_calls", '"search~>book" joins tool names with "~>"'),
    ([{**GOOD, "actual_calls": "search = > book"}], "line 1, actual_calls", '"search = > book" joins tool names with "= >"'),
    ([{**GOOD, "actual_calls": "search \u27f6 book"}], "line 1, actual_calls", '"search \u27f6 book" joins tool names with "\u27f6"'),
    ([{**GOOD, "actual_calls": "search|book"}], "line 1, actual_calls", '"search|book" is not a tool name (\'|\' in it)'),
    ([{**GOOD, "actual_calls": "search\tbook"}], "line 1, actual_calls", '"search\\tbook" is not a tool name (\'\\t\' in it)'),
    # a trial's line: the message names both forms a call list may take
    ([{**GOOD, "expected_calls": 5}], "line 1, expected_calls",
     'expected a list of calls ([{"name": ..., "args": {...}}]) or tool names as text ("search>book"), got a number'),
    ([{**GOOD, "human_verdict": "good"}], "line 1, human_verdict", 'expected "acceptable", "unacceptable" or empty, got "good"'),
    ([{**GOOD, "refrence": "x"}], "line 1, refrence", 'unknown field "refrence"'),
    ([{**GOOD, "references": ["x"]}], "line 1", 'give "reference" or "references", not both'),
    ([{k: v for k, v in GOOD.items() if k != "reference"}], "line 1", 'missing "reference" (or "references")'),
    ([{"id": "r1", "invocations": []}], "line 1, invocations", "must not be empty"),
    ([{"id": "r1", "answer": "a", "invocations": [GOOD]}], "line 1, answer", '"answer" belongs inside "invocations"'),
    ([{"id": "r1", "invocations": [{"expected_calls": [], "actual_calls": [], "answer": "a", "reference": 1}]}],
     "line 1, invocations[0].reference", "expected a string, got a number"),
    ([GOOD, {**GOOD, "title": "again"}], "line 2", 'duplicate run id "r1" (first at line 1)'),
])
def test_bad_jsonl(tmp_path, lines, location, problem):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines))
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert (info.value.file, info.value.location) == (str(path), location)
    assert info.value.problem.startswith(problem)


HEADER = "id,expected_calls,actual_calls,answer,reference\n"


@pytest.mark.parametrize("text, location, problem", [
    ("id,answer,reference\nr1,a,a\n", "row 1 (header)", 'missing column "expected_calls"'),
    ("id,expected_calls,actual_calls,answer\nr1,,,a\n", "row 1 (header)", 'missing column "reference" (or "references")'),
    (HEADER, "", "no runs in the file (0 runs)"),
    (HEADER + "r1,,,a,a\nr2,,,a\n", "row 3", "has 4 cells, the header has 5"),
    (HEADER + "r1,,\"[{\"\"name\"\": 1}]\",a,a\n", "row 2, column actual_calls", "actual_calls[0].name: expected a string, got a number"),
    (HEADER + "r1,,[oops,a,a\n", "row 2, column actual_calls", "invalid JSON list of calls"),
    (HEADER + ",,,a,a\n", "row 2, column id", "empty run id"),
    (HEADER + "r1,,,a,a\nr1,,,b,b\n", "row 3", 'duplicate run id "r1" (first at row 2)'),
    ("id,expected_calls,actual_calls,answer,references\nr1,,,a,just text\n", "row 2, column references",
     "expected a JSON list of texts"),
    ("id,expected_calls,actual_calls,answer,reference,colour\nr1,,,a,a,red\n", "row 2, column colour", 'unknown field "colour"'),
    (HEADER.replace("\n", ",human_verdict\n") + "r1,,,a,a,yes\n", "row 2, column human_verdict",
     'expected "acceptable", "unacceptable" or empty, got "yes"'),
])
def test_bad_csv(tmp_path, text, location, problem):
    path = tmp_path / "runs.csv"
    path.write_text(text)
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert (info.value.file, info.value.location) == (str(path), location)
    assert info.value.problem.startswith(problem)


@pytest.mark.parametrize("name, content, problem", [
    ("empty.jsonl", b"", "file is empty"),
    ("blank.csv", b" \n\n", "file is empty"),
    ("binary.csv", b"id,answer\x00\x01\x02", "binary file (NUL bytes), not JSON or CSV text"),
    ("latin1.csv", "id,answer\nr1,caf\xe9\n".encode("latin-1"), "not UTF-8 text"),
    ("notes.txt", b"just some words\nnothing tabular\n", "not JSON, JSONL or CSV"),
])
def test_bad_files(tmp_path, name, content, problem):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert info.value.file == str(path) and info.value.problem.startswith(problem)


def test_over_the_size_limit(tmp_path, monkeypatch):
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + " " * 2_000_000)
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", "1000000")
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert str(info.value) == f"{path}: file is 2.0 MB, over the 1 MB limit"


def test_a_json_list_of_flat_records(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([GOOD, {**GOOD, "id": "r2", "actual_calls": "search_flights"}], indent=2))
    cs = load_runs(path)
    assert [r.id for r in cs.runs] == ["r1", "r2"]
    assert cs.runs[1].invocations[0].actual_calls == (ToolCall("search_flights", {}),)
    path.write_text(json.dumps([GOOD, {**GOOD, "id": "r2", "answer": None}]))
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert str(info.value) == f"{path}: [1].answer: expected a string, got null"


def test_jsonl_named_json_is_read_as_jsonl(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "id": "r2"}) + "\n")
    assert [r.id for r in load_runs(path).runs] == ["r1", "r2"]


def test_unicode_line_separators_inside_texts_survive_jsonl():
    # json.dumps(ensure_ascii=False) writes U+2028 and U+0085 raw: JSONL lines are split on "\n" only
    inv = Invocation((), (), "one\u2028two\x85three\r\nfour", ("ref",))
    cs = CaseSet("u", "", (Run("u1", "", "", (inv,)), Run("u2", "", "", (inv,))))
    text = dumps_jsonl(cs)
    assert "\u2028" in text and text.count("\n") == 2
    assert loads_jsonl(text, "x").runs[1].invocations[0].answer == "one\u2028two\x85three\r\nfour"
    assert loads_jsonl(text.replace("\n", "\r\n"), "x").runs[0].invocations == (inv,)


def test_json_errors_read_as_whole_phrases():
    # found by the newcomer trial: Python's "Unterminated string starting at" was shown cut off
    # after "at" (its position goes in the place instead). Column 10 is where the string starts.
    from explorer.core.io.reading import parse_json

    with pytest.raises(LoadError) as info:
        parse_json('{"id": 1, "title": "no end', "truncated.json")
    assert str(info.value) == "truncated.json: line 1, column 20: invalid JSON: Unterminated string starting here"
    with pytest.raises(LoadError) as info:
        loads_jsonl('\n{"id": "b\n', "runs.jsonl")
    assert str(info.value) == "runs.jsonl: line 2, column 8: invalid JSON: Unterminated string starting here"
    with pytest.raises(LoadError) as info:  # messages without a position stay as they were
        parse_json('{"id": }', "x.json")
    assert str(info.value) == "x.json: line 1, column 8: invalid JSON: Expecting value"


@pytest.mark.parametrize("name, content, place", [
    ("latin1.csv", "id,answer\nr1,caf\xe9\n".encode("latin-1"), "line 2, column 7"),  # é in Latin-1 is the byte 0xe9
    ("bom.csv", b"\xef\xbb\xbfid,answer\nr1,ok\nr2,caf\xe9\n", "line 3, column 7"),  # the BOM is not counted twice
    ("latin1.jsonl", b'{"id": "r1", "answer": "caf\xe9"}\n', "line 1, column 28"),
])
def test_a_non_utf8_file_names_the_line_and_the_column(tmp_path, name, content, place):
    # the trial's finding: only "byte 63" was given, with no line to look at
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(LoadError) as info:
        load_runs(path)
    assert info.value.location == place
    assert info.value.problem == "not UTF-8 text (byte 0xe9; binary or another encoding: save the file as UTF-8)"


def test_the_big_file_reader_names_a_non_utf8_byte_as_the_small_file_reader_does(tmp_path):
    from explorer.core.io.bigload import load_jsonl_features

    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"id": "r0", "expected_calls": [], "actual_calls": [], "answer": "x", "reference": "x"}\n'
                     b'{"id": "r1", "answer": "caf\xe9"}\n')
    with pytest.raises(LoadError) as info:
        load_jsonl_features(path)
    assert (info.value.location, info.value.problem) == (
        "line 2, column 28", "not UTF-8 text (byte 0xe9; binary or another encoding: save the file as UTF-8)")


def test_namespaced_arrow_names_are_kept(tmp_path):
    """Names with ``.``, ``:`` or ``/`` (namespaced tools) are still names."""
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps({**GOOD, "actual_calls": "mcp:files/read > db.query"}) + "\n")
    (run,) = load_runs(path).runs
    assert run.invocations[0].actual_calls == (ToolCall("mcp:files/read", {}), ToolCall("db.query", {}))


def test_arrow_names_keep_hyphens_and_namespaces_inside_names():
    """The look-alike arrow check looks only at what stands just before a ">": a name may hold a
    hyphen, an equals sign, dots, colons, slashes and spaces (LangChain-style "Google Search")."""
    from explorer.core.io.loaders._common import parse_arrow_names

    calls = parse_arrow_names("get-profile > ns.search:v2>a=b>Google Search", "p")
    assert [c.name for c in calls] == ["get-profile", "ns.search:v2", "a=b", "Google Search"]
    assert all(c.args == {} for c in calls)
